//! The ID as 8 big-endian bytes, for binary protocols and database `BINARY(8)` columns.

use super::error::{ParseErrorKind, ParseIdError};
use crate::Id;

/// The length of an ID's binary form.
const LEN: usize = 8;

impl Id {
    /// The value's 8 bytes, most significant first (network order), so byte strings sort
    /// like the IDs.
    ///
    /// ```
    /// use snowmint::Id;
    ///
    /// let id = Id::from_u64(0x0102_0304_0506_0708);
    /// assert_eq!(id.to_bytes(), [1, 2, 3, 4, 5, 6, 7, 8]);
    /// assert_eq!(Id::from_bytes(id.to_bytes()), id);
    /// ```
    #[inline]
    pub const fn to_bytes(self) -> [u8; 8] {
        self.to_u64().to_be_bytes()
    }

    /// The ID whose big-endian bytes these are.
    ///
    /// ```
    /// use snowmint::Id;
    ///
    /// const ID: Id = Id::from_bytes([0, 0, 0, 0, 0, 0, 0x35, 0x13]);
    /// assert_eq!(ID, Id::from_u64(13_587));
    /// ```
    #[inline]
    pub const fn from_bytes(bytes: [u8; 8]) -> Id {
        Id::from_u64(u64::from_be_bytes(bytes))
    }

    /// The ID whose big-endian bytes these are; an
    /// [`InvalidLength`](crate::ParseErrorKind::InvalidLength) error unless there are
    /// exactly 8 (an empty slice included).
    ///
    /// ```
    /// use snowmint::{Id, ParseErrorKind};
    ///
    /// assert_eq!(Id::parse_bytes(&[0, 0, 0, 0, 0, 0, 1, 0]), Ok(Id::from_u64(256)));
    /// let err = Id::parse_bytes(b"1116821679").unwrap_err();
    /// assert_eq!(err.kind(), &ParseErrorKind::InvalidLength { len: 10, expected: 8 });
    /// ```
    #[inline]
    pub fn parse_bytes(bytes: &[u8]) -> Result<Id, ParseIdError> {
        match <[u8; LEN]>::try_from(bytes) {
            Ok(array) => Ok(Id::from_bytes(array)),
            Err(_) => Err(ParseIdError::bytes(ParseErrorKind::InvalidLength {
                len: bytes.len(),
                expected: LEN,
            })),
        }
    }
}

impl TryFrom<&[u8]> for Id {
    type Error = ParseIdError;

    /// [`Id::parse_bytes`].
    #[inline]
    fn try_from(bytes: &[u8]) -> Result<Id, ParseIdError> {
        Id::parse_bytes(bytes)
    }
}
