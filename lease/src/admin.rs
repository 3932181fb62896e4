//! [`Admin`]: the operator's calls on a store's namespace, beside the holder's [`Store`].

use crate::error::LeaseError;
use crate::state::{FloorRaised, FloorReset, NamespaceState};
use crate::store::Store;

/// The operator's calls on a namespace, made on a session opened for no holder
/// ([`Lease::list`](crate::Lease::list), [`Lease::raise_floor`](crate::Lease::raise_floor),
/// [`Lease::reset_floor`](crate::Lease::reset_floor), `snowmint lease`). All are safe while
/// holders run.
///
/// ```no_run
/// # #[cfg(feature = "redis")] {
/// use snowmint_lease::{Admin, Backend};
/// use snowmint_lease::redis::RedisLease;
/// use std::time::Duration;
///
/// let lease = RedisLease::builder("redis://127.0.0.1/")?.namespace("orders").build()?;
/// let mut session = lease.backend().open("orders", "operator", Duration::from_secs(10), Duration::from_secs(1), "")?;
/// println!("{} nodes", session.list()?.nodes.len());
/// # }
/// # Ok::<(), snowmint_lease::LeaseError>(())
/// ```
pub trait Admin: Store {
    /// The namespace's record and every node with a holder or a mark (any order).
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store failed.
    fn list(&mut self) -> Result<NamespaceState, LeaseError>;

    /// Raises every mark of the namespace below `to_unix_millis` to it, and the record's
    /// floor likewise (never lowering either), each write atomic with the read it rests on.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store failed, or the keys kept changing under it.
    fn raise_floor(&mut self, to_unix_millis: u64) -> Result<FloorRaised, LeaseError>;

    /// The recovery from a wrong floor, atomic with claims, renewals and releases as
    /// [`raise_floor`](Admin::raise_floor) is: sets every mark of the namespace an operator
    /// wrote (owner `raise-floor` or `reset-floor…`) to `marks_unix_millis`, raises every
    /// holder's mark below it to it (never lowering a holder's mark), each with `audit` as
    /// its owner, then sets the record's floor to `to_unix_millis` (lowering it if it was
    /// higher), keeping `audit` in the record where the store has room for it (Redis, etcd).
    /// `audit` has no spaces.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store failed, or the keys kept changing under it.
    fn reset_floor(
        &mut self,
        to_unix_millis: u64,
        marks_unix_millis: u64,
        audit: &str,
    ) -> Result<FloorReset, LeaseError>;

    /// The store's own clock, Unix milliseconds, where the store tells it (Redis `TIME`,
    /// PostgreSQL `clock_timestamp()`); `None` where it does not (etcd; the default), and
    /// the caller then has only its own clock.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store failed.
    fn clock_unix_millis(&mut self) -> Result<Option<u64>, LeaseError> {
        Ok(None)
    }
}
