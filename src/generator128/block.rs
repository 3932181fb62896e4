//! [`Block`]: a run of consecutive states a shard took from its generator's word by one
//! CAS, spent one ID at a time with no atomic, and dropped as soon as the clock's cheap
//! reading passes it.

use super::state::SharedState;
use super::timeline::{Timeline, COUNTER_BITS};
use crate::clock::Clock;

/// States a shard takes per CAS: one tick's counter values, 128.
pub(crate) const BLOCK: u64 = 1 << COUNTER_BITS;

/// The states `next..end` of a shard, taken from the shared word and not yet issued.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Block {
    next: u64,
    end: u64,
}

impl Block {
    /// The next state to issue: the block's next one while the clock's cheap reading has not
    /// passed its tick, else the first of a new block taken by the shared rule
    /// ([`SharedState::take`], which keeps the bound and waits past it). Every state a block
    /// issues is unique across the generator, and each is above the one before.
    #[inline(always)]
    pub(crate) fn next<C: Clock>(
        &mut self,
        state: &SharedState,
        timeline: &Timeline,
        clock: &C,
    ) -> u64 {
        if self.next < self.end
            && timeline.reaches_at_most(clock.recent_unix_nanos(), self.next >> COUNTER_BITS)
        {
            self.next += 1;
            return self.next - 1;
        }
        self.refill(state, timeline, clock)
    }

    /// Takes a new block and issues its first state: out of line, so that the path within a
    /// block stays small.
    #[cold]
    #[inline(never)]
    fn refill<C: Clock>(&mut self, state: &SharedState, timeline: &Timeline, clock: &C) -> u64 {
        let (first, last) = state.take(timeline, clock, BLOCK);
        (self.next, self.end) = (first + 1, last + 1);
        first
    }
}
