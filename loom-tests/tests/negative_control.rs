//! The negative control: the models can fail. A generator that keeps time and sequence in two
//! atomics, updated one after the other (the classic bug), is run through the very harness the
//! real generator passes, and loom must find the interleaving where two IDs are equal.
//!
//! The broken generator uses `SeqCst` everywhere, so the duplicate comes from splitting the
//! state, not from weak orderings. It needs two IDs per thread: the thread that moves the time
//! on resets the sequence *after* another thread has already taken a number in the new tick,
//! and its own *second* ID repeats that number.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{assert_increasing, assert_unique, builder, clock, explore, layout, tick_of, NODE};
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;
use snowmint::clock::{Clock, ManualClock};
use snowmint::{Generator, Id, Layout, Parts};

/// 8 IDs per tick: the 4 IDs of the model never run out of sequence numbers, even in the
/// broken generator (whose sequence reaches at most 4).
const LAYOUT: Layout = layout(3);

/// A minter the harness can drive.
trait Mint: Send + Sync + 'static {
    fn new(clock: ManualClock) -> Self;
    fn mint(&self) -> Id;
}

/// snowmint's generator: one atomic `(tick, sequence)`, advanced by CAS.
impl Mint for Generator<ManualClock> {
    fn new(clock: ManualClock) -> Self {
        Generator::builder(LAYOUT)
            .clock(clock)
            .node(NODE)
            .build()
            .unwrap()
    }

    fn mint(&self) -> Id {
        self.try_next_id().expect("4 IDs fit in one tick")
    }
}

/// The bug: time and sequence in two atomics. Each step is atomic, the pair is not.
struct SplitState {
    time: AtomicU64,
    sequence: AtomicU64,
    clock: ManualClock,
}

impl Mint for SplitState {
    fn new(clock: ManualClock) -> Self {
        SplitState {
            time: AtomicU64::new(0),
            sequence: AtomicU64::new(0),
            clock,
        }
    }

    fn mint(&self) -> Id {
        let now = tick_of(self.clock.now_unix_nanos());
        loop {
            // SeqCst (all): the strongest ordering, to show it cannot mend a split state.
            let last = self.time.load(Ordering::SeqCst);
            if now > last {
                if self
                    .time
                    .compare_exchange(last, now, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    // Too late: another thread may already have taken a number in `now`.
                    self.sequence.store(0, Ordering::SeqCst);
                    return LAYOUT
                        .compose(
                            now,
                            Parts {
                                node: NODE,
                                sequence: 0,
                            },
                        )
                        .unwrap();
                }
                continue;
            }
            let sequence = self.sequence.fetch_add(1, Ordering::SeqCst) + 1;
            return LAYOUT
                .compose(
                    last,
                    Parts {
                        node: NODE,
                        sequence: sequence,
                    },
                )
                .unwrap();
        }
    }
}

/// 2 threads × `per_thread` IDs on a frozen clock. Uniqueness is checked first, so a
/// duplicate is what fails first if anything does.
fn harness<M: Mint>(name: &str, per_thread: usize) -> usize {
    explore(name, builder(None), move || {
        let minter = Arc::new(M::new(clock()));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let minter = Arc::clone(&minter);
                thread::spawn(move || (0..per_thread).map(|_| minter.mint()).collect::<Vec<Id>>())
            })
            .collect();
        let results: Vec<Vec<Id>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_unique(&results.concat());
        for ids in &results {
            assert_increasing(ids);
        }
    })
}

#[test]
fn the_real_generator_passes_the_harness() {
    assert!(harness::<Generator<ManualClock>>("control_real", 2) > 1);
}

#[test]
fn loom_catches_the_split_state_duplicate() {
    let caught = catch_unwind(AssertUnwindSafe(|| {
        harness::<SplitState>("control_split", 2)
    }));
    let payload = caught.expect_err("loom found no duplicate in the split-state generator");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("<non-string panic>");
    assert!(
        message.contains("duplicate ID"),
        "the model failed, but not on uniqueness: {message}"
    );
    println!("control_split: loom's counterexample: {message}");
}

#[test]
fn one_id_per_thread_hides_the_split_state_bug() {
    // Why the models mint two IDs per thread: with one, every interleaving of the broken
    // generator is still unique, so a one-ID model would prove nothing.
    assert!(harness::<SplitState>("control_split_one_id", 1) > 1);
}
