//! [`Parts`]: the node and sequence fields of an ID to compose, by name.

/// The fields below the time field, named, for [`Layout::compose`](crate::layout::Layout::compose)
/// and [`Layout::compose_at`](crate::layout::Layout::compose_at).
///
/// Positional arguments invite silent mix-ups between layouts' conventions (Go's sonyflake
/// takes `Compose(t, sequence, machineID)`, Twitter-style code `(time, node, sequence)`);
/// named fields cannot be swapped. The node is the machine ID, worker, shard or process
/// number; Discord's is `worker << 5 | process`.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use snowmint::{Layout, Parts};
///
/// let l = Layout::SONYFLAKE;
/// let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// // Go: sf.Compose(t, 5, 300)
/// let id = l.compose_at(t, Parts { node: 300, sequence: 5 })?;
/// assert_eq!(l.decode(id).parts(), Parts { node: 300, sequence: 5 });
/// assert_eq!(Parts::default(), Parts { node: 0, sequence: 0 });
/// # Ok::<(), snowmint::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Parts {
    /// The node field (machine, worker, shard).
    pub node: u64,
    /// The sequence field (step, increment).
    pub sequence: u64,
}
