//! [`SharedState`]: the one atomic word a 128-bit generator mints from.
//!
//! The word is the last issued state of the generator's [`Timeline`]; one successful CAS
//! moves it past all the states a call or a batch takes, so a call or a batch costs one
//! CAS when uncontended. The next states are the timeline's ([`Timeline::next`]): when they
//! would run more than the lead ahead of the clock, the call waits for the clock instead.

use core::time::Duration;

use crossbeam_utils::CachePadded;

use super::timeline::{Timeline, COUNTER_BITS, COUNTER_MASK};
use crate::clock::Clock;
use crate::mint::cell::StateCell;
use crate::mint::wait::Waiter;
use crate::sync::{spin_loop, AtomicU64, Ordering, SPIN_DOUBLINGS};

/// The last issued state of a generator, on a cache line of its own.
#[derive(Debug)]
pub(crate) struct SharedState(CachePadded<AtomicU64>);

/// The state before any is issued: the first tick's last counter value, which no call issues
/// (the first state the rule gives is above it) and which sends the first call past the fast
/// path, straight to the rule.
const NONE_YET: u64 = COUNTER_MASK;

impl SharedState {
    /// No state issued yet: the first reservation starts at the clock's floor.
    pub(crate) fn new() -> SharedState {
        SharedState(CachePadded::new(AtomicU64::new(NONE_YET)))
    }

    /// Takes the state after the last issued one: by the fast rule (the next counter value,
    /// [`Timeline::following_in_tick`], when the cheap reading falls within the last state's
    /// tick, [`Timeline::reaches_at_most`]); else as [`take`](Self::take) does.
    ///
    /// The CAS comes before the reading's test, as on the 64-bit shared path: a locked
    /// instruction waits for everything before it, and the test (a multiply and a 128-bit
    /// compare) would hold it back on every ID. A reading past the tick (the only one the
    /// fast rule refuses once the counter has room) gives the state back
    /// ([`StateCell::restore`]) before the rule moves on to the clock's tick: nothing is
    /// issued from it, and if another thread built on it meanwhile, it stays a skipped state
    /// of a tick that is over.
    #[inline(always)]
    pub(crate) fn take_one<C: Clock>(&self, timeline: &Timeline, clock: &C) -> u64 {
        let reading = clock.recent_unix_nanos();
        let current = self.0.get();
        if let Some(next) = timeline.following_in_tick(current) {
            if self.0.replace(current, next).is_ok() {
                if timeline.reaches_at_most(reading, current >> COUNTER_BITS) {
                    return next;
                }
                self.0.restore(next, current);
            }
        }
        self.take_one_by_rule(current, reading, timeline, clock)
    }

    /// [`take_one`](Self::take_one) off the fast rule, from the state and reading it read:
    /// out of line, so that the fast path stays small.
    #[cold]
    #[inline(never)]
    fn take_one_by_rule<C: Clock>(
        &self,
        current: u64,
        reading: u64,
        timeline: &Timeline,
        clock: &C,
    ) -> u64 {
        self.take_from(current, reading, timeline, clock, 1).0
    }

    /// Takes up to `n` (at least 1) consecutive states after the last issued one, as many
    /// as the lead allows, and returns the first and the last. Every state is taken by one
    /// call only, and each call's states are above those of every call whose CAS came
    /// before its own.
    #[inline]
    pub(crate) fn take<C: Clock>(&self, timeline: &Timeline, clock: &C, n: u64) -> (u64, u64) {
        // Relaxed: the state is a lone value; uniqueness comes from the modification order
        // of this one atomic, which every RMW respects at any ordering, and no other memory
        // is published through it.
        let current = self.0.load(Ordering::Relaxed);
        self.take_from(current, clock.recent_unix_nanos(), timeline, clock, n)
    }

    /// [`take`](Self::take) from a state and a cheap reading its caller has read already
    /// (a stale state only costs a failed CAS).
    #[inline]
    fn take_from<C: Clock>(
        &self,
        mut current: u64,
        cheap: u64,
        timeline: &Timeline,
        clock: &C,
        n: u64,
    ) -> (u64, u64) {
        let mut doublings = 0;
        let mut waiter = Waiter::new();
        // The cheap reading first, as the 64-bit rule does: it lags the exact one by a bounded
        // amount, so an ID's time stays within the lead of the true time; only when it would
        // make the call wait is the exact reading taken (and kept through the wait).
        let mut exact = false;
        let mut given = Some(cheap);
        loop {
            let reading = match given.take() {
                Some(cheap) => cheap,
                None if exact => clock.now_unix_nanos(),
                None => clock.recent_unix_nanos(),
            };
            let (first, last) = match timeline.next(current, reading, n) {
                Ok(states) => states,
                Err(_) if !exact => {
                    exact = true;
                    continue;
                }
                Err(wait_nanos) => {
                    waiter.wait(Duration::from_nanos(wait_nanos));
                    // Relaxed: as for the first load.
                    current = self.0.load(Ordering::Relaxed);
                    continue;
                }
            };
            // Relaxed (both): as for the load; a failure hands back the newer state.
            match self
                .0
                .compare_exchange_weak(current, last, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return (first, last),
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

    /// Takes `len` consecutive states for the slots `0..len`, in as few reservations as
    /// the lead allows (one for up to 524,288 states when the state is at the clock), and
    /// calls `put(slot, state)` for each.
    pub(crate) fn take_each<C: Clock>(
        &self,
        timeline: &Timeline,
        clock: &C,
        len: usize,
        mut put: impl FnMut(usize, u64),
    ) {
        let mut slot = 0;
        while slot < len {
            let (first, last) = self.take(timeline, clock, (len - slot) as u64);
            for state in first..=last {
                put(slot, state);
                slot += 1;
            }
        }
    }

    /// The last issued state (`None`: none yet).
    #[inline]
    pub(crate) fn last(&self) -> Option<u64> {
        // Relaxed: as in `take`; a report of a lone value.
        Some(self.0.load(Ordering::Relaxed)).filter(|&state| state != NONE_YET)
    }
}

#[cfg(test)]
mod tests {
    use super::super::timeline::COUNTER_BITS;
    use super::*;
    use crate::clock::ManualClock;

    #[test]
    fn states_follow_the_clock_and_never_go_back() {
        let clock = ManualClock::at_unix_millis(1_000);
        let t = Timeline::starting_at(1_000_000_000);
        let s = SharedState::new();
        assert_eq!(s.last(), None);
        let at_start = 4096 << COUNTER_BITS;
        assert_eq!(s.take(&t, &clock, 1), (at_start, at_start));
        assert_eq!(s.take(&t, &clock, 3), (at_start + 1, at_start + 3));
        clock.rewind(Duration::from_micros(500));
        assert_eq!(s.take(&t, &clock, 1).0, at_start + 4, "carried on");
        clock.advance(Duration::from_millis(1));
        assert_eq!(s.take(&t, &clock, 1).0, (4096 + 2048) << COUNTER_BITS);
        assert_eq!(s.last(), Some((4096 + 2048) << COUNTER_BITS));
    }
}
