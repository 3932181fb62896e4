//! [`TscClock`]: the TSC read through quanta, anchored to the wall clock and kept there.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::thread::Thread;
use std::time::Duration;

use super::ticker;
use super::{Clock, TscClockBuilder};

/// The default clock: the CPU's time-stamp counter read through `quanta`, turned into wall
/// time by an offset that is re-anchored to `SystemTime` every second.
///
/// # Readings
/// - [`now_unix_nanos`](Clock::now_unix_nanos), the exact reading: an `rdtsc` plus a
///   multiply and the anchor offset (~20 ns here).
/// - [`recent_unix_nanos`](Clock::recent_unix_nanos), the cheap reading: one relaxed atomic
///   load (~1 ns) of the exact reading a ticker thread publishes every tick period (500 µs by
///   default; [`ticker`](TscClockBuilder::ticker) sets it between
///   [`MIN_TICK_PERIOD`](Self::MIN_TICK_PERIOD) and [`MAX_TICK_PERIOD`](Self::MAX_TICK_PERIOD),
///   or turns the thread off, and then the cheap reading is the exact one). Generators stamp
///   IDs with the cheap reading and fall back to the exact one whenever it would make them
///   wait, so its lag never costs capacity: it only makes an ID's time older than the moment
///   it was minted.
///
/// # How stale the cheap reading can be
/// - **While the ticker runs**: by the period plus the thread's wake-up latency (typically
///   under 100 µs on a core that is not saturated; milliseconds on a saturated CPU, where the
///   ticker is a thread like any other).
/// - **When the ticker is late**: every exact reading checks the age of the published one
///   (one more load, no system call); finding it older than two periods plus 1 ms, it
///   publishes itself. A generator reads the exact clock whenever it would wait, for the
///   second state of every tick and for the states whose sequence is 0 or 1 modulo 1,024:
///   a slow generator (one ID per tick) reads it for every ID, and a starved ticker holds
///   a busy generator's time back for at most 1,022 IDs.
/// - **This is a bound in readings, not in time.** The cheap path is one load and cannot
///   tell how old its value is without reading the time (an `rdtsc`, ~18 ns) or the process
///   (a system call, ~300 ns), which would cost it many times over what it saves. So if no
///   ticker publishes (below: after `fork()`), a caller that only ever takes cheap readings
///   sees a frozen time until its next exact reading (for a generator, the rule above).
///   Callers of the clock that need a bound in time use
///   `ticker(None)`, or call [`now_unix_nanos`](Clock::now_unix_nanos) now and then.
///
/// # After `fork()`
/// `fork()` copies only the calling thread: the child keeps the clock (say
/// [`TscClock::shared`], created before the fork) but not its ticker, so the cheap reading
/// stops moving. The clock records the process that runs its ticker, and the first exact
/// reading in the child that finds the cheap one late (older than two periods plus 1 ms)
/// publishes its own, sees the process ID has changed and starts a ticker in the child;
/// from then on the readings are as fresh as in the parent. Until that exact reading the
/// child's cheap reading is the one frozen at the fork (the bound in readings above: for a
/// generator at most 1,022 IDs after the fork plus two periods and 1 ms). A child can
/// end that window at once with [`restart_ticker_if_forked`](Self::restart_ticker_if_forked)
/// right after forking. (POSIX allows a multi-threaded process's child only async-signal-safe
/// calls until it execs; starting the thread allocates and calls `pthread_create`, which
/// glibc's and musl's children do in practice. If the thread cannot be started, the clock
/// goes on with exact readings only.)
///
/// # Drift
/// quanta calibrates the TSC frequency once per process, with an error measured here from
/// −1.4 to +37 ppm (up to 3 s/day). The ticker (or, without one, the first exact read after
/// each period) re-measures the offset between the TSC and the wall clock
/// ([`SystemTime`](std::time::SystemTime) unless [`wall`](TscClockBuilder::wall) gives
/// another source) every second, so the error never builds up past about 37 µs. Forward
/// corrections (the wall clock stepped forward, or a TSC running slow) apply at once.
/// Backward ones move the clock back by at most
/// [`max_step_back`](TscClockBuilder::max_step_back) (500 µs) per re-anchor, so a wall clock
/// stepped back by 2 s is followed at 500 µs per second, over about 67 minutes, while the
/// readings keep moving forwards at 0.9995 s per second; a TSC running fast by more than that
/// rate (500 ppm, far beyond anything measured) would leave the clock ahead by the
/// difference. A generator folds every reading in as `max(last, now)`, so issued time never
/// goes backwards in any case.
///
/// # Why not `quanta::Clock::recent()`
/// quanta's cheap reading is process-global: only one `Upkeep` thread may run, another
/// library may own it with any interval, and after its handle is dropped `recent()` silently
/// returns a frozen value. A clock whose freshness is someone else's choice cannot promise
/// one, so each `TscClock` publishes its own reading and leaves quanta's upkeep alone (both
/// coexist).
///
/// ```
/// use snowmint::clock::{Clock, TscClock};
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
    pub(super) inner: Arc<Inner>,
}

