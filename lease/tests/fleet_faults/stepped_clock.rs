//! A child's clock that the parent can step: the TSC clock plus an offset the child reads
//! from a file (`SNOWMINT_FAULT_CLOCK_FILE`, signed milliseconds), which the parent rewrites
//! to step it. Built on the public `Clock` trait, in the test only: `snowmint serve` has no
//! such knob, and no product code reads the file.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use snowmint::clock::{Clock, TscClock};

use crate::settings::wall_nanos;

/// The variable naming the offset's file.
pub(crate) const CLOCK_FILE: &str = "SNOWMINT_FAULT_CLOCK_FILE";

/// How often the child reads the file: the step lands within a few of these, and the child
/// says when it did (`STEPPED`), so nothing waits on this figure.
const READ_EVERY: Duration = Duration::from_millis(5);

/// The TSC clock shifted by an offset in nanoseconds (negative: behind).
#[derive(Clone)]
pub(crate) struct SteppedClock {
    base: TscClock,
    offset_nanos: Arc<AtomicI64>,
}

impl SteppedClock {
    /// The TSC clock itself: an offset of 0, never changed.
    pub(crate) fn unstepped() -> SteppedClock {
        SteppedClock {
            base: TscClock::shared(),
            offset_nanos: Arc::new(AtomicI64::new(0)),
        }
    }

    /// The clock, and a thread that applies each new offset written to `file` (read at
    /// once, then every few milliseconds), printing `STEPPED <ms> <wall nanos>` on stdout
    /// when it does.
    pub(crate) fn watching(file: PathBuf) -> SteppedClock {
        let clock = SteppedClock::unstepped();
        let mut applied = read_ms(&file).unwrap_or(0);
        clock.set(applied);
        announce(applied);
        let offset = clock.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(READ_EVERY);
            if let Some(ms) = read_ms(&file) {
                if ms != applied {
                    offset.set(ms);
                    applied = ms;
                    announce(ms);
                }
            }
        });
        clock
    }

    fn set(&self, ms: i64) {
        // Relaxed: one value, read on its own by each reading of the clock.
        self.offset_nanos
            .store(ms.saturating_mul(1_000_000), Ordering::Relaxed);
    }
}

fn read_ms(file: &PathBuf) -> Option<i64> {
    std::fs::read_to_string(file).ok()?.trim().parse().ok()
}

fn announce(ms: i64) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "STEPPED {ms} {}", wall_nanos());
    let _ = out.flush();
}

impl Clock for SteppedClock {
    fn now_unix_nanos(&self) -> u64 {
        // Relaxed: see `set`.
        let offset = self.offset_nanos.load(Ordering::Relaxed);
        self.base.now_unix_nanos().saturating_add_signed(offset)
    }
}
