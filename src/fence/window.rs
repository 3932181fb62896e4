//! [`Window`]: the gate a fenced source's hot path checks, opened by renewals.

use crate::sync::{AtomicU64, Ordering};

/// What the keeper has secured, as the minting threads see it: a deadline (clock nanoseconds
/// from which minting is refused) and the range of ID values that may be handed out.
///
/// Written once per renewal, read on every mint: one load and compare before minting
/// ([`is_open`](Self::is_open)), two after ([`admits`](Self::admits)).
#[derive(Debug)]
pub(crate) struct Window {
    /// Clock nanoseconds (the source clock's cheap reading) from which minting is refused.
    valid_until: AtomicU64,
    /// The least ID value that may be handed out: the first of the tick after the previous
    /// owner's last (0 when there was none).
    low: AtomicU64,
    /// The greatest ID value that may be handed out: the last of the limit's tick.
    high: AtomicU64,
}

impl Window {
    /// A closed window: nothing is admitted until the first [`open`](Self::open).
    pub(crate) fn closed() -> Window {
        Window {
            valid_until: AtomicU64::new(0),
            low: AtomicU64::new(0),
            high: AtomicU64::new(0),
        }
    }

    /// Admits IDs `low..=high` until the clock reads `valid_until`.
    pub(crate) fn open(&self, low: u64, high: u64, valid_until: u64) {
        // Relaxed (both): published by the Release store below.
        self.low.store(low, Ordering::Relaxed);
        self.high.store(high, Ordering::Relaxed);
        // Release: a minting thread that sees this deadline (Acquire, `is_open`) sees the
        // range stored above, never the range of an older window with this deadline.
        self.valid_until.store(valid_until, Ordering::Release);
    }

    /// Refuses everything from now on (until the next `open`).
    pub(crate) fn close(&self) {
        // Release: as in `open`; 0 closes the window for every later reading.
        self.valid_until.store(0, Ordering::Release);
    }

    /// Whether a clock reading of `now` is before the deadline.
    #[inline]
    pub(crate) fn is_open(&self, now: u64) -> bool {
        // Acquire: pairs with the Release stores in `open` and `close`, so that the range
        // loaded by `admits` after this is at least as new as the deadline seen here (free on
        // x86: a plain load).
        now < self.valid_until.load(Ordering::Acquire)
    }

    /// Whether `id` lies in the secured range. Call after [`is_open`](Self::is_open).
    ///
    /// Ranges only move forward: a bound one store old refuses an ID rather than admitting
    /// one the keeper has not secured, except that a raised `low` (the node taken back after
    /// its lease lapsed) is only published with a new deadline, after the old one passed.
    #[inline]
    pub(crate) fn admits(&self, id: u64) -> bool {
        // Relaxed (both): ordered after `is_open`'s Acquire load.
        id <= self.high.load(Ordering::Relaxed) && id >= self.low.load(Ordering::Relaxed)
    }

    /// The least ID value admitted (0 before the first window with a floor).
    pub(crate) fn low(&self) -> u64 {
        // Relaxed: read by the renewing thread, which alone stores it.
        self.low.load(Ordering::Relaxed)
    }

    /// The deadline (0 while closed): for reports.
    pub(crate) fn valid_until(&self) -> u64 {
        // Relaxed: a report, not a decision; no other memory is read on its account.
        self.valid_until.load(Ordering::Relaxed)
    }

    /// The greatest ID value admitted (0 before the first window): for reports.
    pub(crate) fn high(&self) -> u64 {
        // Relaxed: a report, not a decision; no other memory is read on its account.
        self.high.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::Window;

    /// Open until the clock reads the deadline (not at it); both ends of the range admitted,
    /// nothing outside it; closed before the first `open` and after `close`.
    #[test]
    fn a_window_admits_exactly_its_range_until_its_deadline() {
        let w = Window::closed();
        assert!(!w.is_open(0), "closed until the first renewal");
        w.open(10, 20, 100);
        assert!(w.is_open(0) && w.is_open(99));
        assert!(
            !w.is_open(100) && !w.is_open(u64::MAX),
            "the deadline is exclusive"
        );
        assert!(!w.admits(9) && w.admits(10) && w.admits(15) && w.admits(20) && !w.admits(21));
        assert_eq!((w.low(), w.high()), (10, 20));
        w.close();
        assert!(!w.is_open(0));
    }
}
