//! The shared generator: uniqueness under threads, waiting, lead, rollback and limits.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use snowmint::clock::{Clock, ManualClock, Rollback};
use snowmint::{Generator, Id, Layout, MintError};

const NOW_MS: u64 = 1_700_000_000_000;

fn frozen() -> ManualClock {
    ManualClock::at_unix_millis(NOW_MS)
}

/// Mints `per_thread` IDs on each of `threads` threads and returns each thread's IDs.
fn mint_on_threads(gen: &Arc<Generator>, threads: usize, per_thread: usize) -> Vec<Vec<Id>> {
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let gen = Arc::clone(gen);
            std::thread::spawn(move || {
                (0..per_thread)
                    .map(|_| gen.next_id().expect("mint"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect()
}

fn assert_unique_and_increasing(runs: &[Vec<Id>]) {
    let mut all = HashSet::new();
    for run in runs {
        assert!(
            run.windows(2).all(|w| w[0] < w[1]),
            "per-thread IDs must strictly increase"
        );
        for id in run {
            assert!(all.insert(*id), "duplicate ID {id}");
        }
    }
}

#[test]
fn more_threads_than_cores_never_duplicate_uncapped() {
    let layout = Layout::builder()
        .node_bits(0)
        .sequence_bits(22)
        .build_const();
    let gen = Arc::new(Generator::new(layout, 0).unwrap());
    let runs = mint_on_threads(&gen, 8, 25_000);
    assert_unique_and_increasing(&runs);
}

#[test]
fn more_threads_than_cores_never_duplicate_at_the_twitter_cap() {
    // 8 x 10,000 IDs at 4,096 per ms: threads contend for exhausted ticks and wait. Each
    // wait ends with its tick; a max_wait of a minute (not the default 1 s) keeps a thread
    // that a loaded machine holds off the CPU from giving up: this test counts duplicates.
    let gen = Arc::new(
        Generator::builder(Layout::TWITTER)
            .node(1023)
            .max_wait(Duration::from_secs(60))
            .build()
            .unwrap(),
    );
    let runs = mint_on_threads(&gen, 8, 10_000);
    assert_unique_and_increasing(&runs);
    let decoded = Layout::TWITTER.decode(runs[0][0]);
    assert_eq!(decoded.node(), 1023);
}

#[test]
fn the_sequence_fills_a_tick_before_time_moves() {
    let gen = Generator::builder(Layout::TWITTER)
        .clock(frozen())
        .build()
        .unwrap();
    for expected in 0..4_096 {
        let d = Layout::TWITTER.decode(gen.try_next_id().unwrap());
        assert_eq!((d.unix_millis(), d.sequence()), (NOW_MS, expected));
    }
    match gen.try_next_id() {
        Err(MintError::Exhausted { retry_after }) => {
            assert_eq!(retry_after, Duration::from_millis(1))
        }
        other => panic!("expected exhaustion, got {other:?}"),
    }
}

#[test]
fn blocking_call_waits_for_the_next_tick_when_the_clock_moves() {
    let clock = frozen();
    // The call returns as soon as the clock moves; it fails only if the ticker thread does
    // not run within max_wait. The default of 1 s could run out on a loaded machine, so
    // allow a minute (a wait that never ends would still fail here).
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .max_wait(Duration::from_secs(60))
        .build()
        .unwrap();
    for _ in 0..4_096 {
        gen.try_next_id().unwrap();
    }
    let ticker = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        clock.advance(Duration::from_millis(1));
    });
    let id = gen.next_id().expect("the clock moves within max_wait");
    ticker.join().unwrap();
    let d = Layout::TWITTER.decode(id);
    assert_eq!((d.unix_millis(), d.sequence()), (NOW_MS + 1, 0));
}

#[test]
fn blocking_call_gives_up_at_max_wait_with_the_reason() {
    let gen = Generator::builder(Layout::TWITTER)
        .clock(frozen())
        .max_wait(Duration::from_millis(30))
        .build()
        .unwrap();
    for _ in 0..4_096 {
        gen.next_id().unwrap();
    }
    let started = Instant::now();
    // The clock never moves: the 1 ms wait fits in 30 ms, so the call spins until it gives up.
    let err = gen.next_id().unwrap_err();
    let waited = started.elapsed();
    assert!(matches!(err, MintError::Exhausted { .. }), "{err:?}");
    // A lower bound, which load cannot break: the call gives up only once less than the
    // 1 ms it still needs is left of its 30 ms.
    assert!(
        waited >= Duration::from_millis(29),
        "gave up early: {waited:?}"
    );
    // An upper bound with room for a loaded machine: a 30 ms wait stretched past 5 s is a
    // wait that ignores max_wait, not a slow scheduler.
    assert!(
        waited < Duration::from_secs(5),
        "waited without bound: {waited:?}"
    );
}

#[test]
fn lead_borrows_at_most_its_bound() {
    let clock = frozen();
    let gen = Generator::builder(Layout::SONYFLAKE)
        .clock(clock.clone())
        .lead_ticks(3)
        .build()
        .unwrap();
    let mut last = None;
    for _ in 0..(4 * 256) {
        let id = gen.try_next_id().unwrap();
        let ahead = Layout::SONYFLAKE.decode(id).unix_millis() - NOW_MS;
        assert!(ahead <= 30, "more than 3 ticks of 10 ms ahead: {ahead} ms");
        assert!(Some(id) > last);
        last = Some(id);
    }
    assert!(matches!(
        gen.try_next_id(),
        Err(MintError::Exhausted { .. })
    ));
    clock.advance(Duration::from_millis(10));
    assert!(
        gen.try_next_id().is_ok(),
        "one more tick of lead after the clock moved"
    );
}

#[test]
fn rollback_continue_uses_the_rest_of_the_last_tick_then_refuses() {
    let clock = frozen();
    let gen = Generator::builder(Layout::SONYFLAKE)
        .clock(clock.clone())
        .build()
        .unwrap();
    let first = gen.try_next_id().unwrap();
    clock.rewind(Duration::from_secs(60));
    let mut last = first;
    for _ in 0..255 {
        let id = gen
            .try_next_id()
            .expect("the last tick still has sequence numbers");
        assert!(id > last);
        assert_eq!(Layout::SONYFLAKE.decode(id).unix_millis(), NOW_MS);
        last = id;
    }
    match gen.try_next_id() {
        Err(MintError::ClockBehind { behind }) => {
            assert_eq!(behind, Duration::from_secs(60) + Duration::from_millis(10));
        }
        other => panic!("expected ClockBehind, got {other:?}"),
    }
    clock.advance(Duration::from_secs(60) + Duration::from_millis(10));
    assert!(
        gen.try_next_id().unwrap() > last,
        "minting resumes above the last ID"
    );
}

#[test]
fn rollback_wait_refuses_at_once_and_resumes_above_the_last_id() {
    let clock = frozen();
    // A max_wait of 10 s and a clock 20 s behind: a wait that was started, wrongly, would
    // hold the call for 10 s or more, while refusing at once takes microseconds. The 5 s
    // bound below tells the two apart however loaded the machine is.
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .on_rollback(Rollback::Wait)
        .max_wait(Duration::from_secs(10))
        .build()
        .unwrap();
    let before = gen.next_id().unwrap();
    clock.rewind(Duration::from_secs(20));
    let started = Instant::now();
    match gen.next_id() {
        Err(MintError::ClockBehind { behind }) => assert_eq!(behind, Duration::from_secs(20)),
        other => panic!("expected ClockBehind, got {other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a wait longer than max_wait is not started (took {:?})",
        started.elapsed()
    );
    clock.advance(Duration::from_secs(20) - Duration::from_millis(3));
    assert!(matches!(
        gen.try_next_id(),
        Err(MintError::ClockBehind { .. })
    ));
    // 1 ms behind is within the 2 ms a lagging reading may show without any step back: it
    // is reported as a wait for the next tick, not as a rollback.
    clock.advance(Duration::from_millis(2));
    assert_eq!(
        gen.try_next_id(),
        Err(MintError::Exhausted {
            retry_after: Duration::from_millis(1)
        })
    );
    clock.advance(Duration::from_millis(1));
    let after = gen.next_id().unwrap();
    assert!(after > before);
}

/// Refused calls issue nothing and move nothing: after a clock step back under `Wait`, and
/// after the clock is back, `last_id` is the last ID handed out and the next one continues
/// its tick's sequence with no gap. The shared generator's fast path takes a state before it
/// tests the reading; a refused reading must give it back.
#[test]
fn refused_calls_leave_the_last_id_and_the_sequence_as_they_were() {
    let clock = frozen();
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .on_rollback(Rollback::Wait)
        .lead_ticks(0)
        .build()
        .unwrap();
    // Past the tick's first two states (which read the exact clock): the fast path's range.
    let issued: Vec<Id> = (0..5).map(|_| gen.next_id().unwrap()).collect();
    let last = *issued.last().unwrap();
    clock.rewind(Duration::from_secs(1));
    for _ in 0..3 {
        assert!(matches!(
            gen.try_next_id(),
            Err(MintError::ClockBehind { .. })
        ));
        assert_eq!(gen.last_id(), Some(last), "a refused call issued nothing");
    }
    clock.advance(Duration::from_secs(1));
    let next = gen.next_id().unwrap();
    let (a, b) = (Layout::TWITTER.decode(last), Layout::TWITTER.decode(next));
    assert_eq!(
        (b.ticks(), b.sequence()),
        (a.ticks(), a.sequence() + 1),
        "the refused calls left no gap in the tick's sequence"
    );
    assert_eq!(gen.last_id(), Some(next));
}

#[test]
fn a_small_rollback_is_waited_out_by_a_blocking_call() {
    let clock = frozen();
    // As in `blocking_call_waits_for_the_next_tick_when_the_clock_moves`: the call returns
    // once the mover has caught the clock up; a max_wait of a minute leaves the mover time to
    // be scheduled on a loaded machine.
    let gen = Arc::new(
        Generator::builder(Layout::TWITTER)
            .clock(clock.clone())
            .on_rollback(Rollback::Wait)
            .max_wait(Duration::from_secs(60))
            .build()
            .unwrap(),
    );
    let before = gen.next_id().unwrap();
    clock.rewind(Duration::from_millis(3));
    let mover = std::thread::spawn(move || {
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(5));
            clock.advance(Duration::from_millis(1));
        }
    });
    let after = gen.next_id().expect("the clock catches up within max_wait");
    mover.join().unwrap();
    assert!(after > before);
}

#[test]
fn the_clock_before_the_epoch_is_an_error() {
    let clock = ManualClock::at_unix_millis(Layout::TWITTER.epoch_unix_millis() - 3);
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock)
        .build()
        .unwrap();
    let err = gen.next_id().unwrap_err();
    assert_eq!(
        err,
        MintError::Layout(snowmint::LayoutError::TimeBeforeEpoch {
            unix_millis: 1_288_834_974_654,
            epoch_unix_millis: 1_288_834_974_657
        })
    );
    assert_eq!(
        err.to_string(),
        "the clock's time 1288834974654 ms (Unix) is before the layout epoch: allowed from 1288834974657 ms"
    );
}

