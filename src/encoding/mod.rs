//! The ID's text encodings ([`Encoding`], [`EncodedId`]) and their strict parsers, plus the
//! 8-byte big-endian binary form.
//!
//! Every encoding writes the ID's *value* (bwmarrin/snowflake's `Base64()` encodes the
//! decimal text instead: this crate does not), and every parser accepts only the exact text
//! its encoder writes, so `Id::parse(&id.encode(e), e) == Ok(id)` and a text that parses
//! re-encodes to itself.

mod base64;
mod bytes;
mod encoded;
mod error;
mod radix;

use core::fmt;
use core::str::FromStr;

pub use self::encoded::EncodedId;
pub use self::error::{ParseEncodingError, ParseErrorKind, ParseIdError};
use self::radix::{BASE2, BASE32, BASE36, BASE58, DECIMAL, HEX};
use crate::Id;

/// A text encoding of an [`Id`].
///
/// | encoding | alphabet | `0` | `u64::MAX` |
/// | --- | --- | --- | --- |
/// | `Decimal` | `0-9` | `0` | `18446744073709551615` |
/// | `Base2` | `01` | `0` | 64 × `1` |
/// | `Base32` | z-base-32 `ybndrfg8ejkmcpqxot1uwisza345h769` | `y` | `x999999999999` |
/// | `Base36` | `0-9a-z` | `0` | `3w5e11264sgsf` |
/// | `Base58` | Flickr `123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ` | `1` | `JPwcyDCgEup` |
/// | `Base64` | URL-safe `A-Za-z0-9-_` | `AAAAAAAAAAA` | `__________8` |
/// | `Hex` | `0-9a-f` | `0` | `ffffffffffffffff` |
///
/// All but `Base64` are positional numbers, most significant digit first, without leading
/// zeros (like Go's `strconv.FormatUint` and bwmarrin/snowflake's `Base32()`/`Base58()`);
/// `Base64` is the 8 big-endian bytes in unpadded URL-safe base64, always 11 characters.
///
/// ```
/// use snowmint::{Encoding, Id};
///
/// let id = Id::from_u64(1_427_970_479_175_499_776);
/// assert_eq!(id.encode(Encoding::Base32), "b8wjm1zroyyyy");
/// assert_eq!(Id::parse("b8wjm1zroyyyy", Encoding::Base32), Ok(id));
/// assert_eq!("base32".parse::<Encoding>(), Ok(Encoding::Base32));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// Decimal digits, as [`Id`]'s `Display`.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(42).encode(snowmint::Encoding::Decimal), "42");
    /// ```
    Decimal,
    /// Binary digits.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(5).encode(snowmint::Encoding::Base2), "101");
    /// ```
    Base2,
    /// z-base-32 digits, as bwmarrin/snowflake's `Base32()`.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(32).encode(snowmint::Encoding::Base32), "by");
    /// ```
    Base32,
    /// Digits and lowercase letters.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(35).encode(snowmint::Encoding::Base36), "z");
    /// ```
    Base36,
    /// Flickr base58 digits (no `0`, `O`, `I`, `l`), as bwmarrin/snowflake's `Base58()`.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(58).encode(snowmint::Encoding::Base58), "21");
    /// ```
    Base58,
    /// The 8 big-endian bytes in unpadded URL-safe base64: always 11 characters.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(1).encode(snowmint::Encoding::Base64), "AAAAAAAAAAE");
    /// ```
    Base64,
    /// Lowercase hexadecimal digits, no `0x` prefix.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(255).encode(snowmint::Encoding::Hex), "ff");
    /// ```
    Hex,
}

impl Encoding {
    /// Every encoding, in declaration order.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    ///
    /// let id = Id::from_u64(1_288_834_974_657);
    /// for encoding in Encoding::ALL {
    ///     assert_eq!(Id::parse(&id.encode(encoding), encoding), Ok(id));
    /// }
    /// ```
    pub const ALL: [Encoding; 7] = [
        Encoding::Decimal,
        Encoding::Base2,
        Encoding::Base32,
        Encoding::Base36,
        Encoding::Base58,
        Encoding::Base64,
        Encoding::Hex,
    ];