/// The clock's state, shared by its clones and (weakly) by its ticker thread.
pub(super) struct Inner {
    /// The TSC, or quanta's mock in tests.
    pub(super) clock: quanta::Clock,
    /// The wall clock the TSC is anchored to.
    pub(super) wall: Arc<dyn Clock>,
    /// Unix nanoseconds at TSC nanosecond zero: `now = offset + tsc_nanos`.
    pub(super) offset: AtomicU64,
    /// The last reading a ticker (or a reader that found the ticker late) published; 0 when no
    /// ticker runs, and then the cheap reading is the exact one.
    pub(super) recent: AtomicU64,
    /// The TSC nanosecond reading after which the next re-anchor is due (taken by the ticker,
    /// or without one by the first exact read past it).
    pub(super) next_anchor: AtomicU64,
    /// The ticker period asked for (`None`: no ticker).
    pub(super) ticker: Option<Duration>,
    /// An exact reading that finds `recent` older than this, in nanoseconds, publishes itself
    /// and checks whether the ticker's process is still this one.
    pub(super) late_after: u64,
    /// The process that runs the ticker: another one here means this is a forked child.
    pub(super) ticker_pid: AtomicU32,
    /// The ticker thread, woken when the clock is dropped so that it ends at once.
    pub(super) ticker_thread: Mutex<Option<Thread>>,
    /// This `Inner`, for starting a ticker from a reader (after a fork).
    pub(super) this: Weak<Inner>,
    pub(super) reanchor_every: Duration,
    pub(super) max_step_back: u64,
}

impl TscClock {
    /// The shortest ticker period a [`TscClockBuilder`] accepts: 50 µs, Linux's default timer
    /// slack for a thread. A sleep of any shorter period ends about that late anyway, so a
    /// shorter period would not be kept and would only cost wake-ups (each a few µs of CPU).
    ///
    /// ```
    /// use std::time::Duration;
    /// assert_eq!(snowmint::clock::TscClock::MIN_TICK_PERIOD, Duration::from_micros(50));
    /// ```
    pub const MIN_TICK_PERIOD: Duration = Duration::from_micros(50);

    /// The longest ticker period a [`TscClockBuilder`] accepts: 100 ms. The cheap reading lags
    /// by up to a period, so a longer one would stamp IDs with times older than ten Sonyflake
    /// ticks (a hundred Twitter ones); a user who wants no wake-ups at all turns the ticker
    /// off with `ticker(None)`.
    ///
    /// ```
    /// use std::time::Duration;
    /// assert_eq!(snowmint::clock::TscClock::MAX_TICK_PERIOD, Duration::from_millis(100));
    /// ```
    pub const MAX_TICK_PERIOD: Duration = Duration::from_millis(100);

    /// The process-wide clock with default settings, created (calibrated, ticker started) on
    /// first use and cloned after that: cheap to call, and one ticker serves every generator.
    ///
    /// ```
    /// use snowmint::clock::{Clock, TscClock};
    /// let a = TscClock::shared();
    /// let b = TscClock::shared();
    /// assert!(b.now_unix_nanos() + 1_000_000 >= a.now_unix_nanos());
    /// ```
    pub fn shared() -> TscClock {
        static SHARED: OnceLock<TscClock> = OnceLock::new();
        SHARED.get_or_init(TscClock::new).clone()
    }