#[test]
fn an_expired_layout_refuses_instead_of_wrapping() {
    // 4 time bits of 1 s from the Unix epoch: expired at 16 s.
    let layout = Layout::builder()
        .time_bits(4)
        .node_bits(0)
        .sequence_bits(1)
        .unit(Duration::from_secs(1))
        .epoch_unix_millis(0)
        .build_const();
    let clock = ManualClock::at_unix_millis(15_000);
    let gen = Generator::builder(layout)
        .clock(clock.clone())
        .build()
        .unwrap();
    assert_eq!(gen.try_next_id().unwrap().to_u64(), 15 << 1);
    assert_eq!(gen.try_next_id().unwrap().to_u64(), 15 << 1 | 1);
    // The last tick is full and there is no next tick, whatever the lead.
    assert_eq!(
        gen.try_next_id(),
        Err(MintError::Expired {
            expiry_unix_millis: 16_000
        })
    );
    clock.advance(Duration::from_secs(100));
    assert_eq!(
        gen.next_id(),
        Err(MintError::Expired {
            expiry_unix_millis: 16_000
        })
    );
}

#[test]
fn a_restarted_generator_resumes_after_its_last_id() {
    let clock = frozen();
    let old = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .node(4)
        .build()
        .unwrap();
    for _ in 0..10 {
        old.next_id().unwrap();
    }
    let last = old.last_id().unwrap();
    // The restarted process's clock is 2 s behind.
    clock.rewind(Duration::from_secs(2));
    let new = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .node(4)
        .start_after(last)
        .build()
        .unwrap();
    let id = new.next_id().unwrap();
    assert!(id > last);
    assert_eq!(Layout::TWITTER.decode(id).unix_millis(), NOW_MS);
}

