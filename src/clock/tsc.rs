//! [`TscClock`]: the TSC read through quanta, anchored to the wall clock and kept there.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::{system_unix_nanos, Clock};

/// Default period of the ticker thread that publishes the cheap reading.
const DEFAULT_TICK: Duration = Duration::from_micros(500);
/// Default period of re-anchoring to the wall clock: quanta's calibration error, up to 37 ppm
/// here, drifts at most 37 µs in one second.
const DEFAULT_REANCHOR: Duration = Duration::from_secs(1);
/// The most one re-anchor moves the clock backwards: larger backward corrections (an
/// operator stepping the wall clock back) are slewed at this rate, so the clock never
/// appears to jump back by more than this and a generator never stalls for long.
const DEFAULT_MAX_STEP_BACK: Duration = Duration::from_micros(500);

/// The default clock: the CPU's time-stamp counter read through `quanta`, turned into wall
/// time by an offset that is re-anchored to `SystemTime` every second.
///
/// # Readings
/// - [`now_unix_nanos`](Clock::now_unix_nanos): an `rdtsc` plus a multiply and the anchor
///   offset (~20 ns here); never calls `SystemTime` except in a re-anchor when no ticker runs.
/// - [`recent_unix_nanos`](Clock::recent_unix_nanos): one relaxed atomic load (~1 ns), the
///   value a ticker thread published at most one tick period ago (500 µs by default), so it
///   lags the exact reading by the period plus the thread's wake-up latency (typically under
///   100 µs on a core that is not saturated). Generators stamp IDs with this reading and fall
///   back to the exact one whenever it would make them wait, so staleness never costs
///   capacity: it only makes an ID's time up to that lag older than the moment it was minted.
///   On a saturated CPU the ticker's wake-up can be late by milliseconds; generators also
///   read the exact clock for every 1,024th ID, which ends a busy generator's stale stretch.
///
/// # Drift
/// quanta calibrates the TSC frequency once per process, with an error measured here from
/// −1.4 to +37 ppm (up to 3 s/day). The ticker (or, without one, the first exact read after
/// each period) re-measures the offset between the TSC and `SystemTime` every second, so the
/// error never builds up past about 37 µs. Forward corrections apply at once; backward ones
/// move the clock back at most 500 µs per re-anchor, and a generator folds every reading in as
/// `max(last, now)`, so issued time never goes backwards.
///
/// # Why not `quanta::Clock::recent()`
/// quanta's cheap reading is process-global: only one `Upkeep` thread may run, another
/// library may own it with any interval, and after its handle is dropped `recent()` silently
/// returns a frozen value. A clock whose freshness is someone else's choice cannot promise
/// one, so each `TscClock` publishes its own reading and leaves quanta's upkeep alone (both
/// coexist).
///
/// ```
/// use snowmint::{Clock, TscClock};
///
/// let clock = TscClock::shared();
/// let wall = std::time::SystemTime::now()
///     .duration_since(std::time::UNIX_EPOCH)?
///     .as_nanos() as u64;
/// let tsc = clock.now_unix_nanos();
/// assert!(tsc.abs_diff(wall) < 50_000_000, "TSC and wall clock agree to well within 50 ms");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct TscClock {
    inner: Arc<Inner>,
}

struct Inner {
    clock: quanta::Clock,
    /// Unix nanoseconds at TSC nanosecond zero: `now = offset + tsc_nanos`.
    offset: AtomicU64,
    /// The last exact reading the ticker published.
    recent: AtomicU64,
    /// Without a ticker: the TSC nanosecond reading after which the next exact read
    /// re-anchors. With one: unused.
    next_anchor: AtomicU64,
    ticker: Option<Duration>,
    reanchor_every: Duration,
    max_step_back: u64,
}

impl TscClock {
    /// The process-wide clock with default settings, created (calibrated, ticker started) on
    /// first use and cloned after that: cheap to call, and one ticker serves every generator.
    ///
    /// ```
    /// use snowmint::{Clock, TscClock};
    /// let a = TscClock::shared();
    /// let b = TscClock::shared();
    /// assert!(b.now_unix_nanos() + 1_000_000 >= a.now_unix_nanos());
    /// ```
    pub fn shared() -> TscClock {
        static SHARED: OnceLock<TscClock> = OnceLock::new();
        SHARED.get_or_init(TscClock::new).clone()
    }

