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

use crate::clock::Rollback;

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
    /// behind the tick may keep minting in it ([`Rollback::Continue`](crate::clock::Rollback::Continue)).
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
        let due = next_due(state, refresh_mask);
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
        if !self.serves(now) {
            return None;
        }
        // Below `last`, so `state + 1` does not wrap.
        (state < self.last).then(|| state + 1)
    }

    /// Whether the reading `now` (nanoseconds) falls in this window's readings: the half of
    /// [`next`](Self::next) that needs no state.
    #[inline(always)]
    pub(crate) fn serves(&self, now: u64) -> bool {
        now.wrapping_sub(self.lower) < self.span
    }
}

/// The least state above `state` with `refresh_mask`'s bits clear (`None` past `u64::MAX`).
/// The minters' masks are `2^b - 2` (states 0 and 1 modulo `2^b`), answered in closed form:
/// the next state if it is due, else the next multiple of `2^b`; any other mask by carrying
/// past its highest set bit while one is set (a loop of up to 64 rounds).
#[inline]
pub(crate) fn next_due(state: u64, refresh_mask: u64) -> Option<u64> {
    let after = state.checked_add(1)?;
    if after & refresh_mask == 0 {
        return Some(after);
    }
    let block = refresh_mask.wrapping_add(2);
    if refresh_mask & 1 == 0 && block.is_power_of_two() {
        // `after` is 2 to `2^b - 1` modulo `2^b`: the next multiple of `2^b` is due.
        return (state | (block - 1)).checked_add(1);
    }
    let mut due = Some(after);
    while let Some(d) = due.filter(|d| d & refresh_mask != 0) {
        let k = 63 - (d & refresh_mask).leading_zeros();
        due = (d >> k)
            .checked_add(1)
            .and_then(|up| up.checked_mul(1 << k));
    }
    due
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
mod tests;
