//! The TscClock on quanta's mock TSC and a [`ManualClock`] as its wall clock: re-anchoring,
//! the backward slew, a late ticker, a forked child and the ticker's end, each driven
//! explicitly so that no assertion depends on how fast this machine runs.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::TscClock;
use crate::clock::{Clock, ManualClock, TscClockBuilder, TscClockError};

/// Where the mock TSC starts: a machine up for 1,000 s.
const TSC0: u64 = 1_000_000_000_000;
/// Where the wall clock starts: 2023-11-14T22:13:20Z.
const WALL0: u64 = 1_700_000_000_000_000_000;
const SECOND: u64 = 1_000_000_000;
const MICRO: u64 = 1_000;
/// The default most one re-anchor moves the clock back.
const STEP_BACK: u64 = 500 * MICRO;
/// How long a liveness check waits for a thread before calling it missing: far beyond any
/// scheduling delay, far below the hour a missing ticker would take.
const PATIENCE: Duration = Duration::from_secs(60);

/// A clock on a mock TSC and a manual wall clock, both at their start.
struct Rig {
    clock: TscClock,
    tsc: Arc<quanta::Mock>,
    wall: ManualClock,
    ticker: Option<JoinHandle<()>>,
}

impl Rig {
    fn new(builder: TscClockBuilder, start_ticker: bool) -> Rig {
        let (q, tsc) = quanta::Clock::mock();
        tsc.increment(TSC0);
        let wall = ManualClock::at_unix_nanos(WALL0);
        let (clock, ticker) = builder.wall(wall.clone()).build_on(q, start_ticker);
        Rig {
            clock,
            tsc,
            wall,
            ticker,
        }
    }

    /// No ticker; re-anchoring only when a test says so (the schedule is a year away).
    fn exact() -> Rig {
        Rig::new(
            TscClock::builder()
                .ticker(None)
                .reanchor_every(Duration::from_secs(365 * 86_400)),
            false,
        )
    }

    /// Both clocks move on by `nanos`: time passes, no drift.
    fn pass(&self, nanos: u64) {
        self.tsc.increment(nanos);
        self.wall.advance(Duration::from_nanos(nanos));
    }

    fn now(&self) -> u64 {
        self.clock.now_unix_nanos()
    }

    fn reanchor(&self) {
        self.clock.inner.reanchor();
    }

    fn recent_field(&self) -> u64 {
        self.clock.inner.recent.load(Ordering::Relaxed)
    }
}

/// Waits (up to `PATIENCE`) for `done`; false if it never came.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    done()
}

#[test]
fn reads_the_wall_source_plus_what_the_tsc_counted() {
    let rig = Rig::exact();
    assert_eq!(rig.now(), WALL0);
    rig.tsc.increment(5 * MICRO);
    assert_eq!(rig.now(), WALL0 + 5 * MICRO);
    assert_eq!(
        rig.clock.recent_unix_nanos(),
        rig.now(),
        "no ticker: cheap is exact"
    );
    assert_eq!(rig.clock.tick_period(), None);
}

#[test]
fn a_forward_step_of_the_wall_clock_applies_at_once() {
    let rig = Rig::exact();
    rig.pass(SECOND);
    rig.wall.advance(Duration::from_secs(2));
    assert_eq!(rig.now(), WALL0 + SECOND, "not before a re-anchor");
    rig.reanchor();
    assert_eq!(rig.now(), WALL0 + 3 * SECOND);
}

#[test]
fn a_backward_step_is_slewed_at_most_max_step_back_per_reanchor() {
    let rig = Rig::exact();
    rig.pass(SECOND);
    rig.wall.rewind(Duration::from_secs(2));
    let before = rig.now();
    rig.reanchor();
    assert_eq!(
        before - rig.now(),
        STEP_BACK,
        "back by the cap at once, no further"
    );

    // One re-anchor per second, as the ticker does: the clock is ahead of the wall clock by
    // 2 s - k × 500 µs after the k-th, and readings a second apart keep moving forwards.
    let mut last = rig.now();
    let mut k = 1;
    while rig.now() > rig.wall.now_unix_nanos() {
        rig.pass(SECOND);
        let ahead = 2 * SECOND - k * STEP_BACK;
        assert_eq!(rig.now() - rig.wall.now_unix_nanos(), ahead);
        rig.reanchor();
        k += 1;
        let now = rig.now();
        assert!(now > last, "reading {k} went back: {now} after {last}");
        assert_eq!(last + SECOND - STEP_BACK, now, "0.9995 s per second");
        last = now;
    }
    assert_eq!(k, 4_000, "2 s at 500 µs per re-anchor");
    assert_eq!(rig.now(), rig.wall.now_unix_nanos(), "caught up exactly");
    rig.pass(SECOND);
    rig.reanchor();
    assert_eq!(rig.now(), rig.wall.now_unix_nanos(), "and stays there");
}

