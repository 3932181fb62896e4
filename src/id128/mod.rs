//! 128-bit ID values: [`Uuid7`] (RFC 9562 version 7) and [`Ulid`], their numbers, bytes and
//! strict text forms, in the `no_std` core. The generators that mint them from the crate's
//! clocks stand a floor higher, in `generator128/`.
//!
//! | file | holds |
//! |---|---|
//! | `uuid7.rs` | [`Uuid7`]: fields, `u128`, RFC byte order, text |
//! | `ulid.rs` | [`Ulid`]: time and random parts, `u128`, bytes, text |
//! | `hex.rs` | the UUID text: 36 characters, hyphenated, lowercase written, either case read |
//! | `crockford.rs` | the ULID text: Crockford base32, its aliases, the overflow rule |
//! | `error.rs` | [`Id128Error`]: what was wrong, where, and what is allowed |
//! | `uuid_crate.rs` | (feature `uuid`) [`Uuid7`] to and from `uuid::Uuid` |
//! | `ulid_crate.rs` | (feature `ulid`) [`Ulid`] to and from `ulid::Ulid` |

mod crockford;
mod error;
mod hex;
mod ulid;
#[cfg(feature = "ulid")]
mod ulid_crate;
mod uuid7;
#[cfg(feature = "uuid")]
mod uuid_crate;

pub use self::error::Id128Error;
pub use self::ulid::Ulid;
pub use self::uuid7::Uuid7;
