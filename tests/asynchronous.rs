//! Async minting: the wait rule with scripted clocks, cancellation, and a
//! current-thread runtime kept responsive under constant exhaustion.

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use snowmint::clock::{ManualClock, Rollback};
use snowmint::integrations::asynchronous::{next_id_with, next_ids_with};
use snowmint::{Generator, Id, Layout, MintError};

const T0: u64 = 1_700_000_000_000;

/// Polls `f` to the end with a no-op waker (the test's sleeps are ready at once).
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            return v;
        }
    }
}

fn sonyflake(clock: &ManualClock) -> Generator<ManualClock> {
    Generator::builder(Layout::SONYFLAKE)
        .node(1)
        .clock(clock.clone())
        .build()
        .unwrap()
}

#[test]
fn exhausted_tick_sleeps_exactly_the_reported_wait() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock);
    let first = gen.next_ids(256).unwrap();
    clock.advance(Duration::from_millis(3));
    let mut waits = Vec::new();
    let id = block_on(next_id_with(&gen, |d| {
        waits.push(d);
        clock.advance(d);
        async {}
    }))
    .unwrap();
    // 3 ms into a 10 ms tick: 7 ms to go.
    assert_eq!(waits, [Duration::from_millis(7)]);
    assert!(first.into_iter().all(|f| f < id));
    assert_eq!(Layout::SONYFLAKE.decode(id).sequence(), 0);
}

#[test]
fn gives_up_once_the_waits_would_pass_max_wait() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = Generator::builder(Layout::SONYFLAKE)
        .node(1)
        .clock(clock.clone())
        .max_wait(Duration::from_millis(35))
        .build()
        .unwrap();
    let _used = gen.next_ids(256).unwrap();
    // A sleep that does not move the clock: the tick never ends.
    let mut waits = Vec::new();
    let err = block_on(next_id_with(&gen, |d| {
        waits.push(d);
        async {}
    }))
    .unwrap_err();
    assert!(matches!(err, MintError::Exhausted { .. }), "{err}");
    // 10 + 10 + 10 ms fit in 35 ms; a fourth would not.
    assert_eq!(waits, [Duration::from_millis(10); 3]);
}

#[test]
fn clock_far_behind_fails_at_once_and_a_short_step_back_is_waited_out() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = Generator::builder(Layout::SONYFLAKE)
        .node(1)
        .clock(clock.clone())
        .on_rollback(Rollback::Wait)
        .build()
        .unwrap();
    let before = gen.next_id().unwrap();
    clock.rewind(Duration::from_secs(5));
    let mut slept = 0;
    let err = block_on(next_id_with(&gen, |_| {
        slept += 1;
        async {}
    }))
    .unwrap_err();
    assert!(matches!(err, MintError::ClockBehind { .. }), "{err}");
    assert_eq!(slept, 0, "a wait past max_wait (1 s) is not started");

    clock.advance(Duration::from_millis(4_950));
    let mut waits = Vec::new();
    let id = block_on(next_id_with(&gen, |d| {
        waits.push(d);
        clock.advance(d);
        async {}
    }))
    .unwrap();
    assert!(id > before);
    assert_eq!(waits.len(), 1);
    assert!(waits[0] <= Duration::from_millis(60), "{waits:?}");
}

#[test]
fn a_batch_waits_only_while_nothing_is_left() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock);
    let _used = gen.next_ids(250).unwrap();
    let mut slept = 0;
    let batch = block_on(next_ids_with(&gen, 100, |_| {
        slept += 1;
        async {}
    }))
    .unwrap();
    assert_eq!((batch.len(), slept), (6, 0));
    let batch = block_on(next_ids_with(&gen, 100, |d| {
        slept += 1;
        clock.advance(d);
        async {}
    }))
    .unwrap();
    assert_eq!((batch.len(), slept), (100, 1));
}

/// A future dropped while it waits has issued nothing: the next ID is the tick's first.
#[test]
fn a_dropped_future_issues_nothing() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = sonyflake(&clock);
    let last = gen.next_ids(256).unwrap().last().unwrap();
    {
        let mut fut = pin!(next_id_with(&gen, |_| std::future::pending::<()>()));
        let poll = fut.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        assert!(poll.is_pending());
    }
    clock.advance(Duration::from_millis(10));
    let next = gen.next_id().unwrap();
    assert!(next > last);
    assert_eq!(Layout::SONYFLAKE.decode(next).sequence(), 0);
}

/// The example's scenario, shorter: 200 tasks on one thread keep a Sonyflake generator used
/// up for 300 ms while a heartbeat asks to wake every millisecond. No duplicates, and the
/// heartbeat kept running (a spinning or thread-sleeping wait would hold it off for whole
/// ticks; the bound is loose enough for a loaded machine).
#[cfg(feature = "tokio")]
#[test]
fn heartbeat_keeps_running_under_constant_exhaustion() {
    use snowmint::integrations::asynchronous::IdSourceAsync;

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let gen = Rc::new(Generator::new(Layout::SONYFLAKE, 1).unwrap());
    let ids: Rc<RefCell<Vec<Id>>> = Rc::default();
    let run = Duration::from_millis(300);
    let local = tokio::task::LocalSet::new();
    let start = Instant::now();
    let end = start + run;
    let beats = local.spawn_local(async move {
        let mut beats = 0_u64;
        while Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(1)).await;
            beats += 1;
        }
        beats
    });
    for _ in 0..200 {
        let (gen, ids) = (Rc::clone(&gen), Rc::clone(&ids));
        local.spawn_local(async move {
            while Instant::now() < end {
                if let Ok(id) = gen.next_id_async().await {
                    ids.borrow_mut().push(id);
                }
                tokio::task::yield_now().await;
            }
        });
    }
    let beats = rt.block_on(local.run_until(beats)).unwrap();
    rt.block_on(local);
    let elapsed_ms = start.elapsed().as_millis() as u64;
    let mut ids = ids.take();
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicates");
    // More IDs than one tick holds: the tasks went on minting tick after tick.
    assert!(n > 256, "{n} IDs");
    // The heartbeat's deadline (1 ms) comes before every tick the minters wait for (10 ms),
    // so each time the runtime wakes them for a new tick it has run the heartbeat too: about
    // one beat or more per tick minted in. A load that stalls the thread stalls both alike,
    // so this holds on a busy machine; a wait that blocked the thread would let the minters
    // cross many ticks per beat.
    let mut ticks: Vec<u64> = ids
        .iter()
        .map(|&id| Layout::SONYFLAKE.decode(id).ticks())
        .collect();
    ticks.dedup();
    assert!(
        beats * 2 >= ticks.len() as u64,
        "{beats} beats for {} ticks minted in, {elapsed_ms} ms",
        ticks.len()
    );
}