    /// A new clock with default settings and its own ticker thread, which ends when the last
    /// clone is dropped. Calibrating costs about a millisecond: prefer
    /// [`shared`](Self::shared) unless the settings differ.
    ///
    /// ```
    /// use snowmint::clock::{Clock, TscClock};
    /// let clock = TscClock::new();
    /// assert!(clock.now_unix_nanos() > 1_700_000_000_000_000_000);
    /// ```
    pub fn new() -> TscClock {
        TscClock::builder().build_on(quanta::Clock::new(), true).0
    }

    /// Settings for a clock of one's own.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::clock::{Clock, TscClock};
    /// let precise = TscClock::builder().ticker(None).build()?;
    /// assert_eq!(precise.tick_period(), None);
    /// let fast = TscClock::builder().ticker(Some(Duration::from_micros(100))).build()?;
    /// assert_eq!(fast.tick_period(), Some(Duration::from_micros(100)));
    /// # Ok::<(), snowmint::clock::TscClockError>(())
    /// ```
    pub fn builder() -> TscClockBuilder {
        TscClockBuilder::default()
    }

    /// The ticker's period, or `None` when every reading is exact (no ticker, or its thread
    /// could not be started).
    ///
    /// ```
    /// assert!(snowmint::clock::TscClock::shared().tick_period().is_some());
    /// ```
    pub fn tick_period(&self) -> Option<Duration> {
        // Relaxed: a lone value; 0 once means 0 for good.
        self.inner
            .ticker
            .filter(|_| self.inner.recent.load(Ordering::Relaxed) != 0)
    }

    /// After a `fork()`, starts the clock's ticker in the child at once and returns `true`;
    /// in the process that already runs it (or for a clock without a ticker) does nothing and
    /// returns `false`. Costs one system call (the process ID).
    ///
    /// Without it the child's first exact reading made more than two tick periods plus 1 ms
    /// after the fork does the same (see [After `fork()`](TscClock#after-fork)); a child that
    /// mints slowly calls this right after forking so that none of its IDs carry the time of
    /// the fork.
    ///
    /// ```
    /// use snowmint::clock::TscClock;
    /// // Not forked: the ticker already runs in this process.
    /// assert!(!TscClock::shared().restart_ticker_if_forked());
    /// ```
    pub fn restart_ticker_if_forked(&self) -> bool {
        self.inner.restart_ticker_if_forked()
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
            .field("ticker", &self.tick_period())
            .field("reanchor_every", &self.inner.reanchor_every)
            .field("now_unix_nanos", &self.inner.now())
            .finish()
    }
}

impl Clock for TscClock {
    fn process_default() -> Option<TscClock> {
        Some(TscClock::shared())
    }

    #[inline]
    fn now_unix_nanos(&self) -> u64 {
        self.inner.now()
    }

    #[inline]
    fn recent_unix_nanos(&self) -> u64 {
        // Relaxed: a lone value; any recent publication will do, and the generator never
        // relies on readings being ordered.
        let recent = self.inner.recent.load(Ordering::Relaxed);
        if recent != 0 {
            recent
        } else {
            self.inner.now_without_ticker()
        }
    }
}

impl Inner {
    /// TSC nanoseconds (since an arbitrary zero, usually boot).
    #[inline]
    pub(super) fn tsc_nanos(&self) -> u64 {
        self.clock.delta_as_nanos(0, self.clock.raw())
    }

    /// The clock's time at TSC reading `tsc`.
    #[inline]
    fn at(&self, tsc: u64) -> u64 {
        // Relaxed: a lone value; a reading with the previous offset is as good as any.
        self.offset.load(Ordering::Relaxed).wrapping_add(tsc)
    }

    /// The exact reading.
    #[inline]
    pub(super) fn now(&self) -> u64 {
        let tsc = self.tsc_nanos();
        // Relaxed: a lone value; whether a ticker runs, and how old its reading is, need no
        // other memory.
        let recent = self.recent.load(Ordering::Relaxed);
        if recent == 0 {
            self.maybe_reanchor(tsc);
            return self.at(tsc);
        }
        let now = self.at(tsc);
        if now.saturating_sub(recent) > self.late_after {
            self.ticker_late(recent, now);
        }
        now
    }

