//! The crate's types in other crates' terms, each behind its own feature, gathered in one
//! public module so that they are found in one place: `snowmint::integrations::serde`,
//! `…::postgres`, `…::sqlx`, `…::rayon`, `…::asynchronous`, and `describe_metrics` (feature `metrics`). None is
//! used by the layers below; each takes only their public types.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use serde::Serialize;
//! use snowmint::Id;
//!
//! #[derive(Serialize)]
//! struct Row {
//!     #[serde(with = "snowmint::integrations::serde::as_u64")]
//!     id: Id,
//! }
//! let json = serde_json::to_string(&Row { id: Id::from_u64(7) }).unwrap();
//! assert_eq!(json, r#"{"id":7}"#);
//! # }
//! ```
//!
//! | module | feature | holds |
//! |---|---|---|
//! | `serde/` | `serde` | `Serialize`/`Deserialize` for `Id`, `Decoded`, `Parts`, `Uuid7`, `Ulid`; the `as_u64`, `as_string` and `as_bytes` field modules |
//! | `postgres.rs` | `postgres` | `Id` as a PostgreSQL `BIGINT`, `Uuid7` as a `uuid`, for `postgres` and `tokio-postgres` |
//! | `sqlx.rs` | `sqlx` | `Id` as a PostgreSQL `BIGINT`, `Uuid7` as a `uuid`, for sqlx 0.8 |
//! | `rayon.rs` | `rayon` | IDs for parallel iterators, one shard per worker thread |
//! | `asynchronous.rs` | `std` (`tokio` for `IdSourceAsync`) | minting from async tasks on a timer, never blocking the executor |
//! | `describe_metrics` | `metrics` | the descriptions of the crate's metrics, for an exporter (from `events/`) |

pub mod asynchronous;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "rayon")]
pub mod rayon;
#[cfg(feature = "serde")]
pub mod serde;
#[cfg(feature = "sqlx")]
pub mod sqlx;

#[cfg(feature = "metrics")]
pub use crate::events::describe_metrics;
