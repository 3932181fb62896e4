//! [`MintError`]: why a source of the minting core could not mint an ID.

use core::fmt;
use core::time::Duration;

use crate::events::{Kind, Refusal};
use crate::layout::LayoutError;

/// Why a generator could not mint an ID.
///
/// None of these ever leads to a repeated ID: the generator refuses instead.
///
/// ```
/// use std::time::Duration;
/// use snowmint::MintError;
///
/// let err = MintError::Exhausted { retry_after: Duration::from_micros(250) };
/// assert_eq!(err.retry_after(), Some(Duration::from_micros(250)));
/// assert!(err.to_string().contains("retry after 250µs"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MintError {
    /// Every sequence number of the current tick is used, and so is the lead the generator
    /// may borrow: the next ID can be minted after `retry_after`.
    Exhausted {
        /// How long until the clock reaches the next tick that may be used.
        retry_after: Duration,
    },
    /// The clock is behind the last time the generator issued (it was stepped back), by more
    /// than the lead allows.
    ClockBehind {
        /// How far the clock must still move forward before minting can go on.
        behind: Duration,
    },
    /// The clock reads a time the layout cannot stamp: before its epoch by more than
    /// [`Rollback::TOLERANCE`](crate::clock::Rollback::TOLERANCE), the one before-epoch condition of
    /// the crate ([`LayoutError::TimeBeforeEpoch`], also what
    /// [`Layout::ticks_at`](crate::Layout::ticks_at) says of such a time). A reading within
    /// the tolerance before the epoch mints in the epoch's first tick, so that a layout whose
    /// epoch is `SystemTime::now()` mints at once on a clock a few microseconds behind.
    Layout(LayoutError),
    /// Every exclusive shard of a sharded generator is owned (see
    /// [`ShardedGenerator::own_shard`](crate::ShardedGenerator::own_shard)).
    NoFreeShard {
        /// How many exclusive shards the generator has.
        shards: u64,
    },
    /// The layout's time field is full: its expiry date has passed.
    Expired {
        /// The layout's expiry, in milliseconds since the Unix epoch.
        expiry_unix_millis: u64,
    },
}

impl MintError {
    /// This error as the events record it.
    pub(crate) fn refusal(&self) -> Refusal<'_> {
        let kind = match *self {
            MintError::Exhausted { retry_after } => Kind::Exhausted { retry_after },
            MintError::ClockBehind { behind } => Kind::ClockBehind { behind },
            MintError::Layout(_) => Kind::BeforeEpoch,
            MintError::NoFreeShard { .. } => Kind::NoFreeShard,
            MintError::Expired { .. } => Kind::Expired,
        };
        Refusal { kind, error: self }
    }

    /// How long to wait before trying again, when waiting can help.
    ///
    /// ```
    /// use snowmint::MintError;
    /// let err = MintError::Expired { expiry_unix_millis: 0 };
    /// assert_eq!(err.retry_after(), None);
    /// ```
    pub const fn retry_after(&self) -> Option<Duration> {
        match *self {
            MintError::Exhausted { retry_after } => Some(retry_after),
            MintError::ClockBehind { behind } => Some(behind),
            MintError::Layout(_) | MintError::NoFreeShard { .. } | MintError::Expired { .. } => {
                None
            }
        }
    }
}

impl fmt::Display for MintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MintError::Exhausted { retry_after } => write!(
                f,
                "sequence exhausted for this tick (and the allowed lead): retry after {retry_after:?}"
            ),
            MintError::ClockBehind { behind } => write!(
                f,
                "clock moved backwards: it is {behind:?} behind the last issued time, beyond the allowed lead"
            ),
            MintError::Layout(e) => write!(f, "the clock's {e}"),
            MintError::NoFreeShard { shards } => write!(
                f,
                "all {shards} exclusive shards are owned: drop an owned shard, or mint through the shared overflow shard"
            ),
            MintError::Expired { expiry_unix_millis } => write!(
                f,
                "layout expired: its time field overflowed at {expiry_unix_millis} ms (Unix)"
            ),
        }
    }
}

impl core::error::Error for MintError {}
