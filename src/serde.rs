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
//! `Option<Id>`, `Vec<Id>` and any other container of `Id`s take that representation with
//! no attribute. To pin one representation for a field, name the module for its type in
//! `#[serde(with = "...")]`:
//!
//! | field | always a number | always a string |
//! |---|---|---|
//! | `Id` | [`as_u64`] | [`as_string`] |
//! | `Option<Id>` | [`as_u64::option`] | [`as_string::option`] |
//! | `Vec<Id>` | [`as_u64::vec`] | [`as_string::vec`] |
//!
//! `as_u64` or `as_string` on an `Option<Id>` or `Vec<Id>` field does not compile (they take
//! an `&Id`): use the `option` or `vec` module. With `with`, serde no longer treats a missing
//! `Option` field as `None`: add `#[serde(default)]` for that.
//!
//! [`Decoded`] and [`Parts`] serialize as the objects `snowmint decode --json` writes (without
//! its `input`, `encoding`, `id` and `layout` members, which a `Decoded` does not know):
//!
//! ```
//! use snowmint::{Id, Layout, Parts};
//!
//! let d = Layout::TWITTER.decode(Id::from_u64(1_541_815_603_606_036_480));
//! assert_eq!(
//!     serde_json::to_string(&d).unwrap(),
//!     r#"{"time":"2022-06-28T16:07:40.105Z","unix_ms":1656432460105,"ticks":367597485448,"node":378,"sequence":0}"#
//! );
//! assert_eq!(serde_json::to_string(&d.parts()).unwrap(), r#"{"node":378,"sequence":0}"#);
//! assert_eq!(serde_json::from_str::<Parts>(r#"{"node":378,"sequence":0}"#).unwrap(), d.parts());
//! ```

use core::fmt;

use ::serde::de::{self, Deserializer, Unexpected, Visitor};
use ::serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::encoding::Encoding;
use crate::id::Decoded;
use crate::id::Id;
use crate::id::Parts;
use crate::id::Utc;

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

impl Serialize for Decoded {
    /// `{"time", "unix_ms", "ticks", "node", "sequence"}`, as `snowmint decode --json`: the
    /// tick's start in RFC 3339 UTC with as many fractional digits as the layout's unit needs
    /// (at least milliseconds), or `null` from year 10000 on; the rest numbers.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let time = Utc::for_unit(self.unix_nanos(), self.unit_nanos());
        let mut object = serializer.serialize_struct("Decoded", 5)?;
        if time.fits() {
            object.serialize_field("time", &format_args!("{time}"))?;
        } else {
            object.serialize_field("time", &None::<&str>)?;
        }
        object.serialize_field("unix_ms", &self.unix_millis())?;
        object.serialize_field("ticks", &self.ticks())?;
        object.serialize_field("node", &self.node())?;
        object.serialize_field("sequence", &self.sequence())?;
        object.end()
    }
}

impl Serialize for Parts {
    /// `{"node", "sequence"}`, two numbers.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("Parts", 2)?;
        object.serialize_field("node", &self.node)?;
        object.serialize_field("sequence", &self.sequence)?;
        object.end()
    }
}

impl<'de> ::serde::Deserialize<'de> for Parts {
    /// `{"node", "sequence"}`, both required, nothing else.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Parts, D::Error> {
        deserializer.deserialize_struct("Parts", PARTS_FIELDS, PartsVisitor)
    }
}

const PARTS_FIELDS: &[&str] = &["node", "sequence"];

/// Reads [`Parts`] from a map or a two-element sequence (binary formats write structs so).
struct PartsVisitor;

impl<'de> Visitor<'de> for PartsVisitor {
    type Value = Parts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an ID's parts: {\"node\": N, \"sequence\": S}")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
        let node = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let sequence = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok(Parts { node, sequence })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Parts, A::Error> {
        let (mut node, mut sequence) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let slot = match &*key {
                "node" => &mut node,
                "sequence" => &mut sequence,
                other => return Err(de::Error::unknown_field(other, PARTS_FIELDS)),
            };
            if slot.is_some() {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            *slot = Some(map.next_value()?);
        }
        Ok(Parts {
            node: node.ok_or_else(|| de::Error::missing_field("node"))?,
            sequence: sequence.ok_or_else(|| de::Error::missing_field("sequence"))?,
        })
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

/// An [`Id`] in one pinned representation (a string if `STRING`, else a number), the element
/// the `option` and `vec` modules hand to serde.
struct Pinned<const STRING: bool>(Id);

impl<const STRING: bool> Serialize for Pinned<STRING> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if STRING {
            as_string::serialize(&self.0, serializer)
        } else {
            as_u64::serialize(&self.0, serializer)
        }
    }
}

impl<'de, const STRING: bool> ::serde::Deserialize<'de> for Pinned<STRING> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if STRING {
            as_string::deserialize(deserializer).map(Pinned)
        } else {
            as_u64::deserialize(deserializer).map(Pinned)
        }
    }
}

