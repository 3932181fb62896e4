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
    /// Clock nanoseconds at which the tick starts.
    start: Cell<u64>,
    /// The tick's length in nanoseconds; 0 while invalid.
    unit: Cell<u64>,
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
            start: Cell::new(0),
            unit: Cell::new(0),
            floor: Cell::new(0),
            limit: Cell::new(0),
            id_base: Cell::new(0),
        }
    }

    /// The state and ID of the next mint, if the clock reading `now` lies in the cached
    /// tick and the tick has a sequence number left after `state`. `sequence_shift` places
    /// the sequence in the ID.
    #[inline]
    pub(crate) fn next(&self, state: u64, now: u64, sequence_shift: u8) -> Option<(u64, u64)> {
        if now.wrapping_sub(self.start.get()) >= self.unit.get() {
            return None;
        }
        let floor = self.floor.get();
        let next = state.checked_add(1)?.max(floor);
        if next >= self.limit.get() {
            return None;
        }
        Some((next, self.id_base.get() | (next - floor) << sequence_shift))
    }

    /// Remembers the tick: starts at clock `start`, lasts `unit`, spans states
    /// `floor..limit`, and its IDs carry `id_base`.
    pub(crate) fn fill(&self, start: u64, unit: u64, floor: u64, limit: u64, id_base: u64) {
        self.start.set(start);
        self.unit.set(unit);
        self.floor.set(floor);
        self.limit.set(limit);
        self.id_base.set(id_base);
    }
}
