//! The minting rule, in one place: the packed state, the next-state function every ID goes
//! through, and the fast rule for a reading inside a known tick, derived from it.
//!
//! The state packs the last issued `(tick, sequence)` as `tick << sequence_bits | sequence`,
//! so "the next ID" is `max(state + 1, now << sequence_bits)`: `+ 1` takes the next sequence
//! number and, when the sequence is full, carries into the next tick (borrowing it); `max`
//! folds in the clock so issued time never goes backwards.
//!
//! Every path that mints calls [`step`], or [`TickWindow::next`], which gives what `step`
//! gives for the readings it serves (the exhaustive test at the bottom checks that).

use super::rollback::Rollback;

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
        /// The clock is behind the last issued tick beyond the lead and the tolerance (it
        /// stepped back), rather than the sequence being used up.
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
    /// Ticks the clock may lag the last issued tick (beyond the lead) and still count as
    /// not stepped back: readings of one clock on different cores, and a cheap reading
    /// against an exact one, disagree by that much without any step ([`Rollback::TOLERANCE`]).
    pub(crate) tolerance: u64,
}

/// [`Rollback::TOLERANCE`] in ticks of `unit_nanos`, rounded up.
pub(crate) const fn tolerance_ticks(unit_nanos: u64) -> u64 {
    let tolerance = Rollback::TOLERANCE.as_nanos() as u64;
    tolerance.div_ceil(if unit_nanos == 0 { 1 } else { unit_nanos })
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
            behind: last_tick > horizon.saturating_add(rules.tolerance),
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

/// The last state of `state`'s tick: a generator moved there issues its next ID in a later
/// tick, whatever sequence (or node, for another shard) `state` had.
#[inline]
pub(crate) fn last_of_tick(state: u64, sequence_bits: u8) -> u64 {
    tick_end(state, sequence_bits).map_or(u64::MAX, |end| end - 1)
}

/// The clock readings (nanoseconds) that one tick serves without the general path, and the
/// states it spans: the fast rule, for a reading already known to fall in the tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TickWindow {
    /// The earliest reading served: the tick's start, or the first tick's when readings
    /// behind the tick may keep minting in it ([`Rollback::Continue`](super::rollback::Rollback)).
    pub(crate) lower: u64,
    /// Readings in `lower..lower + span` are served: up to the tick's end. 0 serves none.
    pub(crate) span: u64,
    /// `tick << sequence_bits`: the tick's first state.
    pub(crate) floor: u64,
    /// The last state the window issues: the tick's last, or the one before the next state
    /// due for an exact reading ([`until_refresh`](Self::until_refresh)).
    pub(crate) last: u64,
}

impl TickWindow {
    /// A window that serves no reading.
    pub(crate) const EMPTY: TickWindow = TickWindow {
        lower: 0,
        span: 0,
        floor: 0,
        last: 0,
    };

    /// The window of `tick`, which starts at `start` nanoseconds (Unix) and lasts `unit`,
    /// for a layout whose first tick starts at `origin` nanoseconds; `None` if the tick's end
    /// state or end time does not fit in 64 bits (the general path serves those).
    #[inline]
    pub(crate) fn of_tick(
        tick: u64,
        start: u64,
        unit: u64,
        origin: u64,
        rules: &Rules,
    ) -> Option<TickWindow> {
        let floor = tick.checked_shl(rules.sequence_bits.into())?;
        // The end state is above the floor, so at least 1.
        let last = tick_end(floor, rules.sequence_bits)? - 1;
        let end = start.checked_add(unit)?;
        // Under Continue, `step` keeps minting in the last tick for any reading behind it (back
        // to the first tick; before it is an error), but only while the tick is the state's:
        // a cheap reading lagging the exact one that moved the state on is served here.
        let lower = if rules.continue_behind { origin } else { start };
        Some(TickWindow {
            lower,
            span: end - lower,
            floor,
            last,
        })
    }

    /// This window, serving only the states after `state` that come before the next one due
    /// for an exact reading (`s & refresh_mask == 0`): the refresh rule folded into `last`
    /// once per fill, so that [`next`](Self::next) does not test it per ID.
    #[inline]
    pub(crate) fn until_refresh(self, state: u64, refresh_mask: u64) -> TickWindow {
        // The least state above `state` with the mask's bits clear (None past u64::MAX):
        // while a mask bit is set, carry past the highest one.
        let mut due = state.checked_add(1);
        while let Some(d) = due.filter(|d| d & refresh_mask != 0) {
            let k = 63 - (d & refresh_mask).leading_zeros();
            due = (d >> k)
                .checked_add(1)
                .and_then(|up| up.checked_mul(1 << k));
        }
        TickWindow {
            // `due` is above `state`, so `due - 1` does not wrap.
            last: due.map_or(self.last, |due| (due - 1).min(self.last)),
            ..self
        }
    }

    /// The state after `state` for a reading `now` (nanoseconds), if this window serves the
    /// reading and has a state left after `state` (see [`until_refresh`](Self::until_refresh)).
    /// Then it is what `step` gives for the reading's tick; `None` sends the caller to the
    /// general path.
    ///
    /// `state` must be at least `floor` (the window's tick has been issued in): a window is
    /// only ever built for the state's own tick, or cached after issuing in it.
    #[inline(always)]
    pub(crate) fn next(&self, state: u64, now: u64) -> Option<u64> {
        debug_assert!(state >= self.floor || self.span == 0);
        if now.wrapping_sub(self.lower) >= self.span {
            return None;
        }
        // Below `last`, so `state + 1` does not wrap.
        (state < self.last).then(|| state + 1)
    }
}

