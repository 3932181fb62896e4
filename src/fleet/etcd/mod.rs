//! Node numbers leased from etcd v3 (feature `etcd`): [`EtcdLease`], a [`Lease`] on
//! [`Etcd`].
//!
//! etcd replicates every write through Raft before it answers, so a lease survives the loss
//! of a minority of the cluster's members, and every claim gets a **fencing token** that only
//! grows: the holder key's `create_revision` ([`Fenced::token`](crate::Fenced::token)). The
//! rules are the same as for every backend ([`crate::lease`]); the client speaks etcd's gRPC
//! API (etcd 3.4 and later) with tonic, on a current-thread tokio runtime of its own: every
//! call blocks its caller, bounded by the I/O timeout; no `protoc` (the messages are
//! generated ahead of time). A secured cluster: `etcds://` with [`ca_pem`](Lease::ca_pem) and
//! [`client_cert_pem`](Lease::client_cert_pem); the user is the client certificate's common
//! name (etcd's certificate-as-user authentication, no password), or one set with
//! [`user`](Lease::user) and a password ([`crate::docs::fleets`], "Connecting to a secured
//! store"). Every error quotes etcd's answer (its gRPC status and message) or names the step
//! of the connection that failed ([`CallError`]).
//!
//! Files: the URL and the backend here, the gRPC client and its fail-over (`client.rs`), the
//! generated messages and clients (`proto.rs`), TLS and the user (`security.rs`), the keys and
//! transactions (`store.rs`) and their parts (`txn.rs`), the operator's calls (`operator.rs`).
//!
//! Keys, per namespace `NS` and node `N`:
//! - `snowmint/NS/holder/N`: the owner's token, attached to an etcd lease with the TTL;
//! - `snowmint/NS/mark/N`: `"MS OWNER"`, the node's high-water mark (Unix milliseconds: no
//!   ID of this node was issued with a later time) and who wrote it. It has no lease.
//!
//! ```no_run
//! use std::time::Duration;
//! use snowmint::etcd::EtcdLease;
//! use snowmint::{Generator, Layout};
//!
//! let lease = EtcdLease::new("etcd://127.0.0.1:2379,127.0.0.1:22379,127.0.0.1:32379")?
//!     .namespace("orders")
//!     .ttl(Duration::from_secs(10));
//! let gen = lease.acquire(Generator::builder(Layout::TWITTER))?;
//! println!("minting as node {} (fencing token {:?})", gen.node(), gen.token());
//! let id = gen.next_id()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod client;
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
pub use crate::fleet::lease::{Lease, LeaseError};

use std::sync::Arc;
use std::time::Duration;

use self::client::EtcdClient;
use self::security::Security;
use self::store::EtcdStore;
use crate::fleet::fence::Note;

/// The etcd backend of a [`Lease`]: the cluster's client endpoints (`host:port`), tried in
/// turn.
///
/// ```
/// let lease = snowmint::etcd::EtcdLease::new("etcd://127.0.0.1:2379,127.0.0.1:22379")?;
/// assert_eq!(lease.endpoints(), ["127.0.0.1:2379", "127.0.0.1:22379"]);
/// # Ok::<(), snowmint::lease::LeaseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Etcd {
    endpoints: Vec<String>,
    security: Security,
}

impl crate::fleet::lease::sealed_backend::Sealed for Etcd {
    type Store = EtcdStore;
    const NAME: &'static str = "etcd";
    const MIN_TTL: Duration = Duration::from_secs(1);

    fn open(
        &self,
        namespace: &str,
        owner: &str,
        ttl: Duration,
        io_timeout: Duration,
        layout: &str,
    ) -> Result<EtcdStore, LeaseError> {
        Ok(EtcdStore::new(
            EtcdClient::new(self.endpoints.clone(), io_timeout, &self.security)?,
            (namespace, owner.to_string()),
            ttl,
            layout,
        ))
    }
}