#[test]
fn a_fast_tsc_is_pulled_back_at_each_reanchor() {
    // 37 ppm fast, the worst calibration error measured here: 37 µs per second.
    let rig = Rig::exact();
    let mut last = rig.now();
    for _ in 0..100 {
        rig.tsc.increment(SECOND + 37 * MICRO);
        rig.wall.advance(Duration::from_secs(1));
        assert_eq!(
            rig.now() - rig.wall.now_unix_nanos(),
            37 * MICRO,
            "one second's drift"
        );
        rig.reanchor();
        assert_eq!(
            rig.now(),
            rig.wall.now_unix_nanos(),
            "corrected in full: 37 µs < cap"
        );
        assert!(rig.now() > last);
        last = rig.now();
    }
}

#[test]
fn a_slow_tsc_is_pushed_forward_at_each_reanchor() {
    let rig = Rig::exact();
    let mut last = rig.now();
    for _ in 0..100 {
        rig.tsc.increment(SECOND - 37 * MICRO);
        rig.wall.advance(Duration::from_secs(1));
        assert_eq!(
            rig.wall.now_unix_nanos() - rig.now(),
            37 * MICRO,
            "one second's drift"
        );
        rig.reanchor();
        assert_eq!(rig.now(), rig.wall.now_unix_nanos());
        assert!(rig.now() > last);
        last = rig.now();
    }
}

#[test]
fn a_tsc_faster_than_the_slew_rate_leaves_the_clock_ahead_by_the_difference() {
    // 800 ppm fast against a 500 µs cap: 300 µs more ahead after every re-anchor.
    let rig = Rig::exact();
    for k in 1..=50 {
        rig.tsc.increment(SECOND + 800 * MICRO);
        rig.wall.advance(Duration::from_secs(1));
        rig.reanchor();
        assert_eq!(rig.now() - rig.wall.now_unix_nanos(), k * 300 * MICRO);
    }
}

#[test]
fn without_a_ticker_the_first_exact_read_after_the_period_reanchors() {
    let rig = Rig::new(
        TscClock::builder()
            .ticker(None)
            .reanchor_every(Duration::from_secs(1)),
        false,
    );
    rig.tsc.increment(SECOND - 1);
    rig.wall.advance(Duration::from_secs(5));
    assert_eq!(rig.now(), WALL0 + SECOND - 1, "not due yet");
    rig.tsc.increment(1);
    assert_eq!(
        rig.now(),
        WALL0 + 5 * SECOND,
        "due: re-anchored on this read"
    );
}

proptest! {
    // Under miri: few cases, and no failure file (miri's isolation has no working directory).
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 256 },
        failure_persistence: if cfg!(miri) { None } else { ProptestConfig::default().failure_persistence },
        ..ProptestConfig::default()
    })]

    /// Whatever the wall clock does between re-anchors (steps either way, drift either way),
    /// a re-anchor moves the reading to the wall clock when that is ahead, and back towards
    /// it by at most the cap when it is behind; so with at least the cap of TSC time between
    /// re-anchors, readings taken one per re-anchor never go backwards.
    #[test]
    fn reanchors_follow_the_wall_clock_by_the_rule(
        script in prop::collection::vec((0..=2 * SECOND, -3_000_000_000_i64..=3_000_000_000), 1..40),
        cap in 0..=SECOND,
    ) {
        let rig = Rig::new(
            TscClock::builder()
                .ticker(None)
                .reanchor_every(Duration::from_secs(365 * 86_400))
                .max_step_back(Duration::from_nanos(cap)),
            false,
        );
        let mut last = rig.now();
        for (elapsed, wall_moves) in script {
            let elapsed = elapsed.max(cap);
            rig.tsc.increment(elapsed);
            let wall = (rig.wall.now_unix_nanos() as i64 + wall_moves) as u64;
            rig.wall.set_unix_nanos(wall);
            let before = rig.now();
            prop_assert!(before >= last, "readings went back: {} after {}", before, last);
            rig.reanchor();
            let after = rig.now();
            if wall >= before {
                prop_assert_eq!(after, wall);
            } else {
                prop_assert_eq!(after, wall.max(before - cap));
            }
            prop_assert!(after >= last, "a re-anchor took the reading back past the last one");
            last = after;
        }
    }
}

#[test]
fn the_cheap_reading_is_what_the_ticker_published() {
    let rig = Rig::new(
        TscClock::builder().ticker(Some(Duration::from_micros(500))),
        false,
    );
    assert_eq!(rig.clock.recent_unix_nanos(), WALL0);
    rig.tsc.increment(300 * MICRO);
    assert_eq!(rig.clock.recent_unix_nanos(), WALL0, "no tick yet");
    rig.clock.inner.tick();
    assert_eq!(rig.clock.recent_unix_nanos(), WALL0 + 300 * MICRO);
    assert_eq!(
        rig.clock.tick_period(),
        Some(Duration::from_micros(500)),
        "reports the period"
    );
}

