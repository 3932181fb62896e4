//! How a blocked call waits: spin, then yield, and sleep only for long waits and never past
//! the moment the clock is due. Without `std` there is no thread to yield nor sleep, and no
//! `Instant`: a blocked call spins (`spin_loop`, doubling up to 2^6 hints a round) and
//! measures how long it waited on the generator's own clock (see [`Stopwatch`]).

use core::time::Duration;

#[cfg(not(feature = "std"))]
use crate::clock::Clock;
use crate::sync::spin_loop;
#[cfg(feature = "std")]
use crate::sync::yield_now;

/// How long a blocked call has waited: `Instant` with `std`; without it, the generator's
/// clock (`now_unix_nanos` since the start, 0 if it stepped back), the only time there is.
/// A clock that never moves never lets a `no_std` wait time out: such a clock needs
/// `try_next_id`.
#[derive(Clone, Copy)]
pub(crate) struct Stopwatch {
    #[cfg(feature = "std")]
    start: std::time::Instant,
    #[cfg(not(feature = "std"))]
    start: u64,
}

impl Stopwatch {
    #[cfg(feature = "std")]
    pub(crate) fn start<C>(_clock: &C) -> Stopwatch {
        Stopwatch {
            start: std::time::Instant::now(),
        }
    }

    #[cfg(feature = "std")]
    pub(crate) fn elapsed<C>(&self, _clock: &C) -> Duration {
        self.start.elapsed()
    }

    #[cfg(not(feature = "std"))]
    pub(crate) fn start<C: Clock>(clock: &C) -> Stopwatch {
        Stopwatch {
            start: clock.now_unix_nanos(),
        }
    }

    #[cfg(not(feature = "std"))]
    pub(crate) fn elapsed<C: Clock>(&self, clock: &C) -> Duration {
        Duration::from_nanos(clock.now_unix_nanos().saturating_sub(self.start))
    }
}

/// Waits above this sleep for all but [`SLEEP_MARGIN`] of their length.
#[cfg(feature = "std")]
const SLEEP_ABOVE: Duration = Duration::from_millis(2);
/// Left unslept: Linux oversleeps by ~50-100 µs (timer slack), and sleeping past the tick
/// boundary would cost capacity.
#[cfg(feature = "std")]
const SLEEP_MARGIN: Duration = Duration::from_millis(1);
/// Spin (doubling) this many rounds before yielding: a tick boundary is usually near.
const SPIN_ROUNDS: u32 = 6;

/// The back-off state of one blocked call.
pub(crate) struct Waiter {
    round: u32,
}

impl Waiter {
    pub(crate) fn new() -> Waiter {
        Waiter { round: 0 }
    }

    /// Waits a little towards `remaining`; the caller re-reads the clock afterwards.
    #[cfg(feature = "std")]
    pub(crate) fn wait(&mut self, remaining: Duration) {
        if remaining > SLEEP_ABOVE {
            std::thread::sleep(remaining - SLEEP_MARGIN);
        } else if self.round < SPIN_ROUNDS {
            for _ in 0..(1_u32 << self.round) {
                spin_loop();
            }
            self.round += 1;
        } else {
            yield_now();
        }
    }

    /// Without `std`: spin, doubling each round up to 2^[`SPIN_ROUNDS`] hints.
    #[cfg(not(feature = "std"))]
    pub(crate) fn wait(&mut self, _remaining: Duration) {
        for _ in 0..(1_u32 << self.round) {
            spin_loop();
        }
        self.round = (self.round + 1).min(SPIN_ROUNDS);
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use std::time::{Duration, Instant};

    use super::{Waiter, SLEEP_ABOVE, SLEEP_MARGIN, SPIN_ROUNDS};

    /// Short waits spin in doubling rounds, then yield: the round count climbs to
    /// `SPIN_ROUNDS` and stays there (a waiter that never reached the yield phase, or went
    /// past it, would spin without bound or wrap).
    #[test]
    fn short_waits_spin_a_bounded_number_of_rounds_then_yield() {
        let mut w = Waiter::new();
        for round in 0..SPIN_ROUNDS {
            assert_eq!(w.round, round);
            w.wait(Duration::from_micros(10));
        }
        for _ in 0..3 {
            w.wait(Duration::ZERO);
            assert_eq!(
                w.round, SPIN_ROUNDS,
                "past the spin rounds a waiter only yields"
            );
        }
        // Exactly the sleep threshold is still a spin round, not a sleep.
        let mut fresh = Waiter::new();
        fresh.wait(SLEEP_ABOVE);
        assert_eq!(fresh.round, 1);
    }

    /// A long wait sleeps for all but the margin. Only the lower bound is asserted: a loaded
    /// machine makes a sleep longer, never shorter.
    #[test]
    fn long_waits_sleep_all_but_the_margin() {
        let mut w = Waiter::new();
        let remaining = SLEEP_ABOVE + Duration::from_millis(3);
        let start = Instant::now();
        w.wait(remaining);
        assert!(start.elapsed() >= remaining - SLEEP_MARGIN);
        assert_eq!(w.round, 0, "a sleep is not a spin round");
    }
}
