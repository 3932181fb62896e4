//! The clock stepped back while threads mint, under both [`Rollback`] policies: no duplicate,
//! no thread ever gets an ID below its last one (nor below the last ID issued before the
//! step), and the only error is `ClockBehind`, saying how far the clock must still move.
//! The step back during the threads' calls is explored up to 4 preemptions; before them, in
//! full.

mod common;

use common::{
    assert_increasing, assert_unique, builder, clock, explore, layout, tick_of, NODE, START_TICK,
    UNIT,
};
use loom::sync::Arc;
use loom::thread;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc as StdArc;
use std::time::Duration;

use snowmint::clock::{Clock, Rollback};
use snowmint::{Generator, Id, Layout, MintError};

/// How far the models step the clock back: three ticks, beyond [`Rollback::TOLERANCE`]
/// (2 ms), so that a refusal is a step back (`ClockBehind`), not a lagging reading.
const STEP: Duration = Duration::from_millis(3);

/// What a model found: every thread's results, in order, and the ID issued before the threads.
struct Outcome {
    layout: Layout,
    /// What `ClockBehind` must say: the clock is [`STEP`] behind the last issued tick, so
    /// that much, or a tick more if that tick's sequence is full and minting resumes in the
    /// tick after.
    behind: Duration,
    first: Id,
    per_thread: Vec<Vec<Result<Id, MintError>>>,
}

impl Outcome {
    /// Checks what both policies promise; returns the IDs issued by the threads.
    fn check_common(&self) -> Vec<Id> {
        let mut all = vec![self.first];
        for results in &self.per_thread {
            let ids: Vec<Id> = results.iter().filter_map(|r| r.ok()).collect();
            // Never below the thread's last ID, never below the ID issued before the step back.
            let mut chain = vec![self.first];
            chain.extend(&ids);
            assert_increasing(&chain);
            for r in results {
                if let Err(e) = r {
                    let expected = MintError::ClockBehind {
                        behind: self.behind,
                    };
                    assert_eq!(*e, expected, "{results:?}");
                }
            }
            all.extend(ids);
        }
        assert_unique(&all);
        for &id in &all {
            let d = self.layout.decode(id);
            assert_eq!(d.node(), NODE);
            // The clock never read past START_TICK, and nothing goes below the first ID.
            assert_eq!(d.ticks(), START_TICK, "{id:?}");
        }
        all[1..].to_vec()
    }

    fn errors(&self) -> usize {
        self.per_thread
            .iter()
            .flatten()
            .filter(|r| r.is_err())
            .count()
    }
}

/// Mints `pre` IDs at `START_TICK` on the model's thread, then runs 2 threads × 2
/// `try_next_id` calls while the clock steps back one tick: concurrently with the threads if
/// `concurrent`, else before they start. Returns the interleavings explored and how many of
/// them refused at least one call.
fn run(
    policy: Rollback,
    sequence_bits: u8,
    pre: usize,
    concurrent: bool,
    behind: Duration,
    check: impl Fn(Outcome) + Sync + Send + 'static,
) -> (usize, usize) {
    let name = format!("rollback_{policy:?}_seq{sequence_bits}_pre{pre}_concurrent_{concurrent}");
    let refusing = StdArc::new(AtomicUsize::new(0));
    let tally = StdArc::clone(&refusing);
    // Three actors when concurrent (the step back comes from the model's own thread), as in
    // `clock_tick.rs`: bounded at 4 preemptions, 27 k / 24 k interleavings (Continue / Wait),
    // ~3.5 s each here. Unbounded they took 1.31 M / 0.98 M interleavings, 232 s / 169 s
    // (2 vCPUs at load ~9). The bounds are the model's own: the Wait model asserts that some
    // interleavings refuse and some do not.
    let bound = if concurrent { Some(4) } else { None };
    let n = explore(&name, builder(bound), move || {
        let clock = clock();
        let layout = layout(sequence_bits);
        let gen = Arc::new(
            Generator::builder(layout)
                .clock(clock.clone())
                .node(NODE)
                .on_rollback(policy)
                .build()
                .unwrap(),
        );
        let mut first = None;
        for _ in 0..pre {
            first = Some(gen.try_next_id().unwrap());
        }
        let first = first.expect("pre >= 1");
        if !concurrent {
            clock.rewind(STEP);
        }
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || {
                    (0..2)
                        .map(|_| gen.try_next_id())
                        .collect::<Vec<Result<Id, MintError>>>()
                })
            })
            .collect();
        if concurrent {
            clock.rewind(STEP);
        }
        let per_thread = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(tick_of(clock.now_unix_nanos()), START_TICK - 3);
        let outcome = Outcome {
            layout,
            behind,
            first,
            per_thread,
        };
        if outcome.errors() > 0 {
            // Relaxed: a plain tally read after the model on this same thread.
            tally.fetch_add(1, Ordering::Relaxed);
        }
        check(outcome);
    });
    // Relaxed: as above.
    let refusing = refusing.load(Ordering::Relaxed);
    println!("{name}: {refusing} of {n} interleavings refused a call");
    (n, refusing)
}

#[test]
fn wait_policy_refuses_once_the_step_back_is_seen() {
    // 8 IDs per tick: nothing can be Exhausted, so any error is the step back.
    let (n, refusing) = run(Rollback::Wait, 3, 1, true, STEP, |o| {
        o.check_common();
    });
    // Both sides were reached: calls that beat the step back, and calls refused after it.
    assert!(0 < refusing && refusing < n, "{refusing} of {n}");
}

#[test]
fn continue_policy_keeps_issuing_in_the_last_tick() {
    // 8 IDs per tick: the last tick's sequence lasts, so Continue never refuses.
    let (n, refusing) = run(Rollback::Continue, 3, 1, true, STEP, |o| {
        o.check_common();
    });
    assert!(n > 1);
    assert_eq!(refusing, 0);
}

#[test]
fn continue_policy_refuses_when_the_last_tick_is_full() {
    // 4 IDs per tick, 2 used before the step back: the threads share the 2 left in the last
    // tick, and the other 2 calls must be refused as ClockBehind (not Exhausted), a step and a
    // tick from resuming.
    let (n, _) = run(Rollback::Continue, 2, 2, false, STEP + UNIT, |o| {
        let issued = o.check_common();
        assert_eq!(issued.len(), 2, "{:?}", o.per_thread);
        assert_eq!(o.errors(), 2);
    });
    assert!(n > 1);
}

#[test]
fn wait_policy_refuses_everything_after_the_step_back() {
    // With the step back before the threads start, Wait issues nothing at all.
    let (n, _) = run(Rollback::Wait, 2, 2, false, STEP, |o| {
        assert!(o.check_common().is_empty(), "{:?}", o.per_thread);
        assert_eq!(o.errors(), 4);
    });
    assert!(n > 1);
}
