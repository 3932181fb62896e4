//! The operator's calls on a namespace: [`Lease::list`], [`Lease::raise_floor`] and
//! [`Lease::reset_floor`].

use std::time::{SystemTime, UNIX_EPOCH};

use crate::state::{operator_mark, FloorRaised, FloorReset, NamespaceState};
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

    /// The recovery from a wrong floor (one raised far ahead by mistake, which would keep
    /// every later claim from minting): sets the namespace's floor to `to_unix_millis`,
    /// lower or higher, and, so that no ID can repeat, first sets every mark to at least
    /// the highest time any holder recorded in the namespace (its highest mark not written
    /// by an operator's call) and at least the clock (this machine's or the store's, the
    /// later) plus twice the namespace's TTL (which covers the window of every running holder, and every holder's mark that a
    /// raise overwrote). Marks an operator wrote (`raise-floor`) come down to that time;
    /// a holder's mark is never lowered. Each mark set, and the record (Redis, etcd), keeps
    /// an audit line as its owner: `reset-floor:by=OWNER;at=MS;from=FLOOR;to=MS`. Running
    /// holders keep their leases: their renewals never lower a mark. Uses the later of this
    /// machine's clock and the store's (Redis, PostgreSQL; etcd tells none).
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store could not be reached, refused a call, or its keys
    /// kept changing under the reset.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.namespace("orders").build()?;
    /// let reset = lease.reset_floor(1_796_000_000_000)?;
    /// println!("floor {:?} -> {:?}; marks at {}", reset.floor_was, reset.floor_unix_millis, reset.marks_unix_millis);
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn reset_floor(&self, to_unix_millis: u64) -> Result<FloorReset, LeaseError> {
        let mut session = self.open_for_operator()?;
        let state = session.list()?;
        let store_now = session.clock_unix_millis()?.unwrap_or(0);
        let (marks, audit) = reset_plan(&state, to_unix_millis, self.ttl, &session_owner());
        // The later of this clock and the store's, plus twice the TTL.
        let marks = marks.max(
            store_now.saturating_add(
                crate::keeper::millis(state.record.as_ref().map_or(self.ttl, |r| r.ttl))
                    .saturating_mul(2),
            ),
        );
        let mut reset = session.reset_floor(to_unix_millis, marks, &audit)?;
        reset.reset.sort_unstable();
        Ok(reset)
    }

    /// The store's own clock, Unix milliseconds, where it tells it (Redis `TIME`,
    /// PostgreSQL `clock_timestamp()`); `None` for a store that does not (etcd), where only
    /// the caller's clock is at hand.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store could not be reached or refused the call.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.build()?;
    /// println!("Redis reads {:?} ms", lease.store_clock()?);
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn store_clock(&self) -> Result<Option<u64>, LeaseError> {
        self.open_for_operator()?.clock_unix_millis()
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

/// Who runs an operator's call, for its audit line: this host and process.
fn session_owner() -> String {
    crate::owner::owner_token()
}

/// What [`Lease::reset_floor`] sets every mark to, and its audit line: the highest mark a
/// holder wrote, and this clock plus twice the TTL (the record's, else the lease's).
pub(crate) fn reset_plan(
    state: &NamespaceState,
    to_unix_millis: u64,
    ttl: std::time::Duration,
    by: &str,
) -> (u64, String) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let ttl = state.record.as_ref().map_or(ttl, |r| r.ttl);
    let issued = state
        .nodes
        .iter()
        .filter(|n| !n.mark_owner.as_deref().is_some_and(operator_mark))
        .filter_map(|n| n.mark_unix_millis)
        .max()
        .unwrap_or(0);
    let marks = issued.max(now.saturating_add(crate::keeper::millis(ttl).saturating_mul(2)));
    let from = state
        .record
        .as_ref()
        .and_then(|r| r.floor_unix_millis)
        .map_or_else(|| "none".to_string(), |f| f.to_string());
    let by: String = by.chars().filter(|c| !c.is_whitespace()).collect();
    let audit = format!("reset-floor:by={by};at={now};from={from};to={to_unix_millis}");
    (marks, audit)
}
