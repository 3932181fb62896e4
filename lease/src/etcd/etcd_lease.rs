//! [`Etcd`], the etcd backend, and [`EtcdLease`], a [`Lease`] on it: the URL and the
//! endpoints, the sessions it opens.

use std::time::Duration;

use crate::{Lease, LeaseBuilder, LeaseError};

use super::client::EtcdClient;
use super::security::Security;
use super::store::EtcdStore;

/// The etcd backend of a [`Lease`]: the cluster's client endpoints (`host:port`), tried in
/// turn.
///
/// ```
/// let lease = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379,127.0.0.1:22379")?.build()?;
/// assert_eq!(lease.endpoints(), ["127.0.0.1:2379", "127.0.0.1:22379"]);
/// # Ok::<(), snowmint_lease::LeaseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Etcd {
    pub(super) endpoints: Vec<String>,
    pub(super) security: Security,
}

impl crate::Backend for Etcd {
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

/// Leases a node number from an etcd v3 cluster for a [`Fenced`](snowmint::fence::Fenced): a
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
/// - **The forgetting rule** ([the crate's docs](crate)): etcd is linearizable, so a settled
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
///   source is [lost](snowmint::fence::FenceError::Lost) for good.
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
///   restore procedure in [`snowmint::docs::fleets`].
/// - **One namespace per layout, one TTL per namespace**, enforced by the record.
///
/// ```no_run
/// use std::time::Duration;
/// use snowmint_lease::etcd::EtcdLease;
/// use snowmint_lease::LeaseError;
/// use snowmint::fence::FenceError;
/// use snowmint::{Generator, Layout};
///
/// let lease = EtcdLease::builder("etcd://10.0.0.5:2379,10.0.0.6:2379,10.0.0.7:2379")?
///     .namespace("billing")
///     .nodes(0..=99)
///     .ttl(Duration::from_secs(10))
///     .margin(Duration::from_secs(2))
///     .build()?;
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
    /// [`ca_pem`](crate::LeaseBuilder::ca_pem), [`client_cert_pem`](crate::LeaseBuilder::client_cert_pem) and
    /// [`user`](crate::LeaseBuilder::user). Namespace `default`, TTL 10 s, margin a fifth of the TTL,
    /// `max_wait` 10 s, every node of the layout (at most 65,536). Nothing is connected
    /// until [`acquire`](Lease::acquire).
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if an
    /// endpoint is not `HOST:PORT`, or plain and TLS endpoints are mixed.
    ///
    /// ```
    /// use snowmint_lease::etcd::EtcdLease;
    /// assert!(EtcdLease::builder("etcd://127.0.0.1:2379").is_ok());
    /// assert!(EtcdLease::builder("http://a:2379,http://b:2379").is_ok());
    /// assert!(EtcdLease::builder("etcds://a:2379,b:2379")?.build()?.is_tls());
    /// let err = EtcdLease::builder("etcd://127.0.0.1").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "could not parse the etcd URL in etcd: \"127.0.0.1\" is not HOST:PORT (a port from 1 to 65535); \
    ///      expected etcd://HOST:PORT,HOST:PORT,... or etcds://HOST:PORT,..."
    /// );
    /// let err = EtcdLease::builder("https://a:2379,http://b:2379").unwrap_err();
    /// assert!(err.to_string().contains("both plain and TLS endpoints"), "{err}");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn builder(url: &str) -> Result<LeaseBuilder<Etcd>, LeaseError> {
        let parse_error = |text: String| {
            super::error::etcd_error("parse the etcd URL", crate::StoreErrorKind::Settings, text)
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
        Ok(LeaseBuilder::new(Etcd {
            endpoints,
            security,
        }))
    }

    /// The cluster's client endpoints, in the order they are tried first.
    ///
    /// ```
    /// let lease = snowmint_lease::etcd::EtcdLease::builder("etcd://a:1,b:2")?.build()?;
    /// assert_eq!(lease.endpoints(), ["a:1", "b:2"]);
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn endpoints(&self) -> &[String] {
        &self.backend().endpoints
    }
}
