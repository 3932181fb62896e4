//! Always a number: `#[serde(with = "snowmint::serde::as_u64")]` serializes the [`Id`] as
//! a `u64`, even in human-readable formats, and deserializes only a `u64` or a
//! non-negative `i64` (no strings). For `Option<Id>` and `Vec<Id>` fields: [`as_u64::option`](self::option)
//! and [`as_u64::vec`](self::vec).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use snowmint::Id;
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Row {
//!     #[serde(with = "snowmint::serde::as_u64")]
//!     id: Id,
//! }
//!
//! let row = Row { id: Id::from_u64(1_428_076_403_798_048_768) };
//! let json = serde_json::to_string(&row).unwrap();
//! assert_eq!(json, r#"{"id":1428076403798048768}"#);
//! assert_eq!(serde_json::from_str::<Row>(&json).unwrap(), row);
//! assert!(serde_json::from_str::<Row>(r#"{"id":"1"}"#).is_err());
//! ```

use ::serde::{Deserializer, Serializer};

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
    super::pinned::serialize_pinned::<false, S>(id, serializer)
}

/// Deserializes an [`Id`] from a `u64` or a non-negative `i64`.
///
/// ```
/// let mut json = serde_json::Deserializer::from_str("7");
/// let id = snowmint::serde::as_u64::deserialize(&mut json).unwrap();
/// assert_eq!(id, snowmint::Id::from_u64(7));
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
    super::pinned::deserialize_pinned::<false, D>(deserializer)
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
        super::super::pinned::serialize_option::<false, S>(id, serializer)
    }

    /// Deserializes none (`null`) as `None`, a number as `Some(id)`.
    ///
    /// ```
    /// let mut json = serde_json::Deserializer::from_str("null");
    /// assert_eq!(snowmint::serde::as_u64::option::deserialize(&mut json).unwrap(), None);
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Id>, D::Error> {
        super::super::pinned::deserialize_option::<false, D>(deserializer)
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
        super::super::pinned::serialize_seq::<false, S>(ids, serializer)
    }

    /// Deserializes a sequence of numbers.
    ///
    /// ```
    /// let mut json = serde_json::Deserializer::from_str(r#"[7,8]"#);
    /// let ids = snowmint::serde::as_u64::vec::deserialize(&mut json).unwrap();
    /// assert_eq!(ids, [snowmint::Id::from_u64(7), snowmint::Id::from_u64(8)]);
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Id>, D::Error> {
        super::super::pinned::deserialize_vec::<false, D>(deserializer)
    }
}
