//! bwmarrin/snowflake's `Base64()`: standard base64 (RFC 4648 §4, `+` `/` and `=` padding) of
//! the ID's **decimal text**, as Go's `base64.StdEncoding.EncodeToString([]byte(id.String()))`.
//!
//! Its other decimal-text form, `Bytes()`, is the decimal codec under another name
//! ([`radix::BWMARRIN_BYTES`](super::radix::BWMARRIN_BYTES)).
//!
//! The decoder is strict where Go's is lenient, so that every text has one value and every
//! value one text: no line breaks, padding required, padding bits zero, and the decoded text
//! canonical decimal (no sign, no leading zero, at most `u64::MAX`).

use super::encoded::EncodedId;
use super::error::{ParseErrorKind, ParseIdError};
use super::radix::DECIMAL;
use super::scheme::Encoding;
use super::table::{alphabet, decode_table, INVALID};

/// The standard alphabet of RFC 4648 §4.
const ALPHABET: &[u8; 64] = alphabet::<64>(Encoding::BwmarrinBase64);

static TABLE: [u8; 256] = decode_table(ALPHABET);

/// The padding symbol.
const PAD: u8 = b'=';

/// Encodes the decimal text of `value` (1 to 20 digits: 4 to 28 characters).
#[inline]
pub(crate) fn encode(value: u64) -> EncodedId {
    let decimal = DECIMAL.encode(value);
    let text = decimal.as_bytes();
    let mut buf = [0_u8; EncodedId::CAPACITY];
    let start = buf.len() - text.len().div_ceil(3) * 4;
    for (block, out) in text.chunks(3).zip(buf[start..].chunks_exact_mut(4)) {
        let group = block
            .iter()
            .enumerate()
            .fold(0_u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = if i <= block.len() {
                ALPHABET[(group >> (18 - 6 * i) & 0x3F) as usize]
            } else {
                PAD
            };
        }
    }
    EncodedId::from_tail(buf, start)
}

/// Decodes a padded standard base64 text of a canonical decimal text.
///
/// When several rules are broken the error reports, in this order: empty input, the first
/// byte that is neither in the alphabet nor `=`, a length that is not a multiple of 4, a
/// misplaced `=`, non-zero padding bits, the first decoded byte that is not a digit, a
/// leading zero, overflow.
pub(crate) fn decode(input: &[u8]) -> Result<u64, ParseIdError> {
    let error = |kind| Err(ParseIdError::new(Encoding::BwmarrinBase64, kind));
    if input.is_empty() {
        return error(ParseErrorKind::Empty);
    }
    if let Some(i) = input
        .iter()
        .position(|&b| b != PAD && TABLE[usize::from(b)] == INVALID)
    {
        return Err(ParseIdError::invalid_at(Encoding::BwmarrinBase64, input, i));
    }
    if !input.len().is_multiple_of(4) {
        return error(ParseErrorKind::LengthNotMultiple {
            len: input.len(),
            multiple: 4,
        });
    }
    // Padding: at most two `=`, all at the end.
    let data_len = match input.iter().position(|&b| b == PAD) {
        None => input.len(),
        Some(p) if p + 2 >= input.len() && input[p..].iter().all(|&b| b == PAD) => p,
        Some(p) => return error(ParseErrorKind::InvalidChar { ch: '=', index: p }),
    };
    let data = &input[..data_len];
    // The bits past the last whole byte: 2 with one `=`, 4 with two.
    let spare_bits = (input.len() - data_len) * 2;
    let last = TABLE[usize::from(data[data_len - 1])];
    if u32::from(last) & ((1 << spare_bits) - 1) != 0 {
        return error(ParseErrorKind::NonZeroPadding);
    }
    if let Some((index, byte)) = decoded(data)
        .enumerate()
        .find(|&(_, b)| !b.is_ascii_digit())
    {
        return error(ParseErrorKind::NotDecimalText { byte, index });
    }
    let mut digits = decoded(data);
    let mut value = u64::from(digits.next().unwrap_or(b'0') - b'0');
    let mut rest = digits.peekable();
    if value == 0 && rest.peek().is_some() {
        return error(ParseErrorKind::LeadingZero);
    }
    for digit in rest {
        value = match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(digit - b'0')))
        {
            Some(v) => v,
            None => return error(ParseErrorKind::Overflow),
        };
    }
    Ok(value)
}

/// The bytes that the unpadded base64 `data` (alphabet symbols only, not 1 mod 4 long)
/// decodes to, without allocating.
fn decoded(data: &[u8]) -> impl Iterator<Item = u8> + '_ {
    data.chunks(4).flat_map(|block| {
        let group = block.iter().enumerate().fold(0_u32, |acc, (i, &b)| {
            acc | u32::from(TABLE[usize::from(b)]) << (18 - 6 * i)
        });
        // A block of n symbols (2 to 4) holds n - 1 whole bytes.
        let bytes = block.len().saturating_sub(1);
        (0..bytes).map(move |i| (group >> (16 - 8 * i)) as u8)
    })
}
