//! A thread's clock reading made stale by another thread: one thread mints while another moves
//! the clock 3 ms on (beyond [`Rollback::TOLERANCE`]) and mints. However they interleave,
//! including a first thread that read the clock before the move and lost its CAS after the
//! other's, nothing is refused as `ClockBehind`: no clock stepped back, and a refusal is decided
//! only on a reading taken after the state it is compared with.
//!
//! The clock here is a lock, not [`common::clock`]'s Relaxed atomic: loom lets a Relaxed load
//! return an old value however long after the store (nothing orders the clock's store with the
//! generator's Relaxed state), as no real clock does beyond the tolerance. Under the lock a
//! reading sees every move made before it, as a clock read after the fact does.

mod common;

use common::{assert_unique, builder, explore, layout, Seen, NODE, START_MS, START_TICK};
use loom::sync::{Arc, Mutex};
use loom::thread;
use std::time::Duration;

use snowmint::clock::{Clock, Rollback};
use snowmint::{Generator, Id, MintError};

/// How far the other thread moves the clock on: past the tolerance, so that a stale reading
/// after its mint looks like a clock stepped back.
const MOVE: Duration = Duration::from_millis(3);

/// A clock whose readings are ordered with its moves: a lock around the time.
#[derive(Clone)]
struct Locked(Arc<Mutex<u64>>);

impl Locked {
    fn new() -> Locked {
        Locked(Arc::new(Mutex::new(START_MS * 1_000_000)))
    }

    fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by.as_nanos() as u64;
    }
}

impl Clock for Locked {
    fn now_unix_nanos(&self) -> u64 {
        *self.0.lock().unwrap()
    }
}

/// One ID minted before the threads; then thread A mints once while thread B moves the clock
/// on and mints `b_ids` (a batch). Returns A's result, B's IDs and the first ID.
fn run(
    policy: Rollback,
    sequence_bits: u8,
    b_ids: u64,
) -> (Result<Id, MintError>, Vec<Id>, Id, snowmint::Layout) {
    let layout = layout(sequence_bits);
    let clock = Locked::new();
    let gen = Arc::new(
        Generator::builder(layout)
            .clock(clock.clone())
            .node(NODE)
            .on_rollback(policy)
            .build()
            .unwrap(),
    );
    let first = gen.try_next_id().unwrap();
    let a = {
        let gen = Arc::clone(&gen);
        thread::spawn(move || gen.try_next_id())
    };
    let b = {
        let gen = Arc::clone(&gen);
        thread::spawn(move || {
            clock.advance(MOVE);
            gen.try_next_ids(b_ids).unwrap().collect::<Vec<Id>>()
        })
    };
    let theirs = b.join().unwrap();
    (a.join().unwrap(), theirs, first, layout)
}

/// `Wait`, 8 IDs per tick: every call succeeds, in the first tick if A came before the move,
/// else in the tick after it (A's reading, or B's state, shows the move).
#[test]
fn wait_never_refuses_a_clock_that_only_moved_on() {
    let seen = Seen::default();
    let tally = seen.clone();
    let n = explore(
        "late_reading_wait",
        builder(None),
        move || {
            let (a, theirs, first, layout) = run(Rollback::Wait, 3, 1);
            let a = a.unwrap_or_else(|e| panic!("no clock stepped back, yet {e}"));
            let mut all = vec![first, a];
            all.extend(&theirs);
            assert_unique(&all);
            let d = layout.decode(a);
            assert_eq!(d.node(), NODE);
            assert!(a > first);
            tally.record(match d.ticks() - START_TICK {
                0 => "A before the move",
                3 => "A after the move",
                _ => panic!("{a:?} outside the clock's ticks"),
            });
        },
    );
    seen.assert_exactly(
        "late_reading_wait",
        &["A before the move", "A after the move"],
    );
    assert!(n > 1);
}

/// `Continue`, 2 IDs per tick, B asks for the whole tick after the move: A gets the first
/// tick's second ID, or the moved tick's first (B then gets one), or must wait for the tick
/// after B's, which `try_next_id` refuses as `Exhausted` (the sequence is used up), never as
/// `ClockBehind`.
#[test]
fn continue_refuses_a_full_tick_as_exhausted_not_behind() {
    let seen = Seen::default();
    let tally = seen.clone();
    let n = explore(
        "late_reading_continue",
        builder(None),
        move || {
            let (a, theirs, first, layout) = run(Rollback::Continue, 1, 2);
            let mut all = vec![first];
            all.extend(&theirs);
            match a {
                Ok(a) => {
                    all.push(a);
                    tally.record(match layout.decode(a).ticks() - START_TICK {
                        0 => "A before the move",
                        // A read the moved clock and won the CAS: B's batch got one ID.
                        3 if theirs.len() == 1 => "A after the move, before B",
                        _ => panic!("{a:?} then {theirs:?}"),
                    });
                }
                Err(MintError::Exhausted { retry_after }) => {
                    assert_eq!(retry_after, common::UNIT);
                    tally.record("A refused: B's tick is full");
                }
                Err(e) => panic!("no clock stepped back, yet {e}"),
            }
            assert_unique(&all);
        },
    );
    seen.assert_exactly(
        "late_reading_continue",
        &[
            "A before the move",
            "A after the move, before B",
            "A refused: B's tick is full",
        ],
    );
    assert!(n > 1);
}
