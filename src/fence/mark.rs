//! Mark arithmetic: between the Unix-millisecond marks a keeper records and the ID values
//! and clock readings a fenced source works with.

use std::time::{Duration, Instant, UNIX_EPOCH};

use crate::clock::Clock;
use crate::id::Id;
use crate::id::Parts;
use crate::layout::Layout;
use crate::layout::LayoutError;
use crate::source::IdSource;

/// Nanoseconds to milliseconds, rounded up: a mark at or after the time (saturating at
/// `u64::MAX`). A keeper records its limits in milliseconds this way, so that a mark never
/// falls before a time it covers.
///
/// ```
/// use snowmint::fence::ceil_millis;
/// assert_eq!(ceil_millis(1_000_000), 1);
/// assert_eq!(ceil_millis(1_000_001), 2);
/// assert_eq!(ceil_millis(0), 0);
/// ```
pub fn ceil_millis(nanos: u128) -> u64 {
    u64::try_from(nanos.div_ceil(1_000_000)).unwrap_or(u64::MAX)
}

/// The tick holding `unix_millis`: `Ok(None)` before the epoch.
fn tick_at(layout: &Layout, unix_millis: u64) -> Result<Option<u64>, LayoutError> {
    match layout.ticks_at(UNIX_EPOCH + Duration::from_millis(unix_millis)) {
        Ok(t) => Ok(Some(t)),
        Err(LayoutError::TimeBeforeEpoch { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The node and sequence fields full: with a tick, the last ID of that tick.
fn last_parts(layout: &Layout) -> Parts {
    Parts {
        node: layout.max_node(),
        sequence: layout.max_sequence(),
    }
}

/// The greatest ID value with a time at or before `unix_millis`'s tick (the node and
/// sequence fields full: the time field is on top, so a larger value has a later tick).
/// 0 before the epoch; `u64::MAX` past the expiry.
pub(crate) fn high_id(layout: &Layout, unix_millis: u64) -> u64 {
    match tick_at(layout, unix_millis) {
        Ok(Some(t)) => layout
            .compose(t, last_parts(layout))
            .map_or(u64::MAX, Id::to_u64),
        Ok(None) => 0,
        Err(_) => u64::MAX,
    }
}

/// The last ID of the tick holding `floor_unix_millis` (`None` before the layout's epoch): a
/// source that resumes after it (`SourceBuilder::start_after`) stamps every ID later than
/// anything issued up to the floor.
///
/// # Errors
/// [`LayoutError::Expired`] if that tick is past the layout's expiry.
///
/// ```
/// use snowmint::fence::resume_after;
/// use snowmint::Layout;
///
/// let mark = 1_800_000_000_000; // Unix ms
/// let after = resume_after(&Layout::TWITTER, mark)?.expect("after the epoch");
/// let parts = Layout::TWITTER.decode(after);
/// assert_eq!(parts.unix_millis(), mark);
/// assert_eq!(parts.node(), Layout::TWITTER.max_node());
/// assert_eq!(resume_after(&Layout::TWITTER, 0)?, None); // before Twitter's epoch
/// # Ok::<(), snowmint::LayoutError>(())
/// ```
pub fn resume_after(layout: &Layout, floor_unix_millis: u64) -> Result<Option<Id>, LayoutError> {
    Ok(
        tick_at(layout, floor_unix_millis)?
            .and_then(|t| layout.compose(t, last_parts(layout)).ok()),
    )
}

/// The least ID value of a later tick than `floor_unix_millis`'s (0 without a floor).
pub(crate) fn low_id(layout: &Layout, floor_unix_millis: Option<u64>) -> Result<u64, LayoutError> {
    let Some(floor) = floor_unix_millis else {
        return Ok(0);
    };
    match resume_after(layout, floor)? {
        // Past the last ID nothing may be issued: a low bound above every ID.
        Some(id) => Ok(id.to_u64().saturating_add(1)),
        None => Ok(0),
    }
}

/// How far `source`'s clock is from being past `floor_unix_millis`'s tick (zero if it is):
/// how long a source resuming after a mark must wait before its first ID.
///
/// ```
/// use std::time::Duration;
/// use snowmint::fence::behind;
/// use snowmint::{Generator, Layout};
/// use snowmint::clock::ManualClock;
///
/// let clock = ManualClock::at_unix_millis(1_800_000_000_000);
/// let gen = Generator::builder(Layout::TWITTER).clock(clock.clone()).node(1).build()?;
/// assert_eq!(behind(&gen, 1_800_000_000_005), Duration::from_millis(6));
/// assert_eq!(behind(&gen, 1_799_999_999_000), Duration::ZERO);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn behind<S: IdSource>(source: &S, floor_unix_millis: u64) -> Duration {
    let layout = source.layout();
    let Ok(Some(tick)) = tick_at(layout, floor_unix_millis) else {
        return Duration::ZERO;
    };
    let next = layout.tick_start_unix_nanos(tick) + u128::from(layout.unit_nanos());
    let now = source.clock().now_unix_nanos() as u128;
    Duration::from_nanos(u64::try_from(next.saturating_sub(now)).unwrap_or(u64::MAX))
}

/// Waits until `source`'s clock is past `floor_unix_millis`'s tick, calling `keep` about
/// every `keep_every` (to hold a lease meanwhile), sleeping in between.
///
/// # Errors
/// `Err(behind)` if the clock is more than `max_wait` from the floor, at once without
/// waiting, or still is once `max_wait` has passed (a clock that stalled or stepped back):
/// how far it still is. `Ok(Err(e))` if `keep` failed with `e` (the wait ends there);
/// `Ok(Ok(()))` once the clock is past the floor.
///
/// ```
/// use std::time::Duration;
/// use snowmint::fence::{behind, wait_past};
/// use snowmint::{Generator, Layout};
/// use snowmint::clock::{Clock, WallClock};
///
/// let gen = Generator::builder(Layout::TWITTER).clock(WallClock).node(1).build()?;
/// let now_ms = gen.clock().now_unix_nanos() / 1_000_000;
/// let soon = now_ms + 20;
/// let mut kept = 0;
/// let waited = wait_past(&gen, soon, Duration::from_secs(5), Duration::from_millis(5), || {
///     kept += 1; // a lease would renew here
///     Ok::<(), std::io::Error>(())
/// });
/// assert!(matches!(waited, Ok(Ok(()))));
/// assert_eq!(behind(&gen, soon), Duration::ZERO);
/// // Too far ahead: refused at once.
/// let far = now_ms + 60_000;
/// assert!(wait_past(&gen, far, Duration::from_secs(1), Duration::from_secs(1), || Ok::<(), ()>(())).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn wait_past<S: IdSource, E>(
    source: &S,
    floor_unix_millis: u64,
    max_wait: Duration,
    keep_every: Duration,
    mut keep: impl FnMut() -> Result<(), E>,
) -> Result<Result<(), E>, Duration> {
    let first = behind(source, floor_unix_millis);
    if first > max_wait {
        return Err(first);
    }
    let start = Instant::now();
    let mut kept = Instant::now();
    loop {
        let left = behind(source, floor_unix_millis);
        if left.is_zero() {
            return Ok(Ok(()));
        }
        // A clock that stalls or steps back while we wait: give up at the bound.
        if start.elapsed() > max_wait {
            return Err(left);
        }
        if kept.elapsed() >= keep_every {
            if let Err(e) = keep() {
                return Ok(Err(e));
            }
            kept = Instant::now();
        }
        std::thread::sleep(left.min(keep_every).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use super::{ceil_millis, high_id, last_parts, low_id, wait_past};
    use crate::clock::Clock;
    use crate::generator::Generator;
    use crate::id::Parts;
    use crate::layout::Layout;

    #[test]
    fn marks_round_up_and_bounds_cover_exactly_their_tick() {
        assert_eq!(ceil_millis(0), 0);
        assert_eq!(ceil_millis(1), 1);
        assert_eq!(ceil_millis(1_000_000), 1);
        assert_eq!(ceil_millis(1_000_001), 2);
        let l = Layout::SONYFLAKE; // 10 ms ticks
        let at = l.epoch_unix_millis() + 1_234; // inside tick 123
        let high = crate::id::Id::from_u64(high_id(&l, at));
        assert_eq!(l.decode(high).ticks(), 123);
        let last_of_tick = l.compose(123, last_parts(&l)).unwrap();
        let first_of_next = l.compose(124, Parts::default()).unwrap();
        assert!(last_of_tick <= high && first_of_next > high);
        assert_eq!(high_id(&l, 0), 0, "before the epoch nothing may be issued");
        let low = low_id(&l, Some(at)).unwrap();
        assert_eq!(
            low,
            first_of_next.to_u64(),
            "after a floor, the next tick's first ID"
        );
        assert_eq!(low_id(&l, None).unwrap(), 0);
        assert_eq!(
            low_id(&l, Some(0)).unwrap(),
            0,
            "a floor before the epoch bounds nothing"
        );
    }

    /// A clock that moves on by `step` nanoseconds after each reading (0: it stalls).
    struct StepClock {
        now: AtomicU64,
        step: AtomicU64,
    }

    impl Clock for StepClock {
        fn now_unix_nanos(&self) -> u64 {
            // Relaxed (both): one test thread reads it.
            self.now
                .fetch_add(self.step.load(Ordering::Relaxed), Ordering::Relaxed)
        }
    }

    const T0_MS: u64 = 1_700_000_000_000;
    const HOUR: Duration = Duration::from_secs(3_600);

    /// A generator (1 ms ticks) whose clock reads `T0_MS` and then moves on by `step` per
    /// reading, and a floor whose tick ends `ahead` after `T0_MS`.
    fn rig(ahead: Duration, step: Duration) -> (Generator<StepClock>, u64) {
        let clock = StepClock {
            now: AtomicU64::new(0),
            step: AtomicU64::new(0),
        };
        let gen = Generator::builder(Layout::TWITTER)
            .clock(clock)
            .build()
            .unwrap();
        // Relaxed (both): as above; set after the build read the clock.
        gen.clock().now.store(T0_MS * 1_000_000, Ordering::Relaxed);
        gen.clock()
            .step
            .store(step.as_nanos() as u64, Ordering::Relaxed);
        let ahead_ns = ahead.as_nanos() as u64;
        assert_eq!(ahead_ns % 1_000_000, 0, "a whole number of ticks");
        // The floor's tick is the last before T0 + ahead: the clock must reach its end.
        (gen, T0_MS + ahead_ns / 1_000_000 - 1)
    }

    #[test]
    fn a_mark_further_than_max_wait_is_refused_at_once_and_one_exactly_that_far_is_waited_for() {
        // Counts the calls, and fails: a wait that keeps the lease ends there.
        let kept = std::cell::Cell::new(0);
        let keep = || {
            kept.set(kept.get() + 1);
            Err("kept")
        };
        // Stalled: an hour behind, one nanosecond more than the wait allowed.
        let (gen, floor) = rig(HOUR, Duration::ZERO);
        let r = wait_past(
            &gen,
            floor,
            HOUR - Duration::from_nanos(1),
            Duration::ZERO,
            keep,
        );
        assert_eq!(r, Err(HOUR));
        assert_eq!(kept.get(), 0, "refused without waiting");
        // Exactly the wait allowed: the wait starts (and keeps the lease at once, whose
        // failure ends it). The clock moves on half an hour per reading, so that a wait that
        // did not keep the lease ends too, past the mark, instead of waiting an hour.
        let (gen, floor) = rig(HOUR, HOUR / 2);
        let r = wait_past(&gen, floor, HOUR, Duration::ZERO, keep);
        assert_eq!(r, Ok(Err("kept")));
        assert_eq!(kept.get(), 1);
    }

    #[test]
    fn the_lease_is_kept_every_keep_every_while_waiting() {
        // Behind by three readings' steps.
        let step = Duration::from_millis(1);
        let mut kept = 0;
        let (gen, floor) = rig(3 * step, step);
        let r = wait_past(&gen, floor, HOUR, HOUR, || {
            kept += 1;
            Ok::<(), ()>(())
        });
        assert_eq!((r, kept), (Ok(Ok(())), 0), "not due within the wait");
        let (gen, floor) = rig(3 * step, step);
        let r = wait_past(&gen, floor, HOUR, Duration::ZERO, || {
            kept += 1;
            Ok::<(), ()>(())
        });
        // Readings at 1 and 2 ms are behind; the one at 3 ms is past: two rounds kept.
        assert_eq!((r, kept), (Ok(Ok(())), 2), "due at every round");
    }

    #[test]
    fn a_stalled_clock_is_given_up_on_once_max_wait_has_passed() {
        let ms = Duration::from_millis(1);
        let (gen, floor) = rig(ms, Duration::ZERO);
        let mut rounds = 0;
        // Keeping is due every millisecond, the round's sleep: a wait that went on past
        // max_wait would keep ever more; 100 rounds end it (a property of the count, not of
        // how fast the machine is: each round sleeps at least 1 ms).
        let r = wait_past(&gen, floor, ms, ms, || {
            rounds += 1;
            if rounds < 100 {
                Ok(())
            } else {
                Err("went on")
            }
        });
        assert_eq!(r, Err(ms), "gave up, saying how far the clock still is");
        assert!(
            rounds <= 1,
            "{rounds} rounds kept: the first sleep already passed max_wait"
        );
    }
}
