//! Node numbers leased from Redis (feature `redis`): [`RedisLease`], a [`Lease`](crate::Lease) on [`Redis`].
//!
//! Each generator takes a free node number atomically, renews its lease from a background
//! thread, fences itself when it cannot renew in time, and leaves a high-water mark of the
//! time it issued for the next owner of the node, who continues after it. The rules are the
//! same for every backend ([the crate's docs](crate)); the keys, guarantees and failure modes of this
//! one are on [`RedisLease`].
//!
//! Keys, per namespace `NS` and node `N`:
//! - `snowmint:NS:node:N`: the owner's token, with the lease's TTL;
//! - `snowmint:NS:node:N:last`: a hash, `ms` (the mark, Unix milliseconds: no ID of this
//!   node was issued with a later time) and `owner` (who wrote it). It has no TTL.
//! - `snowmint:NS:record`: the namespace's record, a hash: `incarnation`, `ttl_ms`,
//!   `layout`, and `server`, the identity (`run_id/master_replid`) of the server that
//!   settled it (empty until then), and `floor_ms`, the floor `Lease::raise_floor` kept
//!   (every claim starts after it). It has no TTL.
//!
//! ```no_run
//! use std::time::Duration;
//! use snowmint_lease::redis::RedisLease;
//! use snowmint::{Generator, Layout};
//!
//! let lease = RedisLease::builder("redis://127.0.0.1:6379/")?
//!     .namespace("orders")
//!     .ttl(Duration::from_secs(10))
//!     .build()?;
//! let gen = lease.acquire(Generator::builder(Layout::TWITTER))?;
//! println!("minting as node {}", gen.node());
//! let id = gen.next_id()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod operator;
mod redis_lease;
mod security;
mod store;

pub use self::redis_lease::{Redis, RedisLease};