    /// The exact reading, for a cheap one asked of a clock without a ticker: out of line,
    /// so that the cheap reading inlined into a minting loop is one load and a branch.
    #[cold]
    #[inline(never)]
    fn now_without_ticker(&self) -> u64 {
        self.now()
    }

    /// Starts this clock's ticker thread and registers it to be woken when the clock is
    /// dropped. Callers start one only for a clock with a ticker period.
    pub(super) fn spawn_ticker(&self) -> std::io::Result<std::thread::JoinHandle<()>> {
        let period = self.ticker.unwrap_or(Duration::MAX);
        ticker::spawn(period, self.this.clone(), Inner::tick, &self.ticker_thread)
    }

    /// One tick of the ticker thread: re-anchor when due, then publish the exact reading.
    pub(super) fn tick(&self) {
        let tsc = self.tsc_nanos();
        self.maybe_reanchor(tsc);
        // Relaxed: a lone value, read with Relaxed. Never 0, which means "no ticker".
        self.recent.store(self.at(tsc).max(1), Ordering::Relaxed);
    }

    /// An exact reading found the published one `seen` older than `late_after`: publish
    /// `now` instead, and if this is a forked child without the ticker, start one.
    #[cold]
    #[inline(never)]
    fn ticker_late(&self, seen: u64, now: u64) {
        // Relaxed: a lone value. Only the reader that replaces `seen` goes on, so that
        // concurrent readers make one system call, not one each.
        if self
            .recent
            .compare_exchange(seen, now.max(1), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            crate::events::cheap_reading_late(Duration::from_nanos(now.saturating_sub(seen)));
            self.restart_ticker_if_forked();
        }
    }

    /// Starts a ticker if this process is not the one that runs it (a forked child); `true`
    /// if it did.
    pub(super) fn restart_ticker_if_forked(&self) -> bool {
        // Relaxed: a lone value; read 0 (no ticker) means there is nothing to restart.
        if self.recent.load(Ordering::Relaxed) == 0 {
            return false;
        }
        let pid = std::process::id();
        // Relaxed: the pid is a lone value; the CAS makes one thread of the child the one
        // that starts the ticker.
        let owner = self.ticker_pid.load(Ordering::Relaxed);
        if owner == pid
            || self
                .ticker_pid
                .compare_exchange(owner, pid, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        match self.spawn_ticker() {
            Ok(_detached) => {
                // The cheap reading is fresh from now on: publish one at once.
                self.tick();
                true
            }
            Err(_) => {
                self.fall_back_to_exact();
                false
            }
        }
    }

    /// No ticker could be started: every reading is exact from now on, re-anchored by the
    /// first exact read after each period.
    pub(super) fn fall_back_to_exact(&self) {
        // Relaxed (both): lone values; readers that still see the old `recent` take one
        // more slightly stale reading, as they would from a late ticker.
        self.next_anchor.store(0, Ordering::Relaxed);
        self.recent.store(0, Ordering::Relaxed);
    }

    pub(super) fn reanchor_nanos(&self) -> u64 {
        u64::try_from(self.reanchor_every.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Re-anchors if TSC reading `tsc` is past the due time: the one caller whose CAS moves
    /// the due time on does it.
    #[inline]
    pub(super) fn maybe_reanchor(&self, tsc: u64) {
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
    pub(super) fn reanchor(&self) {
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
        // Offsets are unix - tsc nanoseconds (wrapping): their differences are signed.
        crate::events::clock_reanchored(
            measured.wrapping_sub(current) as i64,
            next.wrapping_sub(current) as i64,
        );
    }

    /// `(unix nanos - tsc nanos, tsc nanos)` from the tightest of three bracketed reads of
    /// the wall clock.
    pub(super) fn measure_offset(&self) -> (u64, u64) {
        let mut best = (u64::MAX, 0, 0);
        for _ in 0..3 {
            let before = self.tsc_nanos();
            let wall = self.wall.now_unix_nanos();
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

impl Drop for Inner {
    /// Wakes the ticker so that it sees the clock gone and ends now, not a period later.
    fn drop(&mut self) {
        let slot = self
            .ticker_thread
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(thread) = slot.take() {
            thread.unpark();
        }
    }
}

#[cfg(test)]
mod tests;
