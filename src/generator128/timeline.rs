//! [`Timeline`]: the 128-bit generators' time, in 1/4096 ms ticks from the generator's start,
//! packed with a counter into the one state word, and the bound that keeps it near the clock.
//!
//! A state is `tick << COUNTER_BITS | counter`, where `tick` counts 1/4096 ms (about 244 ns,
//! RFC 9562 method 3's `rand_a` unit) from the generator's origin: the millisecond before
//! its first clock reading. Both kinds write a state the same way, time first: the Unix
//! millisecond (`origin + tick / 4096`), the fraction (`tick % 4096`), then the counter; so
//! IDs are ordered as their states.
//!
//! The next state is the 64-bit rule's ([`step`]) with these [`RULES`]: `max(last + 1,
//! floor)`, where the floor is the clock's tick with counter 0, never more than [`LEAD`]
//! ticks (1 ms) ahead of the clock, waiting rather than running further; after a clock step
//! back, IDs carry on in the last issued tick (its counter values), then wait for the clock.

use crate::mint::rule::{step, tolerance_ticks, Rules, Step};

/// The counter's width: 128 values per tick, 524 million per second, more than one word's
/// CAS can hand out (a thread's uncontended CAS alone takes a few nanoseconds).
pub(crate) const COUNTER_BITS: u32 = 7;

/// The counter's bits of a state.
pub(crate) const COUNTER_MASK: u64 = (1 << COUNTER_BITS) - 1;

/// Ticks per millisecond: 4096, the `rand_a` fraction of RFC 9562 method 3.
pub(crate) const TICKS_PER_MS: u64 = 4096;

/// How far (in ticks) the state may run ahead of the clock: 4096 ticks, 1 ms.
pub(crate) const LEAD: u64 = TICKS_PER_MS;

/// The last tick: 2^57 − 1, 1,114 years; a clock reading (u64 nanoseconds, 584 years) is
/// at most 2^56.1 ticks past any origin, so with the lead the state never reaches it.
const MAX_TICK: u64 = (1 << (64 - COUNTER_BITS)) - 1;

/// The rules of [`step`] for the 128-bit state.
pub(crate) const RULES: Rules = Rules {
    sequence_bits: COUNTER_BITS as u8,
    max_tick: MAX_TICK,
    lead: LEAD,
    continue_behind: true,
    // 2 ms of 244.140625 ns ticks, rounded up.
    tolerance: tolerance_ticks(244),
};

/// Nanoseconds in `ticks` ticks, rounded up (a wait's length).
#[inline]
pub(crate) fn nanos_of_ticks(ticks: u64) -> u64 {
    // Cannot overflow for the ticks of a wait: at most the lead beyond a clock reading.
    (ticks.saturating_mul(1_000_000)).div_ceil(TICKS_PER_MS)
}

/// A generator's origin and the arithmetic from clock readings to states and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timeline {
    /// The origin in Unix milliseconds: the millisecond before the first reading, so that
    /// the first tick's counter starts at 0.
    origin_ms: u64,
    /// The origin in Unix nanoseconds (`origin_ms` × 10^6, under 2^64 for any `u64` reading).
    origin_nanos: u64,
}

impl Timeline {
    /// The timeline of a generator whose clock first read `unix_nanos`.
    pub(crate) fn starting_at(unix_nanos: u64) -> Timeline {
        Timeline::at_millisecond((unix_nanos / 1_000_000).saturating_sub(1))
    }

    /// The timeline whose origin is Unix millisecond `origin_ms` (at most `u64::MAX / 10^6`).
    const fn at_millisecond(origin_ms: u64) -> Timeline {
        Timeline {
            origin_ms,
            origin_nanos: origin_ms * 1_000_000,
        }
    }

    /// The tick of a clock reading (0 for a reading before the origin).
    #[inline]
    pub(crate) fn tick_of(&self, unix_nanos: u64) -> u64 {
        let since = unix_nanos.saturating_sub(self.origin_nanos);
        // ms < 2^44.1 and ms * 4096 < 2^56.1: no overflow.
        let ms = since / 1_000_000;
        let fraction = (since % 1_000_000) * TICKS_PER_MS / 1_000_000;
        ms * TICKS_PER_MS + fraction
    }

