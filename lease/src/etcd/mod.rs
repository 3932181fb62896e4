//! Node numbers leased from etcd v3 (feature `etcd`): [`EtcdLease`], a [`Lease`](crate::Lease) on
//! [`Etcd`].
//!
//! etcd replicates every write through Raft before it answers, so a lease survives the loss
//! of a minority of the cluster's members, and every claim gets a **fencing token** that only
//! grows: the holder key's `create_revision` ([`Fenced::token`](snowmint::fence::Fenced::token)). The
//! rules are the same as for every backend ([the crate's docs](crate)); the client speaks to etcd's
//! JSON gateway (`/v3/...`, etcd 3.4 and later) over `ureq`, a blocking HTTP/1.1 client:
//! no `protoc`, no async runtime. A secured cluster: `etcds://` with
//! [`ca_pem`](crate::LeaseBuilder::ca_pem), [`client_cert_pem`](crate::LeaseBuilder::client_cert_pem) and
//! [`user`](crate::LeaseBuilder::user) ([`snowmint::docs::fleets`], "Connecting to a secured store").
//!
//! Files: the URL and the backend here, the gateway client (`gateway.rs`), TLS and the user
//! (`security.rs`), the keys and transactions (`store.rs`).
//!
//! Keys, per namespace `NS` and node `N`:
//! - `snowmint/NS/holder/N`: the owner's token, attached to an etcd lease with the TTL;
//! - `snowmint/NS/mark/N`: `"MS OWNER"`, the node's high-water mark (Unix milliseconds: no
//!   ID of this node was issued with a later time) and who wrote it. It has no lease.
//!
//! ```no_run
//! use std::time::Duration;
//! use snowmint_lease::etcd::EtcdLease;
//! use snowmint::{Generator, Layout};
//!
//! let lease = EtcdLease::builder("etcd://127.0.0.1:2379,127.0.0.1:22379,127.0.0.1:32379")?
//!     .namespace("orders")
//!     .ttl(Duration::from_secs(10))
//!     .build()?;
//! let gen = lease.acquire(Generator::builder(Layout::TWITTER))?;
//! println!("minting as node {} (fencing token {:?})", gen.node(), gen.token());
//! let id = gen.next_id()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod etcd_lease;
mod gateway;
mod operator;
mod security;
mod store;

pub use self::etcd_lease::{Etcd, EtcdLease};
