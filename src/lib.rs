//! Lock-free, time-ordered 64-bit IDs: Twitter Snowflake, Sonyflake, Discord, Instagram and
//! layouts of your own, minted from the CPU's time-stamp counter on the hot path of
//! multi-threaded servers.
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
//! - [`Layout`]: field widths, order, time unit and epoch, per value (no globals), with
//!   [presets](Layout::PRESETS), compile-time checked constants, expiry dates and capacity.
//! - [`Id`]: the 64-bit value, with [`Display`](core::fmt::Display)/[`FromStr`](core::str::FromStr),
//!   base2/32/36/58/64 and hex encodings that never allocate, strict parsers and (feature
//!   `serde`) serde as a string for JavaScript clients.
//! - [`Generator`]: one node's IDs from any number of threads, the whole state in one
//!   cache-padded `AtomicU64` advanced by compare-and-swap.
//! - [`ShardedGenerator`]: per-thread shards of the node field, so minting scales with cores;
//!   owned [`Lease`]s for worker loops; [`IdBatch`]es reserved with one operation;
//!   rayon support (feature `rayon`).
//! - [`Clock`]s: [`TscClock`] (default), [`WallClock`], [`ManualClock`] (tests, loom).
//! - Database columns: IDs as `BIGINT`, checked both ways ([`BigintError`]), for the
//!   `postgres`/`tokio-postgres` crates (feature `postgres`) and sqlx (feature `sqlx`).
//!
//! # Design
//! The state of a generator is the last issued `(tick, sequence)` packed as
//! `tick << sequence_bits | sequence`, so the next state is `max(state + 1, now << sequence_bits)`:
//! `+ 1` takes the next sequence number and carries into the next tick when the sequence is
//! full, `max` folds the clock in so issued time never goes backwards whatever the clock does.
//! One CAS publishes it. The step is a pure function checked exhaustively in unit tests,
//! model-checked with loom through the real CAS loop, and fuzzed under scripted clocks.
//!
//! IDs are stamped with the clock's cheap reading (one relaxed load of a value a ticker thread
//! publishes every 500 µs); only when that reading would make the generator wait (the tick's
//! sequence is used up, or the reading is behind the state) is the exact TSC read. So the cheap
//! reading costs no capacity, only freshness: an ID's time may lag the moment it was minted by
//! the ticker's period plus its wake-up latency, and every 1,024th ID reads the exact clock so a
//! starved ticker cannot hold a busy generator's time back for longer than 1,024 IDs. See
//! [`TscClock`] for the drift correction.
//!
//! # Guarantees
//! - **No duplicates**, from one generator or shard, across threads, clock steps, restarts
//!   resumed with [`GeneratorBuilder::start_after`], and shards handed from thread to thread.
//! - **Exhaustion** (the tick's sequence used up): [`Generator::next_id`] waits for the next
//!   tick (spinning, then yielding; sleeping only for waits over 2 ms and never past the
//!   boundary), at most `max_wait`; [`Generator::try_next_id`] returns
//!   [`MintError::Exhausted`] with the time to wait. With a lead of `N` ticks the generator
//!   first borrows up to `N` future ticks.
//! - **Clock rollback**: [`Rollback::Continue`] finishes the last tick's sequence, then waits;
//!   [`Rollback::Wait`] waits at once; both give up at `max_wait` with
//!   [`MintError::ClockBehind`]. Never a duplicate, never an unbounded wait.
//! - **Overflow**: past a layout's expiry every call returns [`MintError::Expired`]; a clock
//!   before the epoch gives [`MintError::BeforeEpoch`]. Out-of-range fields are
//!   [`LayoutError`]s, never truncated.
//!
//! # Caveats
//! - Uniqueness across processes rests on node IDs: two generators with the same layout and
//!   node, anywhere, will collide. Give each process its own node (or host, when sharded).
//! - A process restarted with its wall clock behind the last ID it issued must resume with
//!   [`GeneratorBuilder::start_after`], or wait until its clock passes that time.
//! - IDs from different shards or nodes interleave by time only to the tick: within one tick
//!   they order by node (or by sequence first, in Sonyflake's order).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod asynchronous;
mod batch;
mod bigint;
mod clock;
mod decoded;
mod divisor;
mod encoding;
mod error;
mod events;
mod fence;
mod generator;
mod id;
mod layout;
mod mint;
pub mod node;
mod parts;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "rayon")]
pub mod rayon;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "serde")]
pub mod serde;
mod shard;
mod source;
#[cfg(feature = "sqlx")]
pub mod sqlx;
mod sync;

pub use self::batch::IdBatch;
pub use self::bigint::BigintError;
pub use self::clock::{Clock, ManualClock, TscClock, TscClockBuilder, TscClockError, WallClock};
pub use self::decoded::Decoded;
pub use self::encoding::{EncodedId, Encoding, ParseEncodingError, ParseErrorKind, ParseIdError};
pub use self::error::{Field, LayoutError, MintError};
pub use self::fence::{Cause, FenceError, Fenced, FileGuard, GuardError, Keeper, Renewal};
pub use self::generator::{Generator, GeneratorBuilder};
pub use self::id::Id;
pub use self::layout::{Layout, LayoutBuilder, Order, TimeGrid};
pub use self::mint::Rollback;
pub use self::node::{NodeError, NodeSource};
pub use self::parts::Parts;
pub use self::shard::{Lease, ShardError, ShardedBuilder, ShardedGenerator};
pub use self::source::{IdSource, MintFailure, SourceBuilder};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
