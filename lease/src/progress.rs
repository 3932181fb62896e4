//! [`AcquireProgress`]: what an acquisition is doing, for a service to say what it waits for.

/// What [`Lease::acquire_with`](crate::Lease::acquire_with) is doing, reported to its
/// callback as each step begins: for a service to say what it waits for (and until when)
/// while it is not ready yet.
///
/// ```
/// use snowmint_lease::AcquireProgress;
///
/// let step = AcquireProgress::Forgetting {
///     node: 3,
///     until_unix_millis: 1_700_000_012_000,
///     why: Some("fsync is off on the server: a crash may lose commits".into()),
/// };
/// assert_eq!(step.waits_until_unix_millis(), Some(1_700_000_012_000));
/// assert_eq!(AcquireProgress::Claiming.waits_until_unix_millis(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AcquireProgress {
    /// Claiming a node in the store.
    Claiming,
    /// Node `node` was claimed, but the store cannot vouch that it lost no write (a new
    /// namespace, a wiped store, a Redis server restarted or failed over): waiting for the
    /// forgetting rule, until the clock reads `until_unix_millis` (the node's mark included).
    Forgetting {
        /// The node claimed.
        node: u64,
        /// Until when, Unix milliseconds on the source's clock.
        until_unix_millis: u64,
        /// Why the store could not vouch, in its own words, when it can say
        /// ([`Store::unvouched_why`](crate::Store::unvouched_why); PostgreSQL: the record
        /// settled on another system or timeline, `fsync` off, a record not settled yet).
        why: Option<String>,
    },
    /// Node `node` was claimed under a settled record, but the store shows a sign of a
    /// restore from an older backup (etcd: the node's mark was written under raft term
    /// `mark_raft_term`, and the claim's answer carries the lower `raft_term`, as a cluster
    /// made anew from a snapshot does): waiting for the forgetting rule, until the clock reads
    /// `until_unix_millis`. Run `snowmint lease raise-floor` after a restore (see
    /// [`snowmint::docs::fleets`]).
    Restored {
        /// The node claimed.
        node: u64,
        /// Until when, Unix milliseconds on the source's clock.
        until_unix_millis: u64,
        /// The raft term recorded with the node's mark.
        mark_raft_term: u64,
        /// The raft term of the claim's answer.
        raft_term: u64,
    },
    /// Node `node` was claimed and the store vouches for it; waiting for the clock to pass
    /// the node's mark, `until_unix_millis`.
    PastMark {
        /// The node claimed.
        node: u64,
        /// The mark, Unix milliseconds on the source's clock.
        until_unix_millis: u64,
    },
}

impl AcquireProgress {
    /// Until when this step waits, Unix milliseconds (`None` while claiming).
    ///
    /// ```
    /// use snowmint_lease::AcquireProgress;
    /// let step = AcquireProgress::PastMark { node: 0, until_unix_millis: 5 };
    /// assert_eq!(step.waits_until_unix_millis(), Some(5));
    /// ```
    pub fn waits_until_unix_millis(&self) -> Option<u64> {
        match self {
            AcquireProgress::Claiming => None,
            AcquireProgress::Forgetting {
                until_unix_millis, ..
            }
            | AcquireProgress::Restored {
                until_unix_millis, ..
            }
            | AcquireProgress::PastMark {
                until_unix_millis, ..
            } => Some(*until_unix_millis),
        }
    }
}
