//! [`StateCell`]: where a minter keeps its packed `(tick, sequence)` state.

use core::cell::Cell;

use crate::sync::{AtomicU64, Ordering};

/// The one word of state a [`Minter`](super::minter::Minter) advances: an atomic shared by
/// threads, or a plain cell owned by one thread (an owned or thread-local shard).
pub(crate) trait StateCell {
    /// The current state.
    fn get(&self) -> u64;
    /// Replaces `current` by `next`, or returns the value found instead of `current`.
    fn replace(&self, current: u64, next: u64) -> Result<(), u64>;
    /// Puts `previous` back if the state is still `taken` (a state moved to and then not
    /// issued); leaves it alone if anything moved it on since.
    fn restore(&self, taken: u64, previous: u64);
}

impl StateCell for AtomicU64 {
    #[inline]
    fn get(&self) -> u64 {
        // Relaxed: the state is self-contained. Uniqueness needs only that every RMW on this
        // one atomic reads the latest value in its modification order, which holds at any
        // ordering; no other memory is published through it.
        self.load(Ordering::Relaxed)
    }

    #[inline]
    fn replace(&self, current: u64, next: u64) -> Result<(), u64> {
        // Relaxed (both): as in `get`; a failed CAS hands back the newer state to build on.
        self.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed)
            .map(drop)
    }

    #[inline]
    fn restore(&self, taken: u64, previous: u64) {
        // Relaxed (both): as in `get`. Strong, so that a state nobody built on goes back;
        // a failure means another thread moved on from `taken`, which is then a skipped
        // state below theirs and never issued.
        let _ = self.compare_exchange(taken, previous, Ordering::Relaxed, Ordering::Relaxed);
    }
}

impl StateCell for Cell<u64> {
    #[inline]
    fn get(&self) -> u64 {
        Cell::get(self)
    }

    #[inline]
    fn replace(&self, current: u64, next: u64) -> Result<(), u64> {
        // One thread owns the cell, but a clock read between `get` and here may have minted
        // from the same cell (a clock that mints IDs itself): compare, as a CAS would, so
        // that the outer call builds on the inner one's state instead of overwriting it.
        let found = Cell::get(self);
        if found == current {
            self.set(next);
            Ok(())
        } else {
            Err(found)
        }
    }

    #[inline]
    fn restore(&self, taken: u64, previous: u64) {
        let _ = StateCell::replace(self, taken, previous);
    }
}

#[cfg(test)]
mod tests {
    use core::cell::Cell;

    use super::StateCell;
    use crate::sync::AtomicU64;

    /// `restore` puts the previous state back while the taken one is still there, and
    /// leaves a state that moved on alone: for the atomic and for the plain cell.
    #[test]
    fn restore_gives_back_only_a_state_nobody_moved_on_from() {
        // The atomic's `replace` is a weak CAS, which may fail spuriously (miri makes it):
        // retry while it finds the expected value.
        fn take<S: StateCell>(cell: &S, from: u64, to: u64) {
            for _ in 0..1_000 {
                match cell.replace(from, to) {
                    Ok(()) => return,
                    Err(found) => assert_eq!(found, from, "only a spurious failure"),
                }
            }
            panic!("the CAS never succeeded");
        }
        fn check<S: StateCell>(cell: S) {
            take(&cell, 7, 8);
            cell.restore(8, 7);
            assert_eq!(cell.get(), 7, "still taken: given back");
            take(&cell, 7, 8);
            take(&cell, 8, 9); // another taker builds on 8
            cell.restore(8, 7);
            assert_eq!(cell.get(), 9, "moved on: left alone");
        }
        check(AtomicU64::new(7));
        check(Cell::new(7_u64));
    }
}
