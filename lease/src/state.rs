//! What [`Lease::list`](crate::Lease::list) and [`Lease::raise_floor`](crate::Lease::raise_floor)
//! report: a namespace's record and nodes as the store holds them, and what a raise changed.
//! Plain structs with public fields (no `#[non_exhaustive]`), so that a store of your own
//! can build them.

use std::time::Duration;

/// A namespace as its store holds it: its record and every node with a holder or a mark,
/// in node order. Read by [`Lease::list`](crate::Lease::list).
///
/// ```no_run
/// # #[cfg(feature = "redis")] {
/// let state = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.namespace("orders").build()?.list()?;
/// for node in &state.nodes {
///     println!("node {}: held by {:?}, mark {:?}", node.node, node.holder, node.mark_unix_millis);
/// }
/// # }
/// # Ok::<(), snowmint_lease::LeaseError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamespaceState {
    /// The namespace's record (`None`: no claim made one yet, or the store lost it).
    pub record: Option<RecordState>,
    /// Every node with a holder or a mark, in node order.
    pub nodes: Vec<NodeState>,
}

/// A namespace's record: written by its first claim, never expired.
///
/// ```
/// # #[cfg(feature = "redis")] {
/// fn show(r: &snowmint_lease::RecordState) -> String {
///     format!("incarnation {}, TTL {:?}, floor {:?}", r.incarnation, r.ttl, r.floor_unix_millis)
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordState {
    /// The random number the first claim wrote.
    pub incarnation: String,
    /// The TTL every holder must use.
    pub ttl: Duration,
    /// The layout (and leased node range's top) every holder must use, as the record holds it.
    pub layout: String,
    /// Whether the record is settled: it vouches that the store lost no write, so that
    /// claims start after their node's mark at once.
    pub settled: bool,
    /// The identity of the store it was settled on: Redis, the server's `run_id/master_replid`;
    /// etcd, the raft term of the answer that settled it. `None` if not settled (or, etcd,
    /// settled by a version that did not record the term).
    pub stamped_by: Option<String>,
    /// The floor [`Lease::raise_floor`](crate::Lease::raise_floor) kept: every claim starts
    /// after it, whatever its node's mark (Unix milliseconds).
    pub floor_unix_millis: Option<u64>,
}

/// One node of a namespace, as its store holds it.
///
/// ```
/// # #[cfg(feature = "redis")] {
/// fn held(n: &snowmint_lease::NodeState) -> bool {
///     n.holder.is_some()
/// }
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeState {
    /// The node number.
    pub node: u64,
    /// The owner token of the lease that holds it (`host/pid/start/n`), if held.
    pub holder: Option<String>,
    /// The fencing token of that hold (etcd: the holder key's `create_revision`; Redis: none).
    pub token: Option<u64>,
    /// How long the hold lives without another renewal (etcd counts whole seconds).
    pub lease_left: Option<Duration>,
    /// The node's mark, Unix milliseconds: no ID of the node was stamped later.
    pub mark_unix_millis: Option<u64>,
    /// Who wrote the mark (an owner token, or `raise-floor`).
    pub mark_owner: Option<String>,
}

/// What [`Lease::raise_floor`](crate::Lease::raise_floor) changed.
///
/// ```
/// # #[cfg(feature = "redis")] {
/// fn report(r: &snowmint_lease::FloorRaised) -> String {
///     format!("{} marks raised, {} already above", r.raised.len(), r.kept)
/// }
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FloorRaised {
    /// The floor now kept in the record (the higher of the one asked and the one it held),
    /// Unix milliseconds; `None` if the namespace has no record (its claims wait the
    /// forgetting rule anyway).
    pub floor_unix_millis: Option<u64>,
    /// The nodes whose mark was raised to the floor asked, in node order.
    pub raised: Vec<u64>,
    /// How many marks were at or above it already (left as they were).
    pub kept: usize,
}

/// What [`Lease::reset_floor`](crate::Lease::reset_floor) changed.
///
/// ```
/// # #[cfg(feature = "redis")] {
/// fn report(r: &snowmint_lease::FloorReset) -> String {
///     format!("floor {:?} -> {:?}; {} marks set to {}", r.floor_was, r.floor_unix_millis, r.reset.len(), r.marks_unix_millis)
/// }
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FloorReset {
    /// The floor the record held before (Unix milliseconds), if any.
    pub floor_was: Option<u64>,
    /// The floor the record holds now; `None` if the namespace has no record.
    pub floor_unix_millis: Option<u64>,
    /// The time every mark was set to at least (Unix milliseconds): the highest a holder
    /// recorded, or the reset's own bound if higher.
    pub marks_unix_millis: u64,
    /// The nodes whose mark was set (raised to it, or an operator's mark brought to it),
    /// in node order.
    pub reset: Vec<u64>,
    /// How many marks were left as they were (a holder's, at or above it).
    pub kept: usize,
}

/// Whether a mark's owner is an operator's call (`raise-floor`, or a `reset-floor` audit
/// line) rather than a holder: such a mark records no ID issued.
pub(crate) fn operator_mark(owner: &str) -> bool {
    owner.starts_with("raise-floor") || owner.starts_with("reset-floor")
}
