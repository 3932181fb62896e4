//! The negative control for the shard handover: the models of `shard_owned.rs` can fail.
//!
//! A copy of the slot protocol of `src/shard/slots.rs`, reduced to its atomics (a `taken`
//! flag and the state handed over beside it, both Relaxed except where stated), runs with the
//! handover harness of `shard_owned.rs`: two threads each take the one shard (yielding while
//! it is held), mint two IDs from the state it held, hand it back. With the library's pair
//! (Acquire CAS to take, Release store to give back) every interleaving is unique; weaken
//! either side to Relaxed and loom finds the new holder reading the state from before the
//! last holder's store, and repeating its IDs. The duplicate needs no x86 reordering: it is
//! the C11 model's stale read, which loom explores on any machine.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{assert_unique, builder, explore, layout, LEASE_TRIES, START_TICK};
use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;
use snowmint::{Id, Layout, Parts};

/// 4 IDs per tick: the two holders' four IDs fit.
const LAYOUT: Layout = layout(2);

/// One exclusive shard, as `Slot` in `src/shard/slots.rs`: the sequence it has handed out
/// (the clock is frozen, so the tick never changes) and whether somebody holds it.
struct Slot {
    taken: AtomicBool,
    issued: AtomicU64,
    /// The success ordering of the CAS that takes the shard (the library: Acquire).
    take: Ordering,
    /// The ordering of the store that gives it back (the library: Release).
    give_back: Ordering,
}

impl Slot {
    /// Takes the shard and mints two IDs from the state it held, then gives it back with
    /// the new state, as an owned shard does; yields while the shard is held.
    fn hold_and_mint_two(&self) -> Vec<Id> {
        for _ in 0..LEASE_TRIES {
            // Relaxed: the library's hint before the CAS.
            if !self.taken.load(Ordering::Relaxed)
                && self
                    .taken
                    .compare_exchange(false, true, self.take, Ordering::Relaxed)
                    .is_ok()
            {
                // Relaxed: as the library, relying on `take` and `give_back` to publish it.
                let issued = self.issued.load(Ordering::Relaxed);
                let ids = (issued..issued + 2)
                    .map(|sequence| {
                        LAYOUT
                            .compose(
                                START_TICK,
                                Parts {
                                    node: 0,
                                    sequence: sequence,
                                },
                            )
                            .unwrap()
                    })
                    .collect();
                // Relaxed: as the library, published (or not) by the store below.
                self.issued.store(issued + 2, Ordering::Relaxed);
                self.taken.store(false, self.give_back);
                return ids;
            }
            thread::yield_now();
        }
        panic!("no shard came free in {LEASE_TRIES} tries");
    }
}

/// Two holders, one after the other in some order, each minting two IDs; the IDs are checked
/// for duplicates. Returns the interleavings explored.
fn harness(name: &str, take: Ordering, give_back: Ordering) -> usize {
    explore(name, builder(None), move || {
        let slot = Arc::new(Slot {
            taken: AtomicBool::new(false),
            issued: AtomicU64::new(0),
            take,
            give_back,
        });
        let holders: Vec<_> = (0..2)
            .map(|_| {
                let slot = Arc::clone(&slot);
                thread::spawn(move || slot.hold_and_mint_two())
            })
            .collect();
        let ids: Vec<Id> = holders
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        assert_unique(&ids);
    })
}

/// Runs the harness expecting loom to find a duplicate, and prints its counterexample.
fn assert_caught(name: &str, take: Ordering, give_back: Ordering) {
    let caught = catch_unwind(AssertUnwindSafe(|| harness(name, take, give_back)));
    let payload = caught.expect_err("loom found no duplicate with a weakened handover");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("<non-string panic>");
    assert!(
        message.contains("duplicate ID"),
        "the model failed, but not on uniqueness: {message}"
    );
    println!("{name}: loom's counterexample: {message}");
}

#[test]
fn the_acquire_release_handover_passes() {
    assert!(
        harness(
            "handover_acquire_release",
            Ordering::Acquire,
            Ordering::Release
        ) > 1
    );
}

#[test]
fn loom_catches_a_relaxed_handover() {
    assert_caught("handover_relaxed", Ordering::Relaxed, Ordering::Relaxed);
}

#[test]
fn loom_catches_a_relaxed_take() {
    assert_caught(
        "handover_relaxed_take",
        Ordering::Relaxed,
        Ordering::Release,
    );
}

#[test]
fn loom_catches_a_relaxed_give_back() {
    assert_caught(
        "handover_relaxed_give_back",
        Ordering::Acquire,
        Ordering::Relaxed,
    );
}
