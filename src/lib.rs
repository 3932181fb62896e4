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
//!   expiry dates and capacity; a layout of one's own from [`layout`]. More: [`docs::layouts`].
//! - [`Id`] and [`Encoding`]: the value, its encodings and strict parsers ([`encoding`] holds
//!   their details); serde, PostgreSQL `BIGINT` and the rest in [`integrations`]. More:
//!   [`docs::encodings`].
//! - [`Generator`], [`ShardedGenerator`] and every [`IdSource`]: one atomic word per node, a
//!   shard per thread; batches and slice fills in [`source`], a shard of one's own in
//!   [`shard`]. More: [`docs::generators`].
//! - [`clock`]: the TSC clock (the default), the wall clock, a manual clock for tests, and the
//!   rollback policy. More: [`docs::time`].
//! - 128-bit IDs on the same clock: [`Uuid7`] and [`Ulid`] with strict parsers (in the
//!   `no_std` core), minted lock-free by [`Uuid7Generator`] (RFC 9562 method 3) and
//!   [`UlidGenerator`] (monotonic, never failing), their time at most 1 ms ahead of the
//!   clock; [`shard::Uuid7Shard`] and [`shard::UlidShard`] for one thread's tightest loop, and [`Ulid::now`] and [`Uuid7::now`] for the per-thread one-call entry.
//! - Node numbers and fences: [`node`], [`fence::FileGuard`], [`fence::Fenced`] over any source, and
//!   [`fence`], the seam a keeper of your own (such as the `snowmint-lease` crate's Redis and
//!   etcd leases) is built on. More: [`docs::fleets`].
//!
//! # The root and the modules
//! The crate's root holds the names a user of [`Generator`], [`ShardedGenerator`], [`Layout`],
//! [`Id`] and the 128-bit IDs touches: those types, their builders, the values they hand back
//! ([`Decoded`], [`Parts`]) and the errors their calls return, with [`IdSource`] for code over
//! any of them; at most 30 names in all, every feature on, public modules counted
//! (`tests/surface.rs` fails past that). Whatever serves one who writes a clock, a layout or
//! a source, tunes one thread's loop, or wires the crate into another library lives in the
//! public module named for it: [`clock`], [`layout`], [`encoding`], [`source`], [`shard`],
//! [`integrations`], the fence's and the node's items in theirs. Every item has one path.
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
// Without `std` most of the names the prose links to (the shards, the TSC clock, the fence, the
// 128-bit generators) are gone: there the links fall back to plain text. Every link is checked
// where every item exists, in the build with all features (`.ci/docs`).
#![cfg_attr(not(feature = "std"), allow(rustdoc::broken_intra_doc_links))]
// On docs.rs (all features, `--cfg docsrs`, nightly) every item behind a feature carries a
// badge naming it.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "alloc", test))]
extern crate alloc;

pub mod clock;
pub mod docs;
pub mod encoding;
mod events;
#[cfg(feature = "std")]
pub mod fence;
mod generator;
#[cfg(feature = "std")]
mod generator128;
mod id;
mod id128;
#[cfg(feature = "std")]
pub mod integrations;
pub mod layout;
mod mint;
#[cfg(feature = "std")]
pub mod node;
#[cfg(feature = "std")]
pub mod shard;
pub mod source;
mod sync;

pub use self::encoding::{error::ParseIdError, scheme::Encoding};
pub use self::generator::{Generator, GeneratorBuilder};
#[cfg(feature = "std")]
pub use self::generator128::{UlidGenerator, Uuid7Generator};
pub use self::id::{BigintError, Decoded, Id, Parts};
pub use self::id128::{Id128Error, Ulid, Uuid7};
pub use self::layout::{error::LayoutError, shape::Layout};
pub use self::mint::MintError;
#[cfg(feature = "std")]
pub use self::shard::{
    builder::ShardedGeneratorBuilder, error::ShardError, sharded_generator::ShardedGenerator,
};
pub use self::source::id_source::IdSource;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
