//! serde support (feature `serde`).
//!
//! [`Id`] serializes as a decimal **string** in human-readable formats (JSON, YAML, TOML…),
//! because JavaScript's numbers lose precision above 2^53 and snowflake IDs are far above
//! it, and as a plain `u64` in binary formats. It deserializes from a decimal string, a
//! `u64`, or a non-negative `i64`, so JSON written by either convention reads back.
//!
//! ```
//! use snowmint::Id;
//!
//! let id = Id::from_u64(1_428_076_403_798_048_768);
//! assert_eq!(serde_json::to_string(&id).unwrap(), r#""1428076403798048768""#);
//! assert_eq!(serde_json::from_str::<Id>(r#""1428076403798048768""#).unwrap(), id);
//! assert_eq!(serde_json::from_str::<Id>("1428076403798048768").unwrap(), id);
//! assert!(serde_json::from_str::<Id>("-1").is_err());
//! ```
//!
//! To pin one representation for a field, use [`as_u64`] or [`as_string`] with
//! `#[serde(with = "...")]`.

use core::fmt;

use ::serde::de::{self, Deserializer, Unexpected, Visitor};
use ::serde::ser::{Serialize, Serializer};

use crate::encoding::Encoding;
use crate::id::Id;

impl Serialize for Id {
    /// A decimal string when the format is human-readable, the `u64` otherwise.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_str(&self.encode(Encoding::Decimal))
        } else {
            serializer.serialize_u64(self.to_u64())
        }
    }
}

impl<'de> ::serde::Deserialize<'de> for Id {
    /// A decimal string, a `u64` or a non-negative `i64`.
    ///
    /// Binary formats are asked for a `u64` (they cannot say which type comes next);
    /// human-readable ones for whatever is there.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_any(IdVisitor {
                numbers: true,
                strings: true,
            })
        } else {
            deserializer.deserialize_u64(IdVisitor {
                numbers: true,
                strings: true,
            })
        }
    }
}

/// Reads an [`Id`] from the representations it is allowed.
#[derive(Clone, Copy)]
struct IdVisitor {
    numbers: bool,
    strings: bool,
}

impl IdVisitor {
    fn number<E: de::Error>(self, value: u64, unexpected: Unexpected<'_>) -> Result<Id, E> {
        if self.numbers {
            Ok(Id::from_u64(value))
        } else {
            Err(E::invalid_type(unexpected, &self))
        }
    }
}

impl Visitor<'_> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.numbers, self.strings) {
            (true, true) => f.write_str(
                "a snowflake ID: a decimal string or an integer in 0..=18446744073709551615",
            ),
            (true, false) => {
                f.write_str("a snowflake ID as an integer in 0..=18446744073709551615")
            }
            _ => f.write_str(
                "a snowflake ID as a decimal string of a value in 0..=18446744073709551615",
            ),
        }
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Id, E> {
        self.number(value, Unexpected::Unsigned(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Id, E> {
        match u64::try_from(value) {
            Ok(value) => self.number(value, Unexpected::Signed(value as i64)),
            Err(_) if self.numbers => Err(E::invalid_value(Unexpected::Signed(value), &self)),
            Err(_) => Err(E::invalid_type(Unexpected::Signed(value), &self)),
        }
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Id, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::invalid_value(
                Unexpected::Other("a 128-bit integer"),
                &self,
            )),
        }
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Id, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::invalid_value(
                Unexpected::Other("a 128-bit integer"),
                &self,
            )),
        }
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Id, E> {
        if !self.strings {
            return Err(E::invalid_type(Unexpected::Str(text), &self));
        }
        // The ParseIdError says what is wrong (sign, leading zero, overflow…) and what is
        // allowed.
        Id::parse(text, Encoding::Decimal).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Id, E> {
        match core::str::from_utf8(bytes) {
            Ok(text) if self.strings => self.visit_str(text),
            _ => Err(E::invalid_type(Unexpected::Bytes(bytes), &self)),
        }
    }
}

/// Always a number: `#[serde(with = "snowmint::serde::as_u64")]` serializes the [`Id`] as
/// a `u64`, even in human-readable formats, and deserializes only a `u64` or a
/// non-negative `i64` (no strings).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use snowmint::Id;
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct Row {
///     #[serde(with = "snowmint::serde::as_u64")]
///     id: Id,
/// }
///
/// let row = Row { id: Id::from_u64(1_428_076_403_798_048_768) };
/// let json = serde_json::to_string(&row).unwrap();
/// assert_eq!(json, r#"{"id":1428076403798048768}"#);
/// assert_eq!(serde_json::from_str::<Row>(&json).unwrap(), row);
/// assert!(serde_json::from_str::<Row>(r#"{"id":"1"}"#).is_err());
/// ```
pub mod as_u64 {
    use ::serde::{Deserializer, Serializer};

    use super::IdVisitor;
    use crate::id::Id;

    /// Serializes `id` as a `u64`.
    ///
    /// ```
    /// let mut json = Vec::new();
    /// let id = snowmint::Id::from_u64(7);
    /// snowmint::serde::as_u64::serialize(&id, &mut serde_json::Serializer::new(&mut json))
    ///     .unwrap();
    /// assert_eq!(json, b"7");
    /// ```
    pub fn serialize<S: Serializer>(id: &Id, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(id.to_u64())
    }

    /// Deserializes an [`Id`] from a `u64` or a non-negative `i64`.
    ///
    /// ```
    /// let mut json = serde_json::Deserializer::from_str("7");
    /// let id = snowmint::serde::as_u64::deserialize(&mut json).unwrap();
    /// assert_eq!(id, snowmint::Id::from_u64(7));
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        deserializer.deserialize_u64(IdVisitor {
            numbers: true,
            strings: false,
        })
    }
}

/// Always a string: `#[serde(with = "snowmint::serde::as_string")]` serializes the [`Id`]
/// as its decimal string, even in binary formats, and deserializes only a decimal string
/// (no numbers).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use snowmint::Id;
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// struct Event {
///     #[serde(with = "snowmint::serde::as_string")]
///     id: Id,
/// }
///
/// let event = Event { id: Id::from_u64(42) };
/// let json = serde_json::to_string(&event).unwrap();
/// assert_eq!(json, r#"{"id":"42"}"#);
/// assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), event);
/// assert!(serde_json::from_str::<Event>(r#"{"id":42}"#).is_err());
/// ```
pub mod as_string {
    use ::serde::{Deserializer, Serializer};

    use super::IdVisitor;
    use crate::encoding::Encoding;
    use crate::id::Id;

    /// Serializes `id` as its decimal string.
    ///
    /// ```
    /// let mut json = Vec::new();
    /// let id = snowmint::Id::from_u64(7);
    /// snowmint::serde::as_string::serialize(&id, &mut serde_json::Serializer::new(&mut json))
    ///     .unwrap();
    /// assert_eq!(json, br#""7""#);
    /// ```
    pub fn serialize<S: Serializer>(id: &Id, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&id.encode(Encoding::Decimal))
    }

    /// Deserializes an [`Id`] from its canonical decimal string.
    ///
    /// ```
    /// let mut json = serde_json::Deserializer::from_str(r#""7""#);
    /// let id = snowmint::serde::as_string::deserialize(&mut json).unwrap();
    /// assert_eq!(id, snowmint::Id::from_u64(7));
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        deserializer.deserialize_str(IdVisitor {
            numbers: false,
            strings: true,
        })
    }
}
