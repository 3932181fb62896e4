//! Node numbers for [snowmint](snowmint) leased from a shared store: [`Lease`], the rules
//! every store shares, and the stores, Redis ([`redis`], feature `redis`) and etcd
//! ([`etcd`], feature `etcd`).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "etcd")]
pub mod etcd;
mod lease;
#[cfg(feature = "redis")]
pub mod redis;

pub use self::lease::{
    AcquireProgress, Backend, FloorRaised, Lease, LeaseError, NamespaceState, NodeState, Password,
    RecordState,
};
