//! [`Redis`], the Redis backend, and [`RedisLease`], a [`Lease`] on it: the URL, the keys'
//! names, the sessions it opens.

use std::time::Duration;

use crate::{Lease, LeaseBuilder, LeaseError};

use super::store::{redis_error, Conn, Record, RedisStore};

/// The Redis backend of a [`Lease`]: a client for one Redis server (or one cluster slot).
///
/// ```
/// let lease: snowmint_lease::redis::RedisLease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1:6379/")?.build()?;
/// # Ok::<(), snowmint_lease::LeaseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Redis {
    pub(super) client: ::redis::Client,
    /// The URL's address and settings, with the password set apart from the URL.
    pub(super) info: ::redis::ConnectionInfo,
    /// The CA certificates and client certificate for `rediss://` (PEM, as given).
    pub(super) tls: super::security::TlsFiles,
}

impl crate::Backend for Redis {
    type Store = RedisStore;
    const NAME: &'static str = "redis";
    const MIN_TTL: Duration = Duration::from_millis(30);

    fn open(
        &self,
        namespace: &str,
        owner: &str,
        ttl: Duration,
        io_timeout: Duration,
        layout: &str,
    ) -> Result<RedisStore, LeaseError> {
        Ok(RedisStore {
            conn: Conn::new(self.client.clone(), io_timeout),
            prefix: key_prefix(namespace),
            owner: owner.to_string(),
            ttl,
            keys: None,
            record: Record {
                key: record_key(namespace),
                layout: layout.to_string(),
                incarnation: crate::owner::incarnation(owner),
            },
            namespace: namespace.to_string(),
            to_settle: None,
        })
    }
}

/// The key of a namespace's record.
fn record_key(namespace: &str) -> String {
    format!("snowmint:{namespace}:record")
}

/// The prefix of a namespace's node keys.
fn key_prefix(namespace: &str) -> String {
    format!("snowmint:{namespace}:node:")
}

/// Leases a node number from Redis for a [`Fenced`](snowmint::fence::Fenced): a [`Lease`] on [`Redis`].
///
/// # How it works
/// - **Acquire**: one Lua script tries `SET snowmint:NS:node:N TOKEN NX PX ttl` for each
///   node of the range in turn and returns the first it got, with the node's stored mark.
///   Redis runs scripts one at a time, so two processes never get the same free node.
/// - **The record**: the same script reads the namespace's record (creating it if absent),
///   refuses another TTL or layout, and reads the server's `run_id` and `master_replid`
///   (`INFO` from inside the script, so the identity is the one that ran the claim).
/// - **The forgetting rule** ([the crate's docs](crate)): unless the record was settled by
///   this very server (a restart gives a new `run_id`, a fail-over or a resync another
///   `master_replid`: either may have lost writes), the generator mints only after one TTL
///   plus the margin, then settles the record for this server. Always after the node's mark
///   (the last time the previous owner may have issued; a mark further ahead of this clock
///   than [`max_wait`](Lease::max_wait) is [`LeaseError::MarkAhead`] at once).
/// - **Renew**: every third of the TTL, a script checks the token, extends the TTL and
///   raises the mark to `now + ttl`. The generator hands out no ID stamped after the mark
///   recorded in Redis, so the next owner, who starts after the mark, can never repeat one.
/// - **Fence**: the hold is proven until `send time of the last successful renewal + TTL −
///   margin`, checked with a clock reading taken after each mint; after that
///   [`next_id`](snowmint::fence::Fenced::next_id) returns [`FenceError::Fenced`](snowmint::fence::FenceError::Fenced)
///   until a renewal gets through. If the key expired or was lost meanwhile, the same node is
///   taken back if it is free, and minting resumes after the forgetting rule's wait (and
///   after any owner in between); if another process holds it, the generator is
///   [lost](snowmint::fence::FenceError::Lost) for good.
/// - **Release** (on drop): the mark is lowered to the last time actually issued and the
///   key deleted, so the next owner starts at once.
///
/// # Guarantees
/// No ID is issued twice by the generators of one namespace, whatever the processes' clocks
/// read (within the margin of each other), however long a process is paused, across
/// restarts with the clock behind, and when Redis forgets: after a restart without
/// persistence or a fail-over to a replica that missed writes, a second process can claim a
/// node the first still believes it holds, but the forgetting rule keeps the second from
/// minting until the first has fenced itself and its whole reserved window has passed.
///
/// # Not guaranteed
/// - **Fast starts after Redis changed.** The first claim of a namespace, and the first after
///   the server restarted, failed over or was resynced, waits one TTL plus the margin; every
///   other start (a graceful restart, a rolling one) waits only for the node's mark.
/// - **Loss the identity does not show**: `DEBUG RELOAD NOSAVE`, `RESTORE` or a copy of the
///   keys from elsewhere onto a running server. Use [`Lease::namespace`] anew, or delete the
///   record while no holder runs.
/// - **A fencing token.** Redis has none: [`Fenced::token`](snowmint::fence::Fenced::token) is
///   `None`. [`EtcdLease`](crate::etcd::EtcdLease) has one.
/// - **One namespace per layout, one TTL per namespace**, enforced by the record
///   ([`LeaseError::Mismatch`]): marks are times, node numbers mean nothing across layouts,
///   and the forgetting rule waits this process's TTL.
/// - A cluster: the acquisition script builds its keys, so all keys of a namespace must be
///   on one node (a single Redis, or a namespace in braces, `{orders}`, for one slot).
///
/// ```no_run
/// use std::time::Duration;
/// use snowmint_lease::redis::RedisLease;
/// use snowmint_lease::LeaseError;
/// use snowmint::fence::FenceError;
/// use snowmint::{Generator, Layout};
///
/// let lease = RedisLease::builder("redis://10.0.0.5:6379/")?
///     .namespace("billing")
///     .nodes(0..=99)                      // this service's share of the node range
///     .ttl(Duration::from_secs(10))
///     .margin(Duration::from_secs(2))
///     .max_wait(Duration::from_secs(10))
///     .build()?;
/// let gen = match lease.acquire(Generator::builder(Layout::TWITTER)) {
///     Ok(gen) => gen,
///     Err(LeaseError::AllTaken { .. }) => panic!("100 processes already run: widen the range"),
///     Err(e) => return Err(e.into()),
/// };
/// match gen.next_id() {
///     Ok(id) => println!("{id}"),
///     Err(FenceError::Fenced { .. }) => { /* Redis unreachable: retry later */ }
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type RedisLease = Lease<Redis>;