#[test]
fn a_late_ticker_is_replaced_by_the_next_exact_reading() {
    // No thread runs: the ticker is as late as can be. Late means older than two periods
    // plus 1 ms: 2 ms here.
    let rig = Rig::new(
        TscClock::builder().ticker(Some(Duration::from_micros(500))),
        false,
    );
    rig.tsc.increment(2_000 * MICRO);
    assert_eq!(rig.now(), WALL0 + 2_000 * MICRO);
    assert_eq!(rig.recent_field(), WALL0, "2 ms old is not late yet");
    rig.tsc.increment(1);
    let exact = rig.now();
    assert_eq!(
        rig.clock.recent_unix_nanos(),
        exact,
        "late: the exact reading published"
    );
    assert!(
        rig.clock.inner.ticker_thread.lock().unwrap().is_none(),
        "same process: no new ticker"
    );
    assert!(!rig.clock.restart_ticker_if_forked());
}

#[test]
#[cfg_attr(miri, ignore = "waits for a real ticker thread")]
fn a_forked_child_restarts_the_ticker_on_its_first_late_exact_reading() {
    // The state a child finds after fork(): the clock, a published reading, no thread, and
    // a ticker process that is not this one.
    let rig = Rig::new(
        TscClock::builder().ticker(Some(Duration::from_micros(500))),
        false,
    );
    let parent = std::process::id().wrapping_add(1);
    rig.clock.inner.ticker_pid.store(parent, Ordering::Relaxed);
    rig.tsc.increment(400_000 * MICRO);
    assert_eq!(
        rig.clock.recent_unix_nanos(),
        WALL0,
        "frozen since the fork"
    );

    let exact = rig.now();
    assert_eq!(
        rig.clock.recent_unix_nanos(),
        exact,
        "published by the exact reading"
    );
    assert_eq!(
        rig.clock.inner.ticker_pid.load(Ordering::Relaxed),
        std::process::id(),
        "this process runs the ticker now"
    );
    assert!(rig.clock.inner.ticker_thread.lock().unwrap().is_some());

    // The new ticker keeps the cheap reading moving without any exact reading.
    rig.tsc.increment(MICRO);
    assert!(
        eventually(|| rig.recent_field() == exact + MICRO),
        "no ticker publishes in the child"
    );
    assert!(!rig.clock.restart_ticker_if_forked(), "only once");
}

#[test]
#[cfg_attr(miri, ignore = "waits for a real ticker thread")]
fn restart_ticker_if_forked_starts_the_ticker_at_once() {
    let rig = Rig::new(
        TscClock::builder().ticker(Some(Duration::from_micros(500))),
        false,
    );
    let parent = std::process::id().wrapping_add(1);
    rig.clock.inner.ticker_pid.store(parent, Ordering::Relaxed);
    rig.tsc.increment(100 * MICRO);
    assert!(rig.clock.restart_ticker_if_forked());
    assert_eq!(rig.recent_field(), WALL0 + 100 * MICRO, "published at once");
    rig.tsc.increment(MICRO);
    assert!(eventually(|| rig.recent_field() == WALL0 + 101 * MICRO));
}

#[test]
fn a_clock_without_a_ticker_has_nothing_to_restart() {
    let rig = Rig::exact();
    let parent = std::process::id().wrapping_add(1);
    rig.clock.inner.ticker_pid.store(parent, Ordering::Relaxed);
    assert!(!rig.clock.restart_ticker_if_forked());
    assert_eq!(rig.recent_field(), 0, "still exact readings only");
}

#[test]
fn falling_back_to_exact_readings_reports_no_ticker() {
    let rig = Rig::new(
        TscClock::builder().ticker(Some(Duration::from_micros(500))),
        false,
    );
    rig.clock.inner.fall_back_to_exact();
    assert_eq!(rig.clock.tick_period(), None);
    rig.pass(7);
    rig.wall.advance(Duration::from_secs(1));
    assert_eq!(
        rig.clock.recent_unix_nanos(),
        WALL0 + SECOND + 7,
        "cheap is exact, and re-anchored on the first read"
    );
}

#[test]
#[cfg_attr(miri, ignore = "a real ticker thread")]
fn the_ticker_of_a_dropped_clock_ends_at_once_not_a_period_later() {
    // An hour's period (beyond the builder's bound, unchecked here): a ticker that waited
    // out its period would outlive the test by an hour.
    let mut rig = Rig::new(
        TscClock::builder().ticker(Some(Duration::from_secs(3_600))),
        true,
    );
    let ticker = rig.ticker.take().expect("a ticker was started");
    drop(rig);
    let (ended, ended_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = ended.send(ticker.join().is_ok());
    });
    assert_eq!(
        ended_rx.recv_timeout(PATIENCE),
        Ok(true),
        "the ticker still sleeps"
    );
}

