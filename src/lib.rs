//! Lock-free, time-ordered 64-bit IDs: Twitter Snowflake, Sonyflake (v1 and v2), Discord,
//! Instagram, Mastodon and layouts of your own, minted from the CPU's time-stamp counter on
//! the hot path of multi-threaded servers.
//!
//! ```
//! use snowmint::{Encoding, Generator, Layout};
//!
//! let gen = Generator::new(Layout::TWITTER, 1)?;   // node 1 of 1024
//! let id = gen.next_id()?;
//! let parts = Layout::TWITTER.decode(id);
//! assert_eq!(parts.node(), 1);
//! println!("{id} = {} ms, node {}, sequence {}", parts.unix_millis(), parts.node(), parts.sequence());
//! println!("base58 {}, base64 {}", id.encode(Encoding::Base58), id.encode(Encoding::Base64));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Pieces
//! - [`Layout`]: widths, order, unit and epoch per value, with [presets](Layout::PRESETS),
//!   expiry dates and capacity. More: [`docs::layouts`].
//! - [`Id`] and [`Encoding`]: the value, its encodings and strict parsers; serde (feature
//!   `serde`) and PostgreSQL `BIGINT` (features `postgres`, `sqlx`). More: [`docs::encodings`].
//! - [`Generator`], [`ShardedGenerator`], [`OwnedShard`], [`IdBatch`]: one atomic word per node, a
//!   shard per thread, batches and slice fills ([`IdSource::fill`]); all [`IdSource`]s. More: [`docs::generators`].
//! - [`Clock`]s: [`TscClock`] (default), [`WallClock`], [`ManualClock`]. More: [`docs::time`].
//! - 128-bit IDs on the same clock: [`Uuid7`] and [`Ulid`] with strict parsers (in the
//!   `no_std` core), minted lock-free by [`Uuid7Generator`] (RFC 9562 method 3) and
//!   [`UlidGenerator`] (monotonic, never failing), their time at most 1 ms ahead of the
//!   clock; [`Uuid7Shard`] and [`UlidShard`] for one thread's tightest loop.
//! - Node numbers and fences: [`node`], [`FileGuard`], [`Fenced`] over any source, and
//!   [`fence`], the seam a keeper of your own (such as the `snowmint-lease` crate's Redis and
//!   etcd leases) is built on. More: [`docs::fleets`].
//!
//! Also: [`docs::migrating`] (from bwmarrin/snowflake and sonyflake), [`docs::cli`] (the
//! `snowmint` command), [`docs::proof`] (how the guarantees are checked).
//!
//! Without the default feature `std` the crate is `#![no_std]`: layouts, IDs, encodings and a
//! [`Generator`] over a clock of the caller's. More: [`docs::no_std`].
// The unit tests link std (the test harness does anyway), so that the core's own tests run
// without the `std` feature: `cargo test --no-default-features --lib`.
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Without `std` the shards are gone, and with them the only users of the tick cache and a
// batch's cutting: kept compiled rather than gated item by item.
#![cfg_attr(not(feature = "std"), allow(dead_code))]

#[cfg(any(feature = "alloc", test))]
extern crate alloc;

mod clock;
pub mod docs;
mod encoding;
mod events;
#[cfg(feature = "std")]
pub mod fence;
mod generator;
mod id;
mod id128;
#[cfg(feature = "std")]
mod integrations;
mod layout;
mod mint;
#[cfg(feature = "std")]
pub mod node;
#[cfg(feature = "std")]
mod shard;
mod source;
mod sync;

pub use self::clock::Clock;
#[cfg(feature = "js")]
pub use self::clock::JsClock;
#[cfg(any(feature = "alloc", test))]
pub use self::clock::ManualClock;
#[cfg(feature = "std")]
pub use self::clock::{TscClock, TscClockBuilder, TscClockError, WallClock};
#[cfg(feature = "alloc")]
pub use self::encoding::ParseEncodingError;
pub use self::encoding::{EncodedId, Encoding, ParseErrorKind, ParseIdError};
#[cfg(feature = "metrics")]
pub use self::events::describe_metrics;
#[cfg(feature = "std")]
pub use self::fence::{
    Cause, FenceCause, FenceError, Fenced, FileGuard, GuardError, Keeper, Renewal,
};
pub use self::generator::{Generator, GeneratorBuilder};
pub use self::id::{BigintError, Decoded, Id, Parts};
pub use self::id128::{Id128Error, Ulid, Uuid7};
#[cfg(feature = "std")]
pub use self::id128::{UlidGenerator, UlidShard, Uuid7Generator, Uuid7Shard};
#[cfg(feature = "std")]
pub use self::integrations::asynchronous;
#[cfg(feature = "postgres")]
pub use self::integrations::postgres;
#[cfg(feature = "rayon")]
pub use self::integrations::rayon;
#[cfg(feature = "serde")]
pub use self::integrations::serde;
#[cfg(feature = "sqlx")]
pub use self::integrations::sqlx;
pub use self::layout::{Field, Layout, LayoutBuilder, LayoutError, Order, TimeGrid};
pub use self::mint::{MintError, Rollback};
#[cfg(feature = "std")]
pub use self::node::{NodeError, NodeSource};
#[cfg(feature = "std")]
pub use self::shard::{OwnedShard, ShardError, ShardedGenerator, ShardedGeneratorBuilder};
pub use self::source::{FillError, IdBatch, IdSource, MintFailure, SourceBuilder};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
