//! The dispatch from an [`Encoding`] to its codec: [`Id::encode`], [`Id::parse`] and decimal
//! `FromStr`.

use core::str::FromStr;

use super::error::ParseIdError;
use super::radix::{BASE2, BASE32, BASE36, BASE58, BWMARRIN_BYTES, DECIMAL, HEX};
use super::scheme::Encoding;
use super::{base64, bwmarrin, encoded::EncodedId};
use crate::id::Id;

impl Id {
    /// The ID's text in `encoding`, on the stack.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    ///
    /// let id = Id::from_u64(1_428_076_403_798_048_768);
    /// assert_eq!(id.encode(Encoding::Base58), "4jgmnx8Js8A");
    /// assert_eq!(id.encode(Encoding::Hex), "13d18bec48800000");
    /// assert_eq!(id.encode(Encoding::Decimal), id.to_string());
    /// ```
    #[inline]
    pub fn encode(self, encoding: Encoding) -> EncodedId {
        let value = self.to_u64();
        match encoding {
            Encoding::Decimal => DECIMAL.encode(value),
            Encoding::Base2 => BASE2.encode(value),
            Encoding::Base32 => BASE32.encode(value),
            Encoding::Base36 => BASE36.encode(value),
            Encoding::Base58 => BASE58.encode(value),
            Encoding::Base64 => base64::encode(value),
            Encoding::Hex => HEX.encode(value),
            Encoding::BwmarrinBase64 => bwmarrin::encode(value),
            Encoding::BwmarrinBytes => BWMARRIN_BYTES.encode(value),
        }
    }

    /// Parses the text [`encode`](Id::encode) writes for `encoding`, and nothing else. The
    /// input is text or bytes (`&str`, `&[u8]`, `&String`, `&EncodedId`...): bytes that are
    /// not UTF-8 are refused with [`ParseErrorKind::InvalidByte`](super::ParseErrorKind::InvalidByte), never read lossily.
    ///
    /// # Errors
    ///
    /// [`ParseIdError`](crate::ParseIdError) when `input` is not exactly what
    /// [`encode`](Id::encode) writes for `encoding`; its [`kind`](crate::ParseIdError::kind) says
    /// what was wrong (a byte that is not UTF-8, a character outside the alphabet, a length, a
    /// value above `u64::MAX`) and where.
    ///
    /// ```
    /// use snowmint::{Encoding, Id};
    /// use snowmint::encoding::ParseErrorKind;
    ///
    /// assert_eq!(Id::parse("ff", Encoding::Hex), Ok(Id::from_u64(255)));
    /// let err = Id::parse("FF", Encoding::Hex).unwrap_err();
    /// assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch: 'F', index: 0 });
    /// // bwmarrin/snowflake's ParseBytes input: the decimal text's bytes.
    /// let stored: &[u8] = b"1116821679570419712";
    /// assert_eq!(Id::parse(stored, Encoding::BwmarrinBytes), Ok(Id::from_u64(1_116_821_679_570_419_712)));
    /// ```
    #[inline]
    pub fn parse(
        input: &(impl AsRef<[u8]> + ?Sized),
        encoding: Encoding,
    ) -> Result<Id, ParseIdError> {
        let bytes = input.as_ref();
        match encoding {
            Encoding::Decimal => DECIMAL.decode(bytes),
            Encoding::Base2 => BASE2.decode(bytes),
            Encoding::Base32 => BASE32.decode(bytes),
            Encoding::Base36 => BASE36.decode(bytes),
            Encoding::Base58 => BASE58.decode(bytes),
            Encoding::Base64 => base64::decode(bytes),
            Encoding::Hex => HEX.decode(bytes),
            Encoding::BwmarrinBase64 => bwmarrin::decode(bytes),
            Encoding::BwmarrinBytes => BWMARRIN_BYTES.decode(bytes),
        }
        .map(Id::from_u64)
    }
}

impl FromStr for Id {
    type Err = ParseIdError;

    /// Canonical decimal, as [`Id::parse`] with [`Encoding::Decimal`]: digits only (no sign,
    /// no whitespace), no leading zero, at most `18446744073709551615`.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!("1288834974657".parse::<Id>(), Ok(Id::from_u64(1_288_834_974_657)));
    /// assert!("+1".parse::<Id>().is_err());
    /// ```
    #[inline]
    fn from_str(text: &str) -> Result<Id, ParseIdError> {
        Id::parse(text, Encoding::Decimal)
    }
}
