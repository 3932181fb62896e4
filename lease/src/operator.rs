//! The operator's calls on a namespace: [`Lease::list`] and [`Lease::raise_floor`].

use crate::state::{FloorRaised, NamespaceState};
use crate::{Admin, Backend, Lease, LeaseError};

impl<B: Backend> Lease<B> {
    /// Reads the namespace as the store holds it: its record (incarnation, TTL, layout, the
    /// store identity it was settled on, the floor) and each node with a holder or a mark
    /// (holder, fencing token, time left on its lease, mark). Claims nothing; safe while
    /// holders run.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store could not be reached or refused a call.
    ///
    /// ```no_run
    /// # #[cfg(feature = "etcd")] {
    /// let state = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.namespace("orders").build()?.list()?;
    /// if let Some(record) = &state.record {
    ///     println!("made with TTL {:?} for {}", record.ttl, record.layout);
    /// }
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn list(&self) -> Result<NamespaceState, LeaseError> {
        let mut state = self.open_for_operator()?.list()?;
        state.nodes.sort_by_key(|n| n.node);
        Ok(state)
    }

    /// The recovery step after the store was restored from an older backup: raises every
    /// mark of the namespace to at least `to_unix_millis` (never lowers one), and keeps that
    /// floor in the namespace's record, so that every claim, of a node with a mark or
    /// without one (claimed after the backup was taken), starts after `max(mark, floor)`.
    /// Atomic per store call (one script on Redis; on etcd, a transaction per record and per
    /// batch of marks, each applied only if the key is unchanged since read, else read
    /// again), and safe while holders run: a renewal never lowers a mark. Give it the time of
    /// the loss or later: see the restore procedure in [`snowmint::docs::fleets`].
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store could not be reached, refused a call, or its keys kept
    /// changing under the raise.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.namespace("orders").build()?;
    /// let raised = lease.raise_floor(1_796_000_000_000)?;
    /// println!("raised {} marks; floor {:?}", raised.raised.len(), raised.floor_unix_millis);
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn raise_floor(&self, to_unix_millis: u64) -> Result<FloorRaised, LeaseError> {
        let mut raised = self.open_for_operator()?.raise_floor(to_unix_millis)?;
        raised.raised.sort_unstable();
        Ok(raised)
    }

    /// The store, opened for an operator's call (an owner token of its own; no record is
    /// checked or written).
    fn open_for_operator(&self) -> Result<B::Store, LeaseError> {
        let io_timeout = self
            .io_timeout
            .unwrap_or(self.ttl / 10)
            .max(std::time::Duration::from_millis(100));
        let owner = crate::owner::owner_token();
        self.backend
            .open(&self.namespace, &owner, self.ttl, io_timeout, "")
    }
}
