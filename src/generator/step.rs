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
    /// Move to state `last` and issue the IDs of states `first..=last`.
    Issue {
        /// The first new state.
        first: u64,
        /// The last new state (the new value of the generator's state).
        last: u64,
    },
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

/// The transition from `state` at clock tick `now` for up to `n` (at least 1) consecutive
/// IDs: as many as fit before the last tick the rules allow.
#[inline]
pub(crate) fn step(state: u64, now: u64, n: u64, rules: &Rules) -> Step {
    if now > rules.max_tick {
        return Step::Expired;
    }
    let s = rules.sequence_bits;
    // Cannot overflow: now <= max_tick < 2^time_bits and time_bits + s <= 64.
    let floor = now << s;
    let Some(bumped) = state.checked_add(1) else {
        return Step::Expired;
    };
    let first = bumped.max(floor);
    let tick = first >> s;
    if tick > rules.max_tick {
        return Step::Expired;
    }
    let horizon = now.saturating_add(rules.lead);
    let last_tick = state >> s;
    let limit = if tick <= horizon {
        horizon.min(rules.max_tick)
    } else if rules.continue_behind && tick == last_tick {
        last_tick
    } else {
        return Step::Wait {
            until_tick: tick - rules.lead,
            behind: last_tick > horizon,
        };
    };
    if n <= 1 {
        return Step::Issue { first, last: first };
    }
    // States up to the end of tick `limit` may be issued; u128 as that end may be 2^64.
    let room = (((limit as u128) + 1) << s) - first as u128;
    let count = (n as u128).min(room) as u64;
    Step::Issue {
        first,
        last: first + (count - 1),
    }
}

/// The first state of the tick after `state`'s, if it fits in 64 bits.
#[inline]
pub(crate) fn tick_end(state: u64, sequence_bits: u8) -> Option<u64> {
    let next_tick = (state >> sequence_bits).checked_add(1)?;
    (next_tick <= u64::MAX >> sequence_bits).then(|| next_tick << sequence_bits)
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

    fn one(state: u64, now: u64, r: &Rules) -> Step {
        step(state, now, 1, r)
    }

    fn issue(state: u64) -> Step {
        Step::Issue {
            first: state,
            last: state,
        }
    }

    fn wait(until_tick: u64, behind: bool) -> Step {
        Step::Wait { until_tick, behind }
    }

    #[test]
    fn new_tick_starts_at_sequence_zero() {
        assert_eq!(one(st(5, 3), 9, &rules(0, false)), issue(st(9, 0)));
        assert_eq!(one(0, 9, &rules(0, false)), issue(st(9, 0)));
    }

    #[test]
    fn same_tick_takes_next_sequence() {
        assert_eq!(one(st(9, 0), 9, &rules(0, false)), issue(st(9, 1)));
        assert_eq!(one(st(9, 2), 9, &rules(0, false)), issue(st(9, 3)));
    }

    #[test]
    fn exhaustion_waits_for_the_next_tick_without_lead() {
        assert_eq!(one(st(9, 3), 9, &rules(0, false)), wait(10, false));
        assert_eq!(one(st(9, 3), 10, &rules(0, false)), issue(st(10, 0)));
    }

    #[test]
    fn lead_borrows_future_ticks_up_to_the_bound() {
        let r = rules(2, false);
        assert_eq!(one(st(9, 3), 9, &r), issue(st(10, 0)));
        assert_eq!(one(st(10, 3), 9, &r), issue(st(11, 0)));
        assert_eq!(one(st(11, 3), 9, &r), wait(10, false));
    }

    #[test]
    fn rollback_waits_or_continues_by_policy() {
        // The clock stepped back from tick 9 to tick 5.
        assert_eq!(one(st(9, 1), 5, &rules(0, false)), wait(9, true));
        assert_eq!(one(st(9, 1), 5, &rules(0, true)), issue(st(9, 2)));
        // Continue still never borrows beyond the lead once the tick is used up.
        assert_eq!(one(st(9, 3), 5, &rules(0, true)), wait(10, true));
        // Within the lead a step back is no rollback at all.
        assert_eq!(one(st(9, 1), 7, &rules(2, false)), issue(st(9, 2)));
    }

    #[test]
    fn time_overflow_is_expired_never_wrapped() {
        let r = rules(0, false);
        assert_eq!(one(0, 1_001, &r), Step::Expired);
        assert_eq!(one(st(1_000, 3), 1_000, &rules(5, false)), Step::Expired);
        assert_eq!(one(st(1_000, 2), 1_000, &r), issue(st(1_000, 3)));
        let full = Rules {
            sequence_bits: 0,
            max_tick: u64::MAX,
            lead: u64::MAX,
            continue_behind: true,
        };
        assert_eq!(one(u64::MAX, u64::MAX, &full), Step::Expired);
        assert_eq!(
            step(u64::MAX - 3, u64::MAX - 5, 10, &full),
            Step::Issue {
                first: u64::MAX - 2,
                last: u64::MAX
            }
        );
    }

    #[test]
    fn batches_stop_at_the_last_allowed_tick() {
        // 4 per tick, no lead: from sequence 1 of tick 9 only 2 remain.
        assert_eq!(
            step(st(9, 1), 9, 100, &rules(0, false)),
            Step::Issue {
                first: st(9, 2),
                last: st(9, 3)
            }
        );
        // With 2 ticks of lead the batch spans into ticks 10 and 11.
        assert_eq!(
            step(st(9, 1), 9, 100, &rules(2, false)),
            Step::Issue {
                first: st(9, 2),
                last: st(11, 3)
            }
        );
        // A batch that fits is granted whole.
        assert_eq!(
            step(st(9, 1), 12, 3, &rules(0, false)),
            Step::Issue {
                first: st(12, 0),
                last: st(12, 2)
            }
        );
        // The layout's last tick caps a batch as the lead does.
        assert_eq!(
            step(st(999, 3), 1_000, 100, &rules(9, false)),
            Step::Issue {
                first: st(1_000, 0),
                last: st(1_000, 3)
            }
        );
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "50k pure steps: ~30 s under miri, which adds nothing here"
    )]
    fn issued_states_always_increase_and_respect_the_horizon() {
        // Every clock reading, every state, every policy, several batch sizes.
        for lead in [0, 1, 3] {
            for cont in [false, true] {
                let r = rules(lead, cont);
                for state in 0..st(20, 3) {
                    for now in 0..25 {
                        for n in [1, 2, 5, 9] {
                            match step(state, now, n, &r) {
                                Step::Issue { first, last } => {
                                    assert!(first > state && last >= first);
                                    assert!(last - first < n);
                                    let allowed =
                                        (now + lead).max(if cont { state >> S } else { 0 });
                                    assert!(last >> S <= allowed);
                                }
                                Step::Wait { until_tick, .. } => assert!(until_tick > now),
                                Step::Expired => panic!("no expiry below max_tick"),
                            }
                        }
                    }
                }
            }
        }
    }
}
