//! The 128-bit generators (feature `std`): [`Uuid7Generator`] and [`UlidGenerator`], each
//! one `AtomicU64` of time and counter advanced by the 64-bit rule, `max(last + 1, now)`,
//! with random bits from a per-thread ChaCha8 RNG.
//!
//! | file | holds |
//! |---|---|
//! | `state.rs` | `SharedState`: the padded atomic word and its one-CAS reservation of `n` states |
//! | `random.rs` | the per-thread `ChaCha8Rng`, seeded from the OS by getrandom |
//! | `uuid7_generator.rs` | [`Uuid7Generator`]: `ms << 12 \| rand_a` (RFC 9562 method 3), `rand_b` random |
//! | `ulid_generator.rs` | [`UlidGenerator`]: `ms << 16 \| counter`, the counter above 64 random bits |

mod random;
mod state;
mod ulid_generator;
mod uuid7_generator;

pub use self::ulid_generator::UlidGenerator;
pub use self::uuid7_generator::Uuid7Generator;
