//! 128-bit IDs from the same clock: [`Uuid7`] (RFC 9562 version 7) and [`Ulid`], their
//! numbers, bytes and strict text forms (the `no_std` core), and, with `std`, the
//! lock-free generators [`Uuid7Generator`] and [`UlidGenerator`] and their per-thread
//! shards [`Uuid7Shard`] and [`UlidShard`].
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
//! | `generator/` | (`std`) the shared state, the per-thread random bits, the two generators |

mod crockford;
mod error;
#[cfg(feature = "std")]
mod generator;
mod hex;
mod ulid;
#[cfg(feature = "ulid")]
mod ulid_crate;
mod uuid7;
#[cfg(feature = "uuid")]
mod uuid_crate;

pub use self::error::Id128Error;
#[cfg(feature = "std")]
pub use self::generator::{UlidGenerator, UlidShard, Uuid7Generator, Uuid7Shard};
pub use self::ulid::Ulid;
pub use self::uuid7::Uuid7;
