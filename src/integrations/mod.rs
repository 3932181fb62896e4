//! Integrations: the crate's types in other crates' terms, each behind its own feature, each
//! public at the crate's root (`snowmint::serde`, `snowmint::postgres`, …). None is used by
//! the layers below; each takes only their public types.
//!
//! | module | feature | holds |
//! |---|---|---|
//! | `serde/` | `serde` | `Serialize`/`Deserialize` for `Id`, `Decoded`, `Parts`, `Uuid7`, `Ulid`; the `as_u64`, `as_string` and `as_bytes` field modules |
//! | `postgres.rs` | `postgres` | `Id` as a PostgreSQL `BIGINT`, `Uuid7` as a `uuid`, for `postgres` and `tokio-postgres` |
//! | `sqlx.rs` | `sqlx` | `Id` as a PostgreSQL `BIGINT`, `Uuid7` as a `uuid`, for sqlx 0.8 |
//! | `rayon.rs` | `rayon` | IDs for parallel iterators, one shard per worker thread |
//! | `asynchronous.rs` | `std` (`tokio` for `IdSourceAsync`) | minting from async tasks on a timer, never blocking the executor |

pub mod asynchronous;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "rayon")]
pub mod rayon;
#[cfg(feature = "serde")]
pub mod serde;
#[cfg(feature = "sqlx")]
pub mod sqlx;
