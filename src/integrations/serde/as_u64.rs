//! Always a number: `#[serde(with = "snowmint::integrations::serde::as_u64")]` serializes the [`Id`] as
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
//!     #[serde(with = "snowmint::integrations::serde::as_u64")]
//!     id: Id,
//! }
//!
//! let row = Row { id: Id::from_u64(1_428_076_403_798_048_768) };
//! let json = serde_json::to_string(&row).unwrap();
//! assert_eq!(json, r#"{"id":1428076403798048768}"#);
//! assert_eq!(serde_json::from_str::<Row>(&json).unwrap(), row);
//! assert!(serde_json::from_str::<Row>(r#"{"id":"1"}"#).is_err());
//! ```

super::pinned_module::pinned_module! {
    module: "as_u64",
    string: false,
    as_one: "a `u64`",
    from_one: "a `u64` or a non-negative `i64`",
    each: "a number",
    one: "7",
    seq: "[7,8]",
    other_one: r#""7""#,
    mixed_seq: r#"[7,"8"]"#,
}
