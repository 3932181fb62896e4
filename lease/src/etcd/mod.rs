//! Node numbers leased from etcd v3 (feature `etcd`): [`EtcdLease`], a [`Lease`](crate::Lease) on
//! [`Etcd`].
//!
//! etcd replicates every write through Raft before it answers, so a lease survives the loss
//! of a minority of the cluster's members, and every claim gets a **fencing token** that only
//! grows: the holder key's `create_revision` ([`Fenced::token`](snowmint::fence::Fenced::token)). The
//! rules are the same as for every backend ([the crate's docs](crate)); the client speaks etcd's gRPC
//! API (etcd 3.4 and later) with tonic, on a current-thread tokio runtime of its own: every
//! call blocks its caller, bounded by the I/O timeout; no `protoc` (the messages are
//! generated ahead of time). A secured cluster: `etcds://` with
//! [`ca_pem`](crate::LeaseBuilder::ca_pem) and
//! [`client_cert_pem`](crate::LeaseBuilder::client_cert_pem); the user is the client
//! certificate's common name (etcd's certificate-as-user authentication, no password), or one
//! set with [`user`](crate::LeaseBuilder::user) and a password (the crate's guide, "Connecting
//! to a secured store"). Every error quotes etcd's answer (its gRPC status and message) or
//! names the step of the connection that failed ([`CallError`]).
//!
//! Files: the URL and the backend (`etcd_lease.rs`), the gRPC client and its fail-over
//! (`client.rs`), its failures in the crate's terms (`error.rs`), the generated messages and clients (`proto.rs`), TLS and the user
//! (`security.rs`), the keys and transactions (`store.rs`) and their parts (`txn.rs`), the
//! operator's calls (`operator.rs`).
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

mod client;
mod error;
mod etcd_lease;
mod operator;
/// etcd's gRPC messages and clients, generated from `proto/etcd/rpc.proto` by
/// `tools/etcd-proto` (do not edit; `.ci/etcd-proto-drift` checks it).
#[allow(
    missing_docs,
    unreachable_pub,
    clippy::all,
    clippy::pedantic,
    rustdoc::all
)]
mod proto;
mod security;
mod store;
mod txn;

pub use self::client::CallError;
pub use self::etcd_lease::{Etcd, EtcdLease};
