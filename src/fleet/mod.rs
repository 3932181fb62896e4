//! The fleet: where a node number comes from, how a process proves it still holds its node,
//! and the stores it leases nodes from. Everything here needs `std`.
//!
//! | folder | holds |
//! |---|---|
//! | `node/` | [`node::NodeSource`] and its providers: a fixed number, an environment variable, a StatefulSet ordinal, a private IPv4 address |
//! | `fence/` | [`Fenced`](crate::Fenced): any source minting only inside the window its [`Keeper`](crate::Keeper) secured; [`FileGuard`](crate::FileGuard), a keeper for one machine |
//! | `lease/` | [`lease::Lease`]: a node leased from a shared store, the rules every backend shares (features `redis`, `etcd`) |
//! | `redis/` | the Redis backend and its Lua scripts (feature `redis`) |
//! | `etcd/` | the etcd v3 backend over its gRPC API (feature `etcd`) |
//!
//! `lease/` stands on `fence/` (a lease is a keeper) and on `node/` (its owner's name); each
//! backend on `lease/`.

#[cfg(feature = "etcd")]
pub mod etcd;
pub(crate) mod fence;
#[cfg(any(feature = "redis", feature = "etcd"))]
pub mod lease;
pub mod node;
#[cfg(feature = "redis")]
pub mod redis;
