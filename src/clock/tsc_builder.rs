//! [`TscClockBuilder`]: the settings of a [`TscClock`], checked when it is built.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::tsc::Inner;
use super::{Clock, TscClock, TscClockError, WallClock};

/// Default period of the ticker thread that publishes the cheap reading.
const DEFAULT_TICK: Duration = Duration::from_micros(500);
/// Default period of re-anchoring to the wall clock: quanta's calibration error, up to 37 ppm
/// here, drifts at most 37 µs in one second.
const DEFAULT_REANCHOR: Duration = Duration::from_secs(1);
/// The most one re-anchor moves the clock backwards: larger backward corrections (an
/// operator stepping the wall clock back) are slewed at this rate, so the clock never
/// appears to jump back by more than this and a generator never stalls for long.
const DEFAULT_MAX_STEP_BACK: Duration = Duration::from_micros(500);
/// Beyond two periods, a ticker has missed one whole wake-up; the extra millisecond keeps
/// ordinary wake-up latency on a busy machine from counting as late at short periods.
const LATE_SLACK: Duration = Duration::from_millis(1);

/// Settings of a [`TscClock`].
///
/// ```
/// use std::time::Duration;
/// use snowmint::clock::{Clock, TscClock};
/// let clock = TscClock::builder()
///     .ticker(Some(Duration::from_millis(1)))
///     .reanchor_every(Duration::from_millis(250))
///     .max_step_back(Duration::from_micros(100))
///     .build()?;
/// assert!(clock.recent_unix_nanos() <= clock.now_unix_nanos() + 1_000_000);
/// # Ok::<(), snowmint::clock::TscClockError>(())
/// ```
#[derive(Clone)]
#[must_use]
pub struct TscClockBuilder {
    ticker: Option<Duration>,
    reanchor_every: Duration,
    max_step_back: Duration,
    wall: Arc<dyn Clock>,
}

impl Default for TscClockBuilder {
    /// The default settings, as [`TscClock::builder`].
    fn default() -> TscClockBuilder {
        TscClockBuilder {
            ticker: Some(DEFAULT_TICK),
            reanchor_every: DEFAULT_REANCHOR,
            max_step_back: DEFAULT_MAX_STEP_BACK,
            wall: Arc::new(WallClock),
        }
    }
}

impl core::fmt::Debug for TscClockBuilder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TscClockBuilder")
            .field("ticker", &self.ticker)
            .field("reanchor_every", &self.reanchor_every)
            .field("max_step_back", &self.max_step_back)
            .finish_non_exhaustive()
    }
}

impl TscClockBuilder {
    /// The ticker thread's period (default 500 µs), from
    /// [`TscClock::MIN_TICK_PERIOD`] (50 µs) to [`TscClock::MAX_TICK_PERIOD`] (100 ms), or
    /// `None` for no thread: then the cheap reading is the exact one (~20 ns instead of
    /// ~1 ns). A period out of range makes [`build`](Self::build) fail.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::clock::TscClock;
    /// let c = TscClock::builder().ticker(None).build()?;
    /// assert_eq!(c.tick_period(), None);
    /// assert!(TscClock::builder().ticker(Some(Duration::from_micros(10))).build().is_err());
    /// # Ok::<(), snowmint::clock::TscClockError>(())
    /// ```
    pub fn ticker(mut self, period: Option<Duration>) -> Self {
        self.ticker = period;
        self
    }

    /// How often the offset to the wall clock is measured again (default 1 s).
    ///
    /// ```
    /// let c = snowmint::clock::TscClock::builder().reanchor_every(std::time::Duration::from_secs(5)).build()?;
    /// # let _ = c;
    /// # Ok::<(), snowmint::clock::TscClockError>(())
    /// ```
    pub fn reanchor_every(mut self, period: Duration) -> Self {
        self.reanchor_every = period;
        self
    }

    /// The most one re-anchor may move the clock backwards (default 500 µs); a larger
    /// backward step of the wall clock is followed at this rate per re-anchor.
    ///
    /// ```
    /// let c = snowmint::clock::TscClock::builder().max_step_back(std::time::Duration::ZERO).build()?;
    /// # let _ = c;
    /// # Ok::<(), snowmint::clock::TscClockError>(())
    /// ```
    pub fn max_step_back(mut self, step: Duration) -> Self {
        self.max_step_back = step;
        self
    }

