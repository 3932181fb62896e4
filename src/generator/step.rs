//! The pure state transition behind every ID: what the next state is, given the last one and
//! a clock reading.
//!
//! The state packs the last issued `(tick, sequence)` as `tick << sequence_bits | sequence`,
//! so "the next ID" is `max(state + 1, now << sequence_bits)`: `+ 1` takes the next sequence
//! number and, when the sequence is full, carries into the next tick (borrowing it); `max`
//! folds in the clock so issued time never goes backwards.

/// What one attempt may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Move to this state and issue its ID.
    Issue(u64),
    /// Nothing may be issued until the clock reads `until_tick`.
    Wait {
        /// The first clock tick at which the blocked state becomes issuable.
        until_tick: u64,
        /// The clock is behind the last issued tick beyond the lead (stepped back), rather
        /// than the sequence being used up.
        behind: bool,
    },
    /// The time field is full.
    Expired,
}

/// The generator's fixed parameters for [`step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rules {
    pub(crate) sequence_bits: u8,
    pub(crate) max_tick: u64,
    /// Ticks the state may run ahead of the clock.
    pub(crate) lead: u64,
    /// Keep issuing in the last tick while the clock is behind it (Sonyflake style).
    pub(crate) continue_behind: bool,
}

/// The transition from `state` at clock tick `now`.
#[inline]
pub(crate) fn step(state: u64, now: u64, rules: &Rules) -> Step {
    if now > rules.max_tick {
        return Step::Expired;
    }
    let s = rules.sequence_bits;
    // Cannot overflow: now <= max_tick < 2^time_bits and time_bits + s <= 64.
    let floor = now << s;
    let Some(bumped) = state.checked_add(1) else {
        return Step::Expired;
    };
    let next = bumped.max(floor);
    let tick = next >> s;
    if tick > rules.max_tick {
        return Step::Expired;
    }
    let horizon = now.saturating_add(rules.lead);
    let last_tick = state >> s;
    if tick <= horizon || (rules.continue_behind && tick == last_tick) {
        return Step::Issue(next);
    }
    Step::Wait {
        until_tick: tick - rules.lead,
        behind: last_tick > horizon,
    }
}

#[cfg(test)]
mod tests {
    use super::{step, Rules, Step};

    const S: u8 = 2; // 4 IDs per tick keeps exhaustion easy to reach.

    fn rules(lead: u64, continue_behind: bool) -> Rules {
        Rules {
            sequence_bits: S,
            max_tick: 1_000,
            lead,
            continue_behind,
        }
    }

    fn st(tick: u64, seq: u64) -> u64 {
        tick << S | seq
    }

    #[test]
    fn new_tick_starts_at_sequence_zero() {
        assert_eq!(step(st(5, 3), 9, &rules(0, false)), Step::Issue(st(9, 0)));
        assert_eq!(step(0, 9, &rules(0, false)), Step::Issue(st(9, 0)));
    }

    #[test]
    fn same_tick_takes_next_sequence() {
        assert_eq!(step(st(9, 0), 9, &rules(0, false)), Step::Issue(st(9, 1)));
        assert_eq!(step(st(9, 2), 9, &rules(0, false)), Step::Issue(st(9, 3)));
    }

    #[test]
    fn exhaustion_waits_for_the_next_tick_without_lead() {
        assert_eq!(
            step(st(9, 3), 9, &rules(0, false)),
            Step::Wait {
                until_tick: 10,
                behind: false
            }
        );
        assert_eq!(step(st(9, 3), 10, &rules(0, false)), Step::Issue(st(10, 0)));
    }

    #[test]
    fn lead_borrows_future_ticks_up_to_the_bound() {
        let r = rules(2, false);
        assert_eq!(step(st(9, 3), 9, &r), Step::Issue(st(10, 0)));
        assert_eq!(step(st(10, 3), 9, &r), Step::Issue(st(11, 0)));
        assert_eq!(
            step(st(11, 3), 9, &r),
            Step::Wait {
                until_tick: 10,
                behind: false
            }
        );
    }

    #[test]
    fn rollback_waits_or_continues_by_policy() {
        // The clock stepped back from tick 9 to tick 5.
        assert_eq!(
            step(st(9, 1), 5, &rules(0, false)),
            Step::Wait {
                until_tick: 9,
                behind: true
            }
        );
        assert_eq!(step(st(9, 1), 5, &rules(0, true)), Step::Issue(st(9, 2)));
        // Continue still never borrows beyond the lead once the tick is used up.
        assert_eq!(
            step(st(9, 3), 5, &rules(0, true)),
            Step::Wait {
                until_tick: 10,
                behind: true
            }
        );
        // Within the lead a step back is no rollback at all.
        assert_eq!(step(st(9, 1), 7, &rules(2, false)), Step::Issue(st(9, 2)));
    }

    #[test]
    fn time_overflow_is_expired_never_wrapped() {
        let r = rules(0, false);
        assert_eq!(step(0, 1_001, &r), Step::Expired);
        assert_eq!(step(st(1_000, 3), 1_000, &rules(5, false)), Step::Expired);
        assert_eq!(step(st(1_000, 2), 1_000, &r), Step::Issue(st(1_000, 3)));
        let full = Rules {
            sequence_bits: 0,
            max_tick: u64::MAX,
            lead: u64::MAX,
            continue_behind: true,
        };
        assert_eq!(step(u64::MAX, u64::MAX, &full), Step::Expired);
    }

    #[test]
    fn issued_states_always_increase() {
        // Every clock reading, every state, every policy: Issue means a larger state.
        for lead in [0, 1, 3] {
            for cont in [false, true] {
                let r = rules(lead, cont);
                for state in 0..st(20, 3) {
                    for now in 0..25 {
                        if let Step::Issue(next) = step(state, now, &r) {
                            assert!(next > state);
                            assert!(
                                next >> S <= (now + lead).max(if cont { state >> S } else { 0 })
                            );
                        }
                    }
                }
            }
        }
    }
}
