//! The negative control for the fence window: `fence_window.rs` can fail.
//!
//! A copy of `Window` in `src/fleet/fence/window.rs`, reduced to its three atomics with the
//! orderings as parameters, runs the race of `fence_window.rs`: a renewal raises the range's
//! low bound (a floor) and publishes a new deadline, while a minter checks the deadline and
//! then the range. With the library's pair (Release store of the deadline, Acquire load) an
//! ID below the new floor is never admitted; weaken either side to Relaxed and loom finds the
//! minter seeing the new deadline with the old low bound, admitting an ID the previous owner
//! may have issued.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{builder, explore};
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

/// The window, as in the library, with the publishing and checking orderings chosen.
struct Window {
    valid_until: AtomicU64,
    low: AtomicU64,
    high: AtomicU64,
    publish: Ordering,
    check: Ordering,
}

impl Window {
    fn open(&self, low: u64, high: u64, valid_until: u64) {
        self.low.store(low, Ordering::Relaxed);
        self.high.store(high, Ordering::Relaxed);
        self.valid_until.store(valid_until, self.publish);
    }

    fn admits(&self, now: u64, id: u64) -> bool {
        now < self.valid_until.load(self.check)
            && id <= self.high.load(Ordering::Relaxed)
            && id >= self.low.load(Ordering::Relaxed)
    }
}

/// The race: the window was closed (deadline 0); a renewal opens it with a floor (low 10);
/// the minter holds ID 5, below the floor.
fn race(publish: Ordering, check: Ordering) {
    explore("fence window control", builder(None), move || {
        let window = Arc::new(Window {
            valid_until: AtomicU64::new(0),
            low: AtomicU64::new(0),
            high: AtomicU64::new(20),
            publish,
            check,
        });
        let renewer = {
            let w = Arc::clone(&window);
            thread::spawn(move || w.open(10, 20, u64::MAX))
        };
        let admitted = window.admits(1, 5);
        renewer.join().unwrap();
        assert!(!admitted, "ID 5 admitted below the floor of 10");
    });
}

#[test]
fn the_library_orderings_admit_nothing_below_the_floor() {
    race(Ordering::Release, Ordering::Acquire);
}

#[test]
fn a_relaxed_deadline_store_admits_an_id_below_the_floor() {
    let result = catch_unwind(AssertUnwindSafe(|| {
        race(Ordering::Relaxed, Ordering::Acquire)
    }));
    assert!(
        result.is_err(),
        "loom found no stale low bound: the control proves nothing"
    );
}

#[test]
fn a_relaxed_deadline_load_admits_an_id_below_the_floor() {
    let result = catch_unwind(AssertUnwindSafe(|| {
        race(Ordering::Release, Ordering::Relaxed)
    }));
    assert!(
        result.is_err(),
        "loom found no stale low bound: the control proves nothing"
    );
}
