//! [`LeaseError`]: why no node could be leased, from any backend.

use core::fmt;
use std::time::Duration;

use crate::store_error::StoreError;

use snowmint::fence::Cause;
use snowmint::LayoutError;
use snowmint::MintError;

/// Why a lease call ([`Lease::acquire`](crate::Lease::acquire), an operator's call, a
/// setting a store checks) failed, from any store.
///
/// Every message names the rule and the allowed range.
///
/// ```
/// use std::time::Duration;
/// use snowmint_lease::LeaseError;
///
/// let err = LeaseError::AllTaken { namespace: "orders".into(), first: 0, last: 7, ttl: Duration::from_secs(10) };
/// assert_eq!(
///     err.to_string(),
///     "every node from 0 to 7 in namespace \"orders\" is leased: widen the range (.nodes), \
///      stop a process, or wait for a crashed one's lease to expire (TTL 10s)"
/// );
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum LeaseError {
    /// Every node of the range is held by a live lease.
    AllTaken {
        /// The namespace.
        namespace: String,
        /// The range's first node.
        first: u64,
        /// The range's last node.
        last: u64,
        /// The TTL after which a crashed holder's node is free.
        ttl: Duration,
    },
    /// The store could not be reached, or refused a call (what it said is the `source()`).
    ///
    /// ```
    /// use snowmint_lease::{LeaseError, StoreError, StoreErrorKind};
    /// let err = LeaseError::Store {
    ///     store: "redis",
    ///     action: "acquire a node",
    ///     cause: StoreError::new(StoreErrorKind::Unreachable, "Connection refused (os error 111)"),
    /// };
    /// assert_eq!(err.to_string(), "could not acquire a node in Redis: Connection refused (os error 111)");
    /// ```
    Store {
        /// The store's name ([`Backend::NAME`](crate::Backend::NAME): `redis`, `etcd`, or
        /// a store of your own).
        store: &'static str,
        /// What was being done.
        action: &'static str,
        /// What the store or its client said.
        cause: StoreError,
    },
    /// The node's mark (the last time its previous owner may have issued) is further ahead
    /// of this clock than the lease waits. The node was given back. The source is
    /// [`MintError::ClockBehind`], saying by how much.
    MarkAhead {
        /// The node that was taken.
        node: u64,
        /// Its mark, Unix milliseconds.
        mark_unix_millis: u64,
        /// The longest the lease waits.
        max_wait: Duration,
        /// How far the clock must still move: a [`MintError::ClockBehind`].
        cause: MintError,
    },
    /// The node was lost while waiting for the clock to pass its mark.
    LostWhileWaiting {
        /// The node.
        node: u64,
    },
    /// The node range is empty, exceeds the layout's node range (or 2^40 − 1), or holds
    /// more than 65,536 nodes.
    NodeRange {
        /// The range's first node.
        first: u64,
        /// The range's last node.
        last: u64,
        /// The largest node allowed: the layout's, at most 2^40 − 1.
        max: u64,
    },
    /// The TTL is outside the backend's range (Redis: 30 ms to one day; etcd: 1 s to one day;
    /// PostgreSQL: 500 ms to one day),
    /// or the margin is more than half of it.
    Timing {
        /// The TTL.
        ttl: Duration,
        /// The margin.
        margin: Duration,
        /// The least TTL the backend takes.
        min_ttl: Duration,
    },
    /// The namespace's record (written by its first claim, never expiring) holds another TTL
    /// or layout than this lease's. Every holder of a namespace must mint with one layout
    /// (marks are times, node numbers mean nothing across layouts) and one TTL (the
    /// forgetting rule waits out the others' TTL).
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint_lease::LeaseError;
    ///
    /// let err = LeaseError::Mismatch {
    ///     namespace: "orders".into(),
    ///     record_ttl: Duration::from_secs(10),
    ///     record_layout: "41+10+12 bits".into(),
    ///     ttl: Duration::from_secs(5),
    ///     layout: "41+10+12 bits".into(),
    /// };
    /// assert!(err.to_string().starts_with(
    ///     "namespace \"orders\" was made with TTL 10s and layout 41+10+12 bits, \
    ///      but this lease has TTL 5s and layout 41+10+12 bits"
    /// ));
    /// ```
    Mismatch {
        /// The namespace.
        namespace: String,
        /// The TTL its record holds.
        record_ttl: Duration,
        /// The layout its record holds.
        record_layout: String,
        /// This lease's TTL.
        ttl: Duration,
        /// This lease's layout.
        layout: String,
    },
    /// The mark is past the layout's expiry.
    Layout(LayoutError),
    /// The source's builder refused its settings (its error is the `source()`).
    Build(Cause),
}

impl From<LayoutError> for LeaseError {
    fn from(e: LayoutError) -> LeaseError {
        LeaseError::Layout(e)
    }
}

impl fmt::Display for LeaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaseError::AllTaken {
                namespace,
                first,
                last,
                ttl,
            } => write!(
                f,
                "every node from {first} to {last} in namespace {namespace:?} is leased: widen the range (.nodes), \
                 stop a process, or wait for a crashed one's lease to expire (TTL {ttl:?})"
            ),
            LeaseError::Store {
                store,
                action,
                cause,
            } => {
                // The store's name as people write it.
                let store = match *store {
                    "redis" => "Redis",
                    "postgres" => "PostgreSQL",
                    other => other,
                };
                write!(f, "could not {action} in {store}: {cause}")
            }
            LeaseError::MarkAhead {
                node,
                mark_unix_millis,
                max_wait,
                ..
            } => write!(
                f,
                "node {node}'s mark {mark_unix_millis} ms (Unix), the last time its previous owner may have issued, \
                 is ahead of this clock by more than the lease waits ({max_wait:?}); the node was given back"
            ),
            LeaseError::LostWhileWaiting { node } => write!(
                f,
                "node {node} was taken by another owner while waiting for the clock to pass its mark"
            ),
            LeaseError::NodeRange { first, last, max } => write!(
                f,
                "node range {first}..={last} is not allowed: it must be non-empty, within 0..={max} (the layout's \
                 node range) and hold at most 65536 nodes"
            ),
            LeaseError::Timing {
                ttl,
                margin,
                min_ttl,
            } => write!(
                f,
                "lease TTL {ttl:?} with margin {margin:?} is not allowed: the TTL must be {min_ttl:?} to 1 day \
                 and the margin at most half of it"
            ),
            LeaseError::Mismatch {
                namespace,
                record_ttl,
                record_layout,
                ttl,
                layout,
            } => write!(
                f,
                "namespace {namespace:?} was made with TTL {record_ttl:?} and layout {record_layout}, but this lease \
                 has TTL {ttl:?} and layout {layout}: every holder of a namespace must use the TTL and layout it \
                 was made with; use those, or another namespace"
            ),
            LeaseError::Layout(e) => e.fmt(f),
            LeaseError::Build(_) => f.write_str("the leased source could not be built"),
        }
    }
}

impl std::error::Error for LeaseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LeaseError::Store { cause, .. } => Some(cause),
            LeaseError::MarkAhead { cause, .. } => Some(cause),
            LeaseError::Build(cause) => Some(&**cause),
            // Printed as this error's own message: not again as a source.
            _ => None,
        }
    }
}
