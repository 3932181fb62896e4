//! Metrics and trace events of the rare paths, with a scripted clock: the exact
//! counts a recording `metrics` recorder sees and the events a `tracing` subscriber sees.
#![cfg(all(feature = "metrics", feature = "tracing"))]

use std::sync::Arc;
use std::time::Duration;

use metrics_util::debugging::DebugValue;
use snowmint::clock::{ManualClock, Rollback};
use snowmint::fence::{FenceError, Fenced, Keeper, Renewal};
use snowmint::integrations::asynchronous::next_id_with;
use snowmint::{Generator, Layout, MintError, ShardedGenerator};
use tracing::Level;

const T0: u64 = 1_700_000_000_000;

#[path = "support/observe.rs"]
mod observe;

use observe::{counter, gauge, histogram, observe, outline};

const WAITING_TICK: &str = "sequence used up: waiting for the next tick";
const WAITING_CLOCK: &str = "clock behind the last issued time: waiting for it to catch up";
const WAITING_FENCE: &str = "fenced: waiting for the keeper to secure the node again";
const NOT_MINTED: &str = "not minted";
const NOT_MINTED_CLOCK: &str = "not minted: clock behind";
const NOT_MINTED_FENCED: &str = "not minted: fenced";

/// Polls `f` to the end with a no-op waker (the tests' sleeps are ready at once).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            return v;
        }
    }
}

fn sonyflake(clock: &ManualClock, rollback: Rollback) -> Generator<ManualClock> {
    Generator::builder(Layout::SONYFLAKE)
        .node(3)
        .clock(clock.clone())
        .on_rollback(rollback)
        .build()
        .unwrap()
}

/// Nothing on the hot path: a thousand IDs in free ticks record nothing.
#[test]
fn minting_records_nothing() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .build()
        .unwrap();
    let (metrics, events) = observe(|| {
        for _ in 0..1_000 {
            gen.next_id().unwrap();
        }
    });
    assert!(metrics.is_empty(), "{metrics:?}");
    assert!(events.is_empty(), "{events:?}");
}

