//! [`Block`]: a run of consecutive states a shard took from its generator's word by one
//! CAS, spent one ID at a time with no atomic, and dropped as soon as the clock's cheap
//! reading passes it.

use core::cell::Cell;

use super::state::SharedState;
use super::timeline::{Timeline, COUNTER_BITS};
use crate::clock::Clock;

/// States a shard takes per CAS: one tick's counter values, 128.
pub(crate) const BLOCK: u64 = 1 << COUNTER_BITS;

/// The states `next..end` of a shard, taken from the shared word and not yet issued, and
/// what the fast path needs of the tick `next` is in, worked out once per tick.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Block {
    next: u64,
    /// The end of the states the fast path serves: the block's end, or the first state of
    /// the tick after `next`'s, whichever comes first (0: none, a new block).
    in_tick: u64,
    /// The first cheap reading past the tick of the states below `in_tick`
    /// ([`Timeline::tick_end_nanos`]): the fast path serves readings below it.
    until: u64,
    end: u64,
}

impl Block {
    /// No states: the first call takes a block.
    pub(crate) const EMPTY: Block = Block {
        next: 0,
        in_tick: 0,
        until: 0,
        end: 0,
    };

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
        let reading = clock.recent_unix_nanos();
        match self.next_in_tick(reading) {
            Some(next) => next,
            None => self.next_past_tick(reading, state, timeline, clock),
        }
    }

    /// The fast path of [`next`](Self::next): the next state if it is in the tick of the
    /// state before it and `reading` has not passed that tick (two compares: what
    /// `reaches_at_most` of the state's tick gives, [`Timeline::tick_end_nanos`]).
    #[inline(always)]
    pub(crate) fn next_in_tick(&mut self, reading: u64) -> Option<u64> {
        if self.next < self.in_tick && reading < self.until {
            self.next += 1;
            return Some(self.next - 1);
        }
        None
    }

    /// The first cheap reading past the tick of the state issued last (0: none issued).
    #[inline]
    pub(crate) fn until(&self) -> u64 {
        self.until
    }

    /// [`next`](Self::next) past the fast path, for the cheap reading `reading`: the block's
    /// next state if the reading has not passed its tick (a block of 128 states taken
    /// mid-tick reaches into the next tick), else the first of a new block. Out of line, so
    /// that the path within a tick stays small.
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
        self.in_tick = self.end.min((tick + 1) << COUNTER_BITS);
        self.until = timeline.tick_end_nanos(tick);
        issued
    }
}

/// A [`Block`] in cells, for a thread-local: the fast path reads the three words it tests
/// and writes only `next`, where copying a whole `Cell<Block>` in and out per ID would
/// write every field back (and read it whole, past the stores of the call before).
#[derive(Debug)]
pub(crate) struct LocalBlock {
    next: Cell<u64>,
    in_tick: Cell<u64>,
    until: Cell<u64>,
    end: Cell<u64>,
}

impl LocalBlock {
    /// No states: the first call takes a block.
    pub(crate) const fn new() -> LocalBlock {
        LocalBlock {
            next: Cell::new(0),
            in_tick: Cell::new(0),
            until: Cell::new(0),
            end: Cell::new(0),
        }
    }

    /// [`Block::next`] on the cells.
    #[inline(always)]
    pub(crate) fn next<C: Clock>(
        &self,
        state: &SharedState,
        timeline: &Timeline,
        clock: &C,
    ) -> u64 {
        let reading = clock.recent_unix_nanos();
        match self.next_in_tick(reading) {
            Some(next) => next,
            None => self.next_past_tick(reading, state, timeline, clock),
        }
    }

    /// [`Block::next_in_tick`] on the cells.
    #[inline(always)]
    pub(crate) fn next_in_tick(&self, reading: u64) -> Option<u64> {
        let next = self.next.get();
        if next < self.in_tick.get() && reading < self.until.get() {
            self.next.set(next + 1);
            return Some(next);
        }
        None
    }

    /// [`Block::next_past_tick`] on the cells.
    #[cold]
    #[inline(never)]
    pub(crate) fn next_past_tick<C: Clock>(
        &self,
        reading: u64,
        state: &SharedState,
        timeline: &Timeline,
        clock: &C,
    ) -> u64 {
        let mut block = Block {
            next: self.next.get(),
            in_tick: self.in_tick.get(),
            until: self.until.get(),
            end: self.end.get(),
        };
        let issued = block.next_past_tick(reading, state, timeline, clock);
        self.next.set(block.next);
        self.in_tick.set(block.in_tick);
        self.until.set(block.until);
        self.end.set(block.end);
        issued
    }
}
