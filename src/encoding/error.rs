//! [`ParseIdError`] and [`ParseErrorKind`]: why an input is not the canonical text of an ID.
//!
//! Depends only on [`scheme`](super::scheme) (the encodings' names and alphabets); the codecs
//! depend on it.

use core::fmt;

use super::scheme::Encoding;

/// Why a text (or byte string) is not the canonical form of an [`Id`](crate::id::Id) in an
/// encoding.
///
/// Parsers are strict so that whatever parses re-encodes to exactly the same input:
/// anything else (signs, whitespace, prefixes, leading zeros, the wrong case, missing or
/// extra base64 padding) is rejected rather than normalised.
///
/// ```
/// use snowmint::{Encoding, Id};
/// use snowmint::encoding::ParseErrorKind;
///
/// let err = Id::parse("00ff", Encoding::Hex).unwrap_err();
/// assert_eq!(err.kind(), &ParseErrorKind::LeadingZero);
/// assert_eq!(err.encoding(), Encoding::Hex);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input is empty.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(Id::parse("", Encoding::Decimal).unwrap_err().kind(), &ParseErrorKind::Empty);
    /// ```
    Empty,
    /// A character outside the encoding's alphabet (this includes signs, whitespace,
    /// prefixes such as `0x`, uppercase letters where the alphabet is lowercase, and a base64
    /// padding `=` anywhere but at the end).
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(
    ///     Id::parse("4jgl", Encoding::Base58).unwrap_err().kind(),
    ///     &ParseErrorKind::InvalidChar { ch: 'l', index: 3 },
    /// );
    /// ```
    InvalidChar {
        /// The first offending character.
        ch: char,
        /// Its byte offset in the input (not its char index, for non-ASCII input).
        index: usize,
    },
    /// A byte that does not start a UTF-8 character, in an input given as bytes (every
    /// alphabet is ASCII, so such a byte is never valid).
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(
    ///     Id::parse(b"12\xff", Encoding::BwmarrinBytes).unwrap_err().kind(),
    ///     &ParseErrorKind::InvalidByte { byte: 0xff, index: 2 },
    /// );
    /// ```
    InvalidByte {
        /// The first offending byte.
        byte: u8,
        /// Its offset in the input.
        index: usize,
    },
    /// A positional encoding's text starts with its zero digit but is not that digit alone
    /// (for [`Encoding::BwmarrinBase64`]: the decoded decimal text does).
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(Id::parse("042", Encoding::Decimal).unwrap_err().kind(), &ParseErrorKind::LeadingZero);
    /// ```
    LeadingZero,
    /// The value is above `u64::MAX`.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(
    ///     Id::parse("18446744073709551616", Encoding::Decimal).unwrap_err().kind(),
    ///     &ParseErrorKind::Overflow,
    /// );
    /// ```
    Overflow,
    /// A fixed-length text ([`Encoding::Base64`]) has the wrong length.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(
    ///     Id::parse("AAAA", Encoding::Base64).unwrap_err().kind(),
    ///     &ParseErrorKind::InvalidLength { len: 4, expected: 11 },
    /// );
    /// ```
    InvalidLength {
        /// The input's length in bytes.
        len: usize,
        /// The only accepted length (in bytes, which are ASCII characters).
        expected: usize,
    },
    /// A padded text ([`Encoding::BwmarrinBase64`]) is not a whole number of blocks.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(
    ///     Id::parse("MTI", Encoding::BwmarrinBase64).unwrap_err().kind(),
    ///     &ParseErrorKind::LengthNotMultiple { len: 3, multiple: 4 },
    /// );
    /// ```
    LengthNotMultiple {
        /// The input's length in bytes.
        len: usize,
        /// The block length every accepted length is a multiple of.
        multiple: usize,
    },
    /// The last base64 character sets padding bits, which must be zero.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// assert_eq!(
    ///     Id::parse("AAAAAAAAAAB", Encoding::Base64).unwrap_err().kind(),
    ///     &ParseErrorKind::NonZeroPadding,
    /// );
    /// ```
    NonZeroPadding,
    /// A form of the decimal text ([`Encoding::BwmarrinBase64`]) decodes to a byte that is
    /// not a decimal digit.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    /// // "AAAAAAAAAAE" is base64 of the 8 bytes of the value 1, not of its decimal text.
    /// assert_eq!(
    ///     Id::parse("AAAAAAAAAAE=", Encoding::BwmarrinBase64).unwrap_err().kind(),
    ///     &ParseErrorKind::NotDecimalText { byte: 0, index: 0 },
    /// );
    /// ```
    NotDecimalText {
        /// The first decoded byte that is not an ASCII digit.
        byte: u8,
        /// Its offset in the decoded text.
        index: usize,
    },
}

/// The error of [`Id::parse`](crate::id::Id::parse) and of `str::parse::<Id>()`: which
/// encoding was expected, and what was wrong ([`ParseErrorKind`]).
///
/// Its [`Display`](fmt::Display) says what was wrong and what is allowed, and never echoes
/// more of the input than one escaped character:
///
/// ```
/// use snowmint::{Encoding, Id};
///
/// let err = "18446744073709551616".parse::<Id>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid decimal ID: value exceeds the maximum 18446744073709551615",
/// );
/// let err = Id::parse("AAAAAAAAAAAA", Encoding::Base64).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid base64 ID: length 12 bytes, expected exactly 11 characters",
/// );
/// let err = Id::parse("12\u{1b}[31m", Encoding::Decimal).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid decimal ID: character '\\u{1b}' at byte 2 is not in the alphabet 0123456789",
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseIdError {
    encoding: Encoding,
    kind: ParseErrorKind,
}

impl ParseIdError {
    #[inline]
    pub(crate) const fn new(encoding: Encoding, kind: ParseErrorKind) -> ParseIdError {
        ParseIdError { encoding, kind }
    }

    /// The error for the byte at `index` of `input`, which is not in `encoding`'s alphabet:
    /// the character starting there, or the byte itself when none does (input given as
    /// bytes that are not UTF-8).
    #[cold]
    #[inline(never)]
    pub(crate) fn invalid_at(encoding: Encoding, input: &[u8], index: usize) -> ParseIdError {
        let tail = input.get(index..).unwrap_or_default();
        let first_char = tail
            .utf8_chunks()
            .next()
            .filter(|chunk| !chunk.valid().is_empty())
            .and_then(|chunk| chunk.valid().chars().next());
        let kind = match first_char {
            Some(ch) => ParseErrorKind::InvalidChar { ch, index },
            None => ParseErrorKind::InvalidByte {
                byte: tail.first().copied().unwrap_or(0),
                index,
            },
        };
        ParseIdError::new(encoding, kind)
    }

    /// The encoding that was being parsed.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    ///
    /// assert_eq!(Id::parse("X", Encoding::Base36).unwrap_err().encoding(), Encoding::Base36);
    /// ```
    #[inline]
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// What was wrong.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    ///
    /// let err = Id::parse("0x1f", Encoding::Hex).unwrap_err();
    /// assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch: 'x', index: 1 });
    /// ```
    #[inline]
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

impl fmt::Display for ParseIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let encoding = self.encoding;
        write!(f, "invalid {encoding} ID: ")?;
        let alphabet = encoding.alphabet();
        let decoded = encoding == Encoding::BwmarrinBase64;
        match self.kind {
            ParseErrorKind::Empty if encoding.fixed_len() => write!(
                f,
                "empty, expected exactly {} characters of the alphabet {alphabet}",
                encoding.max_len()
            ),
            ParseErrorKind::Empty if decoded => write!(
                f,
                "empty, expected 4 to {} characters of standard base64 ({alphabet}, '=' padding)",
                encoding.max_len()
            ),
            ParseErrorKind::Empty => write!(
                f,
                "empty, expected 1 to {} characters of the alphabet {alphabet}",
                encoding.max_len()
            ),
            ParseErrorKind::InvalidChar { ch: '=', index } if decoded => write!(
                f,
                "padding '=' at byte {index} is not at the end: at most two '=' may end the text"
            ),
            ParseErrorKind::InvalidChar { ch, index } => {
                write!(
                    f,
                    "character {ch:?} at byte {index} is not in the alphabet {alphabet}"
                )?;
                let lowercase_only = !alphabet.bytes().any(|b| b.is_ascii_uppercase());
                if lowercase_only && alphabet.contains(ch.to_ascii_lowercase()) {
                    f.write_str(" (letters must be lowercase)")?;
                }
                Ok(())
            }
            ParseErrorKind::InvalidByte { byte, index } => write!(
                f,
                "byte 0x{byte:02x} at offset {index} is not UTF-8 text; the alphabet is {alphabet}"
            ),
            ParseErrorKind::LeadingZero if decoded => f.write_str(
                "the decoded decimal text has a leading zero; only the value zero itself, \
                 written \"0\", may start with it",
            ),
            ParseErrorKind::LeadingZero => {
                let zero = char::from(alphabet.as_bytes()[0]);
                write!(
                    f,
                    "leading zero digit '{zero}'; only the value zero itself, \
                     written \"{zero}\", may start with it"
                )
            }
            ParseErrorKind::Overflow if decoded => {
                f.write_str("the decoded decimal text exceeds the maximum 18446744073709551615")
            }
            ParseErrorKind::Overflow => {
                f.write_str("value exceeds the maximum ")?;
                max_text(f, encoding)
            }
            ParseErrorKind::InvalidLength { len, expected } => {
                write!(
                    f,
                    "length {len} bytes, expected exactly {expected} characters"
                )
            }
            ParseErrorKind::LengthNotMultiple { len, multiple } => write!(
                f,
                "length {len} bytes is not a multiple of {multiple}: standard base64 pads \
                 with '=' to whole blocks of {multiple} characters"
            ),
            ParseErrorKind::NonZeroPadding if encoding.fixed_len() => {
                // 11 characters carry 66 bits: the last one's low 2 bits are padding.
                f.write_str("the last character sets padding bits; it must be one of ")?;
                alphabet
                    .chars()
                    .step_by(4)
                    .try_for_each(|c| fmt::Write::write_char(f, c))
            }
            ParseErrorKind::NonZeroPadding => f.write_str(
                "the last character before the '=' padding sets padding bits, which must be zero",
            ),
            ParseErrorKind::NotDecimalText { byte, index } => write!(
                f,
                "it decodes to byte 0x{byte:02x} at offset {index}, not a decimal digit: \
                 {encoding} holds the ID's decimal text"
            ),
        }
    }
}

/// Writes `u64::MAX` in a positional encoding (most significant digit first), without the
/// codecs: this module sits below them.
fn max_text(f: &mut fmt::Formatter<'_>, encoding: Encoding) -> fmt::Result {
    let digits = encoding.alphabet().as_bytes();
    let base = digits.len() as u128;
    let mut buf = [0_u8; 64];
    let mut start = buf.len();
    let mut value = u128::from(u64::MAX);
    while value > 0 || start == buf.len() {
        start -= 1;
        buf[start] = digits[(value % base) as usize];
        value /= base;
    }
    buf[start..]
        .iter()
        .try_for_each(|&b| fmt::Write::write_char(f, char::from(b)))
}

impl core::error::Error for ParseIdError {}