fn serialize_option<const STRING: bool, S: Serializer>(
    id: &Option<Id>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => serializer.serialize_some(&Pinned::<STRING>(*id)),
        None => serializer.serialize_none(),
    }
}

fn deserialize_option<'de, const STRING: bool, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Id>, D::Error> {
    let id: Option<Pinned<STRING>> = ::serde::Deserialize::deserialize(deserializer)?;
    Ok(id.map(|p| p.0))
}

fn serialize_seq<const STRING: bool, S: Serializer>(
    ids: &[Id],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(ids.iter().map(|&id| Pinned::<STRING>(id)))
}

fn deserialize_vec<'de, const STRING: bool, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Id>, D::Error> {
    let ids: Vec<Pinned<STRING>> = ::serde::Deserialize::deserialize(deserializer)?;
    Ok(ids.into_iter().map(|p| p.0).collect())
}

/// Always a number: `#[serde(with = "snowmint::serde::as_u64")]` serializes the [`Id`] as
/// a `u64`, even in human-readable formats, and deserializes only a `u64` or a
/// non-negative `i64` (no strings). For `Option<Id>` and `Vec<Id>` fields: [`as_u64::option`]
/// and [`as_u64::vec`].
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

    /// [`as_u64`](super) for an `Option<Id>` field: `#[serde(with =
    /// "snowmint::serde::as_u64::option")]`, `None` as `null`. Add `#[serde(default)]` to
    /// read a missing field as `None`.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use snowmint::Id;
    ///
    /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
    /// struct Reply {
    ///     #[serde(default, with = "snowmint::serde::as_u64::option")]
    ///     parent: Option<Id>,
    /// }
    ///
    /// let reply = Reply { parent: Some(Id::from_u64(7)) };
    /// assert_eq!(serde_json::to_string(&reply).unwrap(), r#"{"parent":7}"#);
    /// assert_eq!(serde_json::from_str::<Reply>(r#"{"parent":null}"#).unwrap(), Reply { parent: None });
    /// assert_eq!(serde_json::from_str::<Reply>("{}").unwrap(), Reply { parent: None });
    /// assert!(serde_json::from_str::<Reply>(r#"{"parent":"7"}"#).is_err());
    /// ```
    pub mod option {
        use ::serde::{Deserializer, Serializer};

        use crate::id::Id;

        /// Serializes `Some(id)` as a number, `None` as none (`null` in JSON).
        ///
        /// ```
        /// let mut json = Vec::new();
        /// let id = Some(snowmint::Id::from_u64(7));
        /// snowmint::serde::as_u64::option::serialize(&id, &mut serde_json::Serializer::new(&mut json))
        ///     .unwrap();
        /// assert_eq!(json, br#"7"#);
        /// ```
        pub fn serialize<S: Serializer>(id: &Option<Id>, serializer: S) -> Result<S::Ok, S::Error> {
            super::super::serialize_option::<false, S>(id, serializer)
        }

        /// Deserializes none (`null`) as `None`, a number as `Some(id)`.
        ///
        /// ```
        /// let mut json = serde_json::Deserializer::from_str("null");
        /// assert_eq!(snowmint::serde::as_u64::option::deserialize(&mut json).unwrap(), None);
        /// ```
        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<Id>, D::Error> {
            super::super::deserialize_option::<false, D>(deserializer)
        }
    }

    /// [`as_u64`](super) for a `Vec<Id>` field: `#[serde(with =
    /// "snowmint::serde::as_u64::vec")]`, each element a number.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use snowmint::Id;
    ///
    /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
    /// struct Page {
    ///     #[serde(with = "snowmint::serde::as_u64::vec")]
    ///     ids: Vec<Id>,
    /// }
    ///
    /// let page = Page { ids: vec![Id::from_u64(7), Id::from_u64(8)] };
    /// let json = serde_json::to_string(&page).unwrap();
    /// assert_eq!(json, r#"{"ids":[7,8]}"#);
    /// assert_eq!(serde_json::from_str::<Page>(&json).unwrap(), page);
    /// assert!(serde_json::from_str::<Page>(r#"{"ids":[7,"8"]}"#).is_err());
    /// ```
    pub mod vec {
        use ::serde::{Deserializer, Serializer};

        use crate::id::Id;

        /// Serializes the IDs as a sequence of numbers. Takes any slice, so a `Box<[Id]>`
        /// field can use it too.
        ///
        /// ```
        /// let mut json = Vec::new();
        /// let ids = vec![snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)];
        /// snowmint::serde::as_u64::vec::serialize(&ids, &mut serde_json::Serializer::new(&mut json))
        ///     .unwrap();
        /// assert_eq!(json, br#"[7,8]"#);
        /// ```
        pub fn serialize<S: Serializer>(ids: &[Id], serializer: S) -> Result<S::Ok, S::Error> {
            super::super::serialize_seq::<false, S>(ids, serializer)
        }

        /// Deserializes a sequence of numbers.
        ///
        /// ```
        /// let mut json = serde_json::Deserializer::from_str(r#"[7,8]"#);
        /// let ids = snowmint::serde::as_u64::vec::deserialize(&mut json).unwrap();
        /// assert_eq!(ids, [snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)]);
        /// ```
        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Vec<Id>, D::Error> {
            super::super::deserialize_vec::<false, D>(deserializer)
        }
    }
}

