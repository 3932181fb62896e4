//! [`Uuid7Run`]: a UUIDv7 shard's block and the run of UUIDs of the state it issued last,
//! each above the one before by a fresh random step (RFC 9562 §6.2, method 2), and
//! [`LocalUuids`], the same in cells for a thread-local.

use core::cell::Cell;

use chacha20::rand_core::Rng;

use super::block::Block;
use super::random::with_rng;
use super::uuid7_generator::RANDOM_BITS;
use super::Uuid7Generator;
use crate::clock::Clock;
use crate::id128::Uuid7;

/// Random steps drawn at a time: 64 steps of 16 bits, 128 bytes of the RNG's output in one
/// bulk copy.
const STEPS: usize = 64;

/// A state's range in a UUID's 128 bits: the 55 random bits below the counter.
const STATE_UNIT: u128 = 1 << RANDOM_BITS;

/// A UUID shard's block and the run of UUIDs of the state it issued last: that state's UUID
/// with 55 fresh random bits, then each next UUID the last plus a random step of 1 to 2^16
/// (16 fresh random bits: RFC 9562's "monotonic random", method 2, with a random increment),
/// while it stays in the state's own range (a state's UUIDs share its time and counter and
/// differ in the 55 bits below) and the clock's cheap reading in the state's tick. Every
/// UUID of the run lies in the state's range, so no other shard or call can mint it; one
/// state serves a shard for as long as the cheap reading stays in its tick, so the shared
/// word is touched about once per tick and the rate is not bounded by the generator's 128
/// states per tick.
///
/// An ID costs the cheap reading, two compares, a 128-bit add and a 16-bit step from the
/// run's own buffer (one bulk refill from the thread's ChaCha8 RNG per 64 IDs), where a
/// fresh 55-bit draw per ID costs more than all the rest together.
#[derive(Debug, Clone, Copy)]
pub(super) struct Uuid7Run {
    /// The last UUID of the run (0: none yet).
    id: u128,
    /// The first UUID past the run: the UUID of the state after the issued one, with random
    /// bits 0.
    limit: u128,
    /// The first cheap reading past the issued state's tick ([`Block::until`]).
    until: u64,
    block: Block,
    /// Random steps drawn ahead, `steps[taken..]` not yet used.
    steps: [u16; STEPS],
    taken: usize,
}

impl Uuid7Run {
    /// No state issued yet: the first call takes a block.
    pub(super) const EMPTY: Uuid7Run = Uuid7Run {
        id: 0,
        limit: 0,
        until: 0,
        block: Block::EMPTY,
        steps: [0; STEPS],
        taken: STEPS,
    };

    /// The next UUID of `gen` from this run: the last plus a random step while that stays in
    /// the state's range and the cheap reading in its tick, else the first of a new state.
    #[inline(always)]
    pub(super) fn next<C: Clock>(&mut self, gen: &Uuid7Generator<C>) -> Uuid7 {
        let reading = gen.clock.recent_unix_nanos();
        let i = self.taken;
        // The reading first: tested after the 128-bit compare, its outcome waits in a flag
        // register (two more instructions per ID).
        if reading < self.until {
            if let Some(&step) = self.steps.get(i) {
                let id = self.id + 1 + u128::from(step);
                if id < self.limit {
                    (self.id, self.taken) = (id, i + 1);
                    return Uuid7::from_valid_u128(id);
                }
            }
        }
        self.next_slow(reading, gen)
    }

    /// [`next`](Self::next) when the steps are spent or the run is over: steps drawn
    /// afresh, then the next UUID of the run or the first of a new state.
    #[cold]
    #[inline(never)]
    fn next_slow<C: Clock>(&mut self, reading: u64, gen: &Uuid7Generator<C>) -> Uuid7 {
        if self.taken >= STEPS {
            draw_steps(&mut self.steps);
            self.taken = 0;
        }
        let id = self.id + 1 + u128::from(self.steps[self.taken]);
        self.taken += 1;
        if id < self.limit && reading < self.until {
            self.id = id;
            return Uuid7::from_valid_u128(id);
        }
        let (first, limit, until) = next_state(&mut self.block, reading, gen);
        (self.id, self.limit, self.until) = (first.to_u128(), limit, until);
        first
    }
}

/// The first UUID of the block's next state past `reading`'s tick (a new block if this one
/// is spent), with the run's bounds for it: the first UUID past the state's range and the
/// first cheap reading past its tick.
fn next_state<C: Clock>(
    block: &mut Block,
    reading: u64,
    gen: &Uuid7Generator<C>,
) -> (Uuid7, u128, u64) {
    let state = block.next_past_tick(reading, &gen.state, &gen.timeline, &gen.clock);
    let first = gen.uuid_at(state);
    // Below the next state's UUIDs: the random bits cleared, one state up (past the
    // counter's last value this carries into the variant bits: a bound, never a UUID).
    let limit = (first.to_u128() & !(STATE_UNIT - 1)) + STATE_UNIT;
    (first, limit, block.until())
}

/// Fills `steps` from this thread's RNG, in one bulk copy.
fn draw_steps(steps: &mut [u16; STEPS]) {
    let mut bytes = [0u8; STEPS * 2];
    with_rng(|rng| rng.fill_bytes(&mut bytes));
    for (step, pair) in steps.iter_mut().zip(bytes.chunks_exact(2)) {
        *step = u16::from_le_bytes([pair[0], pair[1]]);
    }
}