#[test]
fn the_builder_refuses_ticker_periods_out_of_range() {
    for period in [
        Duration::ZERO,
        Duration::from_nanos(49_999),
        Duration::from_nanos(100_000_001),
        Duration::from_secs(3_600),
        Duration::MAX,
    ] {
        let err = TscClock::builder()
            .ticker(Some(period))
            .build()
            .unwrap_err();
        assert_eq!(err, TscClockError::TickPeriodOutOfRange { period });
        let text = err.to_string();
        assert!(
            text.contains("allowed 50µs to 100ms"),
            "{text:?} names the range"
        );
    }
}

#[test]
#[cfg_attr(miri, ignore = "calibrates the real TSC (inline assembly)")]
fn the_builder_accepts_the_bounds_and_no_ticker() {
    for period in [
        Some(TscClock::MIN_TICK_PERIOD),
        Some(TscClock::MAX_TICK_PERIOD),
        None,
    ] {
        let clock = TscClock::builder().ticker(period).build().unwrap();
        assert_eq!(clock.tick_period(), period);
    }
}

#[test]
fn a_generator_on_the_clock_never_issues_backwards_across_steps() {
    use crate::{Generator, Layout};

    let rig = Rig::new(
        TscClock::builder()
            .ticker(None)
            .reanchor_every(Duration::from_secs(1)),
        false,
    );
    let gen = Generator::builder(Layout::TWITTER)
        .clock(rig.clock.clone())
        .node(1)
        .build()
        .unwrap();
    let mut last = gen.next_id().unwrap();
    // Back 2 s, forward 3 s, back 100 ms, each followed by re-anchors a second apart.
    for step in [-2_000_000_000_i64, 3_000_000_000, -100_000_000] {
        let wall = (rig.wall.now_unix_nanos() as i64 + step) as u64;
        rig.wall.set_unix_nanos(wall);
        for _ in 0..5 {
            rig.pass(SECOND);
            for _ in 0..10 {
                let id = gen.next_id().unwrap();
                assert!(id > last, "{id:?} after {last:?}");
                last = id;
            }
        }
    }
}

/// `Debug` shows the settings and a reading, never an empty string.
#[test]
#[cfg_attr(miri, ignore = "calibrates the real TSC (inline assembly)")]
fn debug_shows_the_settings() {
    let clock = TscClock::builder().ticker(None).build().unwrap();
    let text = format!("{clock:?}");
    assert!(text.starts_with("TscClock {"), "{text}");
    assert!(
        text.contains("ticker: None") && text.contains("reanchor_every: "),
        "{text}"
    );
}

#[test]
fn the_builder_s_debug_shows_its_settings() {
    let builder = TscClock::builder()
        .ticker(Some(Duration::from_millis(1)))
        .reanchor_every(Duration::from_millis(250))
        .max_step_back(Duration::from_micros(100));
    assert_eq!(
        format!("{builder:?}"),
        "TscClockBuilder { ticker: Some(1ms), reanchor_every: 250ms, max_step_back: 100µs, .. }"
    );
}

/// A wall source that always reads `WALL0` and, while it is read, moves the mock TSC on by
/// the next width of its script (by nothing once the script is done): the bracket of TSC
/// reads around each wall reading is that wide.
#[derive(Clone)]
struct SlowWall {
    tsc: Arc<quanta::Mock>,
    widths: Arc<Mutex<VecDeque<u64>>>,
}

impl Clock for SlowWall {
    fn now_unix_nanos(&self) -> u64 {
        let width = self.widths.lock().unwrap().pop_front().unwrap_or(0);
        self.tsc.increment(width);
        WALL0
    }
}

#[test]
fn the_offset_is_measured_at_the_middle_of_the_tightest_bracket() {
    let (q, tsc) = quanta::Clock::mock();
    tsc.increment(TSC0);
    let wall = SlowWall {
        tsc: Arc::clone(&tsc),
        widths: Arc::default(),
    };
    let (clock, _) = TscClock::builder()
        .ticker(None)
        .wall(wall.clone())
        .build_on(q, false);
    let start = clock.inner.tsc_nanos();
    // Three brackets, 400, 100 and 300 ns wide: the second, from start + 400 to
    // start + 500, is the tightest; the wall was read at its middle, start + 450.
    wall.widths.lock().unwrap().extend([400, 100, 300]);
    let (offset, at) = clock.inner.measure_offset();
    assert_eq!(at, start + 450);
    assert_eq!(offset, WALL0 - (start + 450));
}
