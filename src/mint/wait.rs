//! How a blocked call waits: spin, then yield, and sleep only for long waits and never past
//! the moment the clock is due.

use std::time::Duration;

use crate::sync::{spin_loop, yield_now};

/// Waits above this sleep for all but [`SLEEP_MARGIN`] of their length.
const SLEEP_ABOVE: Duration = Duration::from_millis(2);
/// Left unslept: Linux oversleeps by ~50-100 µs (timer slack), and sleeping past the tick
/// boundary would cost capacity.
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
}
