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
//!
//! | file | holds |
//! |---|---|
//! | `impls.rs` | `Serialize`/`Deserialize` for [`Id`], [`Decoded`], [`Parts`], and the visitor of an `Id` |
//! | `as_u64.rs`, `as_string.rs` | the `#[serde(with = "...")]` modules that pin one representation |
//! | `pinned.rs` | an `Id` pinned to one representation, for their `option` and `vec` forms |
//!
//! [`Id`]: crate::Id
//! [`Decoded`]: crate::Decoded
//! [`Parts`]: crate::Parts

pub mod as_string;
pub mod as_u64;
mod impls;
mod pinned;