    /// A new clock with default settings and its own ticker thread, which stops when the
    /// last clone is dropped. Calibrating costs about a millisecond: prefer
    /// [`shared`](Self::shared) unless the settings differ.
    ///
    /// ```
    /// use snowmint::{Clock, TscClock};
    /// let clock = TscClock::new();
    /// assert!(clock.now_unix_nanos() > 1_700_000_000_000_000_000);
    /// ```
    pub fn new() -> TscClock {
        TscClock::builder().build()
    }

    /// Settings for a clock of one's own.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{Clock, TscClock};
    /// let precise = TscClock::builder().ticker(None).build();
    /// assert_eq!(precise.tick_period(), None);
    /// let fast = TscClock::builder().ticker(Some(Duration::from_micros(100))).build();
    /// assert_eq!(fast.tick_period(), Some(Duration::from_micros(100)));
    /// ```
    pub fn builder() -> TscClockBuilder {
        TscClockBuilder {
            ticker: Some(DEFAULT_TICK),
            reanchor_every: DEFAULT_REANCHOR,
            max_step_back: DEFAULT_MAX_STEP_BACK,
        }
    }

    /// The ticker's period, or `None` when every reading is exact (no ticker).
    ///
    /// ```
    /// assert!(snowmint::TscClock::shared().tick_period().is_some());
    /// ```
    pub fn tick_period(&self) -> Option<Duration> {
        self.inner.ticker
    }
}

impl Default for TscClock {
    /// [`TscClock::shared`].
    fn default() -> TscClock {
        TscClock::shared()
    }
}

impl core::fmt::Debug for TscClock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TscClock")
            .field("ticker", &self.inner.ticker)
            .field("reanchor_every", &self.inner.reanchor_every)
            .field("now_unix_nanos", &self.inner.now())
            .finish()
    }
}

/// Settings of a [`TscClock`].
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Clock, TscClock};
/// let clock = TscClock::builder()
///     .ticker(Some(Duration::from_millis(1)))
///     .reanchor_every(Duration::from_millis(250))
///     .max_step_back(Duration::from_micros(100))
///     .build();
/// assert!(clock.recent_unix_nanos() <= clock.now_unix_nanos() + 1_000_000);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct TscClockBuilder {
    ticker: Option<Duration>,
    reanchor_every: Duration,
    max_step_back: Duration,
}

impl TscClockBuilder {
    /// The ticker thread's period (default 500 µs), or `None` for no thread: then the cheap
    /// reading is the exact one (~20 ns instead of ~1 ns). Periods are raised to at least
    /// 10 µs.
    ///
    /// ```
    /// let c = snowmint::TscClock::builder().ticker(None).build();
    /// assert_eq!(c.tick_period(), None);
    /// ```
    pub fn ticker(mut self, period: Option<Duration>) -> Self {
        self.ticker = period.map(|p| p.max(Duration::from_micros(10)));
        self
    }

    /// How often the offset to `SystemTime` is measured again (default 1 s).
    ///
    /// ```
    /// let c = snowmint::TscClock::builder().reanchor_every(std::time::Duration::from_secs(5)).build();
    /// # let _ = c;
    /// ```
    pub fn reanchor_every(mut self, period: Duration) -> Self {
        self.reanchor_every = period;
        self
    }

    /// The most one re-anchor may move the clock backwards (default 500 µs); a larger
    /// backward step of the wall clock is followed at this rate per re-anchor.
    ///
    /// ```
    /// let c = snowmint::TscClock::builder().max_step_back(std::time::Duration::ZERO).build();
    /// # let _ = c;
    /// ```
    pub fn max_step_back(mut self, step: Duration) -> Self {
        self.max_step_back = step;
        self
    }

