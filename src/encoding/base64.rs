//! The ID's 8 big-endian bytes in URL-safe base64 without padding: always 11 characters.
//!
//! 11 characters carry 66 bits: the 64 bits of the value, most significant first, then 2
//! padding bits that must be zero (so each value has exactly one text).

use super::encoded::EncodedId;
use super::error::{ParseErrorKind, ParseIdError};
use super::scheme::Encoding;
use super::table::{alphabet, decode_table, INVALID};

/// The URL-safe alphabet of RFC 4648 §5.
const ALPHABET: &[u8; 64] = alphabet::<64>(Encoding::Base64);

/// The length of every base64 ID.
const LEN: usize = 11;

static TABLE: [u8; 256] = decode_table(ALPHABET);

/// Encodes the value's 8 big-endian bytes.
#[inline]
pub(crate) fn encode(value: u64) -> EncodedId {
    let mut buf = [0_u8; EncodedId::CAPACITY];
    let start = buf.len() - LEN;
    // Characters 0..10 hold bits 63..4, six at a time.
    for (i, slot) in buf[start..EncodedId::CAPACITY - 1].iter_mut().enumerate() {
        *slot = ALPHABET[((value >> (58 - 6 * i)) & 0x3F) as usize];
    }
    // The last one holds bits 3..0 followed by the two zero padding bits.
    buf[EncodedId::CAPACITY - 1] = ALPHABET[((value & 0xF) << 2) as usize];
    EncodedId::from_tail(buf, start)
}

/// Decodes exactly 11 alphabet characters whose padding bits are zero.
///
/// When several rules are broken the error reports, in this order: empty input, the
/// length, the first byte outside the alphabet, the padding bits.
#[inline]
pub(crate) fn decode(bytes: &[u8]) -> Result<u64, ParseIdError> {
    if bytes.is_empty() {
        return Err(ParseIdError::new(Encoding::Base64, ParseErrorKind::Empty));
    }
    let Ok(exact) = <&[u8; LEN]>::try_from(bytes) else {
        return Err(ParseIdError::new(
            Encoding::Base64,
            ParseErrorKind::InvalidLength {
                len: bytes.len(),
                expected: LEN,
            },
        ));
    };
    let mut acc: u64 = 0;
    for (i, &byte) in exact.iter().enumerate() {
        let digit = TABLE[usize::from(byte)];
        if digit == INVALID {
            return Err(ParseIdError::invalid_at(Encoding::Base64, bytes, i));
        }
        // 11 * 6 = 66 bits: the first 10 digits (60 bits) fit, the last adds 4 value bits.
        acc = if i < LEN - 1 {
            (acc << 6) | u64::from(digit)
        } else {
            if digit & 0b11 != 0 {
                return Err(ParseIdError::new(
                    Encoding::Base64,
                    ParseErrorKind::NonZeroPadding,
                ));
            }
            (acc << 4) | u64::from(digit >> 2)
        };
    }
    Ok(acc)
}