/// Leases a node number from an etcd v3 cluster for a [`Fenced`](crate::Fenced): a
/// [`Lease`] on [`Etcd`].
///
/// # How it works
/// - **Acquire**: grants an etcd lease with the TTL (rounded up to whole seconds), lists the
///   held nodes, and for a free one runs a transaction that creates its holder key, attached
///   to the lease, only if absent (`create_revision == 0`), reading the node's mark in the
///   same transaction. The revision of that write is the fencing token. A reply lost after
///   etcd applied the write is recognised on the next try (the key holds this owner's token
///   on this lease).
/// - **The record**: the claim's transaction also reads the namespace's record
///   (`snowmint/NS/record`, created before the first claim, never expiring); another TTL or
///   layout is [`LeaseError::Mismatch`].
/// - **The forgetting rule** ([`lease`](crate::lease)): etcd is linearizable, so a settled
///   record read with the claim vouches that nothing was lost: the source starts after the
///   node's mark at once (a node never used, or released with nothing issued, at once). A
///   record missing (a new namespace, a wiped cluster) or not yet settled: the source mints
///   only after one TTL plus the margin, then settles it.
/// - **Renew**: every third of the TTL, a keep-alive of the etcd lease, then a transaction
///   that raises the mark to `now + TTL` only if the holder key still has this claim's
///   `create_revision`. The source hands out no ID stamped after the mark etcd stored.
/// - **Fence**: the hold is proven until `send time of the last successful keep-alive + TTL
///   − margin`, checked with a reading taken after each mint. If etcd no longer has the
///   lease, the node is taken back if free (after the forgetting rule's wait), or the
///   source is [lost](crate::FenceError::Lost) for good.
/// - **Fail-over**: every request goes to the endpoint that answered last, then to each of
///   the others, each bounded by the I/O timeout; every request is safe to repeat.
/// - **Release** (on drop): a transaction, guarded by the token, lowers the mark to the last
///   time issued and deletes the holder key; then the etcd lease is revoked.
///
/// # Guarantees
/// No ID is issued twice by the sources of one namespace while a majority of the cluster's
/// members keep their data, whatever the processes' clocks read (within the margin of each
/// other), however long a process is paused, through the loss and return of a minority of
/// members (the leader included), and through a partition of a process from the cluster.
/// If the whole cluster forgets (restored from an old backup, or every data directory lost),
/// the forgetting rule still keeps any two holders of a node from minting in overlapping
/// windows.
///
/// # Not guaranteed
/// - **A restore from an older backup** keeps a settled record with older marks: follow the
///   restore procedure in [`crate::docs::fleets`].
/// - **One namespace per layout, one TTL per namespace**, enforced by the record.
///
/// ```no_run
/// use std::time::Duration;
/// use snowmint::etcd::EtcdLease;
/// use snowmint::lease::LeaseError;
/// use snowmint::{FenceError, Generator, Layout};
///
/// let lease = EtcdLease::new("etcd://10.0.0.5:2379,10.0.0.6:2379,10.0.0.7:2379")?
///     .namespace("billing")
///     .nodes(0..=99)
///     .ttl(Duration::from_secs(10))
///     .margin(Duration::from_secs(2));
/// let gen = match lease.acquire(Generator::builder(Layout::TWITTER)) {
///     Ok(gen) => gen,
///     Err(LeaseError::AllTaken { .. }) => panic!("100 processes already run: widen the range"),
///     Err(e) => return Err(e.into()),
/// };
/// match gen.next_id() {
///     Ok(id) => println!("{id} under fencing token {:?}", gen.token()),
///     Err(FenceError::Fenced { .. }) => { /* etcd unreachable: retry later */ }
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type EtcdLease = Lease<Etcd>;

impl Lease<Etcd> {
    /// A lease from the etcd cluster at `url`: `etcd://HOST:PORT,HOST:PORT,...` (each
    /// member's client address; `http://` in front of each is accepted too), or
    /// `etcds://HOST:PORT,...` (or `https://` in front of each) for TLS, which then takes
    /// [`ca_pem`](Lease::ca_pem), [`client_cert_pem`](Lease::client_cert_pem) and
    /// [`user`](Lease::user). Namespace `default`, TTL 10 s, margin a fifth of the TTL,
    /// `max_wait` 10 s, every node of the layout (at most 65,536). Nothing is connected
    /// until [`acquire`](Lease::acquire).
    ///
    /// ```
    /// use snowmint::etcd::EtcdLease;
    /// assert!(EtcdLease::new("etcd://127.0.0.1:2379").is_ok());
    /// assert!(EtcdLease::new("http://a:2379,http://b:2379").is_ok());
    /// assert!(EtcdLease::new("etcds://a:2379,b:2379")?.is_tls());
    /// let err = EtcdLease::new("etcd://127.0.0.1").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "could not parse the etcd URL in etcd: \"127.0.0.1\" is not HOST:PORT (a port from 1 to 65535); \
    ///      expected etcd://HOST:PORT,HOST:PORT,... or etcds://HOST:PORT,..."
    /// );
    /// let err = EtcdLease::new("https://a:2379,http://b:2379").unwrap_err();
    /// assert!(err.to_string().contains("both plain and TLS endpoints"), "{err}");
    /// # Ok::<(), snowmint::lease::LeaseError>(())
    /// ```
    pub fn new(url: &str) -> Result<EtcdLease, LeaseError> {
        let parse_error = |text: String| LeaseError::Etcd {
            action: "parse the etcd URL",
            cause: Arc::new(Note::new(text)),
        };
        let (list, mut tls) = match url.strip_prefix("etcds://") {
            Some(list) => (list, Some(true)),
            None => (url.strip_prefix("etcd://").unwrap_or(url), None),
        };
        let mut endpoints = Vec::new();
        for part in list.split(',') {
            let part = part.trim();
            let (bare, https) = if let Some(rest) = part.strip_prefix("https://") {
                (rest, true)
            } else {
                (part.strip_prefix("http://").unwrap_or(part), false)
            };
            // A bare `host:port` follows the URL's scheme; `http://`/`https://` say their own.
            let https = https || (tls == Some(true) && !part.starts_with("http://"));
            if *tls.get_or_insert(https) != https {
                return Err(parse_error(format!(
                    "{url:?} names both plain and TLS endpoints; use one scheme for the cluster"
                )));
            }
            let bare = bare.strip_suffix('/').unwrap_or(bare);
            let port_ok = bare.rsplit_once(':').is_some_and(|(host, port)| {
                !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0)
            });
            if !port_ok {
                return Err(parse_error(format!(
                    "{bare:?} is not HOST:PORT (a port from 1 to 65535); expected \
                     etcd://HOST:PORT,HOST:PORT,... or etcds://HOST:PORT,..."
                )));
            }
            endpoints.push(bare.to_string());
        }
        let security = Security::new(tls == Some(true));
        Ok(Lease::with_backend(Etcd {
            endpoints,
            security,
        }))
    }

    /// The cluster's client endpoints, in the order they are tried first.
    ///
    /// ```
    /// let lease = snowmint::etcd::EtcdLease::new("etcd://a:1,b:2")?;
    /// assert_eq!(lease.endpoints(), ["a:1", "b:2"]);
    /// # Ok::<(), snowmint::lease::LeaseError>(())
    /// ```
    pub fn endpoints(&self) -> &[String] {
        &self.backend().endpoints
    }
}
