//! [`TscClockError`]: why a [`TscClock`](super::TscClock) could not be built.

use core::fmt;
use std::time::Duration;

use super::TscClock;

/// Why [`TscClockBuilder::build`](super::TscClockBuilder::build) refused its settings.
///
/// The message names the setting, the value given and the allowed range.
///
/// ```
/// use std::time::Duration;
/// use snowmint::clock::{TscClock, TscClockError};
///
/// let err = TscClock::builder().ticker(Some(Duration::from_secs(3600))).build().unwrap_err();
/// assert_eq!(err, TscClockError::TickPeriodOutOfRange { period: Duration::from_secs(3600) });
/// assert_eq!(
///     err.to_string(),
///     "ticker period 3600s is out of range: allowed 50µs to 100ms, or None for no ticker"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TscClockError {
    /// The ticker period is outside
    /// [`MIN_TICK_PERIOD`](TscClock::MIN_TICK_PERIOD)`..=`[`MAX_TICK_PERIOD`](TscClock::MAX_TICK_PERIOD).
    TickPeriodOutOfRange {
        /// The period asked for.
        period: Duration,
    },
}

impl fmt::Display for TscClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TscClockError::TickPeriodOutOfRange { period } => write!(
                f,
                "ticker period {period:?} is out of range: allowed {:?} to {:?}, or None for no ticker",
                TscClock::MIN_TICK_PERIOD,
                TscClock::MAX_TICK_PERIOD,
            ),
        }
    }
}

impl std::error::Error for TscClockError {}
