//! [`TickCache`]: a thread-owned copy of the current tick's [`TickWindow`], for minting
//! within that tick without dividing the clock reading.
//!
//! An owner of its state (a shard lease) remembers the window of the tick it last minted in
//! and what turns a state of that tick into its ID, so the next ID is the window's fast rule,
//! a shift and an add. The rule itself is [`TickWindow::next`], the one `step` is checked
//! against.

use core::cell::Cell;

use super::rule::TickWindow;

/// The current tick's window and ID bits; serves nothing until first filled.
#[derive(Debug)]
pub(crate) struct TickCache {
    window: Cell<TickWindow>,
    /// The ID of a state `s` of the window's tick is `(s << sequence_shift) + id_offset`
    /// (wrapping): the tick's first ID, less its first state moved to the sequence field.
    id_offset: Cell<u64>,
}

impl TickCache {
    pub(crate) const fn new() -> TickCache {
        TickCache {
            window: Cell::new(TickWindow::EMPTY),
            id_offset: Cell::new(0),
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
        let next = self.window.get().next(state, now, refresh_mask)?;
        Some((
            next,
            (next << sequence_shift).wrapping_add(self.id_offset.get()),
        ))
    }

    /// Takes on `other`'s window and ID bits.
    pub(crate) fn copy_from(&self, other: &TickCache) {
        self.window.set(other.window.get());
        self.id_offset.set(other.id_offset.get());
    }

    /// Remembers the window of the tick just minted in, and the ID of its first state,
    /// whose sequence field (at `sequence_shift`) is zero.
    ///
    /// The ID of a later state `s` of the tick is `first_id | (s - floor) << shift`; the
    /// OR adds bits into the zero sequence field, so it is `first_id + (s << shift) -
    /// (floor << shift)`, and shifts distribute over wrapping differences.
    pub(crate) fn fill(&self, window: TickWindow, first_id: u64, sequence_shift: u8) {
        self.window.set(window);
        self.id_offset
            .set(first_id.wrapping_sub(window.floor << sequence_shift));
    }
}