/// A used-up tick: `try_` reports one `exhausted` error; a blocking call records one wait,
/// which ends once the (scripted) clock moves on.
#[test]
fn exhausted_tick() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock, Rollback::Continue);
    let (metrics, events) = observe(|| {
        let _used = gen.next_ids(256).unwrap();
        assert!(matches!(
            gen.try_next_id(),
            Err(MintError::Exhausted { .. })
        ));
        let mover = std::thread::spawn({
            let clock = clock.clone();
            move || {
                std::thread::sleep(Duration::from_millis(20));
                clock.advance(Duration::from_millis(10));
            }
        });
        // Waits (re-checking) until the mover moves the clock: the 1 s max_wait is the
        // bound, generous for a thread that sleeps 20 ms.
        gen.next_id().unwrap();
        mover.join().unwrap();
    });
    assert_eq!(
        counter(&metrics, "snowmint_errors_total", "kind=exhausted"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(
        counter(&metrics, "snowmint_waits_total", "reason=exhausted"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    let waited = histogram(&metrics, "snowmint_wait_seconds");
    assert_eq!(waited.len(), 1);
    assert!(
        waited[0] >= 0.015,
        "the wait lasted until the clock moved: {waited:?}"
    );
    assert!(histogram(&metrics, "snowmint_clock_behind_seconds").is_empty());
    assert_eq!(
        outline(&events),
        [(Level::DEBUG, NOT_MINTED), (Level::DEBUG, WAITING_TICK)]
    );
    for e in &events {
        assert_eq!(e.field("unit_ms"), "10.0", "{e:?}");
        assert_eq!(e.field("sequence_bits"), "8", "{e:?}");
        assert_eq!(e.field("wait_us"), "10000", "{e:?}");
        assert_eq!(e.field("node"), "3", "{e:?}");
    }
    assert_eq!(events[0].field("kind"), "exhausted");
}

/// A clock stepped back 5 s, past the 1 s `max_wait`: the call fails at once (no wait), one
/// `clock_behind` error and the amount recorded, an `error` event.
#[test]
fn clock_stepped_far_back() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock, Rollback::Wait);
    gen.next_id().unwrap();
    let (metrics, events) = observe(|| {
        clock.rewind(Duration::from_secs(5));
        assert!(matches!(gen.next_id(), Err(MintError::ClockBehind { .. })));
    });
    assert_eq!(
        counter(&metrics, "snowmint_errors_total", "kind=clock_behind"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 0);
    let behind = histogram(&metrics, "snowmint_clock_behind_seconds");
    assert_eq!(behind.len(), 1);
    assert!((4.99..=5.01).contains(&behind[0]), "{behind:?}");
    assert_eq!(outline(&events), [(Level::ERROR, NOT_MINTED_CLOCK)]);
    assert_eq!(events[0].field("kind"), "clock_behind");
    assert_eq!(events[0].field("node"), "3");
    let behind_us: u64 = events[0].field("behind_us").parse().unwrap();
    assert!((4_990_000..=5_010_000).contains(&behind_us), "{events:?}");
}

/// A clock stepped back 50 ms, a call allowed 100 ms: it waits (the clock, scripted, never
/// catches up), then gives up. One wait, one step back (not one for the wait and another
/// for the error), one error.
#[test]
fn clock_step_back_waited_for_then_given_up_is_recorded_once() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock, Rollback::Wait);
    gen.next_id().unwrap();
    let (metrics, events) = observe(|| {
        clock.rewind(Duration::from_millis(50));
        let err = gen.next_id_timeout(Duration::from_millis(100)).unwrap_err();
        assert!(matches!(err, MintError::ClockBehind { .. }), "{err}");
    });
    assert_eq!(
        counter(&metrics, "snowmint_waits_total", "reason=clock_behind"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    let waited = histogram(&metrics, "snowmint_wait_seconds");
    assert_eq!(waited.len(), 1, "{waited:?}");
    assert!(waited[0] >= 0.04, "it slept towards the clock: {waited:?}");
    let behind = histogram(&metrics, "snowmint_clock_behind_seconds");
    assert_eq!(behind.len(), 1, "one step back: {behind:?}");
    assert!((0.05..=0.06).contains(&behind[0]), "{behind:?}");
    assert_eq!(
        counter(&metrics, "snowmint_errors_total", "kind=clock_behind"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(
        outline(&events),
        [
            (Level::WARN, WAITING_CLOCK),
            (Level::ERROR, NOT_MINTED_CLOCK)
        ]
    );
}

/// The async call's retries are one wait, not errors: three failed `try_` calls inside
/// the loop, then an ID, record one wait and no error; a call that gives up records its
/// one wait and the one error it returns.
#[test]
fn async_retries_count_as_one_wait_and_only_the_returned_error() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock, Rollback::Continue);
    let _used = gen.next_ids(256).unwrap();
    let (metrics, events) = observe(|| {
        let mut sleeps = 0;
        let id = block_on(next_id_with(&gen, |d| {
            sleeps += 1;
            // The first two wakes find the tick still used up.
            if sleeps == 3 {
                clock.advance(d);
            }
            async {}
        }))
        .unwrap();
        assert_eq!(sleeps, 3);
        assert_eq!(Layout::SONYFLAKE.decode(id).sequence(), 0);
    });
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 0);
    assert_eq!(
        counter(&metrics, "snowmint_waits_total", "reason=exhausted"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    assert_eq!(histogram(&metrics, "snowmint_wait_seconds").len(), 1);
    assert_eq!(outline(&events), [(Level::DEBUG, WAITING_TICK)]);
    assert_eq!(events[0].field("wait_us"), "10000");

    // Gives up: max_wait 35 ms holds three 10 ms waits; the clock never moves.
    let gen = Generator::builder(Layout::SONYFLAKE)
        .clock(clock.clone())
        .max_wait(Duration::from_millis(35))
        .build()
        .unwrap();
    let _used = gen.next_ids(256).unwrap();
    let (metrics, events) = observe(|| {
        let mut sleeps = 0;
        let err = block_on(next_id_with(&gen, |_| {
            sleeps += 1;
            async {}
        }))
        .unwrap_err();
        assert!(matches!(err, MintError::Exhausted { .. }), "{err}");
        assert_eq!(sleeps, 3);
    });
    assert_eq!(
        counter(&metrics, "snowmint_errors_total", "kind=exhausted"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    assert_eq!(histogram(&metrics, "snowmint_wait_seconds").len(), 1);
    assert_eq!(
        outline(&events),
        [(Level::DEBUG, WAITING_TICK), (Level::DEBUG, NOT_MINTED)]
    );
}

/// Async with the clock stepped back: a short step waited out is one wait and one step
/// back; one waited for then given up is one of each and one error; one too far to wait
/// for is one step back and one error.
#[test]
fn async_clock_behind_is_recorded_once() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock, Rollback::Wait);
    gen.next_id().unwrap();

    let (metrics, events) = observe(|| {
        clock.rewind(Duration::from_millis(50));
        block_on(next_id_with(&gen, |d| {
            clock.advance(d);
            async {}
        }))
        .unwrap();
    });
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 0);
    assert_eq!(
        counter(&metrics, "snowmint_waits_total", "reason=clock_behind"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    assert_eq!(histogram(&metrics, "snowmint_wait_seconds").len(), 1);
    let behind = histogram(&metrics, "snowmint_clock_behind_seconds");
    assert_eq!(behind.len(), 1, "{behind:?}");
    assert!((0.05..=0.06).contains(&behind[0]), "{behind:?}");
    assert_eq!(outline(&events), [(Level::WARN, WAITING_CLOCK)]);
    assert_eq!(events[0].field("node"), "3");

    let (metrics, events) = observe(|| {
        gen.next_id().unwrap();
        // 600 ms fits in the 1 s max_wait once, not twice; the clock never catches up.
        clock.rewind(Duration::from_millis(600));
        let err = block_on(next_id_with(&gen, |_| async {})).unwrap_err();
        assert!(matches!(err, MintError::ClockBehind { .. }), "{err}");
    });
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    assert_eq!(
        histogram(&metrics, "snowmint_clock_behind_seconds").len(),
        1
    );
    assert_eq!(
        counter(&metrics, "snowmint_errors_total", "kind=clock_behind"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(
        outline(&events),
        [
            (Level::WARN, WAITING_CLOCK),
            (Level::ERROR, NOT_MINTED_CLOCK)
        ]
    );

    let (metrics, events) = observe(|| {
        clock.rewind(Duration::from_secs(5));
        let err = block_on(next_id_with(&gen, |_| async {})).unwrap_err();
        assert!(matches!(err, MintError::ClockBehind { .. }), "{err}");
    });
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 0);
    assert_eq!(
        histogram(&metrics, "snowmint_clock_behind_seconds").len(),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(outline(&events), [(Level::ERROR, NOT_MINTED_CLOCK)]);
}

/// Exclusive shards held, as a gauge that leases move up and down; a thread without a
/// shard of its own mints from the overflow shard, counted per such ID (the overflow path
/// is the slow one already).
#[test]
fn shards_held_and_overflow_use() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(2)
        .build()
        .unwrap();
    let mut leases = Vec::new();
    let (metrics, events) = observe(|| {
        // Every exclusive shard owned: this thread gets none.
        leases.extend(std::iter::from_fn(|| gen.own_shard().ok()));
        for _ in 0..3 {
            gen.next_id().unwrap();
        }
        drop(leases.pop());
    });
    let shards = usize::try_from(gen.shards()).unwrap();
    assert_eq!(shards, 3);
    assert_eq!(leases.len(), shards - 1);
    assert_eq!(counter(&metrics, "snowmint_overflow_ids_total", ""), 3);
    assert_eq!(
        gauge(&metrics, "snowmint_shards_held"),
        Some((shards - 1) as f64)
    );
    let mut expected = vec![(Level::DEBUG, "took a shard"); shards];
    expected.extend(
        [(
            Level::DEBUG,
            "minted from the overflow shard: no shard of its own for this thread",
        ); 3],
    );
    expected.push((Level::DEBUG, "gave a shard back"));
    assert_eq!(outline(&events), expected);
    assert_eq!(events[0].field("shard"), "0");
    assert_eq!(events[shards].field("node"), "0");
    assert_eq!(events[shards + 3].field("shard"), (shards - 1).to_string());
}

/// A keeper that holds, fails once, then finds its node taken.
struct Scripted(u32);

impl Keeper for Scripted {
    fn renew(&mut self, now: u64) -> Renewal {
        self.0 += 1;
        match self.0 {
            1 | 2 => Renewal::Held {
                limit_unix_millis: now / 1_000_000 + 1_000,
                valid_until_nanos: u64::MAX,
                floor_unix_millis: None,
            },
            3 => Renewal::Failed(Arc::new(std::io::Error::other("unreachable"))),
            _ => Renewal::Lost(Arc::new(std::io::Error::other("taken over"))),
        }
    }
    fn release(&mut self, _: Option<u64>) {}
    fn period(&self, _: bool) -> Duration {
        Duration::from_secs(3_600)
    }
}

/// Renewals by outcome, a lost fence as one `error` event, and the calls refused after it
/// as `lost` errors.
#[test]
fn fence_renewals_and_loss() {
    let (metrics, events) = observe(|| {
        let fenced =
            Fenced::start_manual(Generator::new(Layout::TWITTER, 5).unwrap(), 5, Scripted(0))
                .unwrap();
        fenced.renew(); // held
        fenced.renew(); // failed
        fenced.renew(); // lost
        fenced.renew(); // not asked: lost for good
        assert!(fenced.is_lost());
        assert!(matches!(fenced.next_id(), Err(FenceError::Lost { .. })));
    });
    let renewals = |o| counter(&metrics, "snowmint_fence_renewals_total", o);
    assert_eq!(renewals("outcome=held"), 2);
    assert_eq!(renewals("outcome=failed"), 1);
    assert_eq!(renewals("outcome=lost"), 1);
    assert_eq!(counter(&metrics, "snowmint_errors_total", "kind=lost"), 1);
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(
        outline(&events),
        [
            (Level::TRACE, "fence renewed"),
            (Level::TRACE, "fence renewed"),
            (
                Level::WARN,
                "fence renewal failed: minting stops when the window closes"
            ),
            (Level::ERROR, "fence lost: this source never mints again"),
            (Level::DEBUG, NOT_MINTED_FENCED),
        ]
    );
    assert!(events.iter().all(|e| e.field("node") == "5"), "{events:?}");
    assert_eq!(events[2].field("cause"), "unreachable");
    assert_eq!(events[3].field("cause"), "taken over");
    assert_eq!(events[4].field("kind"), "lost");
}

/// A keeper whose every renewal holds for one second of the (manual) clock.
struct OneSecond;

impl Keeper for OneSecond {
    fn renew(&mut self, now: u64) -> Renewal {
        Renewal::Held {
            limit_unix_millis: now / 1_000_000 + 1_000,
            valid_until_nanos: now + 1_000_000_000,
            floor_unix_millis: None,
        }
    }
    fn release(&mut self, _: Option<u64>) {}
    fn period(&self, _: bool) -> Duration {
        Duration::from_millis(300)
    }
}

/// A fence whose window closed: a blocking call is refused (one `fenced` error); an async
/// call waits the keeper's retry period (one `fenced` wait, no error) and mints once the
/// node is secured again.
#[test]
fn fenced_refusals_and_an_async_wait_for_the_fence() {
    let clock = ManualClock::at_unix_millis(T0);
    let fenced = Fenced::start_manual(sonyflake(&clock, Rollback::Continue), 3, OneSecond).unwrap();
    fenced.next_id().unwrap();
    clock.advance(Duration::from_secs(2));
    let (metrics, events) = observe(|| {
        assert!(matches!(fenced.next_id(), Err(FenceError::Fenced { .. })));
        let mut waits = Vec::new();
        block_on(next_id_with(&fenced, |d| {
            waits.push(d);
            fenced.renew();
            async {}
        }))
        .unwrap();
        assert_eq!(waits, [Duration::from_millis(300)]);
    });
    assert_eq!(counter(&metrics, "snowmint_errors_total", "kind=fenced"), 1);
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(
        counter(&metrics, "snowmint_waits_total", "reason=fenced"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    assert_eq!(
        counter(&metrics, "snowmint_fence_renewals_total", "outcome=held"),
        1
    );
    assert_eq!(
        outline(&events),
        [
            (Level::DEBUG, NOT_MINTED_FENCED),
            (Level::DEBUG, WAITING_FENCE),
            (Level::TRACE, "fence renewed"),
        ]
    );
    assert_eq!(events[0].field("kind"), "fenced");
    assert_eq!(events[0].field("node"), "3");
    assert_eq!(events[1].field("wait_us"), "300000");
}

/// The lifetime guard: building a source records the time its layout has left, and warns
/// once per layout when that is within the margin.
#[test]
fn layout_time_left_and_one_warning_within_the_margin() {
    // 30 bits of seconds from 1990: full on 2024-01-10. The clock is 100 days before.
    let short = Layout::builder()
        .time_bits(30)
        .node_bits(21)
        .sequence_bits(12)
        .unit(Duration::from_secs(1))
        .epoch_unix_millis(631_152_000_000)
        .build()
        .unwrap();
    let expiry = short.expiry_unix_millis();
    let clock = ManualClock::at_unix_millis(expiry - 100 * 86_400_000);
    let (metrics, events) = observe(|| {
        for _ in 0..2 {
            Generator::builder(short)
                .clock(clock.clone())
                .build()
                .unwrap();
        }
        ShardedGenerator::builder(short)
            .clock(clock.clone())
            .build()
            .unwrap();
        // Twitter's layout has decades left: no warning, a gauge all the same.
        Generator::builder(Layout::TWITTER)
            .clock(clock.clone())
            .build()
            .unwrap();
    });
    let left = |layout: &str| {
        metrics
            .iter()
            .find(|(n, l, _)| {
                n == "snowmint_layout_seconds_left" && l == &[format!("layout={layout}")]
            })
            .map(|(_, _, v)| match v {
                DebugValue::Gauge(g) => g.0,
                other => panic!("not a gauge: {other:?}"),
            })
            .unwrap()
    };
    assert_eq!(left("custom"), 100.0 * 86_400.0);
    let twitter = Layout::TWITTER.expiry_unix_millis() - (expiry - 100 * 86_400_000);
    assert_eq!(left("twitter"), twitter as f64 / 1e3);
    let warnings: Vec<_> = events.iter().filter(|e| e.level == Level::WARN).collect();
    assert_eq!(warnings.len(), 1, "{events:?}");
    assert_eq!(warnings[0].field("layout"), "custom");
    assert_eq!(warnings[0].field("days_left"), "100.0");

    // A margin of 10 days: 100 days left is no warning (another layout: not warned yet).
    let other = short
        .to_builder()
        .node_bits(20)
        .sequence_bits(13)
        .build()
        .unwrap();
    let (_, events) = observe(|| {
        Generator::builder(other)
            .clock(clock.clone())
            .expiry_warning(Duration::from_secs(10 * 86_400))
            .build()
            .unwrap();
    });
    assert!(events.is_empty(), "{events:?}");
    // Past the expiry: an error at build time.
    clock.advance(Duration::from_secs(101 * 86_400));
    assert!(Generator::builder(short)
        .clock(clock.clone())
        .build()
        .is_err());
}

/// Clock health: each re-anchor records the wall clock's offset from the TSC reading and
/// the largest step taken; a step back is limited to `max_step_back`.
#[test]
fn reanchors_record_the_offset_and_the_largest_step() {
    let wall = ManualClock::at_unix_millis(T0);
    let tsc = snowmint::clock::TscClock::builder()
        .wall(wall.clone())
        .ticker(None)
        .reanchor_every(Duration::from_millis(1))
        .build()
        .unwrap();
    let (metrics, _) = observe(|| {
        // The wall clock jumps 50 ms ahead of the TSC: the re-anchor follows at once.
        wall.advance(Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(3));
        let _ = snowmint::clock::Clock::now_unix_nanos(&tsc);
    });
    let offset = gauge(&metrics, "snowmint_clock_offset_seconds").unwrap();
    let step = gauge(&metrics, "snowmint_clock_step_max_seconds").unwrap();
    // 50 ms ahead, less the real time the TSC ran meanwhile (3 ms and more, not 50).
    assert!((0.0..0.048).contains(&offset), "{offset}");
    assert_eq!(step, offset);
    let (metrics, _) = observe(|| {
        // Stepped back a second: the offset says so, the clock steps back 500 µs only.
        wall.rewind(Duration::from_secs(1));
        std::thread::sleep(Duration::from_millis(3));
        let _ = snowmint::clock::Clock::now_unix_nanos(&tsc);
    });
    let back = gauge(&metrics, "snowmint_clock_offset_seconds").unwrap();
    assert!((-1.01..-0.95).contains(&back), "{back}");
    // The largest step is still the forward one.
    assert_eq!(
        gauge(&metrics, "snowmint_clock_step_max_seconds"),
        Some(step)
    );
}
