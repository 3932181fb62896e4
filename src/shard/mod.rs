//! A shard of one's own, for one thread's tightest loop without the thread-local lookup:
//! [`OwnedShard`] of a [`ShardedGenerator`], and the 128-bit
//! generators' [`Uuid7Shard`] and [`UlidShard`] (from `generator128/`). The folder also holds
//! the sharded generator itself, its builder and [`ShardError`](crate::ShardError), which are
//! exported at the crate's root.
//!
//! ```
//! use snowmint::shard::OwnedShard;
//! use snowmint::{Layout, ShardedGenerator};
//!
//! let gen = ShardedGenerator::builder(Layout::TWITTER).node(3).build()?;
//! let shard: OwnedShard = gen.own_shard()?;
//! let (a, b) = (shard.next_id()?, shard.next_id()?);
//! assert!(b > a);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! | file | holds |
//! |---|---|
//! | `sharded_generator.rs` | [`ShardedGenerator`]: the thread-local shard lookup, the overflow shard, its calls |
//! | `builder.rs` | [`ShardedGeneratorBuilder`](crate::ShardedGeneratorBuilder): its settings, checked at `build` |
//! | `owned_shard.rs` | [`OwnedShard`]: one shard owned by one worker loop |
//! | `shared.rs` | `Shared`: the minter, the slots, the node, held by every shard |
//! | `slots.rs` | `Slots`: the table of shards, and `Hold`, one thread's exclusive hold on one |
//! | `local.rs` | the per-thread registry: one hold per generator, handed back at thread exit |
//! | `error.rs` | [`ShardError`](crate::ShardError): settings a sharded generator cannot have |

// The files of the sharded generator, its builder and its error, reached from the root.
pub(crate) mod builder;
pub(crate) mod error;
mod local;
mod owned_shard;
pub(crate) mod sharded_generator;
mod shared;
mod slots;
#[cfg(test)]
mod tests;

pub use self::owned_shard::OwnedShard;
pub(crate) use self::sharded_generator::ShardedGenerator;
pub use crate::generator128::{UlidShard, Uuid7Shard};
