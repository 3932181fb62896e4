//! Always a string: `#[serde(with = "snowmint::integrations::serde::as_string")]` serializes the [`Id`]
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
//!     #[serde(with = "snowmint::integrations::serde::as_string")]
//!     id: Id,
//! }
//!
//! let event = Event { id: Id::from_u64(42) };
//! let json = serde_json::to_string(&event).unwrap();
//! assert_eq!(json, r#"{"id":"42"}"#);
//! assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), event);
//! assert!(serde_json::from_str::<Event>(r#"{"id":42}"#).is_err());
//! ```

super::pinned_module::pinned_module! {
    module: "as_string",
    string: true,
    as_one: "its decimal string",
    from_one: "its canonical decimal string",
    each: "a string",
    one: r#""7""#,
    seq: r#"["7","8"]"#,
    other_one: "7",
    mixed_seq: r#"["7",8]"#,
}