    /// The wall clock to anchor the TSC to (default [`WallClock`], `SystemTime::now()`): the
    /// clock follows this source's steps and drift by the rules in
    /// [Drift](TscClock#drift). Its exact reading is taken three times per re-anchor: on the
    /// ticker thread, or without one in the exact reading that finds a re-anchor due.
    ///
    /// ```
    /// use snowmint::clock::{Clock, ManualClock, TscClock};
    /// let wall = ManualClock::at_unix_millis(1_000);
    /// let c = TscClock::builder().wall(wall).ticker(None).build()?;
    /// // Anchored to 1970-01-01T00:00:01Z, plus what the TSC counted since.
    /// assert!(c.now_unix_nanos() >= 1_000_000_000);
    /// # Ok::<(), snowmint::clock::TscClockError>(())
    /// ```
    pub fn wall<C: Clock + 'static>(mut self, wall: C) -> Self {
        self.wall = Arc::new(wall);
        self
    }

    /// Checks the settings, calibrates, anchors and (with a ticker) starts the thread. If the
    /// thread cannot be spawned the clock works without it, every reading exact.
    ///
    /// # Errors
    /// [`TscClockError::TickPeriodOutOfRange`] for a ticker period outside
    /// [`TscClock::MIN_TICK_PERIOD`]`..=`[`TscClock::MAX_TICK_PERIOD`].
    ///
    /// ```
    /// use snowmint::clock::{Clock, TscClock};
    /// let c = TscClock::builder().build()?;
    /// assert!(c.now_unix_nanos() > 0);
    /// # Ok::<(), snowmint::clock::TscClockError>(())
    /// ```
    pub fn build(self) -> Result<TscClock, TscClockError> {
        if let Some(period) = self.ticker {
            if !(TscClock::MIN_TICK_PERIOD..=TscClock::MAX_TICK_PERIOD).contains(&period) {
                return Err(TscClockError::TickPeriodOutOfRange { period });
            }
        }
        Ok(self.build_on(quanta::Clock::new(), true).0)
    }

    /// The clock on `clock` (the TSC, or quanta's mock in tests), unchecked, and its ticker
    /// thread if one was started. Tests pass `start_ticker: false` for a clock with a ticker
    /// period whose thread is gone, as in a forked child.
    pub(super) fn build_on(
        self,
        clock: quanta::Clock,
        start_ticker: bool,
    ) -> (TscClock, Option<JoinHandle<()>>) {
        let late_after = self.ticker.map_or(u64::MAX, |period| {
            let nanos = period
                .saturating_mul(2)
                .saturating_add(LATE_SLACK)
                .as_nanos();
            u64::try_from(nanos).unwrap_or(u64::MAX)
        });
        let inner = Arc::new_cyclic(|this| Inner {
            clock,
            wall: self.wall,
            offset: AtomicU64::new(0),
            recent: AtomicU64::new(0),
            next_anchor: AtomicU64::new(0),
            ticker: self.ticker,
            late_after,
            ticker_pid: AtomicU32::new(std::process::id()),
            ticker_thread: Mutex::new(None),
            this: this.clone(),
            reanchor_every: self.reanchor_every,
            max_step_back: u64::try_from(self.max_step_back.as_nanos()).unwrap_or(u64::MAX),
        });
        let (offset, tsc) = inner.measure_offset();
        // Relaxed (all three): set before the clock is shared; the Arc hand-off to other
        // threads (and the ticker's spawn) publishes them.
        inner.offset.store(offset, Ordering::Relaxed);
        inner.next_anchor.store(
            tsc.saturating_add(inner.reanchor_nanos()),
            Ordering::Relaxed,
        );
        let mut handle = None;
        if self.ticker.is_some() {
            // Relaxed: as above. Nonzero: a ticker runs and the cheap reading is this one.
            inner
                .recent
                .store(offset.wrapping_add(tsc).max(1), Ordering::Relaxed);
            if start_ticker {
                match inner.spawn_ticker() {
                    Ok(h) => handle = Some(h),
                    Err(_) => inner.fall_back_to_exact(),
                }
            }
        }
        (TscClock { inner }, handle)
    }
}
