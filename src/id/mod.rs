//! The ground floor: the [`Id`] value and the plain values an ID is made of or read into.
//! Nothing here knows a layout's widths, a clock or a generator.
//!
//! | file | holds |
//! |---|---|
//! | `value.rs` | [`Id`]: the 64-bit number, its conversions and decimal form |
//! | `parts.rs` | [`Parts`]: the node and sequence of an ID to compose, by name |
//! | `decoded.rs` | [`Decoded`]: the fields of one ID as one layout reads them |
//! | `bigint.rs` | [`Id`] as SQL's `BIGINT` (`i64`), checked both ways, and [`BigintError`] |
//! | `rfc3339.rs` | `Utc`: a Unix time written as RFC 3339, for messages and serde |

mod bigint;
mod decoded;
mod parts;
mod rfc3339;
mod value;

pub use self::bigint::BigintError;
pub use self::decoded::Decoded;
pub use self::parts::Parts;
pub(crate) use self::rfc3339::Utc;
pub use self::value::Id;
