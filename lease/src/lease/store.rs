//! [`Store`]: the calls a lease backend (Redis, etcd) makes, and the [`Claim`] it
//! returns. The rules built on them (the forgetting rule, the deadline, the marks) are the
//! same for every backend and live in [`LeaseKeeper`](super::keeper::LeaseKeeper) and
//! [`Lease::acquire`](super::Lease::acquire).

use super::error::LeaseError;
use super::state::{FloorRaised, NamespaceState};

/// A node taken by [`Store::claim`].
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

/// One backend's side of a lease, for one owner. Every call is a few round trips, bounded
/// by the lease's I/O timeout; the keeper calls it from one thread at a time.
///
/// Public only inside the crate's sealed [`Backend`](super::Backend) trait.
pub trait Store: Send + 'static {
    /// Takes a node of `first..=last` whose key the store does not hold (scanning from
    /// `first`), atomically with any other claimer; `Ok(None)` if every one is held.
    fn claim(&mut self, first: u64, last: u64) -> Result<Option<Claim>, LeaseError>;

    /// Extends the lease on the node claimed last and raises its mark to `want_unix_millis`
    /// (never lowers it; 0 only extends): the mark now stored, or `Ok(None)` if the store no
    /// longer gives the node to this owner (its key expired, was lost, or is someone else's).
    fn renew(&mut self, want_unix_millis: u64) -> Result<Option<u64>, LeaseError>;

    /// Frees the node, leaving `mark_unix_millis` as its mark (no mark if `None`), if this
    /// owner still holds it.
    fn release(&mut self, mark_unix_millis: Option<u64>) -> Result<(), LeaseError>;

    /// Marks the namespace's record settled: the store vouches for the claims that follow.
    /// Called once the forgetting rule's wait after an unvouched claim is over and a renewal
    /// has succeeded; a no-op (`Ok(false)`) if the store changed since that claim (another
    /// record, another Redis server), so that the wait vouches only for the store it began on.
    fn settle(&mut self) -> Result<bool, LeaseError>;

    /// The fencing token of the current claim: a number the store raises with every claim of
    /// any node of the namespace and never reuses (etcd: the key's `create_revision`), or
    /// `None` if the backend has none (Redis).
    fn token(&self) -> Option<u64>;

    /// The namespace's record and every node with a holder or a mark (any order).
    fn list(&mut self) -> Result<NamespaceState, LeaseError>;

    /// Raises every mark of the namespace below `to_unix_millis` to it, and the record's
    /// floor likewise (never lowering either), each write atomic with the read it rests on.
    fn raise_floor(&mut self, to_unix_millis: u64) -> Result<FloorRaised, LeaseError>;
}
