//! [`Encoding`]: which text form of an ID, its name and alphabet; and [`ParseEncodingError`],
//! the error of reading an encoding's name.
//!
//! This is the bottom of the encoding modules: it depends on none of them, and every codec
//! and the parse error depend on it.

use core::fmt;
#[cfg(feature = "alloc")]
use core::str::FromStr;

/// A text encoding of an [`Id`](crate::id::Id).
///
/// | encoding | name | alphabet | `0` | `u64::MAX` |
/// | --- | --- | --- | --- | --- |
/// | `Decimal` | `decimal` | `0-9` | `0` | `18446744073709551615` |
/// | `Base2` | `base2` | `01` | `0` | 64 × `1` |
/// | `Base32` | `base32` | z-base-32 `ybndrfg8ejkmcpqxot1uwisza345h769` | `y` | `x999999999999` |
/// | `Base36` | `base36` | `0-9a-z` | `0` | `3w5e11264sgsf` |
/// | `Base58` | `base58` | Flickr `123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ` | `1` | `JPwcyDCgEup` |
/// | `Base64` | `base64` | URL-safe `A-Za-z0-9-_` | `AAAAAAAAAAA` | `__________8` |
/// | `Hex` | `hex` | `0-9a-f` | `0` | `ffffffffffffffff` |
/// | `BwmarrinBase64` | `bwmarrin-base64` | standard `A-Za-z0-9+/`, `=` padding | `MA==` | `MTg0NDY3NDQwNzM3MDk1NTE2MTU=` |
/// | `BwmarrinBytes` | `bwmarrin-bytes` | `0-9` | `0` | `18446744073709551615` |
///
/// The first seven act on the ID's **value**: all but `Base64` are positional numbers, most
/// significant digit first, without leading zeros (like Go's `strconv.FormatUint` and
/// bwmarrin/snowflake's `Base2()`, `Base32()`, `Base36()` and `Base58()`); `Base64` is the 8
/// big-endian bytes in unpadded URL-safe base64, always 11 characters.
///
/// The two `Bwmarrin*` encodings are bwmarrin/snowflake's forms of the ID's **decimal text**:
/// its `Bytes()` is the decimal text's bytes (as text, the same as `Decimal`), and its
/// `Base64()` is those bytes in standard, `=`-padded base64. They are named encodings of their
/// own, never guessed from the text, so stored bwmarrin data is read only when asked for.
///
/// ```
/// use snowmint::{Encoding, Id};
///
/// let id = Id::from_u64(1_427_970_479_175_499_776);
/// assert_eq!(id.encode(Encoding::Base32), "b8wjm1zroyyyy");
/// assert_eq!(Id::parse("b8wjm1zroyyyy", Encoding::Base32), Ok(id));
/// assert_eq!("base32".parse::<Encoding>(), Ok(Encoding::Base32));
///
/// // bwmarrin/snowflake's README example: Base64() of 1283328784765816832.
/// let id = Id::from_u64(1_283_328_784_765_816_832);
/// assert_eq!(id.encode(Encoding::BwmarrinBase64), "MTI4MzMyODc4NDc2NTgxNjgzMg==");
/// assert_eq!(id.encode(Encoding::BwmarrinBytes).as_bytes(), b"1283328784765816832");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
    /// Decimal digits, as [`Id`](crate::id::Id)'s `Display`.
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
    /// Unlike bwmarrin/snowflake v0.3.0's `ParseBase32`, symbols outside the alphabet are
    /// errors, not silently read as a digit.
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
    /// The 8 big-endian bytes in unpadded URL-safe base64: always 11 characters. Not
    /// bwmarrin/snowflake's `Base64()`, which is [`BwmarrinBase64`](Encoding::BwmarrinBase64).
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
    /// bwmarrin/snowflake's `Base64()`: standard base64 (`+`, `/`, `=` padding) of the ID's
    /// decimal text, 4 to 28 characters. Parsing accepts only what the encoder writes: the
    /// decoded text must be canonical decimal (no sign, no leading zero), and the padding
    /// bits zero.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// // A vector of bwmarrin/snowflake's TestBase64.
    /// let id = Id::parse("MTExNjgxOTQ5NDY2MDk5NzEyMA==", Encoding::BwmarrinBase64)?;
    /// assert_eq!(id, Id::from_u64(1_116_819_494_660_997_120));
    /// // Its "no padding" case is refused, as bwmarrin refuses it.
    /// assert!(Id::parse("MTExNjgxOTQ5NDY2MDk5NzEyMA", Encoding::BwmarrinBase64).is_err());
    /// # Ok::<(), snowmint::ParseIdError>(())
    /// ```
    BwmarrinBase64,
    /// bwmarrin/snowflake's `Bytes()`: the bytes of the ID's decimal text (as text, the same
    /// as [`Decimal`](Encoding::Decimal)). Parse raw bytes with it, as `ParseBytes` does:
    /// `Id::parse(bytes, Encoding::BwmarrinBytes)`.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// assert_eq!(Id::parse(b"12345678", Encoding::BwmarrinBytes), Ok(Id::from_u64(12_345_678)));
    /// assert!(Id::parse(b"\xff\xff\xff1116821679", Encoding::BwmarrinBytes).is_err());
    /// ```
    BwmarrinBytes,
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
    pub const ALL: [Encoding; 9] = [
        Encoding::Decimal,
        Encoding::Base2,
        Encoding::Base32,
        Encoding::Base36,
        Encoding::Base58,
        Encoding::Base64,
        Encoding::Hex,
        Encoding::BwmarrinBase64,
        Encoding::BwmarrinBytes,
    ];

    /// The lowercase name, which [`FromStr`] parses back.
    ///
    /// ```
    /// use snowmint::Encoding;
    ///
    /// assert_eq!(Encoding::Base58.name(), "base58");
    /// assert_eq!(Encoding::BwmarrinBase64.name(), "bwmarrin-base64");
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
            Encoding::BwmarrinBase64 => "bwmarrin-base64",
            Encoding::BwmarrinBytes => "bwmarrin-bytes",
        }
    }

    /// The symbols of the encoding, the one for digit value 0 first (for
    /// [`BwmarrinBase64`](Encoding::BwmarrinBase64), the 64 symbols of standard base64; its
    /// padding `=` is not a digit).
    ///
    /// ```
    /// use snowmint::Encoding;
    ///
    /// assert_eq!(Encoding::Hex.alphabet(), "0123456789abcdef");
    /// assert_eq!(Encoding::Base32.alphabet(), "ybndrfg8ejkmcpqxot1uwisza345h769");
    /// ```
    pub const fn alphabet(self) -> &'static str {
        match self {
            Encoding::Decimal | Encoding::BwmarrinBytes => "0123456789",
            Encoding::Base2 => "01",
            Encoding::Base32 => "ybndrfg8ejkmcpqxot1uwisza345h769",
            Encoding::Base36 => "0123456789abcdefghijklmnopqrstuvwxyz",
            Encoding::Base58 => "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ",
            Encoding::Base64 => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
            Encoding::BwmarrinBase64 => {
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            }
            Encoding::Hex => "0123456789abcdef",
        }
    }

    /// The length of the longest text (that of `u64::MAX`, or the only length), for error
    /// messages; fixed by the alphabets and checked by the tests.
    pub(crate) const fn max_len(self) -> usize {
        match self {
            Encoding::Decimal | Encoding::BwmarrinBytes => 20,
            Encoding::Base2 => 64,
            Encoding::Base32 | Encoding::Base36 => 13,
            Encoding::Base58 | Encoding::Base64 => 11,
            Encoding::BwmarrinBase64 => 28,
            Encoding::Hex => 16,
        }
    }

    /// Whether every text has the one length [`max_len`](Self::max_len).
    pub(crate) const fn fixed_len(self) -> bool {
        matches!(self, Encoding::Base64)
    }
}

impl fmt::Display for Encoding {
    /// The [`name`](Encoding::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(feature = "alloc")]
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
///      decimal, base2, base32, base36, base58, base64, hex, bwmarrin-base64, bwmarrin-bytes",
/// );
/// ```
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseEncodingError {
    input: alloc::string::String,
}

#[cfg(feature = "alloc")]
impl ParseEncodingError {
    fn new(input: &str) -> ParseEncodingError {
        ParseEncodingError {
            input: alloc::borrow::ToOwned::to_owned(input),
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

#[cfg(feature = "alloc")]
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

#[cfg(feature = "alloc")]
impl core::error::Error for ParseEncodingError {}
