//! [`Id128Error`]: why a text, a number or bytes are not a [`Uuid7`](super::Uuid7) or a
//! [`Ulid`](super::Ulid).

use core::fmt;

/// Why an input is not a [`Uuid7`](crate::Uuid7) or a [`Ulid`](crate::Ulid).
///
/// One type for both: most cases are shared (a length, a character outside the alphabet),
/// and a caller that accepts either form (a decoder that recognises a UUIDv7 or a ULID) has
/// one error to report. Each case says what was wrong, where (the byte offset and the
/// character), and what is allowed; [`Display`](fmt::Display) never echoes more of the
/// input than one escaped character.
///
/// ```
/// use snowmint::{Id128Error, Ulid, Uuid7};
///
/// let err = "017f22e2-79b0-7cc3-98c4-dc0c0c07398g".parse::<Uuid7>().unwrap_err();
/// assert_eq!(err, Id128Error::InvalidChar { ch: 'g', index: 35, allowed: Id128Error::HEX });
/// assert_eq!(
///     err.to_string(),
///     "character 'g' at byte 35 is not allowed there: expected a hex digit (0-9, a-f, A-F)",
/// );
/// let err = "81ARYZ6S41TSV4RRFFQ69G5FAV".parse::<Ulid>().unwrap_err();
/// assert_eq!(err, Id128Error::UlidOverflow { ch: '8' });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Id128Error {
    /// A UUID's text is not 36 bytes long (the hyphenated `8-4-4-4-12` form is the only one
    /// accepted: no braces, no `urn:uuid:` prefix, no 32-digit simple form).
    ///
    /// ```
    /// use snowmint::{Id128Error, Uuid7};
    /// assert_eq!(
    ///     "017f22e279b07cc398c4dc0c0c07398f".parse::<Uuid7>().unwrap_err(),
    ///     Id128Error::UuidLength { len: 32 },
    /// );
    /// ```
    UuidLength {
        /// The input's length in bytes.
        len: usize,
    },
    /// A ULID's text is not 26 bytes long.
    ///
    /// ```
    /// use snowmint::{Id128Error, Ulid};
    /// assert_eq!("01ARYZ6S41".parse::<Ulid>().unwrap_err(), Id128Error::UlidLength { len: 10 });
    /// ```
    UlidLength {
        /// The input's length in bytes.
        len: usize,
    },
    /// A character that is not allowed at its position.
    ///
    /// ```
    /// use snowmint::{Id128Error, Ulid};
    /// assert_eq!(
    ///     "01ARYZ6S41TSV4RRFFQ69G5FAU".parse::<Ulid>().unwrap_err(),
    ///     Id128Error::InvalidChar { ch: 'U', index: 25, allowed: Id128Error::CROCKFORD },
    /// );
    /// ```
    InvalidChar {
        /// The first offending character.
        ch: char,
        /// Its byte offset in the input (every allowed character is ASCII, so this is also
        /// its character index).
        index: usize,
        /// The characters allowed there, in words ([`HEX`](Self::HEX),
        /// [`HYPHEN`](Self::HYPHEN) or [`CROCKFORD`](Self::CROCKFORD)).
        allowed: &'static str,
    },
    /// A UUID whose version (the 13th hex digit, bits 48–51) is not 7.
    ///
    /// ```
    /// use snowmint::{Id128Error, Uuid7};
    /// // A version 4 UUID.
    /// assert_eq!(
    ///     "919108f7-52d1-4320-9bac-f847db4148a8".parse::<Uuid7>().unwrap_err(),
    ///     Id128Error::NotVersion7 { version: 4 },
    /// );
    /// ```
    NotVersion7 {
        /// The version found.
        version: u8,
    },
    /// A UUID whose variant (the top bits of the 17th hex digit, bits 64–65) is not the
    /// RFC 9562 variant `0b10` (the digit is not one of `8`, `9`, `a`, `b`).
    ///
    /// ```
    /// use snowmint::{Id128Error, Uuid7};
    /// assert_eq!(
    ///     "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f".parse::<Uuid7>().unwrap_err(),
    ///     Id128Error::NotRfcVariant { digit: 0xc },
    /// );
    /// ```
    NotRfcVariant {
        /// The 17th hex digit's value (its top two bits are the variant).
        digit: u8,
    },
    /// A ULID's first character is above `7`: 26 base32 digits hold 130 bits, a ULID 128,
    /// so the largest ULID is `7ZZZZZZZZZZZZZZZZZZZZZZZZZ`.
    ///
    /// ```
    /// use snowmint::{Id128Error, Ulid};
    /// assert_eq!(
    ///     "8ZZZZZZZZZZZZZZZZZZZZZZZZZ".parse::<Ulid>().unwrap_err(),
    ///     Id128Error::UlidOverflow { ch: '8' },
    /// );
    /// ```
    UlidOverflow {
        /// The first character.
        ch: char,
    },
}

impl Id128Error {
    /// The allowed set of a UUID's hex positions, as [`InvalidChar`](Self::InvalidChar)
    /// names it.
    ///
    /// ```
    /// assert_eq!(snowmint::Id128Error::HEX, "a hex digit (0-9, a-f, A-F)");
    /// ```
    pub const HEX: &'static str = "a hex digit (0-9, a-f, A-F)";

    /// The allowed set of a UUID's bytes 8, 13, 18 and 23.
    ///
    /// ```
    /// assert_eq!(snowmint::Id128Error::HYPHEN, "'-'");
    /// ```
    pub const HYPHEN: &'static str = "'-'";

    /// The allowed set of a ULID's positions.
    ///
    /// ```
    /// assert!(snowmint::Id128Error::CROCKFORD.starts_with("a Crockford base32 digit"));
    /// ```
    pub const CROCKFORD: &'static str =
        "a Crockford base32 digit (0-9, A-Z but U, any case; I and L read as 1, O as 0)";

    /// The error for the byte at `index` of `input`, which is not allowed there. Every byte
    /// before it is ASCII (it was accepted), so `index` starts a character.
    #[cold]
    #[inline(never)]
    pub(crate) fn invalid_at(input: &str, index: usize, allowed: &'static str) -> Id128Error {
        let ch = input
            .get(index..)
            .and_then(|tail| tail.chars().next())
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        Id128Error::InvalidChar { ch, index, allowed }
    }
}

impl fmt::Display for Id128Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Id128Error::UuidLength { len } => write!(
                f,
                "a UUID is 36 characters (8-4-4-4-12 hex digits and hyphens), this is {len} bytes"
            ),
            Id128Error::UlidLength { len } => {
                write!(f, "a ULID is 26 characters, this is {len} bytes")
            }
            Id128Error::InvalidChar { ch, index, allowed } => write!(
                f,
                "character {ch:?} at byte {index} is not allowed there: expected {allowed}"
            ),
            Id128Error::NotVersion7 { version } => write!(
                f,
                "not a UUIDv7: the version (the 13th hex digit, byte 14 of the text) is {version}, expected 7"
            ),
            Id128Error::NotRfcVariant { digit } => write!(
                f,
                "not an RFC 9562 UUID: the variant digit (the 17th hex digit, byte 19 of the text) is {digit:x}, expected 8, 9, a or b"
            ),
            Id128Error::UlidOverflow { ch } => write!(
                f,
                "ULID overflows 128 bits: its first character is {ch:?}, at most '7' (the largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)"
            ),
        }
    }
}

impl core::error::Error for Id128Error {}
