//! The 128-bit generators (feature `std`), a floor above the values in `id128/`:
//! [`Uuid7Generator`] and [`UlidGenerator`], each one `AtomicU64` of time (1/4096 ms ticks
//! from the generator's start) and counter advanced by the 64-bit rule, `max(last + 1, now)`,
//! at most 1 ms ahead of the clock, with random bits from a per-thread ChaCha8 RNG.
//!
//! | file | holds |
//! |---|---|
//! | `timeline.rs` | `Timeline`: readings to ticks, states to fields, the rule's `Rules` and lead |
//! | `state.rs` | `SharedState`: the padded atomic word and its one-CAS reservation of `n` states |
//! | `random.rs` | the per-thread `ChaCha8Rng`, seeded from the OS by getrandom |
//! | `uuid7_generator.rs` | [`Uuid7Generator`]: the fraction in `rand_a` (RFC 9562 method 3), the counter atop `rand_b` |
//! | `ulid_generator.rs` | [`UlidGenerator`]: the fraction and counter above 61 random bits |
//! | `block.rs` | `Block`: 128 states a shard took by one CAS, spent without an atomic |
//! | `uuid7_run.rs` | `Uuid7Run`: a UUID shard's state and its run of random steps (RFC 9562 method 2) |
//! | `shards.rs` | [`Uuid7Shard`], [`UlidShard`]: one thread's source from blocks |

mod block;
mod random;
mod shards;
mod state;
mod timeline;
mod ulid_generator;
mod uuid7_generator;
mod uuid7_run;

pub use self::shards::{UlidShard, Uuid7Shard};
pub use self::ulid_generator::UlidGenerator;
pub use self::uuid7_generator::Uuid7Generator;