#[test]
fn batches_are_consecutive_and_disjoint_from_single_ids() {
    let clock = frozen();
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .node(9)
        .build()
        .unwrap();
    let single = gen.next_id().unwrap();
    let batch: Vec<Id> = gen.next_ids(100).unwrap().collect();
    assert_eq!(batch.len(), 100);
    assert!(batch[0] > single);
    for w in batch.windows(2) {
        assert_eq!(w[1].to_u64() - w[0].to_u64(), 1, "one sequence step apart");
    }
    // The rest of the tick, then nothing until the clock moves.
    assert_eq!(gen.try_next_ids(10_000).unwrap().len(), 4_096 - 101);
    assert!(gen.try_next_ids(1).is_err());
    clock.advance(Duration::from_millis(1));
    let next: Vec<Id> = gen.next_ids(3).unwrap().collect();
    assert_eq!(Layout::TWITTER.decode(next[0]).sequence(), 0);
}

#[test]
fn clocks_are_read_through_the_trait_objects_too() {
    let clock: Arc<dyn Clock> = Arc::new(frozen());
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock)
        .build()
        .unwrap();
    assert_eq!(
        Layout::TWITTER.decode(gen.next_id().unwrap()).unix_millis(),
        NOW_MS
    );
}

/// A clock whose cheap reading is stuck (a starved ticker thread) while its exact one moves.
struct StuckTicker {
    stuck_at: u64,
    exact: ManualClock,
}

