//! The generic positional codec shared by decimal, base2, base32, base36, base58 and hex:
//! one encoder writing digits into an [`EncodedId`]'s stack buffer, and one decoder driven
//! by a 256-entry table built at compile time from the alphabet.

use super::encoded::EncodedId;
use super::error::{ParseErrorKind, ParseIdError};
use super::Encoding;

/// Marks a byte that is not in an alphabet, in a decode table.
pub(crate) const INVALID: u8 = 0xFF;

/// Builds the byte -> digit table of an alphabet; every byte outside it maps to [`INVALID`].
///
/// Evaluated in `static` initialisers, so the asserts are compile-time checks: an alphabet
/// must be ASCII (which is what lets [`EncodedId`] hold only ASCII) and free of duplicates.
pub(crate) const fn decode_table(alphabet: &[u8]) -> [u8; 256] {
    assert!(
        alphabet.len() >= 2 && alphabet.len() <= 64,
        "alphabet size must be 2..=64"
    );
    let mut table = [INVALID; 256];
    let mut digit = 0;
    while digit < alphabet.len() {
        let byte = alphabet[digit];
        assert!(byte.is_ascii(), "alphabet must be ASCII");
        assert!(
            table[byte as usize] == INVALID,
            "alphabet has a duplicate symbol"
        );
        table[byte as usize] = digit as u8;
        digit += 1;
    }
    table
}

/// `encoding`'s alphabet as an array of `N` bytes; a compile-time error (in a `static`
/// initialiser) when it does not have `N` symbols.
pub(crate) const fn alphabet<const N: usize>(encoding: Encoding) -> &'static [u8; N] {
    match encoding.alphabet().as_bytes().first_chunk::<N>() {
        Some(digits) if encoding.alphabet().len() == N => digits,
        _ => panic!("the alphabet does not have BASE symbols"),
    }
}

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
    pub(crate) fn decode(&self, text: &str) -> Result<u64, ParseIdError> {
        let bytes = text.as_bytes();
        let Some((&first, rest)) = bytes.split_first() else {
            return Err(ParseIdError::new(self.encoding, ParseErrorKind::Empty));
        };
        let first = self.table[usize::from(first)];
        if first == INVALID {
            return Err(invalid_char(self.encoding, text, 0));
        }
        if first == 0 && !rest.is_empty() {
            return Err(self.cold_error(text, 1, ParseErrorKind::LeadingZero));
        }
        let mut value = u64::from(first);
        for (i, &byte) in rest.iter().enumerate() {
            let digit = self.table[usize::from(byte)];
            if digit == INVALID {
                return Err(invalid_char(self.encoding, text, i + 1));
            }
            value = match value
                .checked_mul(BASE as u64)
                .and_then(|v| v.checked_add(u64::from(digit)))
            {
                Some(v) => v,
                None => return Err(self.cold_error(text, i + 2, ParseErrorKind::Overflow)),
            };
        }
        Ok(value)
    }

    /// The error for a text found to break `kind` before byte `from`: an invalid byte at or
    /// after `from` takes precedence, so the report does not depend on where the scan
    /// stopped.
    #[cold]
    #[inline(never)]
    fn cold_error(&self, text: &str, from: usize, kind: ParseErrorKind) -> ParseIdError {
        let bytes = text.as_bytes();
        match (from..bytes.len()).find(|&i| self.table[usize::from(bytes[i])] == INVALID) {
            Some(index) => invalid_char(self.encoding, text, index),
            None => ParseIdError::new(self.encoding, kind),
        }
    }
}

/// The error for the byte at `index`, which is not in the alphabet.
///
/// Every byte before `index` is an (ASCII) alphabet symbol, so `index` is a char boundary
/// and the offending `char` is the one starting there; the fallback is never taken in
/// practice but keeps this total.
#[cold]
#[inline(never)]
pub(crate) fn invalid_char(encoding: Encoding, text: &str, index: usize) -> ParseIdError {
    let ch = text
        .get(index..)
        .and_then(|tail| tail.chars().next())
        .unwrap_or(char::REPLACEMENT_CHARACTER);
    ParseIdError::new(encoding, ParseErrorKind::InvalidChar { ch, index })
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