/// Always a string: `#[serde(with = "snowmint::serde::as_string")]` serializes the [`Id`]
/// as its decimal string, even in binary formats, and deserializes only a decimal string
/// (no numbers). For `Option<Id>` and `Vec<Id>` fields: [`as_string::option`] and
/// [`as_string::vec`].
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

    /// [`as_string`](super) for an `Option<Id>` field: `#[serde(with =
    /// "snowmint::serde::as_string::option")]`, `None` as `null`. Add `#[serde(default)]` to
    /// read a missing field as `None`.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use snowmint::Id;
    ///
    /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
    /// struct Reply {
    ///     #[serde(default, with = "snowmint::serde::as_string::option")]
    ///     parent: Option<Id>,
    /// }
    ///
    /// let reply = Reply { parent: Some(Id::from_u64(7)) };
    /// assert_eq!(serde_json::to_string(&reply).unwrap(), r#"{"parent":"7"}"#);
    /// assert_eq!(serde_json::from_str::<Reply>(r#"{"parent":null}"#).unwrap(), Reply { parent: None });
    /// assert_eq!(serde_json::from_str::<Reply>("{}").unwrap(), Reply { parent: None });
    /// assert!(serde_json::from_str::<Reply>(r#"{"parent":7}"#).is_err());
    /// ```
    pub mod option {
        use ::serde::{Deserializer, Serializer};

        use crate::id::Id;

        /// Serializes `Some(id)` as a string, `None` as none (`null` in JSON).
        ///
        /// ```
        /// let mut json = Vec::new();
        /// let id = Some(snowmint::Id::from_u64(7));
        /// snowmint::serde::as_string::option::serialize(&id, &mut serde_json::Serializer::new(&mut json))
        ///     .unwrap();
        /// assert_eq!(json, br#""7""#);
        /// ```
        pub fn serialize<S: Serializer>(id: &Option<Id>, serializer: S) -> Result<S::Ok, S::Error> {
            super::super::serialize_option::<true, S>(id, serializer)
        }

        /// Deserializes none (`null`) as `None`, a string as `Some(id)`.
        ///
        /// ```
        /// let mut json = serde_json::Deserializer::from_str("null");
        /// assert_eq!(snowmint::serde::as_string::option::deserialize(&mut json).unwrap(), None);
        /// ```
        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<Id>, D::Error> {
            super::super::deserialize_option::<true, D>(deserializer)
        }
    }

    /// [`as_string`](super) for a `Vec<Id>` field: `#[serde(with =
    /// "snowmint::serde::as_string::vec")]`, each element a string.
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use snowmint::Id;
    ///
    /// #[derive(Serialize, Deserialize, Debug, PartialEq)]
    /// struct Page {
    ///     #[serde(with = "snowmint::serde::as_string::vec")]
    ///     ids: Vec<Id>,
    /// }
    ///
    /// let page = Page { ids: vec![Id::from_u64(7), Id::from_u64(8)] };
    /// let json = serde_json::to_string(&page).unwrap();
    /// assert_eq!(json, r#"{"ids":["7","8"]}"#);
    /// assert_eq!(serde_json::from_str::<Page>(&json).unwrap(), page);
    /// assert!(serde_json::from_str::<Page>(r#"{"ids":["7",8]}"#).is_err());
    /// ```
    pub mod vec {
        use ::serde::{Deserializer, Serializer};

        use crate::id::Id;

        /// Serializes the IDs as a sequence of strings. Takes any slice, so a `Box<[Id]>`
        /// field can use it too.
        ///
        /// ```
        /// let mut json = Vec::new();
        /// let ids = vec![snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)];
        /// snowmint::serde::as_string::vec::serialize(&ids, &mut serde_json::Serializer::new(&mut json))
        ///     .unwrap();
        /// assert_eq!(json, br#"["7","8"]"#);
        /// ```
        pub fn serialize<S: Serializer>(ids: &[Id], serializer: S) -> Result<S::Ok, S::Error> {
            super::super::serialize_seq::<true, S>(ids, serializer)
        }

        /// Deserializes a sequence of strings.
        ///
        /// ```
        /// let mut json = serde_json::Deserializer::from_str(r#"["7","8"]"#);
        /// let ids = snowmint::serde::as_string::vec::deserialize(&mut json).unwrap();
        /// assert_eq!(ids, [snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)]);
        /// ```
        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Vec<Id>, D::Error> {
            super::super::deserialize_vec::<true, D>(deserializer)
        }
    }
}
