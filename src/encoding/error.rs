//! The errors of parsing an ID ([`ParseIdError`]) and an encoding name
//! ([`ParseEncodingError`]).

use core::fmt;

use super::{base64, Encoding};
use crate::Id;

/// Why a text (or byte slice) is not the canonical form of an [`Id`].
///
/// Parsers are strict so that whatever parses re-encodes to exactly the same input:
/// anything else (signs, whitespace, prefixes, leading zeros, the wrong case, base64
/// padding) is rejected rather than normalised.
///
/// ```
/// use snowmint::{Encoding, Id, ParseErrorKind};
///
/// let err = Id::parse_hex("00ff").unwrap_err();
/// assert_eq!(err.kind(), &ParseErrorKind::LeadingZero);
/// assert_eq!(err.encoding(), Some(Encoding::Hex));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input is empty.
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    /// assert_eq!(Id::parse_decimal("").unwrap_err().kind(), &ParseErrorKind::Empty);
    /// ```
    Empty,
    /// A character outside the encoding's alphabet (this includes signs, whitespace,
    /// prefixes such as `0x`, and uppercase letters where the alphabet is lowercase).
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    /// assert_eq!(
    ///     Id::parse_base58("4jgl").unwrap_err().kind(),
    ///     &ParseErrorKind::InvalidChar { ch: 'l', index: 3 },
    /// );
    /// ```
    InvalidChar {
        /// The first offending character.
        ch: char,
        /// Its byte offset in the input (not its char index, for non-ASCII input).
        index: usize,
    },
    /// A positional encoding's text starts with its zero digit but is not that digit alone.
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    /// assert_eq!(Id::parse_decimal("042").unwrap_err().kind(), &ParseErrorKind::LeadingZero);
    /// ```
    LeadingZero,
    /// The value is above `u64::MAX`.
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    /// assert_eq!(
    ///     Id::parse_decimal("18446744073709551616").unwrap_err().kind(),
    ///     &ParseErrorKind::Overflow,
    /// );
    /// ```
    Overflow,
    /// A fixed-length input (base64 text, bytes) has the wrong length.
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    /// assert_eq!(
    ///     Id::parse_bytes(&[1, 2, 3]).unwrap_err().kind(),
    ///     &ParseErrorKind::InvalidLength { len: 3, expected: 8 },
    /// );
    /// ```
    InvalidLength {
        /// The input's length in bytes.
        len: usize,
        /// The only accepted length.
        expected: usize,
    },
    /// The last base64 character sets one of the two padding bits after the 64 value bits.
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    /// assert_eq!(
    ///     Id::parse_base64("AAAAAAAAAAB").unwrap_err().kind(),
    ///     &ParseErrorKind::NonZeroPadding,
    /// );
    /// ```
    NonZeroPadding,
}

/// The error of [`Id::parse`] and its per-encoding variants, of `str::parse::<Id>()`, and of
/// [`Id::parse_bytes`]: which input format was expected, and what was wrong
/// ([`ParseErrorKind`]).
///
/// Its [`Display`](fmt::Display) says what was wrong and what is allowed:
///
/// ```
/// use snowmint::Id;
///
/// let err = "18446744073709551616".parse::<Id>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid decimal ID: value exceeds the maximum 18446744073709551615",
/// );
/// let err = Id::parse_base64("AAAAAAAAAAAA").unwrap_err();
/// assert_eq!(err.to_string(), "invalid base64 ID: length 12, expected 11 characters");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseIdError {
    /// `None` for [`Id::parse_bytes`], which parses no text encoding.
    encoding: Option<Encoding>,
    kind: ParseErrorKind,
}

impl ParseIdError {
    #[inline]
    pub(crate) const fn new(encoding: Encoding, kind: ParseErrorKind) -> ParseIdError {
        ParseIdError {
            encoding: Some(encoding),
            kind,
        }
    }

    #[inline]
    pub(crate) const fn bytes(kind: ParseErrorKind) -> ParseIdError {
        ParseIdError {
            encoding: None,
            kind,
        }
    }

    /// The text encoding that was being parsed; `None` when the input was the 8 raw bytes
    /// of [`Id::parse_bytes`].
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    ///
    /// assert_eq!(Id::parse_base36("X").unwrap_err().encoding(), Some(Encoding::Base36));
    /// assert_eq!(Id::parse_bytes(&[]).unwrap_err().encoding(), None);
    /// ```
    #[inline]
    pub fn encoding(&self) -> Option<Encoding> {
        self.encoding
    }

    /// What was wrong.
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    ///
    /// let err = Id::parse_hex("0x1f").unwrap_err();
    /// assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch: 'x', index: 1 });
    /// ```
    #[inline]
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

impl fmt::Display for ParseIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(encoding) = self.encoding else {
            return match self.kind {
                ParseErrorKind::InvalidLength { len, expected } => write!(
                    f,
                    "invalid ID bytes: length {len}, expected {expected} (a big-endian u64)"
                ),
                kind => write!(f, "invalid ID bytes: {kind:?}"),
            };
        };
        write!(f, "invalid {encoding} ID: ")?;
        let alphabet = encoding.alphabet();
        match self.kind {
            ParseErrorKind::Empty if encoding == Encoding::Base64 => write!(
                f,
                "empty string, expected exactly {} characters of the alphabet {alphabet}",
                base64::LEN
            ),
            ParseErrorKind::Empty => write!(
                f,
                "empty string, expected 1 to {} characters of the alphabet {alphabet}",
                Id::MAX.encode(encoding).len()
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
            ParseErrorKind::LeadingZero => {
                let zero = Id::MIN.encode(encoding);
                write!(
                    f,
                    "leading zero digit {zero:?}; only the value zero itself, \
                     written {zero:?}, may start with it"
                )
            }
            ParseErrorKind::Overflow => {
                write!(f, "value exceeds the maximum {}", Id::MAX.encode(encoding))
            }
            ParseErrorKind::InvalidLength { len, expected } => {
                write!(f, "length {len}, expected {expected} characters")
            }
            ParseErrorKind::NonZeroPadding => {
                f.write_str("the last character sets padding bits; it must be one of ")?;
                base64::ALPHABET
                    .iter()
                    .step_by(4)
                    .try_for_each(|&b| fmt::Write::write_char(f, char::from(b)))
            }
        }
    }
}

impl std::error::Error for ParseIdError {}

/// The error of parsing an [`Encoding`] from a name that is not one of
/// [`Encoding::ALL`]'s [`name`](Encoding::name)s.
///
/// ```
/// use snowmint::Encoding;
///
/// let err = "base62".parse::<Encoding>().unwrap_err();
/// assert_eq!(err.input(), "base62");
/// assert_eq!(
///     err.to_string(),
///     "unknown ID encoding \"base62\", expected one of: \
///      decimal, base2, base32, base36, base58, base64, hex",
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseEncodingError {
    input: String,
}

impl ParseEncodingError {
    pub(crate) fn new(input: &str) -> ParseEncodingError {
        ParseEncodingError {
            input: input.to_owned(),
        }
    }

    /// The rejected name.
    ///
    /// ```
    /// let err = "HEX".parse::<snowmint::Encoding>().unwrap_err();
    /// assert_eq!(err.input(), "HEX");
    /// ```
    pub fn input(&self) -> &str {
        &self.input
    }
}

impl fmt::Display for ParseEncodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown ID encoding {:?}, expected one of: ", self.input)?;
        for (i, encoding) in Encoding::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(encoding.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseEncodingError {}
