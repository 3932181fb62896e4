//! [`Block`]: a run of consecutive states a shard took from its generator's word by one
//! CAS, spent one ID at a time with no atomic, and dropped as soon as the clock's cheap
//! reading passes it.

use super::state::SharedState;
use super::timeline::{Timeline, COUNTER_BITS};
use crate::clock::Clock;

/// States a shard takes per CAS: one tick's counter values, 128.
pub(crate) const BLOCK: u64 = 1 << COUNTER_BITS;

/// The states `next..end` of a shard, taken from the shared word and not yet issued, and
/// the first cheap reading past the tick of the state issued last.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Block {
    next: u64,
    /// The first cheap reading past the tick of the state issued last
    /// ([`Timeline::tick_end_nanos`]; 0: none issued).
    until: u64,
    end: u64,
}

impl Block {
    /// No states: the first call takes a block.
    pub(crate) const EMPTY: Block = Block {
        next: 0,
        until: 0,
        end: 0,
    };

    /// The first cheap reading past the tick of the state issued last (0: none issued).
    #[inline]
    pub(crate) fn until(&self) -> u64 {
        self.until
    }

    /// The next state to issue once a shard's run of the last one is over, for the cheap
    /// reading `reading`: the block's next state if the reading has not passed its tick (a
    /// block of 128 states taken mid-tick reaches into the next tick), else the first of a
    /// new block taken by the shared rule ([`SharedState::take`], which keeps the bound and
    /// waits past it). Every state a block issues is unique across the generator, and each
    /// is above the one before. Out of line, so that a run's path stays small.
    #[cold]
    #[inline(never)]
    pub(crate) fn next_past_tick<C: Clock>(
        &mut self,
        reading: u64,
        state: &SharedState,
        timeline: &Timeline,
        clock: &C,
    ) -> u64 {
        let issued = if self.next < self.end
            && timeline.reaches_at_most(reading, self.next >> COUNTER_BITS)
        {
            self.next
        } else {
            let (first, last) = state.take(timeline, clock, BLOCK);
            self.end = last + 1;
            first
        };
        let tick = issued >> COUNTER_BITS;
        self.next = issued + 1;
        self.until = timeline.tick_end_nanos(tick);
        issued
    }
}
