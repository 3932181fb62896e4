//! Always a string: `#[serde(with = "snowmint::serde::as_string")]` serializes the [`Id`]
//! as its decimal string, even in binary formats, and deserializes only a decimal string
//! (no numbers). For `Option<Id>` and `Vec<Id>` fields: [`as_string::option`](self::option) and
//! [`as_string::vec`](self::vec).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use snowmint::Id;
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Event {
//!     #[serde(with = "snowmint::serde::as_string")]
//!     id: Id,
//! }
//!
//! let event = Event { id: Id::from_u64(42) };
//! let json = serde_json::to_string(&event).unwrap();
//! assert_eq!(json, r#"{"id":"42"}"#);
//! assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), event);
//! assert!(serde_json::from_str::<Event>(r#"{"id":42}"#).is_err());
//! ```

use ::serde::{Deserializer, Serializer};

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
    super::pinned::serialize_pinned::<true, S>(id, serializer)
}

/// Deserializes an [`Id`] from its canonical decimal string.
///
/// ```
/// let mut json = serde_json::Deserializer::from_str(r#""7""#);
/// let id = snowmint::serde::as_string::deserialize(&mut json).unwrap();
/// assert_eq!(id, snowmint::Id::from_u64(7));
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
    super::pinned::deserialize_pinned::<true, D>(deserializer)
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
        super::super::pinned::serialize_option::<true, S>(id, serializer)
    }

    /// Deserializes none (`null`) as `None`, a string as `Some(id)`.
    ///
    /// ```
    /// let mut json = serde_json::Deserializer::from_str("null");
    /// assert_eq!(snowmint::serde::as_string::option::deserialize(&mut json).unwrap(), None);
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Id>, D::Error> {
        super::super::pinned::deserialize_option::<true, D>(deserializer)
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
        super::super::pinned::serialize_seq::<true, S>(ids, serializer)
    }

    /// Deserializes a sequence of strings.
    ///
    /// ```
    /// let mut json = serde_json::Deserializer::from_str(r#"["7","8"]"#);
    /// let ids = snowmint::serde::as_string::vec::deserialize(&mut json).unwrap();
    /// assert_eq!(ids, [snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)]);
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Id>, D::Error> {
        super::super::pinned::deserialize_vec::<true, D>(deserializer)
    }
}
