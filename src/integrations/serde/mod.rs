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
//! [`Uuid7`] and [`Ulid`] serialize as their canonical strings in every format and read back
//! through their strict parsers; [`as_bytes`] pins their 16 bytes instead:
//!
//! ```
//! use snowmint::{Ulid, Uuid7};
//!
//! let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
//! assert_eq!(serde_json::to_string(&id)?, r#""017f22e2-79b0-7cc3-98c4-dc0c0c07398f""#);
//! assert_eq!(serde_json::from_str::<Uuid7>(r#""017F22E2-79B0-7CC3-98C4-DC0C0C07398F""#)?, id);
//! assert!(serde_json::from_str::<Uuid7>(r#""017f22e2-79b0-4cc3-98c4-dc0c0c07398f""#).is_err());
//! let ulid: Ulid = serde_json::from_str(r#""01ARYZ6S41TSV4RRFFQ69G5FAV""#)?;
//! assert_eq!(serde_json::to_string(&ulid)?, r#""01ARYZ6S41TSV4RRFFQ69G5FAV""#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! | file | holds |
//! |---|---|
//! | `impls.rs` | `Serialize`/`Deserialize` for [`Id`], [`Decoded`], [`Parts`], and the visitor of an `Id` |
//! | `as_u64.rs`, `as_string.rs` | the `#[serde(with = "...")]` modules that pin one representation |
//! | `pinned_module.rs` | `pinned_module!`: the one body of those two modules |
//! | `id128.rs` | `Serialize`/`Deserialize` for [`Uuid7`] and [`Ulid`]: the canonical string |
//! | `as_bytes.rs` | the `with` module of a [`Uuid7`] or [`Ulid`] as 16 bytes |
//! | `pinned.rs` | an `Id` pinned to one representation, for their `option` and `vec` forms |
//!
//! [`Id`]: crate::Id
//! [`Decoded`]: crate::Decoded
//! [`Parts`]: crate::Parts
//! [`Uuid7`]: crate::Uuid7
//! [`Ulid`]: crate::Ulid

pub mod as_bytes;
pub mod as_string;
pub mod as_u64;
mod id128;
mod impls;
mod pinned;
mod pinned_module;