    /// Whether a clock reading falls in `tick` or before it (`tick_of(unix_nanos) <= tick`),
    /// by one multiply instead of `tick_of`'s divisions: the reading is before the end of
    /// the tick, `(tick + 1)` 1/4096ths of a millisecond past the origin.
    #[inline(always)]
    pub(crate) fn reaches_at_most(&self, unix_nanos: u64, tick: u64) -> bool {
        let since = unix_nanos.saturating_sub(self.origin_nanos);
        // `since / 244.140625 < tick + 1`, exactly, in 128 bits (no overflow: below 2^76 and
        // 2^77, the tick being under 2^57).
        u128::from(since) * u128::from(TICKS_PER_MS) < (u128::from(tick) + 1) * 1_000_000
    }

    /// The first clock reading past `tick`: `reaches_at_most(r, tick)` holds exactly for
    /// readings `r` below it (saturating at `u64::MAX`, which then serves every reading but
    /// `u64::MAX` itself, where `reaches_at_most` also holds but the caller only loses the
    /// fast path). A shard computes it once per tick, so that an ID tests its reading with
    /// one compare instead of a 128-bit multiply.
    #[inline]
    pub(crate) fn tick_end_nanos(&self, tick: u64) -> u64 {
        // `since < (tick + 1) × 10^6 / 4096` holds for an integer `since` exactly when it is
        // below the quotient rounded up. Under 2^77: no overflow in 128 bits.
        let end = (u128::from(tick) + 1) * 1_000_000;
        let since_end = end.div_ceil(u128::from(TICKS_PER_MS));
        u64::try_from(since_end)
            .ok()
            .and_then(|s| s.checked_add(self.origin_nanos))
            .unwrap_or(u64::MAX)
    }

    /// The state after `state` by the fast rule, for a call that takes one state at clock
    /// reading `unix_nanos`: `state + 1` when the reading falls in `state`'s tick or before
    /// it and the tick's counter has room, which is what [`next`](Self::next) gives then
    /// (the floor is not above `state`, and the tick, already issued in, stays within the
    /// lead or is the last issued one); `None` sends the caller to `next`. `take_one` applies
    /// it in two steps, [`following_in_tick`](Self::following_in_tick) before its CAS and
    /// [`reaches_at_most`](Self::reaches_at_most) after; this is the two together, as the
    /// unit test checks them against `next`.
    #[cfg(test)]
    pub(crate) fn next_in_tick(&self, state: u64, unix_nanos: u64) -> Option<u64> {
        self.following_in_tick(state)
            .filter(|_| self.reaches_at_most(unix_nanos, state >> COUNTER_BITS))
    }

    /// The state after `state` in its own tick, if its counter has room: the fast rule's
    /// answer before the reading is tested ([`next_in_tick`](Self::next_in_tick)).
    #[inline(always)]
    pub(crate) fn following_in_tick(&self, state: u64) -> Option<u64> {
        (state & COUNTER_MASK != COUNTER_MASK).then_some(state + 1)
    }

    /// The next `n` (at least 1) states after `state` at clock reading `unix_nanos`: `Ok`
    /// with the first and last, or `Err` with the nanoseconds to wait before trying again.
    #[inline]
    pub(crate) fn next(&self, state: u64, unix_nanos: u64, n: u64) -> Result<(u64, u64), u64> {
        let now = self.tick_of(unix_nanos);
        match step(state, now, n, &RULES) {
            Step::Issue { first, last } => Ok((first, last)),
            Step::Wait { until_tick, .. } => Err(nanos_of_ticks(until_tick.saturating_sub(now))),
            // Unreachable: a reading's tick plus the lead stays below `MAX_TICK`, and the
            // state only passes the clock by the lead or within the last tick. Were it
            // reached, waiting is the answer that never repeats an ID.
            Step::Expired => Err(1_000_000),
        }
    }

    /// A state's Unix millisecond, its fraction of the millisecond (1/4096ths) and counter.
    #[inline]
    pub(crate) fn fields(&self, state: u64) -> (u64, u16, u8) {
        let tick = state >> COUNTER_BITS;
        (
            self.origin_ms + tick / TICKS_PER_MS,
            (tick % TICKS_PER_MS) as u16,
            (state & COUNTER_MASK) as u8,
        )
    }

