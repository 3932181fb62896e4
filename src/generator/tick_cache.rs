//! [`TickCache`]: a thread-owned shortcut for minting within the clock's current tick.
//!
//! Minting in general divides the clock reading into ticks and runs the full
//! [`step`](super::step::step). While the clock stays inside one tick, an owner of its state
//! (a shard lease) can skip both: it remembers where that tick starts in clock nanoseconds,
//! its first and past-the-end states, and the ID bits of the tick and node, so the next ID is
//! one compare of the reading, one `max`, one compare and an OR.

use core::cell::Cell;

/// The current tick's bounds and ID bits; invalid (never matching) until first filled.
#[derive(Debug)]
pub(crate) struct TickCache {
    /// The earliest clock reading (nanoseconds) the cache serves: the tick's start, or 0
    /// when readings behind the tick may keep minting in it (`Rollback::Continue`).
    lower: Cell<u64>,
    /// Readings in `lower..lower + span` are served: up to the tick's end. 0 while invalid.
    span: Cell<u64>,
    /// `tick << sequence_bits`: the tick's first state.
    floor: Cell<u64>,
    /// `(tick + 1) << sequence_bits`: the first state past the tick.
    limit: Cell<u64>,
    /// The ID bits of the tick and the node.
    id_base: Cell<u64>,
}

impl TickCache {
    pub(crate) fn new() -> TickCache {
        TickCache {
            lower: Cell::new(0),
            span: Cell::new(0),
            floor: Cell::new(0),
            limit: Cell::new(0),
            id_base: Cell::new(0),
        }
    }

    /// The state and ID of the next mint, if the clock reading `now` is served by the cached
    /// tick, the tick has a sequence number left after `state`, and that number is not due
    /// for an exact clock reading (`refresh_mask`, see `Minter`). `sequence_shift` places
    /// the sequence in the ID.
    #[inline]
    pub(crate) fn next(
        &self,
        state: u64,
        now: u64,
        sequence_shift: u8,
        refresh_mask: u64,
    ) -> Option<(u64, u64)> {
        if now.wrapping_sub(self.lower.get()) >= self.span.get() {
            return None;
        }
        let floor = self.floor.get();
        let next = state.checked_add(1)?.max(floor);
        if next >= self.limit.get() || next & refresh_mask == 0 {
            return None;
        }
        Some((next, self.id_base.get() | (next - floor) << sequence_shift))
    }

    /// Remembers the tick: it serves clock readings in `lower..lower + span`, spans states
    /// `floor..limit`, and its IDs carry `id_base`.
    pub(crate) fn fill(&self, lower: u64, span: u64, floor: u64, limit: u64, id_base: u64) {
        self.lower.set(lower);
        self.span.set(span);
        self.floor.set(floor);
        self.limit.set(limit);
        self.id_base.set(id_base);
    }
}
