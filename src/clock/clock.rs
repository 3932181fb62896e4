//! [`Clock`]: the trait every time source implements, and clocks behind pointers.

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
/// use snowmint::clock::{Clock, ManualClock};
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
    /// [`TscClock::shared`](crate::clock::TscClock::shared) for
    /// [`TscClock`](crate::clock::TscClock), `None` for every other clock (their builders
    /// always have one). Builders call it at `build`, so a builder given another clock never
    /// starts the shared TSC clock.
    ///
    /// ```
    /// use snowmint::clock::{Clock, ManualClock, TscClock};
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
