//! [`LeaseBuilder`]: a lease's settings, checked by [`build`](LeaseBuilder::build) into a
//! [`Lease`].

use std::ops::RangeInclusive;
use std::time::Duration;

use crate::backend::Backend;
use crate::error::LeaseError;
use crate::lease::Lease;

/// The longest TTL.
const MAX_TTL: Duration = Duration::from_secs(86_400);

/// A lease's settings on a [`Backend`]: the namespace, TTL, margin, wait, node range and
/// I/O timeout (and, on the stores of this crate, TLS and credentials), checked by
/// [`build`](Self::build).
///
/// ```
/// # #[cfg(feature = "redis")] {
/// use std::time::Duration;
/// use snowmint_lease::redis::RedisLease;
///
/// let lease = RedisLease::builder("redis://127.0.0.1:6379/")?
///     .namespace("orders")
///     .ttl(Duration::from_secs(30))
///     .build()?;
/// assert_eq!(lease.ttl(), Duration::from_secs(30));
/// assert_eq!(lease.margin(), Duration::from_secs(6));
/// # }
/// # Ok::<(), snowmint_lease::LeaseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LeaseBuilder<B: Backend> {
    backend: B,
    namespace: String,
    ttl: Duration,
    margin: Option<Duration>,
    max_wait: Duration,
    nodes: Option<RangeInclusive<u64>>,
    io_timeout: Option<Duration>,
}

impl<B: Backend> LeaseBuilder<B> {
    /// Settings for a lease on `backend`: namespace `default`, TTL 10 s, margin a fifth of
    /// the TTL, `max_wait` 10 s, every node of the layout (at most 65,536), the I/O timeout
    /// a tenth of the TTL.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use snowmint_lease::LeaseBuilder;
    /// let redis = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.build()?.backend().clone();
    /// assert_eq!(LeaseBuilder::new(redis).build()?.namespace(), "default");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn new(backend: B) -> LeaseBuilder<B> {
        LeaseBuilder {
            backend,
            namespace: "default".to_string(),
            ttl: Duration::from_secs(10),
            margin: None,
            max_wait: Duration::from_secs(10),
            nodes: None,
            io_timeout: None,
        }
    }

    /// The namespace: leases of different namespaces never see each other. Use one per
    /// layout (and per ID space).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.namespace("orders").build()?;
    /// assert_eq!(lease.namespace(), "orders");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = namespace.to_string();
        self
    }

    /// How long a lease lives without renewal (default 10 s; Redis 30 ms to 1 day, etcd 1 s
    /// to 1 day). A crashed process's node is free again after this long; renewals come every
    /// third of it; a start the store cannot vouch for (a new namespace, a store that may
    /// have lost writes) waits this long plus the margin (the forgetting rule).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.ttl(Duration::from_secs(30)).build()?;
    /// assert_eq!(lease.ttl(), Duration::from_secs(30));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How much earlier than the TTL the source fences itself, and how much longer than the
    /// TTL a new holder waits (default a fifth of the TTL; at most half of it). It covers the
    /// clocks' rate differences and offsets between the processes of a namespace.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.margin(Duration::from_secs(1)).build()?;
    /// assert_eq!(lease.margin(), Duration::from_secs(1));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn margin(mut self, margin: Duration) -> Self {
        self.margin = Some(margin);
        self
    }

    /// The longest [`acquire`](crate::Lease::acquire) waits, beyond the forgetting rule's wait, for
    /// this clock to pass the node's mark (default 10 s); a clock further behind is
    /// [`LeaseError::MarkAhead`], at once.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.max_wait(Duration::from_secs(2)).build()?;
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn max_wait(mut self, max: Duration) -> Self {
        self.max_wait = max;
        self
    }

    /// The node numbers this lease may take (default: all of the layout's, at most 65,536).
    /// Processes sharing a namespace must agree on the layout; ranges may differ.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.nodes(100..=199).build()?;
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn nodes(mut self, nodes: RangeInclusive<u64>) -> Self {
        self.nodes = Some(nodes);
        self
    }

    /// The connect, read and write timeout of each store call (default a tenth of the TTL).
    /// etcd tries the next endpoint after it.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.io_timeout(Duration::from_millis(500)).build()?;
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn io_timeout(mut self, timeout: Duration) -> Self {
        self.io_timeout = Some(timeout);
        self
    }

    /// The backend's settings, for a store's own setters (TLS, credentials).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn backend(&self) -> &B {
        &self.backend
    }

    /// The backend's settings, for a store's own setters to change.
    #[cfg_attr(
        not(any(feature = "redis", feature = "etcd", feature = "postgres")),
        allow(dead_code)
    )]
    pub(crate) fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// Checks the settings and gives the [`Lease`]. The node range is checked against the
    /// layout at [`acquire`](Lease::acquire).
    ///
    /// # Errors
    /// [`LeaseError::Timing`] if the TTL is outside the backend's range (its
    /// [`MIN_TTL`](Backend::MIN_TTL) to one day) or the margin is more than half of it.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// use snowmint_lease::{redis::RedisLease, LeaseError};
    /// let err = RedisLease::builder("redis://127.0.0.1/")?.ttl(Duration::from_secs(2)).margin(Duration::from_secs(2)).build().unwrap_err();
    /// assert!(matches!(err, LeaseError::Timing { .. }));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn build(self) -> Result<Lease<B>, LeaseError> {
        let margin = self.margin.unwrap_or(self.ttl / 5);
        if self.ttl < B::MIN_TTL || self.ttl > MAX_TTL || margin > self.ttl / 2 {
            return Err(LeaseError::Timing {
                ttl: self.ttl,
                margin,
                min_ttl: B::MIN_TTL,
            });
        }
        Ok(Lease {
            backend: self.backend,
            namespace: self.namespace,
            ttl: self.ttl,
            margin,
            max_wait: self.max_wait,
            nodes: self.nodes,
            io_timeout: self.io_timeout,
        })
    }
}
