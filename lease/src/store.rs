//! [`Store`]: the calls a lease makes on its store (Redis, etcd, or one of your own), and
//! the [`Claim`] it returns. The rules built on them (the forgetting rule, the deadline, the
//! marks) are the same for every store and live in the keeper and
//! [`Lease::acquire`](crate::Lease::acquire); a store only has to keep the properties each
//! call states, which [`conformance`](crate#conformance) checks.

use crate::error::LeaseError;

/// A node taken by [`Store::claim`].
///
/// ```
/// use snowmint_lease::Claim;
/// let claim = Claim { node: 7, mark: Some(1_800_000_000_000), mark_is_ours: false, vouched: true, restore_sign: None };
/// assert!(claim.vouched);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The node number.
    pub node: u64,
    /// The node's stored mark, Unix milliseconds: no ID of the node was issued with a later
    /// time by whoever wrote it (`None` if the store holds none).
    pub mark: Option<u64>,
    /// Whether this lease wrote that mark itself (an earlier tenure of this process).
    pub mark_is_ours: bool,
    /// Whether the store vouches that it lost no write of this node since its mark (if any)
    /// was written: the namespace's record was present, settled, and (Redis) settled by the
    /// server that answered. Only an unvouched claim waits the forgetting rule.
    pub vouched: bool,
    /// A sign that the store was restored from an older backup, which made the claim
    /// unvouched (etcd): the raft term recorded with the node's mark, and the lower one of
    /// the claim's answer.
    pub restore_sign: Option<(u64, u64)>,
}

/// One owner's session on a store, opened by [`Backend::open`](crate::Backend::open). Every
/// call is a few round trips, bounded by the lease's I/O timeout; the lease calls it from
/// one thread at a time. Errors are [`LeaseError::Store`] with the store's
/// [`StoreError`](crate::StoreError).
///
/// What each call must guarantee is written on it; the `conformance` feature's suite tests
/// each property against a real server.
///
/// ```
/// use snowmint_lease::{Claim, LeaseError, Store};
///
/// /// A store with one node that is always free and keeps no mark: a sketch, not a store
/// /// (it keeps no claim from another process out).
/// struct OneNode { held: bool }
///
/// impl Store for OneNode {
///     fn claim(&mut self, first: u64, _last: u64) -> Result<Option<Claim>, LeaseError> {
///         self.held = true;
///         Ok(Some(Claim { node: first, mark: None, mark_is_ours: false, vouched: false, restore_sign: None }))
///     }
///     fn renew(&mut self, want: u64) -> Result<Option<u64>, LeaseError> {
///         Ok(self.held.then_some(want))
///     }
///     fn release(&mut self, _mark: Option<u64>) -> Result<(), LeaseError> {
///         self.held = false;
///         Ok(())
///     }
///     fn settle(&mut self) -> Result<bool, LeaseError> { Ok(false) }
///     fn token(&self) -> Option<u64> { None }
/// }
///
/// let mut store = OneNode { held: false };
/// assert_eq!(store.claim(3, 3)?.map(|c| c.node), Some(3));
/// assert_eq!(store.renew(1_000)?, Some(1_000));
/// # Ok::<(), LeaseError>(())
/// ```
pub trait Store: Send + 'static {
    /// Takes a node of `first..=last` whose key the store does not hold (scanning from
    /// `first`), atomically with any other claimer: two sessions never hold one node at once.
    /// Checks (and on a new namespace writes) the namespace's record.
    ///
    /// # Errors
    /// `Ok(None)` if every node is held; [`LeaseError::Mismatch`] if the record holds another
    /// TTL or layout; [`LeaseError::Store`] if the store failed.
    fn claim(&mut self, first: u64, last: u64) -> Result<Option<Claim>, LeaseError>;

    /// Extends the lease on the node claimed last and raises its mark to `want_unix_millis`
    /// (never lowers it; 0 only extends): the mark now stored, or `Ok(None)` if the store no
    /// longer gives the node to this owner (its key expired, was lost, or is someone else's).
    /// A renewal after the key expired is refused (`Ok(None)`), even if no one claimed the
    /// node since.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store failed (the lease tries again while its hold is
    /// proven).
    fn renew(&mut self, want_unix_millis: u64) -> Result<Option<u64>, LeaseError>;

    /// Frees the node, leaving `mark_unix_millis` as its mark (no mark if `None`), if this
    /// owner still holds it. A mark is never removed by a release: the next holder starts
    /// after it.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store failed (the key then lapses after its TTL).
    fn release(&mut self, mark_unix_millis: Option<u64>) -> Result<(), LeaseError>;

    /// Why the last claim was not vouched for, in words an operator can act on, when the
    /// store can say more than that it could not vouch (PostgreSQL: the record settled on
    /// another system or timeline, `fsync` off); `None` by default, and after a vouched claim.
    /// [`AcquireProgress::Forgetting`](crate::AcquireProgress::Forgetting) carries it.
    fn unvouched_why(&self) -> Option<String> {
        None
    }

    /// Marks the namespace's record settled: the store vouches for the claims that follow.
    /// Called once the forgetting rule's wait after an unvouched claim is over and a renewal
    /// has succeeded; a no-op (`Ok(false)`) if the store changed since that claim (another
    /// record, another Redis server), so that the wait vouches only for the store it began on.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store failed.
    fn settle(&mut self) -> Result<bool, LeaseError>;

    /// The fencing token of the current claim: a number the store raises with every claim of
    /// any node of the namespace and never reuses (etcd: the key's `create_revision`), or
    /// `None` if the backend has none (Redis).
    fn token(&self) -> Option<u64>;
}