impl Clock for StuckTicker {
    fn now_unix_nanos(&self) -> u64 {
        self.exact.now_unix_nanos()
    }

    fn recent_unix_nanos(&self) -> u64 {
        self.stuck_at
    }
}

/// A busy generator's IDs carry a stuck cheap reading for at most 1,022 IDs (its states
/// with sequence 0 or 1 modulo 1,024 read the exact clock), then the exact time for good.
#[test]
fn a_stuck_cheap_reading_is_corrected_within_1024_ids() {
    let layout = Layout::builder()
        .node_bits(2)
        .sequence_bits(20)
        .build_const();
    for shared in [true, false] {
        let exact = frozen();
        let stuck = StuckTicker {
            stuck_at: exact.now_unix_nanos(),
            exact: exact.clone(),
        };
        let mint: Box<dyn Fn() -> u64> = if shared {
            let gen = Generator::builder(layout).clock(stuck).build().unwrap();
            Box::new(move || layout.decode(gen.next_id().unwrap()).unix_millis())
        } else {
            let gen = snowmint::ShardedGenerator::builder(layout)
                .clock(stuck)
                .build()
                .unwrap();
            let lease = gen.own_shard().unwrap();
            Box::new(move || layout.decode(lease.next_id().unwrap()).unix_millis())
        };
        // A tick's first two IDs read the exact clock, still in step with the cheap one.
        assert_eq!([mint(), mint()], [NOW_MS, NOW_MS]);
        exact.advance(Duration::from_millis(5)); // the ticker is 5 ms late from here on
        let times: Vec<u64> = (0..2_048).map(|_| mint()).collect();
        assert_eq!(times[0], NOW_MS, "the third ID takes the cheap reading");
        let caught_up = times
            .iter()
            .position(|&t| t == NOW_MS + 5)
            .expect("the exact clock is read");
        assert!(
            caught_up <= 1_022,
            "stale for {caught_up} IDs (shared: {shared})"
        );
        assert!(
            times[caught_up..].iter().all(|&t| t == NOW_MS + 5),
            "never back to the stale time"
        );
    }
}

