//! [`TickCache`]: a thread-owned copy of the current tick's [`TickWindow`], for minting
//! within that tick without dividing the clock reading.
//!
//! An owner of its state (an owned or thread-local shard) remembers the window of the tick it
//! last minted in and what the IDs of that tick and node share ([`Packing::tick_part`]), so
//! the next ID is the window's fast rule, a multiply and an add. The rule itself is
//! [`TickWindow::next`], the one `step` is checked against.

use core::cell::Cell;

use super::packing::Packing;
use super::rule::TickWindow;

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
