//! What the layers tell the events about, in both builds (the recording events with `std`,
//! the no-ops without), as plain values: whose minting an event is about, why a call waits,
//! and an error about to be returned. The fields every trace event shares are here too.

use core::fmt::Display;
use core::time::Duration;

#[cfg(feature = "tracing")]
use crate::layout::Layout;

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

/// An error about to be returned to a caller, as the events record it: its [`Kind`], and the
/// error itself for the trace event to print. The layer that made the error hands it over
/// this way (`MintError::refusal`, `FenceError::refusal`), so that the events know no error
/// type of the layers above them.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), allow(dead_code))]
#[derive(Clone, Copy)]
pub(crate) struct Refusal<'a> {
    pub(crate) kind: Kind,
    pub(crate) error: &'a dyn Display,
}

/// What kind of error a [`Refusal`] is, with the amounts its events record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The tick's sequence is used up: minting can go on after `retry_after`.
    Exhausted { retry_after: Duration },
    /// The clock is `behind` the issued time, further than the call may wait.
    ClockBehind { behind: Duration },
    /// The clock reads a time before the layout's epoch.
    BeforeEpoch,
    /// Every exclusive shard of a sharded generator is owned.
    NoFreeShard,
    /// The layout's time field is full.
    Expired,
    /// A fenced source's keeper cannot prove it holds `node`: it may again after `retry_after`.
    Fenced { node: u64, retry_after: Duration },
    /// `node` belongs to another owner now.
    Lost { node: u64 },
}

impl Kind {
    /// The `kind` label of the error metrics and trace events.
    #[cfg_attr(not(any(feature = "metrics", feature = "tracing")), allow(dead_code))]
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Exhausted { .. } => "exhausted",
            Kind::ClockBehind { .. } => "clock_behind",
            Kind::BeforeEpoch => "before_epoch",
            Kind::NoFreeShard => "no_free_shard",
            Kind::Expired => "expired",
            Kind::Fenced { .. } => "fenced",
            Kind::Lost { .. } => "lost",
        }
    }
}

/// The layout's fields of every event: `unit_ms`, `sequence_bits`.
#[cfg(feature = "tracing")]
pub(super) fn layout_fields(layout: &Layout) -> (f64, u8) {
    (layout.unit().as_secs_f64() * 1e3, layout.sequence_bits())
}

/// Microseconds, saturating, as a `u64` field.
#[cfg(feature = "tracing")]
pub(super) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