/// A layout whose epoch is the present mints at once on the default clock: the TSC clock's
/// exact reading may lag the `SystemTime` the epoch was taken from by a few microseconds
/// (its frequency error since the last re-anchor), and such a reading, within
/// `Rollback::TOLERANCE` before the epoch, is the epoch's first tick, not `TimeBeforeEpoch`.
#[test]
fn a_layout_whose_epoch_is_now_mints_at_once() {
    let mut failed = 0;
    for i in 0..2_000 {
        // Spread over two re-anchor periods, where the lag grows with the time since the
        // last re-anchor.
        if i % 2 == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
        let layout = Layout::TWITTER
            .to_builder()
            .epoch(SystemTime::now())
            .build()
            .unwrap();
        let gen = Generator::builder(layout).node(1).build().unwrap();
        match gen.next_id() {
            Ok(id) => {
                let after = SystemTime::now();
                // Stamped at the epoch or after it, and not ahead of the wall clock.
                assert!(layout.decode(id).time() <= after, "{id}");
            }
            Err(e) => {
                failed += 1;
                eprintln!("{e}");
            }
        }
    }
    assert_eq!(failed, 0, "{failed} of 2000 first IDs failed");
}

/// The same, deterministic: a clock a few microseconds (up to the tolerance) before the epoch
/// mints the epoch's first tick; beyond the tolerance it is still `TimeBeforeEpoch`.
#[test]
fn a_reading_within_the_tolerance_before_the_epoch_is_its_first_tick() {
    let layout = Layout::TWITTER;
    let epoch = layout.epoch_unix_nanos();
    let tolerance = u64::try_from(Rollback::TOLERANCE.as_nanos()).unwrap();
    // The IDs of a clock exactly at the epoch.
    let at_epoch = Generator::builder(layout)
        .clock(ManualClock::at_unix_nanos(epoch))
        .node(5)
        .build()
        .unwrap();
    let expected = [at_epoch.next_id().unwrap(), at_epoch.next_id().unwrap()];
    assert_eq!(layout.decode(expected[1]).ticks(), 0);
    for before in [1, 200, 1_800, 37_000, tolerance] {
        let clock = ManualClock::at_unix_nanos(epoch - before);
        let gen = Generator::builder(layout)
            .clock(clock)
            .node(5)
            .build()
            .unwrap();
        let ids = [gen.next_id().unwrap(), gen.next_id().unwrap()];
        assert_eq!(ids, expected, "{before} ns before");
    }
    let clock = ManualClock::at_unix_nanos(epoch - tolerance - 1);
    let gen = Generator::builder(layout).clock(clock).build().unwrap();
    assert!(matches!(
        gen.next_id(),
        Err(MintError::Layout(
            snowmint::LayoutError::TimeBeforeEpoch { .. }
        ))
    ));
}
