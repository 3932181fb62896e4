//! The generic positional codec shared by decimal, base2, base32, base36, base58, hex and
//! bwmarrin's bytes: one encoder writing digits into an [`EncodedId`]'s stack buffer, and one
//! decoder driven by a 256-entry table built at compile time from the alphabet.

use super::encoded::EncodedId;
use super::error::{ParseErrorKind, ParseIdError};
use super::scheme::Encoding;
use super::table::{alphabet, decode_table, INVALID};

/// A positional numeral system of base `BASE`, most significant digit first, no leading
/// zeros (zero is the single zero digit), like Go's `strconv.FormatUint`.
pub(crate) struct Radix<const BASE: usize> {
    encoding: Encoding,
    digits: &'static [u8; BASE],
    table: [u8; 256],
}

impl<const BASE: usize> Radix<BASE> {
    /// The codec of `encoding`, whose [`alphabet`](Encoding::alphabet) must have `BASE`
    /// symbols (checked at compile time: the codecs are `static`s).
    const fn new(encoding: Encoding) -> Self {
        let digits = alphabet::<BASE>(encoding);
        Radix {
            encoding,
            digits,
            table: decode_table(digits),
        }
    }

    /// Writes `value`'s digits, least significant first, from the end of the buffer.
    ///
    /// `BASE` is a constant, so the division and remainder compile to multiplications
    /// (or shifts for powers of two).
    #[inline]
    pub(crate) fn encode(&self, mut value: u64) -> EncodedId {
        let mut buf = [0_u8; EncodedId::CAPACITY];
        let mut start = buf.len();
        // At most 64 iterations (base 2 of u64::MAX), so `start` never underflows.
        loop {
            start -= 1;
            buf[start] = self.digits[(value % BASE as u64) as usize];
            value /= BASE as u64;
            if value == 0 {
                break;
            }
        }
        EncodedId::from_tail(buf, start)
    }

    /// Parses the canonical text of a value: non-empty, only alphabet bytes, no leading
    /// zero digit unless the text is the zero digit alone, at most `u64::MAX`.
    ///
    /// When several rules are broken the error reports, in this order: empty input, the
    /// first byte outside the alphabet, a leading zero, overflow.
    #[inline]
    pub(crate) fn decode(&self, bytes: &[u8]) -> Result<u64, ParseIdError> {
        let Some((&first, rest)) = bytes.split_first() else {
            return Err(ParseIdError::new(self.encoding, ParseErrorKind::Empty));
        };
        let first = self.table[usize::from(first)];
        if first == INVALID {
            return Err(ParseIdError::invalid_at(self.encoding, bytes, 0));
        }
        if first == 0 && !rest.is_empty() {
            return Err(self.cold_error(bytes, 1, ParseErrorKind::LeadingZero));
        }
        let mut value = u64::from(first);
        for (i, &byte) in rest.iter().enumerate() {
            let digit = self.table[usize::from(byte)];
            if digit == INVALID {
                return Err(ParseIdError::invalid_at(self.encoding, bytes, i + 1));
            }
            value = match value
                .checked_mul(BASE as u64)
                .and_then(|v| v.checked_add(u64::from(digit)))
            {
                Some(v) => v,
                None => return Err(self.cold_error(bytes, i + 2, ParseErrorKind::Overflow)),
            };
        }
        Ok(value)
    }

    /// The error for an input found to break `kind` before byte `from`: an invalid byte at
    /// or after `from` takes precedence, so the report does not depend on where the scan
    /// stopped.
    #[cold]
    #[inline(never)]
    fn cold_error(&self, bytes: &[u8], from: usize, kind: ParseErrorKind) -> ParseIdError {
        match (from..bytes.len()).find(|&i| self.table[usize::from(bytes[i])] == INVALID) {
            Some(index) => ParseIdError::invalid_at(self.encoding, bytes, index),
            None => ParseIdError::new(self.encoding, kind),
        }
    }
}

/// Decimal digits.
pub(crate) static DECIMAL: Radix<10> = Radix::new(Encoding::Decimal);

/// Binary digits.
pub(crate) static BASE2: Radix<2> = Radix::new(Encoding::Base2);

/// z-base-32, as bwmarrin/snowflake's `Base32()`.
pub(crate) static BASE32: Radix<32> = Radix::new(Encoding::Base32);

/// Digits then lowercase letters, as Go's `strconv.FormatUint(v, 36)`.
pub(crate) static BASE36: Radix<36> = Radix::new(Encoding::Base36);

/// The Flickr base58 alphabet (no `0`, `O`, `I`, `l`), as bwmarrin/snowflake's `Base58()`.
pub(crate) static BASE58: Radix<58> = Radix::new(Encoding::Base58);

/// Lowercase hexadecimal digits, no prefix.
pub(crate) static HEX: Radix<16> = Radix::new(Encoding::Hex);

/// bwmarrin/snowflake's `Bytes()`: the decimal text, its errors named for that encoding.
pub(crate) static BWMARRIN_BYTES: Radix<10> = Radix::new(Encoding::BwmarrinBytes);
