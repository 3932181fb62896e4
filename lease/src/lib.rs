//! Node numbers for [`snowmint`] leased from a shared store: [`Lease`], the rules
//! every store shares, the Redis ([`redis`], feature `redis`), etcd ([`etcd`], feature
//! `etcd`) and PostgreSQL ([`postgres`], feature `postgres`) stores, the operator's calls, and the store interface for stores of your own
//! ([`Backend`], [`Store`], [`Admin`]).
//!
//! A lease claims a node number in a store that several processes share, renews it from a
//! background thread, fences its source when it cannot renew in time, and keeps a high-water
//! mark with the claim so that the next holder of the node continues after it. The backends
//! differ only in their store: [`RedisLease`](crate::redis::RedisLease) (feature `redis`)
//! and [`EtcdLease`](crate::etcd::EtcdLease) (feature `etcd`).
//!
//! # The rules
//! - **Claim** a node whose key the store does not hold, atomically with other claimers.
//! - **The namespace's record**, written by its first claim and never expired: a random
//!   incarnation, the TTL and the layout (with the leased node range) it was made with. A
//!   holder with another TTL or layout is refused ([`LeaseError::Mismatch`]).
//! - **The forgetting rule, only where the store may have forgotten.** A key the store does
//!   not hold was never held, released, expired, or lost by a restart or a fail-over. A claim
//!   the store vouches for (the record present and *settled*: on Redis, settled by the very
//!   server that answers) starts after the node's mark at once; any other claim (a new
//!   namespace, a wiped store, a Redis server restarted or failed over) mints only IDs
//!   stamped after `claim + TTL + margin`, and [`acquire`](Lease::acquire) waits that long,
//!   then settles the record. An earlier holder that still believed it held the node
//!   recorded no mark later than its last renewal plus the TTL, and stopped itself at its
//!   deadline, `margin` before that. [`snowmint::docs::fleets`] gives the reasoning.
//! - **Marks.** Every renewal (every third of the TTL) extends the key and raises the node's
//!   mark to `now + TTL` *before* the source may mint up to it; the next holder starts after
//!   the mark. A clean release lowers the mark to the last time issued.
//! - **The deadline.** The hold is proven until the send time of the last successful renewal
//!   plus the TTL minus the margin, on the source's clock, and the fence checks it with a
//!   reading taken after each mint: a process paused past it hands out nothing.
//! - **All holders of a namespace use one layout, one TTL and one margin.**
//!
//! - **The floor.** [`raise_floor`](Lease::raise_floor), the recovery step after a store was
//!   restored from an older backup, raises every mark and keeps a floor in the record: every
//!   claim starts after `max(mark, floor)`.
//!
//! # Writing a store
//! A store is a [`Backend`] (its settings; it opens sessions) whose session implements
//! [`Store`] (the holder's calls: claim, renew, release, settle, token) and [`Admin`] (the
//! operator's: list, raise the floor). Each call's documentation states what it must
//! guarantee; the rules above are built on those and are the same for every store. The
//! `conformance` feature's suite ([`conformance`]) checks every property against a real
//! server: run it from your store's tests.
//!
//! # Conformance
//! With feature `conformance`, [`conformance::run_all`] runs each property (exclusive
//! claims under concurrent claimers, a token that only grows, marks never lowered, renewal
//! after expiry refused, release leaves the mark, settling only on the same store, list and
//! raise-floor) against a [`Backend`]; this crate's tests run it against real Redis and etcd
//! servers.
//!
//! Files: [`Lease`] and the acquisition (`lease.rs`), [`LeaseError`] and [`StoreError`],
//! [`AcquireProgress`] (what an acquisition reports), how a claim is kept held while it
//! waits (`held.rs`), the keeper that renews (`keeper.rs`), the store interface
//! (`backend.rs`, `store.rs`, `admin.rs`), the owner token, the store's [`Password`], and the
//! operator's calls ([`list`](Lease::list), [`raise_floor`](Lease::raise_floor) in
//! `operator.rs`; what they report in `state.rs`).
#![forbid(unsafe_code)]
// On docs.rs (all features, `--cfg docsrs`, nightly) every item behind a feature carries a
// badge naming it.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Without a store's feature its module is gone, and the prose's links to it fall back to plain
// text; every link is checked where every module exists, in the build with all features
// (`.ci/docs`).
#![cfg_attr(
    not(all(feature = "redis", feature = "etcd")),
    allow(rustdoc::broken_intra_doc_links)
)]
#![deny(missing_docs)]

mod admin;
mod backend;
mod builder;
#[cfg(feature = "conformance")]
pub mod conformance;
mod error;
#[cfg(feature = "etcd")]
pub mod etcd;
pub mod guide;
mod held;
mod keeper;
mod lease;
mod operator;
mod owner;
mod password;
#[cfg(feature = "postgres")]
pub mod postgres;
mod progress;
#[cfg(feature = "redis")]
pub mod redis;
mod state;
mod store;
mod store_error;

pub use self::admin::Admin;
pub use self::backend::Backend;
pub use self::builder::LeaseBuilder;
pub use self::error::LeaseError;
pub use self::lease::Lease;
pub use self::password::Password;
pub use self::progress::AcquireProgress;
pub use self::state::{FloorRaised, FloorReset, NamespaceState, NodeState, RecordState};
pub use self::store::{Claim, Store};
pub use self::store_error::{StoreError, StoreErrorKind};

/// The README's example, compiled as a doctest.
#[cfg(all(doctest, feature = "etcd"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