/// [`TickWindow::next`] for the window of the state's own tick, without building the window:
/// a few ALU operations, for a state shared by threads (which can hold no cache). Made once
/// per generator. In three parts, so that a caller can take the state before testing the
/// reading: [`following`](Self::following) (the next state, unless it is due for an exact
/// reading or leaves the tick), [`tick_of`](Self::tick_of) and [`serves`](Self::serves) (the
/// reading); together they give exactly what [`TickWindow::of_tick`] of the state's tick and
/// then [`TickWindow::next`] give (the exhaustive test checks that).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OwnTick {
    sequence_bits: u8,
    /// The last tick of the layout.
    max_tick: u64,
    /// Nanoseconds per tick.
    unit: u64,
    /// Where tick 0 starts, in clock nanoseconds.
    origin: u64,
    /// `u64::MAX` under Wait (readings inside the tick are served), 0 under Continue (any
    /// reading from tick 0 to the tick's end): masks the tick's start to the lowest reading
    /// served, without a branch on the policy.
    lower_mask: u64,
    /// As in [`TickWindow::next`]; within the sequence bits, so `next & refresh_mask == 0`
    /// also covers a state at the end of its tick and the wrap of `u64::MAX`. 0 serves
    /// nothing ([`NEVER`](Self::NEVER)).
    refresh_mask: u64,
}

impl OwnTick {
    /// The rule that serves nothing: every state goes to the general path.
    pub(crate) const NEVER: OwnTick = OwnTick {
        sequence_bits: 0,
        max_tick: 0,
        unit: 0,
        origin: 0,
        lower_mask: 0,
        refresh_mask: 0,
    };

    /// The rule for `rules` with ticks of `unit` nanoseconds from `origin`; [`NEVER`] if the
    /// last tick's end does not fit in u64 nanoseconds (the general path serves all then),
    /// or `refresh_mask` reaches past the sequence bits.
    ///
    /// [`NEVER`]: Self::NEVER
    pub(crate) fn new(rules: &Rules, unit: u64, origin: u64, refresh_mask: u64) -> OwnTick {
        let sequence_mask = u64::MAX
            .checked_shr(64 - u32::from(rules.sequence_bits))
            .unwrap_or(0);
        let fits = rules
            .max_tick
            .checked_add(1)
            .and_then(|ticks| ticks.checked_mul(unit))
            .and_then(|end| end.checked_add(origin))
            .is_some();
        if refresh_mask & !sequence_mask != 0 || !fits {
            return OwnTick::NEVER;
        }
        OwnTick {
            sequence_bits: rules.sequence_bits,
            max_tick: rules.max_tick,
            unit,
            origin,
            lower_mask: if rules.continue_behind { 0 } else { u64::MAX },
            refresh_mask,
        }
    }

    /// The state after `state` for a reading `now` (nanoseconds), if the window of `state`'s
    /// own tick serves it: what that window's [`TickWindow::next`] gives; with that tick.
    /// The shared generator takes the parts in its own order (the state before the window
    /// test); this is their composition, which the exhaustive test checks.
    #[cfg(test)]
    pub(crate) fn next(&self, state: u64, now: u64) -> Option<(u64, u64)> {
        let next = self.following(state)?;
        let tick = self.tick_of(state);
        self.serves(tick, now).then_some((next, tick))
    }

    /// The state after `state`, unless it is due for an exact reading or leaves `state`'s
    /// tick: the part of the rule that needs neither the clock nor the tick.
    #[inline(always)]
    pub(crate) fn following(&self, state: u64) -> Option<u64> {
        let next = state.wrapping_add(1);
        // The mask is within the sequence bits: a zero there is a refresh, or a carry out of
        // the tick (past the window's `last`), or the wrap of `u64::MAX` to 0.
        (next & self.refresh_mask != 0).then_some(next)
    }

    /// Whether the window refuses readings behind the tick as well as past it (the `Wait`
    /// policy), so that a caller that takes the state before testing the reading must not.
    #[inline(always)]
    pub(crate) fn tests_reading_first(&self) -> bool {
        self.lower_mask != 0
    }

    /// The tick of `state`.
    #[inline(always)]
    pub(crate) fn tick_of(&self, state: u64) -> u64 {
        state >> self.sequence_bits
    }

    /// Whether the window of `tick` serves the reading `now` (never past the layout's last
    /// tick): the part of the rule that needs the clock.
    #[inline(always)]
    pub(crate) fn serves(&self, tick: u64, now: u64) -> bool {
        if tick > self.max_tick {
            return false;
        }
        // No overflow: every tick's end fits in u64 (checked in `new`).
        let start = tick * self.unit;
        let end = start + self.unit;
        // Nanoseconds since tick 0; a reading before it wraps past every tick's end.
        let since = now.wrapping_sub(self.origin);
        // Served: `lower <= since < end`, as two comparisons of the reading (the reading's
        // subtraction then runs beside the tick's, not after it).
        let lower = start & self.lower_mask;
        since < end && since >= lower
    }
}

#[cfg(test)]
mod tests {
    use super::{last_of_tick, step, tick_end, tolerance_ticks, OwnTick, Rules, Step, TickWindow};

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
}
