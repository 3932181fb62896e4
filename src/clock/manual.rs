//! [`ManualClock`]: a clock that moves only when told to, for tests and loom models.

use alloc::sync::Arc;
use core::time::Duration;

use super::Clock;
use crate::sync::{AtomicU64, Ordering};

/// A clock set by hand: it can step forwards and backwards, and clones share one reading.
///
/// Its atomic comes from the crate's sync shim, so it works inside loom models.
///
/// ```
/// use std::time::Duration;
/// use snowmint::clock::{Clock, ManualClock};
///
/// let clock = ManualClock::at_unix_millis(1_000);
/// let shared = clock.clone();
/// clock.advance(Duration::from_millis(5));
/// assert_eq!(shared.now_unix_nanos(), 1_005_000_000);
/// clock.rewind(Duration::from_millis(10));
/// assert_eq!(shared.now_unix_nanos(), 995_000_000);
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock reading `nanos` nanoseconds since the Unix epoch.
    ///
    /// ```
    /// use snowmint::clock::{Clock, ManualClock};
    /// assert_eq!(ManualClock::at_unix_nanos(7).now_unix_nanos(), 7);
    /// ```
    pub fn at_unix_nanos(nanos: u64) -> ManualClock {
        ManualClock {
            nanos: Arc::new(AtomicU64::new(nanos)),
        }
    }

    /// A clock reading `millis` milliseconds since the Unix epoch (saturating).
    ///
    /// ```
    /// use snowmint::clock::{Clock, ManualClock};
    /// assert_eq!(ManualClock::at_unix_millis(7).now_unix_nanos(), 7_000_000);
    /// ```
    pub fn at_unix_millis(millis: u64) -> ManualClock {
        ManualClock::at_unix_nanos(millis.saturating_mul(1_000_000))
    }

    /// Sets the reading.
    ///
    /// ```
    /// use snowmint::clock::{Clock, ManualClock};
    /// let c = ManualClock::at_unix_nanos(0);
    /// c.set_unix_nanos(99);
    /// assert_eq!(c.now_unix_nanos(), 99);
    /// ```
    pub fn set_unix_nanos(&self, nanos: u64) {
        // Relaxed: the reading is a lone value; no other memory is published with it.
        self.nanos.store(nanos, Ordering::Relaxed);
    }

    /// Moves the reading forwards (saturating).
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::clock::{Clock, ManualClock};
    /// let c = ManualClock::at_unix_nanos(0);
    /// c.advance(Duration::from_nanos(3));
    /// assert_eq!(c.now_unix_nanos(), 3);
    /// ```
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        // Relaxed: as in `set_unix_nanos`; the RMW keeps concurrent advances from being lost.
        let _ = self
            .nanos
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_add(by))
            });
    }

    /// Moves the reading backwards (saturating at 0), as a clock stepped back by NTP.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::clock::{Clock, ManualClock};
    /// let c = ManualClock::at_unix_nanos(10);
    /// c.rewind(Duration::from_nanos(3));
    /// assert_eq!(c.now_unix_nanos(), 7);
    /// ```
    pub fn rewind(&self, by: Duration) {
        let by = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        // Relaxed: as in `advance`.
        let _ = self
            .nanos
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(by))
            });
    }
}

impl Clock for ManualClock {
    #[inline]
    fn now_unix_nanos(&self) -> u64 {
        // Relaxed: as in `set_unix_nanos`.
        self.nanos.load(Ordering::Relaxed)
    }
}
