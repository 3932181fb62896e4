//! What the minting core tells the events about, in both builds (`events.rs` with `std`, the
//! no-op `events_core.rs` without): whose minting an event is about, and why a call waits.

/// Whose minting an event is about, as trace fields: a generator's `node` (for a sharded
/// generator, the node above its shards). Each is left out when unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Whose {
    pub(crate) node: Option<u64>,
}

/// Why a call waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitReason {
    Exhausted,
    ClockBehind,
    /// A fenced source refused to mint until its keeper secures the node again (only the
    /// async calls wait for that; fenced sources need `std`).
    #[cfg(feature = "std")]
    Fenced,
}

impl WaitReason {
    /// The `reason` label of the wait metrics.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) fn label(self) -> &'static str {
        match self {
            WaitReason::Exhausted => "exhausted",
            WaitReason::ClockBehind => "clock_behind",
            #[cfg(feature = "std")]
            WaitReason::Fenced => "fenced",
        }
    }
}