/// A [`Uuid7Run`] in cells, for a thread-local: the fast path reads what it tests and
/// writes only the last UUID and the steps taken (a `RefCell` around the run, or a whole
/// `Cell` copied in and out, costs about half again as much per ID).
pub(super) struct LocalUuids {
    id: Cell<u128>,
    limit: Cell<u128>,
    until: Cell<u64>,
    block: Cell<Block>,
    steps: [Cell<u16>; STEPS],
    taken: Cell<usize>,
}

impl LocalUuids {
    /// No state issued yet.
    pub(super) const fn new() -> LocalUuids {
        LocalUuids {
            id: Cell::new(0),
            limit: Cell::new(0),
            until: Cell::new(0),
            block: Cell::new(Block::EMPTY),
            steps: [const { Cell::new(0) }; STEPS],
            taken: Cell::new(STEPS),
        }
    }

    /// [`Uuid7Run::next`] on the cells.
    #[inline(always)]
    pub(super) fn next<C: Clock>(&self, gen: &Uuid7Generator<C>) -> Uuid7 {
        let reading = gen.clock.recent_unix_nanos();
        let i = self.taken.get();
        // The reading first, as in `Uuid7Run::next`.
        if reading < self.until.get() {
            if let Some(step) = self.steps.get(i) {
                let id = self.id.get() + 1 + u128::from(step.get());
                if id < self.limit.get() {
                    self.id.set(id);
                    self.taken.set(i + 1);
                    return Uuid7::from_valid_u128(id);
                }
            }
        }
        self.next_slow(reading, gen)
    }

    /// [`Uuid7Run::next_slow`] on the cells: only the steps are written when they are
    /// drawn afresh, the block and the bounds when a new state is taken.
    #[cold]
    #[inline(never)]
    fn next_slow<C: Clock>(&self, reading: u64, gen: &Uuid7Generator<C>) -> Uuid7 {
        let mut i = self.taken.get();
        if i >= STEPS {
            let mut steps = [0; STEPS];
            draw_steps(&mut steps);
            for (cell, step) in self.steps.iter().zip(steps) {
                cell.set(step);
            }
            i = 0;
        }
        let id = self.id.get() + 1 + u128::from(self.steps[i].get());
        self.taken.set(i + 1);
        if id < self.limit.get() && reading < self.until.get() {
            self.id.set(id);
            return Uuid7::from_valid_u128(id);
        }
        let mut block = self.block.get();
        let (first, limit, until) = next_state(&mut block, reading, gen);
        self.block.set(block);
        self.id.set(first.to_u128());
        self.limit.set(limit);
        self.until.set(until);
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    /// The parts of a UUID a state fixes: its time, fraction and counter.
    fn state_of(id: Uuid7) -> u128 {
        id.to_u128() >> RANDOM_BITS
    }

    #[test]
    fn a_run_steps_by_one_to_two_to_the_sixteen_within_its_state() {
        let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
        let mut run = Uuid7Run::EMPTY;
        let first = run.next(&gen);
        let mut last = first;
        let mut steps = Vec::new();
        // The clock stands still: every UUID comes from the first state's run.
        for _ in 0..10_000 {
            let id = run.next(&gen);
            assert_eq!(state_of(id), state_of(first), "left the state's range");
            assert!(Uuid7::from_u128(id.to_u128()).is_ok(), "not a UUIDv7: {id}");
            steps.push(id.to_u128() - last.to_u128());
            last = id;
        }
        assert!(steps.iter().all(|s| (1..=1 << 16).contains(s)));
        steps.sort_unstable();
        steps.dedup();
        assert!(
            steps.len() > 9_000,
            "the steps are not random: {} distinct",
            steps.len()
        );
        assert!(
            gen.next_uuid() > last,
            "the generator's next state is above the run"
        );
    }

    #[test]
    fn a_run_at_its_limit_takes_the_next_state() {
        let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
        let mut run = Uuid7Run::EMPTY;
        let first = run.next(&gen);
        run.id = run.limit - 1;
        let next = run.next(&gen);
        assert_eq!(
            state_of(next),
            state_of(first) + 1,
            "not the block's next state"
        );
        assert!(next.to_u128() > run.limit - STATE_UNIT && next > first);
        // The cells give the same: a run at its limit moves on.
        let local = LocalUuids::new();
        let a = local.next(&gen);
        local.id.set(local.limit.get() - 1);
        let b = local.next(&gen);
        assert_eq!(state_of(b), state_of(a) + 1);
    }

    #[test]
    fn spent_steps_are_drawn_afresh_and_the_cells_keep_the_run() {
        let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
        let local = LocalUuids::new();
        let ids: Vec<Uuid7> = (0..3 * STEPS).map(|_| local.next(&gen)).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(ids.iter().all(|id| state_of(*id) == state_of(ids[0])));
        let steps: Vec<u128> = ids
            .windows(2)
            .map(|w| w[1].to_u128() - w[0].to_u128())
            .collect();
        assert_ne!(
            steps[..STEPS - 1],
            steps[STEPS..2 * STEPS - 1],
            "a refill repeated"
        );
    }
}