    /// Calibrates, anchors and (with a ticker) starts the thread. If the thread cannot be
    /// spawned the clock works without it, every reading exact.
    ///
    /// ```
    /// use snowmint::{Clock, TscClock};
    /// let c = TscClock::builder().build();
    /// assert!(c.now_unix_nanos() > 0);
    /// ```
    pub fn build(self) -> TscClock {
        let clock = quanta::Clock::new();
        let inner = Inner {
            offset: AtomicU64::new(0),
            recent: AtomicU64::new(0),
            next_anchor: AtomicU64::new(0),
            ticker: self.ticker,
            reanchor_every: self.reanchor_every,
            max_step_back: u64::try_from(self.max_step_back.as_nanos()).unwrap_or(u64::MAX),
            clock,
        };
        let (offset, tsc) = inner.measure_offset();
        // Relaxed (all three): set before the clock is shared; the Arc hand-off publishes them.
        inner.offset.store(offset, Ordering::Relaxed);
        inner
            .recent
            .store(offset.saturating_add(tsc), Ordering::Relaxed);
        inner.next_anchor.store(
            tsc.saturating_add(inner.reanchor_nanos()),
            Ordering::Relaxed,
        );
        let mut inner = Arc::new(inner);
        if let Some(period) = self.ticker {
            if spawn_ticker(Arc::downgrade(&inner), period).is_err() {
                // No thread, no cheap reading: fall back to exact readings only.
                if let Some(i) = Arc::get_mut(&mut inner) {
                    i.ticker = None;
                }
            }
        }
        TscClock { inner }
    }
}

impl Clock for TscClock {
    #[inline]
    fn now_unix_nanos(&self) -> u64 {
        self.inner.now()
    }

    #[inline]
    fn recent_unix_nanos(&self) -> u64 {
        if self.inner.ticker.is_some() {
            // Relaxed: a lone value; any recent publication will do, and the generator never
            // relies on readings being ordered.
            self.inner.recent.load(Ordering::Relaxed)
        } else {
            self.inner.now()
        }
    }
}

impl Inner {
    /// TSC nanoseconds (since an arbitrary zero, usually boot).
    #[inline]
    fn tsc_nanos(&self) -> u64 {
        self.clock.delta_as_nanos(0, self.clock.raw())
    }

    #[inline]
    fn now(&self) -> u64 {
        let tsc = self.tsc_nanos();
        if self.ticker.is_none() {
            self.maybe_reanchor(tsc);
        }
        // Relaxed: a lone value; a reading with the previous offset is as good as any.
        self.offset.load(Ordering::Relaxed).wrapping_add(tsc)
    }

    fn reanchor_nanos(&self) -> u64 {
        u64::try_from(self.reanchor_every.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Without a ticker, the first exact read after each period re-anchors.
    #[inline]
    fn maybe_reanchor(&self, tsc: u64) {
        // Relaxed: only decides who re-anchors; the CAS below makes that one thread.
        let due = self.next_anchor.load(Ordering::Relaxed);
        if tsc < due {
            return;
        }
        let next = tsc.saturating_add(self.reanchor_nanos());
        // Relaxed: the winner only needs exclusivity, which any RMW on one atomic gives.
        if self
            .next_anchor
            .compare_exchange(due, next, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            self.reanchor();
        }
    }

    /// Measures the offset again and applies it: forwards at once, backwards by at most
    /// `max_step_back`.
    fn reanchor(&self) {
        let (measured, _) = self.measure_offset();
        // Relaxed: only this thread writes the offset (the ticker, or the CAS winner).
        let current = self.offset.load(Ordering::Relaxed);
        let next = if measured >= current {
            measured
        } else {
            measured.max(current.saturating_sub(self.max_step_back))
        };
        // Relaxed: readers take any recent offset; ordering is the generator's business.
        self.offset.store(next, Ordering::Relaxed);
    }

    /// `(unix nanos - tsc nanos, tsc nanos)` from the tightest of three bracketed reads of
    /// `SystemTime`.
    fn measure_offset(&self) -> (u64, u64) {
        let mut best = (u64::MAX, 0, 0);
        for _ in 0..3 {
            let before = self.tsc_nanos();
            let wall = system_unix_nanos();
            let after = self.tsc_nanos();
            let width = after.saturating_sub(before);
            if width < best.0 {
                best = (width, wall, before + width / 2);
            }
        }
        let (_, wall, tsc) = best;
        (wall.wrapping_sub(tsc), tsc)
    }
}

/// Publishes the exact reading every `period` and re-anchors on schedule, until the clock is
/// dropped.
fn spawn_ticker(inner: Weak<Inner>, period: Duration) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("snowmint-tsc".into())
        .spawn(move || {
            let mut last_anchor = Instant::now();
            loop {
                std::thread::sleep(period);
                let Some(inner) = inner.upgrade() else { return };
                if last_anchor.elapsed() >= inner.reanchor_every {
                    inner.reanchor();
                    last_anchor = Instant::now();
                }
                // Relaxed: a lone value, read with Relaxed.
                inner.recent.store(inner.now(), Ordering::Relaxed);
            }
        })
        .map(drop)
}
