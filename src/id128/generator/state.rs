//! [`SharedState`]: the one atomic word a 128-bit generator mints from, and its rule.
//!
//! The word packs the last issued time and counter (`ms << 12 | rand_a` for UUIDv7,
//! `ms << 16 | counter` for ULID), so the 64-bit rule carries over unchanged: the next `n`
//! states are `first..=first + n - 1` with `first = max(state + 1, floor)`, where `floor` is
//! the clock's reading in the same packing. `+ 1` takes the next counter value and, when a
//! millisecond's values are used up, carries into the next millisecond; `max` folds the
//! clock in, so the state never goes back, whatever the clock does. One successful CAS
//! moves the word past all `n` states: a call or a batch costs one CAS when uncontended.

use crossbeam_utils::CachePadded;

use crate::sync::{spin_loop, AtomicU64, Ordering, SPIN_DOUBLINGS};

/// The last issued state of a generator, on a cache line of its own.
#[derive(Debug, Default)]
pub(crate) struct SharedState(CachePadded<AtomicU64>);

impl SharedState {
    /// No state issued yet: the first reservation starts at the clock's floor.
    pub(crate) fn new() -> SharedState {
        SharedState::default()
    }

    /// Takes the `n` (at least 1) states after the last issued one and at or above `floor`,
    /// and returns the first. Every state is taken by one call only, and each call's states
    /// are above those of every call whose CAS came before its own.
    #[inline]
    pub(crate) fn reserve(&self, floor: u64, n: u64) -> u64 {
        // Relaxed: the state is a lone value; uniqueness comes from the modification order
        // of this one atomic, which every RMW respects at any ordering, and no other memory
        // is published through it.
        let mut current = self.0.load(Ordering::Relaxed);
        let mut doublings = 0;
        loop {
            // Saturating: the packed clock ends far below 2^63 (u64 nanoseconds end in 2554),
            // so only an impossible batch of 2^62 IDs could reach the top.
            let first = current.saturating_add(1).max(floor);
            let last = first.saturating_add(n.saturating_sub(1));
            // Relaxed (both): as for the load; a failure hands back the newer state.
            match self
                .0
                .compare_exchange_weak(current, last, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return first,
                Err(actual) => {
                    current = actual;
                    for _ in 0..(1_u32 << doublings) {
                        spin_loop();
                    }
                    doublings = (doublings + 1).min(SPIN_DOUBLINGS);
                }
            }
        }
    }

    /// The last issued state (0: none yet).
    #[inline]
    pub(crate) fn last(&self) -> u64 {
        // Relaxed: as in `reserve`; a report of a lone value.
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_follow_the_clock_and_never_go_back() {
        let s = SharedState::new();
        assert_eq!(s.reserve(100, 1), 100);
        assert_eq!(s.reserve(100, 1), 101);
        assert_eq!(
            s.reserve(50, 3),
            102,
            "a floor behind the state: the state carries on"
        );
        assert_eq!(s.last(), 104);
        assert_eq!(s.reserve(200, 2), 200);
        assert_eq!(s.last(), 201);
    }
}
