//! [`TickCache`]: a thread-owned copy of the current tick's [`TickWindow`], for minting
//! within that tick without dividing the clock reading.
//!
//! An owner of its state (a shard lease) remembers the window of the tick it last minted in
//! and the ID bits of that tick and its node, so the next ID is the window's fast rule and an
//! OR. The rule itself is [`TickWindow::next`], the one `step` is checked against.

use core::cell::Cell;

use super::rule::TickWindow;

/// The current tick's window and ID bits; serves nothing until first filled.
#[derive(Debug)]
pub(crate) struct TickCache {
    window: Cell<TickWindow>,
    /// The ID bits of the tick and the node.
    id_base: Cell<u64>,
}

impl TickCache {
    pub(crate) const fn new() -> TickCache {
        TickCache {
            window: Cell::new(TickWindow::EMPTY),
            id_base: Cell::new(0),
        }
    }

    /// The state and ID of the next mint after `state` for the clock reading `now`, if the
    /// cached window serves it (see [`TickWindow::next`]). `sequence_shift` places the
    /// sequence in the ID.
    #[inline(always)]
    pub(crate) fn next(
        &self,
        state: u64,
        now: u64,
        sequence_shift: u8,
        refresh_mask: u64,
    ) -> Option<(u64, u64)> {
        let w = self.window.get();
        let next = w.next(state, now, refresh_mask)?;
        Some((
            next,
            self.id_base.get() | (next - w.floor) << sequence_shift,
        ))
    }

    /// Takes on `other`'s window and ID bits.
    pub(crate) fn copy_from(&self, other: &TickCache) {
        self.window.set(other.window.get());
        self.id_base.set(other.id_base.get());
    }

    /// Remembers the window of the tick just minted in, and the ID bits of its first state.
    pub(crate) fn fill(&self, window: TickWindow, id_base: u64) {
        self.window.set(window);
        self.id_base.set(id_base);
    }
}
