use super::{
    last_of_tick, next_due, step, tick_end, tolerance_ticks, OwnTick, Rules, Step, TickWindow,
};

const S: u8 = 2; // 4 IDs per tick keeps exhaustion easy to reach.

fn rules(lead: u64, continue_behind: bool) -> Rules {
    Rules {
        sequence_bits: S,
        max_tick: 1_000,
        lead,
        continue_behind,
        tolerance: 0,
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
fn the_tolerance_is_two_milliseconds_in_ticks_rounded_up() {
    assert_eq!(tolerance_ticks(1_000_000), 2, "1 ms ticks");
    assert_eq!(tolerance_ticks(1), 2_000_000, "1 ns ticks");
    assert_eq!(tolerance_ticks(3_000_000), 1, "a part of a tick is a tick");
    assert_eq!(tolerance_ticks(10_000_000), 1, "Sonyflake's 10 ms ticks");
    assert_eq!(tolerance_ticks(0), 2_000_000, "no division by zero");
}

#[test]
fn the_last_state_of_a_tick() {
    assert_eq!(last_of_tick(st(9, 0), S), st(9, 3));
    assert_eq!(last_of_tick(st(9, 3), S), st(9, 3));
    assert_eq!(last_of_tick(0, 0), 0, "one state per tick");
    assert_eq!(
        last_of_tick(u64::MAX - 2, S),
        u64::MAX,
        "the last tick of 2^64 states"
    );
    assert_eq!(tick_end(st(9, 2), S), Some(st(10, 0)));
    assert_eq!(tick_end(u64::MAX - 2, S), None);
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
fn lag_within_the_tolerance_is_no_rollback() {
    // The last tick is 9; a reading of 7 lags by 2 ticks.
    let mut r = rules(0, false);
    r.tolerance = 2;
    assert_eq!(one(st(9, 1), 7, &r), wait(9, false));
    assert_eq!(one(st(9, 1), 6, &r), wait(9, true));
    let mut c = rules(0, true);
    c.tolerance = 2;
    assert_eq!(one(st(9, 3), 7, &c), wait(10, false));
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
        tolerance: 0,
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
                                let allowed = (now + lead).max(if cont { state >> S } else { 0 });
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

/// The fast rule agrees with `step`: for every tick's window, every state from the
/// tick's first state (the window's precondition) to three ticks past it, every clock
/// reading from before the epoch to past the last tick, both policies, several leads
/// and refresh masks, and a layout whose last states reach `u64::MAX`: wherever the
/// window serves a reading, its state is the one `step` issues for that reading.
#[test]
#[cfg_attr(miri, ignore = "an exhaustive sweep: slow under miri, pure arithmetic")]
fn the_window_gives_what_step_gives() {
    const UNIT: u64 = 10;
    const EPOCH: u64 = 100;
    // 2 sequence bits with 30 ticks, and 62 sequence bits whose last tick ends at 2^64.
    for (s, max_tick) in [(S, 30_u64), (62, 3)] {
        for lead in [0, 1, 2] {
            for cont in [false, true] {
                for tolerance in [0, 1] {
                    let r = Rules {
                        sequence_bits: s,
                        max_tick,
                        lead,
                        continue_behind: cont,
                        tolerance,
                    };
                    // Mask 0 sends every state to the exact clock (no sequence bits to
                    // count with): the window serves nothing then.
                    assert_eq!(check_windows(&r, UNIT, EPOCH, 0), 0);
                    // 2 is the generators' form: the sequence's low bits without bit 0.
                    for mask in [1, 2, 3] {
                        assert!(
                            check_windows(&r, UNIT, EPOCH, mask) > 0,
                            "the window served nothing: the test checks nothing"
                        );
                    }
                }
            }
        }
    }
}

/// Checks every window of `r`'s ticks; returns how many readings they served.
fn check_windows(r: &Rules, unit: u64, epoch: u64, mask: u64) -> u64 {
    let s = r.sequence_bits;
    let own = OwnTick::new(r, unit, epoch, mask);
    assert_ne!(own, OwnTick::NEVER, "the test's ticks end below 2^64");
    let mut served = 0_u64;
    for tick in 0..=r.max_tick {
        let start = epoch + tick * unit;
        let Some(w) = TickWindow::of_tick(tick, start, unit, epoch, r) else {
            assert!(
                tick_end(tick << s, s).is_none(),
                "only the last tick of 2^64 states may lack a window"
            );
            // The precomputed rule serves that tick's states only as `step` does.
            for state in (0..4).map(|k| u64::MAX - k) {
                for now in 0..epoch + unit * (r.max_tick + 3) {
                    if let Some((next, _)) = own.next(state, now) {
                        assert_eq!(
                            step(state, (now - epoch) / unit, 1, r),
                            Step::Issue {
                                first: next,
                                last: next
                            },
                            "own tick past the windows: state {state:#x} reading {now}"
                        );
                    }
                }
            }
            continue;
        };
        let floor = tick << s;
        assert_eq!(
            (w.floor, w.last),
            (floor, last_of_tick(floor, s)),
            "tick {tick}"
        );
        // States from the tick's first to a little past it, and the tick's last few.
        let near = (0..3 << S.min(s)).map(|k| floor.saturating_add(k));
        let top = (0..4).map(|k| w.last.saturating_sub(k));
        for state in near.chain(top).filter(|&x| x >= floor) {
            for now in 0..epoch + unit * (r.max_tick + 3) {
                if state >> s > r.max_tick {
                    assert_eq!(own.next(state, now), None, "served past the last tick");
                }
                // The window as cached after issuing `state`: up to the next refresh.
                let cached = w.until_refresh(state, mask).next(state, now);
                // What it serves: a reading in the window, and the next state in the
                // tick and not due for an exact reading.
                let in_window = now.wrapping_sub(w.lower) < w.span;
                let want = state
                    .checked_add(1)
                    .filter(|&next| in_window && next <= w.last && next & mask != 0);
                assert_eq!(cached, want, "state {state:#x} reading {now} mask {mask}");
                if state >> s == tick {
                    // The state's own tick: the precomputed rule is this window's.
                    assert_eq!(
                        own.next(state, now),
                        cached.map(|next| (next, tick)),
                        "own tick: state {state:#x} reading {now} rules {r:?}"
                    );
                }
                let Some(next) = cached else {
                    continue;
                };
                served += 1;
                assert!(now >= epoch, "served a reading before the epoch");
                let now_tick = (now - epoch) / unit;
                assert_eq!(
                    step(state, now_tick, 1, r),
                    Step::Issue {
                        first: next,
                        last: next
                    },
                    "state {state:#x} reading {now} ({now_tick}) rules {r:?}"
                );
                assert_ne!(
                    next & mask,
                    0,
                    "a state due for an exact reading was served"
                );
            }
        }
    }
    served
}

/// The closed form of `next_due` for the minters' masks gives what carrying past the mask's
/// highest set bit gives, for every mask `2^b - 2` and states around its blocks and the top
/// of the range.
#[test]
#[cfg_attr(
    miri,
    ignore = "1.5 M states, pure arithmetic: the native run covers it"
)]
fn the_next_due_state_in_closed_form_is_the_carried_one() {
    fn carried(state: u64, mask: u64) -> Option<u64> {
        let mut due = state.checked_add(1);
        while let Some(d) = due.filter(|d| d & mask != 0) {
            let k = 63 - (d & mask).leading_zeros();
            due = (d >> k)
                .checked_add(1)
                .and_then(|up| up.checked_mul(1 << k));
        }
        due
    }
    for b in 1..=16_u32 {
        let mask = (1_u64 << b) - 2;
        for start in [0, 1 << b, 7 << b, u64::MAX - (3 << b)] {
            for state in start..start.saturating_add(3 << b) {
                assert_eq!(
                    next_due(state, mask),
                    carried(state, mask),
                    "{state} {mask:#x}"
                );
            }
        }
        assert_eq!(next_due(u64::MAX, mask), None);
    }
    for (state, mask) in [(5_u64, 0b1010_u64), (1, 0b100), (17, 0b110_0000)] {
        assert_eq!(next_due(state, mask), carried(state, mask));
    }
}
