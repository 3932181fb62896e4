//! Time sources: the [`Clock`] trait and its three implementations.

#[cfg(feature = "std")]
mod error;
#[cfg(feature = "js")]
mod js;
#[cfg(any(feature = "alloc", test))]
mod manual;
#[cfg(feature = "std")]
mod ticker;
#[cfg(feature = "std")]
mod tsc;
#[cfg(feature = "std")]
mod tsc_builder;
#[cfg(feature = "std")]
mod wall;

#[cfg(feature = "js")]
pub use self::js::JsClock;
#[cfg(any(feature = "alloc", test))]
pub use self::manual::ManualClock;
#[cfg(feature = "std")]
pub use self::{
    error::TscClockError, tsc::TscClock, tsc_builder::TscClockBuilder, wall::WallClock,
};

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, sync::Arc};

/// A source of wall-clock time for a generator, in nanoseconds since the Unix epoch.
///
/// Two readings are offered so that the hot path can be cheap and the slow path exact:
/// the generator stamps IDs with [`recent_unix_nanos`](Clock::recent_unix_nanos) and only
/// when that reading would block it (the tick's sequence is used up, or the reading is behind
/// the last issued time) does it ask [`now_unix_nanos`](Clock::now_unix_nanos). Readings need
/// not be monotonic, not even within one thread: the generator folds time in as
/// `max(last, now)`, so issued time never goes backwards whatever a clock returns.
///
/// ```
/// use snowmint::{Clock, ManualClock};
///
/// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
/// assert_eq!(clock.now_unix_nanos(), 1_700_000_000_000_000_000);
/// assert_eq!(clock.recent_unix_nanos(), clock.now_unix_nanos());
/// ```
pub trait Clock: Send + Sync {
    /// The time now, as exactly as this clock can tell.
    fn now_unix_nanos(&self) -> u64;

    /// A cheaper reading that may lag [`now_unix_nanos`](Clock::now_unix_nanos) by a bounded,
    /// documented amount; by default the exact reading.
    #[inline]
    fn recent_unix_nanos(&self) -> u64 {
        self.now_unix_nanos()
    }

    /// The clock a generator builder uses when it was given none: the process-wide
    /// [`TscClock::shared`] for [`TscClock`], `None` for every other clock (their builders
    /// always have one). Builders call it at `build`, so a builder given another clock never
    /// starts the shared TSC clock.
    ///
    /// ```
    /// use snowmint::{Clock, ManualClock, TscClock};
    /// assert!(ManualClock::process_default().is_none());
    /// # #[cfg(not(miri))]
    /// assert!(TscClock::process_default().is_some());
    /// ```
    fn process_default() -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// Clocks behind references and smart pointers are clocks.
macro_rules! forward_clock {
    ($($ptr:ty),*) => {$(
        impl<C: Clock + ?Sized> Clock for $ptr {
            #[inline]
            fn now_unix_nanos(&self) -> u64 {
                (**self).now_unix_nanos()
            }

            #[inline]
            fn recent_unix_nanos(&self) -> u64 {
                (**self).recent_unix_nanos()
            }
        }
    )*};
}

forward_clock!(&C);
#[cfg(feature = "alloc")]
forward_clock!(Arc<C>, Box<C>);

/// `SystemTime::now()` in Unix nanoseconds; 0 before 1970, saturating after 2554.
#[cfg(feature = "std")]
pub(crate) fn system_unix_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}