    /// The lowercase name, which [`FromStr`] parses back.
    ///
    /// ```
    /// use snowmint::Encoding;
    ///
    /// assert_eq!(Encoding::Base58.name(), "base58");
    /// assert_eq!(Encoding::Hex.to_string(), "hex");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::Decimal => "decimal",
            Encoding::Base2 => "base2",
            Encoding::Base32 => "base32",
            Encoding::Base36 => "base36",
            Encoding::Base58 => "base58",
            Encoding::Base64 => "base64",
            Encoding::Hex => "hex",
        }
    }

    /// The symbols of the encoding, the one for digit value 0 first.
    ///
    /// ```
    /// use snowmint::Encoding;
    ///
    /// assert_eq!(Encoding::Hex.alphabet(), "0123456789abcdef");
    /// assert_eq!(Encoding::Base32.alphabet(), "ybndrfg8ejkmcpqxot1uwisza345h769");
    /// ```
    pub const fn alphabet(self) -> &'static str {
        match self {
            Encoding::Decimal => "0123456789",
            Encoding::Base2 => "01",
            Encoding::Base32 => "ybndrfg8ejkmcpqxot1uwisza345h769",
            Encoding::Base36 => "0123456789abcdefghijklmnopqrstuvwxyz",
            Encoding::Base58 => "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ",
            Encoding::Base64 => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
            Encoding::Hex => "0123456789abcdef",
        }
    }
}

impl fmt::Display for Encoding {
    /// The [`name`](Encoding::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Encoding {
    type Err = ParseEncodingError;

    /// One of the [`name`](Encoding::name)s, exactly (lowercase, no whitespace).
    fn from_str(name: &str) -> Result<Encoding, ParseEncodingError> {
        Encoding::ALL
            .into_iter()
            .find(|encoding| encoding.name() == name)
            .ok_or_else(|| ParseEncodingError::new(name))
    }
}

impl Id {
    /// The ID's text in `encoding`.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    ///
    /// let id = Id::from_u64(1_428_076_403_798_048_768);
    /// assert_eq!(id.encode(Encoding::Base58), "4jgmnx8Js8A");
    /// assert_eq!(id.encode(Encoding::Hex), "13d18bec48800000");
    /// ```
    #[inline]
    pub fn encode(self, encoding: Encoding) -> EncodedId {
        match encoding {
            Encoding::Decimal => self.to_decimal(),
            Encoding::Base2 => self.to_base2(),
            Encoding::Base32 => self.to_base32(),
            Encoding::Base36 => self.to_base36(),
            Encoding::Base58 => self.to_base58(),
            Encoding::Base64 => self.to_base64(),
            Encoding::Hex => self.to_hex(),
        }
    }

    /// The decimal text, as `Display` writes it, on the stack.
    ///
    /// ```
    /// let id = snowmint::Id::from_u64(1_288_834_974_657);
    /// assert_eq!(id.to_decimal(), "1288834974657");
    /// assert_eq!(id.to_decimal(), id.to_string());
    /// ```
    #[inline]
    pub fn to_decimal(self) -> EncodedId {
        DECIMAL.encode(self.to_u64())
    }

    /// The binary text, without leading zeros.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(6).to_base2(), "110");
    /// ```
    #[inline]
    pub fn to_base2(self) -> EncodedId {
        BASE2.encode(self.to_u64())
    }