    /// The Unix millisecond of a state (the origin for state 0: none issued yet).
    #[inline]
    pub(crate) fn unix_millis(&self, state: u64) -> u64 {
        self.fields(state).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Timeline = Timeline::at_millisecond(1_000);

    #[test]
    fn ticks_are_method_3s_fraction_from_the_origin() {
        assert_eq!(T.tick_of(1_000_000_000), 0);
        assert_eq!(T.tick_of(999_000_000), 0, "before the origin");
        assert_eq!(T.tick_of(1_001_500_000), 4096 + 2048);
        assert_eq!(
            T.fields((4096 + 2048) << COUNTER_BITS | 5),
            (1_001, 2048, 5)
        );
        assert_eq!(T.fields(u64::MAX).2, 127);
        let origin = Timeline::starting_at(0);
        assert!(origin.tick_of(u64::MAX) + LEAD + 1 < MAX_TICK);
    }

    /// The fast rule gives what `next` gives, for every state near a reading's tick (both
    /// sides of the lead, full and empty counters, readings on and around tick boundaries).
    #[test]
    #[cfg_attr(
        miri,
        ignore = "a sweep of a million states: slow under miri, pure arithmetic"
    )]
    fn the_fast_rule_is_next_where_it_answers() {
        let mut answered = 0;
        for reading_tick in [0_u64, 1, 4095, 4096, 4097, 1 << 20, (1 << 40) + 7] {
            let start = T.origin_ms * 1_000_000 + (reading_tick * 1_000_000).div_ceil(4096);
            for reading in [
                start.saturating_sub(1),
                start,
                start + 1,
                start + 243,
                start + 244,
            ] {
                let now = T.tick_of(reading);
                assert!(T.reaches_at_most(reading, now));
                assert_eq!(T.reaches_at_most(reading, now.wrapping_sub(1)), now == 0);
                for tick in now.saturating_sub(LEAD + 3)..now + LEAD + 3 {
                    for counter in [0, 1, 64, 126, 127] {
                        let state = tick << COUNTER_BITS | counter;
                        if let Some(fast) = T.next_in_tick(state, reading) {
                            assert_eq!(
                                Ok((fast, fast)),
                                T.next(state, reading, 1),
                                "{state} at {reading}"
                            );
                            answered += 1;
                        } else {
                            assert!(
                                counter == 127 || tick < now,
                                "{state} at {reading} not served"
                            );
                        }
                    }
                }
            }
        }
        assert!(answered > 10_000, "{answered}");
    }

    /// The tick's end reading is exactly where `reaches_at_most` stops holding, around
    /// tick boundaries near the origin, far from it and near the largest tick.
    #[test]
    fn a_ticks_end_reading_is_the_first_reading_past_it() {
        for t in [
            T,
            Timeline::starting_at(0),
            Timeline::starting_at(1_700_000_000_123_456_789),
        ] {
            for tick in [
                0_u64,
                1,
                2,
                4095,
                4096,
                4097,
                12_345,
                1 << 40,
                MAX_TICK - 1,
                MAX_TICK,
            ] {
                let end = t.tick_end_nanos(tick);
                if end < u64::MAX {
                    assert!(!t.reaches_at_most(end, tick), "{tick}: {end} is past it");
                    assert!(
                        t.reaches_at_most(end - 1, tick),
                        "{tick}: {end} - 1 is in it"
                    );
                } else {
                    assert!(t.reaches_at_most(u64::MAX - 1, tick), "{tick}: saturated");
                }
                for r in [0, t.origin_nanos, end / 2, end.saturating_sub(245)] {
                    assert_eq!(r < end, t.reaches_at_most(r, tick) && r < u64::MAX);
                }
            }
        }
    }

    #[test]
    fn a_state_more_than_the_lead_ahead_waits_for_the_clock() {
        let now = 1_001_000_000; // tick 4096
        let ahead = (4096 + LEAD) << COUNTER_BITS | 127; // the lead's last state
        assert!(
            T.next(ahead, now, 1).is_err(),
            "carrying would pass the lead"
        );
        let wait = T.next(ahead, now, 1).unwrap_err();
        assert_eq!(wait, nanos_of_ticks(1));
        assert!(T.next(ahead, now + wait, 1).is_ok());
    }

    #[test]
    fn a_batch_takes_what_fits_within_the_lead() {
        let now = 1_001_000_000;
        let (first, last) = T.next(0, now, u64::MAX).unwrap();
        assert_eq!(first, 4096 << COUNTER_BITS);
        assert_eq!(last, ((4096 + LEAD + 1) << COUNTER_BITS) - 1);
    }

    #[test]
    fn behind_the_clock_the_last_tick_carries_on_then_waits() {
        let last = (8192 << COUNTER_BITS) | 3;
        let stepped_back = 1_001_000_000; // tick 4096, the lead behind tick 8192
        let (first, _) = T.next(last, stepped_back - 1, 1).unwrap();
        assert_eq!(first, last + 1, "the same tick, the next counter");
        let full = (8192 << COUNTER_BITS) | 127;
        assert!(T.next(full, stepped_back - 1, 1).is_err());
    }
}
