//! [`ShardedGenerator`]: minting that scales with threads, each thread on a shard of its own.
//!
//! | file | holds |
//! |---|---|
//! | `sharded_generator.rs` | [`ShardedGenerator`]: the thread-local shard lookup, the overflow shard, its calls |
//! | `builder.rs` | [`ShardedGeneratorBuilder`]: its settings, checked at `build` |
//! | `owned_shard.rs` | [`OwnedShard`]: one shard owned by one worker loop |
//! | `shared.rs` | `Shared`: the minter, the slots, the node, held by every shard |
//! | `slots.rs` | `Slots`: the table of shards, and `Hold`, one thread's exclusive hold on one |
//! | `local.rs` | the per-thread registry: one hold per generator, handed back at thread exit |
//! | `error.rs` | [`ShardError`]: settings a sharded generator cannot have |

mod builder;
mod error;
mod local;
mod owned_shard;
mod sharded_generator;
mod shared;
mod slots;
#[cfg(test)]
mod tests;

pub use self::builder::ShardedGeneratorBuilder;
pub use self::error::ShardError;
pub use self::owned_shard::OwnedShard;
pub use self::sharded_generator::ShardedGenerator;