    /// The z-base-32 text, as bwmarrin/snowflake's `Base32()` (zero is `"y"`).
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::from_u64(1_427_970_479_175_499_776).to_base32(), "b8wjm1zroyyyy");
    /// assert_eq!(Id::MIN.to_base32(), "y");
    /// ```
    #[inline]
    pub fn to_base32(self) -> EncodedId {
        BASE32.encode(self.to_u64())
    }

    /// The base36 text (digits, then lowercase letters).
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(1_288_834_974_657).to_base36(), "gg2z2f29");
    /// ```
    #[inline]
    pub fn to_base36(self) -> EncodedId {
        BASE36.encode(self.to_u64())
    }

    /// The Flickr base58 text, as bwmarrin/snowflake's `Base58()` (zero is `"1"`).
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::from_u64(1_428_076_403_798_048_768).to_base58(), "4jgmnx8Js8A");
    /// assert_eq!(Id::MIN.to_base58(), "1");
    /// ```
    #[inline]
    pub fn to_base58(self) -> EncodedId {
        BASE58.encode(self.to_u64())
    }

    /// The 8 big-endian bytes in unpadded URL-safe base64: always 11 characters.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::from_u64(1).to_base64(), "AAAAAAAAAAE");
    /// assert_eq!(Id::MAX.to_base64(), "__________8");
    /// ```
    #[inline]
    pub fn to_base64(self) -> EncodedId {
        base64::encode(self.to_u64())
    }

    /// The lowercase hexadecimal text, without prefix or leading zeros.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(0xc0ffee).to_hex(), "c0ffee");
    /// ```
    #[inline]
    pub fn to_hex(self) -> EncodedId {
        HEX.encode(self.to_u64())
    }

    /// Parses the text [`encode`](Id::encode) writes for `encoding`, and nothing else.
    ///
    /// ```
    /// use snowmint::{Encoding, Id, ParseErrorKind};
    ///
    /// assert_eq!(Id::parse("ff", Encoding::Hex), Ok(Id::from_u64(255)));
    /// let err = Id::parse("FF", Encoding::Hex).unwrap_err();
    /// assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch: 'F', index: 0 });
    /// ```
    #[inline]
    pub fn parse(text: &str, encoding: Encoding) -> Result<Id, ParseIdError> {
        match encoding {
            Encoding::Decimal => Id::parse_decimal(text),
            Encoding::Base2 => Id::parse_base2(text),
            Encoding::Base32 => Id::parse_base32(text),
            Encoding::Base36 => Id::parse_base36(text),
            Encoding::Base58 => Id::parse_base58(text),
            Encoding::Base64 => Id::parse_base64(text),
            Encoding::Hex => Id::parse_hex(text),
        }
    }

    /// Parses canonical decimal: digits only (no sign, no whitespace), no leading zero, at
    /// most `18446744073709551615`.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::parse_decimal("1288834974657"), Ok(Id::from_u64(1_288_834_974_657)));
    /// assert!(Id::parse_decimal("+1").is_err());
    /// ```
    #[inline]
    pub fn parse_decimal(text: &str) -> Result<Id, ParseIdError> {
        DECIMAL.decode(text).map(Id::from_u64)
    }

    /// Parses canonical binary: `0`s and `1`s, no leading zero, at most 64 digits.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::parse_base2("110"), Ok(Id::from_u64(6)));
    /// assert!(Id::parse_base2("0110").is_err());
    /// ```
    #[inline]
    pub fn parse_base2(text: &str) -> Result<Id, ParseIdError> {
        BASE2.decode(text).map(Id::from_u64)
    }

    /// Parses canonical z-base-32: lowercase alphabet symbols only, no leading `y`.
    ///
    /// Unlike bwmarrin/snowflake v0.3.0, symbols outside the alphabet are errors, not
    /// silently read as a digit.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::parse_base32("b8wjm1zroyyyy"), Ok(Id::from_u64(1_427_970_479_175_499_776)));
    /// assert!(Id::parse_base32("b8wjm1zroyyyl").is_err());
    /// ```
    #[inline]
    pub fn parse_base32(text: &str) -> Result<Id, ParseIdError> {
        BASE32.decode(text).map(Id::from_u64)
    }

    /// Parses canonical base36: digits and lowercase letters, no leading zero.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::parse_base36("gg2z2f29"), Ok(Id::from_u64(1_288_834_974_657)));
    /// assert!(Id::parse_base36("GG2Z2F29").is_err());
    /// ```
    #[inline]
    pub fn parse_base36(text: &str) -> Result<Id, ParseIdError> {
        BASE36.decode(text).map(Id::from_u64)
    }

    /// Parses canonical Flickr base58: alphabet symbols only, no leading `1`.
    ///
    /// Unlike bwmarrin/snowflake v0.3.0, symbols outside the alphabet (such as `0`, `O`,
    /// `I`, `l`) are errors, not silently read as a digit.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::parse_base58("4jgmnx8Js8A"), Ok(Id::from_u64(1_428_076_403_798_048_768)));
    /// assert!(Id::parse_base58("0jgmnx8Js8A").is_err());
    /// ```
    #[inline]
    pub fn parse_base58(text: &str) -> Result<Id, ParseIdError> {
        BASE58.decode(text).map(Id::from_u64)
    }

    /// Parses unpadded URL-safe base64 of the 8 big-endian bytes: exactly 11 characters,
    /// the last one's two padding bits zero (standard-alphabet `+`/`/` and `=` padding are
    /// rejected).
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::parse_base64("AAAAAAAAAAE"), Ok(Id::from_u64(1)));
    /// assert!(Id::parse_base64("AAAAAAAAAAE=").is_err());
    /// ```
    #[inline]
    pub fn parse_base64(text: &str) -> Result<Id, ParseIdError> {
        base64::decode(text).map(Id::from_u64)
    }

    /// Parses canonical hexadecimal: lowercase digits only (no `0x`), no leading zero, at
    /// most 16 digits.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::parse_hex("c0ffee"), Ok(Id::from_u64(0xc0ffee)));
    /// assert!(Id::parse_hex("C0FFEE").is_err());
    /// ```
    #[inline]
    pub fn parse_hex(text: &str) -> Result<Id, ParseIdError> {
        HEX.decode(text).map(Id::from_u64)
    }
}

impl FromStr for Id {
    type Err = ParseIdError;

    /// [`Id::parse_decimal`].
    #[inline]
    fn from_str(text: &str) -> Result<Id, ParseIdError> {
        Id::parse_decimal(text)
    }
}

impl TryFrom<&str> for Id {
    type Error = ParseIdError;

    /// [`Id::parse_decimal`].
    #[inline]
    fn try_from(text: &str) -> Result<Id, ParseIdError> {
        Id::parse_decimal(text)
    }
}
