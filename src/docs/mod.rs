//! The long-form documentation: one module of prose per topic, with examples that run as
//! doctests. Nothing here is code; the types are at the [crate root](crate).
//!
//! | module | what it covers |
//! |---|---|
//! | [`layouts`] | the presets, custom layouts, the time grid, decoding and composing IDs |
//! | [`encodings`] | [`Id`](crate::Id), every text and byte encoding (bwmarrin's too), serde, PostgreSQL `BIGINT` |
//! | [`generators`] | [`Generator`](crate::Generator), [`ShardedGenerator`](crate::ShardedGenerator), [`OwnedShard`](crate::shard::OwnedShard), batches, rayon, [`IdSource`](crate::IdSource), the guarantees |
//! | [`time`] | the clocks, how fresh an ID's time is, `fork()` |
//! | [`fleets`] | node numbers, the file guard, failure modes (the leases: the `snowmint-lease` crate) |
//! | [`migrating`] | from bwmarrin/snowflake and sony/sonyflake |
//! | [`cli`] | the `snowmint` command |
//! | [`servers`] | async minting (feature `tokio`), metrics and tracing |
//! | [`proof`] | loom, property tests, fuzzing, miri, stress tests |
//! | [`no_std`] | without `std`: what each feature adds, a generator on a counter clock, targets without 64-bit atomics, WebAssembly |
//!
//! # Crate features
//!
//! Only `std` is on by default: with it the library needs only `quanta` and
//! `crossbeam-utils`, and for the random bits of the 128-bit generators `chacha20` (its
//! `ChaCha8Rng` alone, no cipher traits) and `getrandom`; without it, nothing ([`no_std`]). The command-line tool is its own package, `snowmint-cli` in `cli/`.
//!
//! | feature | adds |
//! |---|---|
//! | `std` (default) | everything that needs the operating system: [`TscClock`](crate::clock::TscClock) (`quanta`), `WallClock`, the shards, `Fenced` and `FileGuard`, the node sources, waits that sleep, the 128-bit generators and their random bits (`chacha20`, `getrandom`); implies `alloc` |
//! | `alloc` | a global allocator, no OS: `ManualClock`, `Clock`/`IdSource` through `Arc` and `Box`, `"hex".parse::<Encoding>()`, `EncodedId == String` |
//! | `js` | `JsClock`: the host's clock (`Date.now()`) through `js-sys`, for `wasm32-unknown-unknown` in browsers and Node.js; works without `std` |
//! | `portable-atomic` | 64-bit atomics from `portable-atomic` for the `no_std` core on targets without native ones (`thumbv7m-none-eabi`, `riscv32imac`, 32-bit MIPS and PowerPC) |
//! | `uuid` | [`Uuid7`](crate::Uuid7) to `uuid::Uuid` (`From`) and back (`TryFrom`: version 7 and the RFC variant only); `uuid` 1.x, no default features, works without `std` |
//! | `ulid` | [`Ulid`](crate::Ulid) to and from `ulid::Ulid` (`From` both ways); `ulid` 3.x, no default features, works without `std` |
//! | `serde` | `Serialize`/`Deserialize` for `Id` and `Parts`, `Serialize` for `Decoded`; `snowmint::integrations::serde::{as_u64, as_string}` and their `option`/`vec` modules |
//! | `rayon` | `snowmint::integrations::rayon`: `map_with_id`, `par_ids`, `par_fill`, `with_shards` |
//! | `ip` | [`node::PrivateIpv4`](crate::node): node numbers from the private IPv4 address (lists interfaces with `if-addrs`) |
//! | `postgres` | `Id` as a `BIGINT` column for the `postgres` and `tokio-postgres` crates (`ToSql`/`FromSql` of `postgres-types` 0.2, no default features) |
//! | `sqlx` | `Id` as a `BIGINT` column for sqlx 0.8 (`Type`/`Encode`/`Decode`/`PgHasArrayType` for `Postgres`; sqlx's Postgres driver only, no runtime, TLS or macros) |
//! | `tokio` | `snowmint::integrations::asynchronous::IdSourceAsync`: `next_id_async`/`next_ids_async` on tokio's timer (tokio's `time` feature only) |
//! | `metrics` | counters and histograms of waits, clock steps back, errors and overflow use (`metrics` 0.24) |
//! | `tracing` | a trace event for each of those (`tracing` 0.1, no default features) |
//!
//! Benchmark figures (dated measurements, with the machine and the load) are in the
//! repository's `benches/README.md`, not here.

#[doc = include_str!("layouts.md")]
pub mod layouts {}

#[doc = include_str!("encodings.md")]
pub mod encodings {}

#[doc = include_str!("generators.md")]
pub mod generators {}

#[doc = include_str!("time.md")]
pub mod time {}

#[doc = include_str!("fleets.md")]
pub mod fleets {}

#[doc = include_str!("migrating.md")]
pub mod migrating {}

#[doc = include_str!("cli.md")]
pub mod cli {}

#[doc = include_str!("servers.md")]
pub mod servers {}

#[doc = include_str!("proof.md")]
pub mod proof {}

#[doc = include_str!("no_std.md")]
pub mod no_std {}
