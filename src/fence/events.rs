//! The lease events, for a keeper that leases its node from a shared store (the
//! `snowmint-lease` crate's Redis and etcd leases, or a store of your own): each records its
//! metric (feature `metrics`) and its trace event (feature `tracing`) beside the core's, with
//! the names and labels `describe_metrics` (feature `metrics`) describes; with both
//! features off each compiles to nothing.
//!
//! ```
//! use snowmint::fence::events;
//! use snowmint::Layout;
//!
//! // A keeper of your own claimed node 7 of namespace "orders" in its store "zookeeper",
//! // which held no mark for it.
//! events::lease_acquired(&Layout::TWITTER, "zookeeper", "orders", 7, None);
//! ```

pub use crate::events::{
    lease_acquired, lease_floor_ahead, lease_record_settled, lease_restore_sign, lease_taken_back,
    lease_unvouched,
};