impl Lease<Redis> {
    /// A lease from the Redis at `url` (`redis://host:port/db`, or `rediss://` for TLS,
    /// which then takes [`ca_pem`](crate::LeaseBuilder::ca_pem) and
    /// [`client_cert_pem`](crate::LeaseBuilder::client_cert_pem); `USER@` before the host for an ACL user
    /// whose [`password`](crate::LeaseBuilder::password) is given apart), namespace `default`, TTL
    /// 10 s, margin a fifth of the TTL, `max_wait` 10 s, every node of the layout (at
    /// most 65,536). Nothing is connected until [`acquire`](Lease::acquire).
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if the
    /// URL cannot be parsed.
    ///
    /// ```
    /// use snowmint_lease::redis::RedisLease;
    /// assert!(RedisLease::builder("redis://127.0.0.1:6379/").is_ok());
    /// assert!(RedisLease::builder("not a url").is_err());
    /// ```
    pub fn builder(url: &str) -> Result<LeaseBuilder<Redis>, LeaseError> {
        let info = ::redis::IntoConnectionInfo::into_connection_info(url)
            .map_err(|e| redis_error("parse the Redis URL", e))?;
        // No `CLIENT SETINFO` at connect: two round trips, each of which could wait out the
        // whole I/O timeout on a server that does not answer.
        let settings = info.redis_settings().clone().set_skip_set_lib_name();
        let info = info.set_redis_settings(settings);
        let client = ::redis::Client::open(info.clone())
            .map_err(|e| redis_error("parse the Redis URL", e))?;
        Ok(LeaseBuilder::new(Redis {
            client,
            info,
            tls: super::security::TlsFiles::default(),
        }))
    }

    /// The prefix of this namespace's node keys.
    ///
    /// ```
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.namespace("orders").build()?;
    /// assert_eq!(lease.key_prefix(), "snowmint:orders:node:");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn key_prefix(&self) -> String {
        key_prefix(self.namespace())
    }
}
