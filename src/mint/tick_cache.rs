//! [`TickCache`]: a thread-owned copy of the current tick's [`TickWindow`], for minting
//! within that tick without dividing the clock reading.
//!
//! An owner of its state (an owned or thread-local shard) remembers the window of the tick it
//! last minted in and what the IDs of that tick and node share ([`Packing::tick_part`]), so
//! the next ID is the window's fast rule, a multiply and an add. The rule itself is
//! [`TickWindow::next`], the one `step` is checked against.

use core::cell::Cell;

use super::packing::Packing;
use super::rule::{last_of_tick, TickWindow};

/// The current tick's window and ID bits; serves nothing until first filled.
#[derive(Debug)]
pub(crate) struct TickCache {
    window: Cell<TickWindow>,
    /// The tick's and node's [`Packing::tick_part`].
    tick_part: Cell<u64>,
}

impl TickCache {
    pub(crate) const fn new() -> TickCache {
        TickCache {
            window: Cell::new(TickWindow::EMPTY),
            tick_part: Cell::new(0),
        }
    }

    /// The state and ID of the next mint after `state` for the clock reading `now`, if the
    /// cached window serves it (see [`TickWindow::next`]).
    #[inline(always)]
    pub(crate) fn next(&self, state: u64, now: u64, packing: &Packing) -> Option<(u64, u64)> {
        let next = self.window.get().next(state, now)?;
        Some((next, packing.id_from(next, self.tick_part.get())))
    }

    /// For a state due for an exact reading: the state and ID after `state` for the exact
    /// reading `now` by the cached tick's whole window (up to the tick's last state, where
    /// the cached one is cut at the state due), and that window cut again after the state
    /// returned ([`TickWindow::until_refresh`]), to [`cut`](Self::cut) the cache to once the
    /// state is taken. `None` where the whole window does not serve `now` (the general path
    /// then does what `step` does).
    #[inline]
    pub(crate) fn next_exact(
        &self,
        state: u64,
        now: u64,
        sequence_bits: u8,
        refresh_mask: u64,
        packing: &Packing,
    ) -> Option<(u64, u64, TickWindow)> {
        let cached = self.window.get();
        let whole = TickWindow {
            last: last_of_tick(cached.floor, sequence_bits),
            ..cached
        };
        let next = whole.next(state, now)?;
        let id = packing.id_from(next, self.tick_part.get());
        Some((next, id, whole.until_refresh(next, refresh_mask)))
    }

    /// Serves `window` (of the same tick) from here on.
    #[inline]
    pub(crate) fn cut(&self, window: TickWindow) {
        self.window.set(window);
    }

    /// The cached window.
    #[inline(always)]
    pub(crate) fn window(&self) -> TickWindow {
        self.window.get()
    }

    /// The cached tick's [`Packing::tick_part`].
    #[inline(always)]
    pub(crate) fn tick_part(&self) -> u64 {
        self.tick_part.get()
    }

    /// Takes on `other`'s window and ID bits.
    pub(crate) fn copy_from(&self, other: &TickCache) {
        self.window.set(other.window.get());
        self.tick_part.set(other.tick_part.get());
    }

    /// Remembers the window of the tick just minted in (cut at the next state due for an
    /// exact reading, [`TickWindow::until_refresh`]), and the [`Packing::tick_part`] of that
    /// tick and the owner's node.
    pub(crate) fn fill(&self, window: TickWindow, tick_part: u64) {
        self.window.set(window);
        self.tick_part.set(tick_part);
    }
}
