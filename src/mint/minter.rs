//! [`Minter`]: the minting engine every source of IDs shares: the rules, the clock, the
//! waiting, and the CAS loop over a [`StateCell`].

use core::cell::Cell;
use core::time::Duration;

use super::cell::StateCell;
use super::hot_tick::HotTick;
use super::packing::Packing;
use super::rule::{step, tolerance_ticks, OwnTick, Rules, Step, TickWindow};
use super::tick_cache::TickCache;
use super::wait::{Stopwatch, Waiter};
use crate::clock::Clock;
use crate::clock::Rollback;
use crate::events::{self, WaitReason};
use crate::id::Id;
use crate::layout::Layout;
use crate::layout::LayoutError;
use crate::mint::MintError;
use crate::sync::{spin_loop, SPIN_DOUBLINGS};

/// Everything about minting except where the state lives and which node is stamped.
#[derive(Debug, Clone)]
pub(crate) struct Minter<C> {
    pub(crate) rules: Rules,
    pub(crate) layout: Layout,
    pub(crate) max_wait: Duration,
    pub(crate) rollback: Rollback,
    pub(crate) clock: C,
    /// The fast rule in the state's own tick for the shared generator; [`OwnTick::NEVER`]
    /// when a tick's end does not fit in u64 Unix nanoseconds (expiry after 2554).
    own_tick: OwnTick,
    /// How IDs are packed from states, precomputed from the layout.
    packing: Packing,
    /// States `s` with `s & refresh_mask == 0` read the exact clock: sequence 0 or 1 modulo
    /// 1,024 (see [`REFRESH_EVERY_BITS`]).
    refresh_mask: u64,
    /// The node its events name; set by the source that owns it.
    pub(crate) whose: events::Whose,
}

/// Why an attempt did not issue.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Blocked {
    Wait {
        until_tick: u64,
        now_nanos: u64,
        behind: bool,
    },
    Fatal(MintError),
}

/// A run of consecutive states `first..=last` taken by one successful attempt.
pub(crate) type Run = (u64, u64);

/// The states whose sequence is 0 or 1 modulo 1,024 take an exact clock reading, even when
/// the cheap one would do: the ticker that publishes the cheap reading can be delayed by a
/// busy CPU. Sequence 1 is every tick's second state, the next one of a minter that issued a
/// tick's first: so a slow minter (one ID per tick, each a tick's first) reads the exact clock
/// for every ID, and a busy one once per tick and once per 1,024 IDs, which bounds its stale
/// stretch to 1,022 IDs. The mask is the low `REFRESH_EVERY_BITS` bits without bit 0, so the
/// test stays one AND.
const REFRESH_EVERY_BITS: u8 = 10;

/// A run and the clock tick it was taken at.
type Taken = (u64, u64, u64);

impl<C: Clock> Minter<C> {
    pub(crate) fn new(
        layout: Layout,
        lead: u64,
        max_wait: Option<Duration>,
        rollback: Rollback,
        clock: C,
    ) -> Minter<C> {
        let rules = Rules {
            sequence_bits: layout.sequence_bits(),
            max_tick: layout.max_ticks(),
            lead,
            continue_behind: rollback == Rollback::Continue,
            tolerance: tolerance_ticks(layout.unit_nanos()),
        };
        let refresh_mask = ((1_u64 << layout.sequence_bits().min(REFRESH_EVERY_BITS)) - 1) & !1;
        let own_tick = u64::try_from(layout.tick_start_unix_nanos(0))
            .map_or(OwnTick::NEVER, |origin| {
                OwnTick::new(&rules, layout.unit_nanos(), origin, refresh_mask)
            });
        Minter {
            rules,
            max_wait: max_wait.unwrap_or_else(|| layout.unit().max(Duration::from_secs(1))),
            own_tick,
            packing: Packing::of(&layout),
            refresh_mask,
            layout,
            rollback,
            clock,
            whose: events::Whose::default(),
        }
    }

    /// Up to `n` states, waiting at most `timeout` for at least one. A wait that cannot end
    /// in time is not started.
    #[inline(always)]
    pub(crate) fn take<S: StateCell>(
        &self,
        cell: &S,
        n: u64,
        timeout: Duration,
    ) -> Result<Run, MintError> {
        self.take_at(cell, n, timeout)
            .map(|(first, last, _)| (first, last))
    }

    #[inline(always)]
    fn take_at<S: StateCell>(
        &self,
        cell: &S,
        n: u64,
        timeout: Duration,
    ) -> Result<Taken, MintError> {
        match self.attempt(cell, n) {
            Ok(taken) => Ok(taken),
            Err(blocked) => self.wait_and_retry(cell, n, blocked, timeout),
        }
    }

    /// Up to `n` states now, or why not.
    #[inline]
    pub(crate) fn try_take<S: StateCell>(&self, cell: &S, n: u64) -> Result<Run, MintError> {
        self.attempt(cell, n)
            .map(|(first, last, _)| (first, last))
            .map_err(|b| self.error_of(b))
    }

    /// One ID, for the node whose bits in place are `node_in_place`, by the fast rule in the
    /// tick the state is already in: the window of that tick computed from the state itself
    /// (for a state shared by threads, which can hold no cache). `None` sends the caller to
    /// the general path (which also handles a lost CAS race, with back-off).
    ///
    /// Under [`Rollback::Continue`] (the default) the CAS comes before the window test: a
    /// locked instruction waits for everything before it, and the test (a shift, a multiply
    /// and two comparisons on the state just loaded) would hold it back by that chain on
    /// every ID. The only reading that window does not serve is one past the tick's end (or
    /// before the epoch): the state is then given back ([`StateCell::restore`]) before the
    /// general path moves on to the clock's tick. Nothing is issued from it; if another
    /// thread built on it meanwhile, it stays a skipped state of a tick that is over.
    /// Under [`Rollback::Wait`] the window also refuses readings behind the tick (a clock
    /// stepped back), where a skipped state would cost that tick one of its IDs: the reading
    /// is tested first, as the rule reads.
    #[inline(always)]
    pub(crate) fn take_one_in_tick<S: StateCell>(
        &self,
        cell: &S,
        node_in_place: u64,
    ) -> Option<Id> {
        let now = self.clock.recent_unix_nanos();
        let current = cell.get();
        let next = self.own_tick.following(current)?;
        let tick = self.own_tick.tick_of(current);
        if self.own_tick.tests_reading_first() {
            if !self.own_tick.serves(tick, now) {
                return None;
            }
            cell.replace(current, next).ok()?;
        } else {
            cell.replace(current, next).ok()?;
            if !self.own_tick.serves(tick, now) {
                cell.restore(next, current);
                return None;
            }
        }
        let tick_part = self.packing.tick_part(tick, node_in_place);
        Some(Id::from_u64(self.packing.id_from(next, tick_part)))
    }

    /// One ID for the owner of `cell`, through `cache` while the clock stays in its tick.
    /// `node_in_place` are the owner's node bits; `noted` hears of each state taken by the
    /// general path (at most once per tick on the hot path).
    #[inline(always)]
    pub(crate) fn take_one_cached(
        &self,
        cell: &Cell<u64>,
        cache: &TickCache,
        node_in_place: u64,
        timeout: Duration,
        noted: impl FnOnce(u64),
    ) -> Result<Id, MintError> {
        match self.take_one_from_cache(cell, cache) {
            Some(id) => Ok(Id::from_u64(id)),
            None => self.take_one_refill(cell, cache, node_in_place, timeout, noted),
        }
    }

    /// The fast path of [`take_one_cached`](Self::take_one_cached) alone: the ID's bits if
    /// the cached window serves the cheap clock reading. Returns a plain `Option<u64>` (two
    /// registers) so callers behind thread-local lookups do not shuffle a `Result` through
    /// memory.
    #[inline(always)]
    pub(crate) fn take_one_from_cache(&self, cell: &Cell<u64>, cache: &TickCache) -> Option<u64> {
        let now = self.clock.recent_unix_nanos();
        let (state, id) = cache.next(cell.get(), now, &self.packing)?;
        cell.set(state);
        Some(id)
    }

    /// [`take_one_from_cache`](Self::take_one_from_cache) for an owner that keeps its place
    /// in a [`HotTick`]: the ID's bits if the hot tick serves the cheap clock reading.
    #[inline(always)]
    pub(crate) fn take_one_hot(&self, hot: &HotTick) -> Option<u64> {
        hot.next(self.clock.recent_unix_nanos())
    }

    /// How this minter packs states into IDs, for loading a [`HotTick`].
    pub(crate) fn packing(&self) -> &Packing {
        &self.packing
    }

    /// The general path of [`take_one_cached`](Self::take_one_cached), which then caches
    /// the window of the clock's tick.
    #[inline(never)]
    fn take_one_refill(
        &self,
        cell: &Cell<u64>,
        cache: &TickCache,
        node_in_place: u64,
        timeout: Duration,
        noted: impl FnOnce(u64),
    ) -> Result<Id, MintError> {
        if let Some((state, id)) = self.take_one_exact_in_tick(cell, cache) {
            noted(state);
            return Ok(Id::from_u64(id));
        }
        let (state, _, tick) = self.take_at(cell, 1, timeout)?;
        noted(state);
        let start = self.tick_start(tick);
        if let Some(window) = start.and_then(|start| self.window(tick, start)) {
            // `state` was issued at clock tick `tick`, so it is at least the tick's first
            // state: the window's precondition holds from here on, as states only grow.
            let window = window.until_refresh(state, self.refresh_mask);
            cache.fill(window, self.packing.tick_part(tick, node_in_place));
        }
        Ok(self.id_of(state, node_in_place))
    }

    /// [`take_one_refill`](Self::take_one_refill) for a state due for an exact reading
    /// (sequence 0 or 1 modulo 1,024, [`REFRESH_EVERY_BITS`]) whose exact reading still falls
    /// in the cached tick: that reading through the tick's whole window, which gives what the
    /// general path's `step` gives for it, and the cache cut at the next state due. Without
    /// it, two calls in every 1,024 went through the general path (about 300 instructions
    /// each, the per-thread paths' largest cost past their loop). The state and the ID, or
    /// `None` for the general path.
    #[inline]
    fn take_one_exact_in_tick(&self, cell: &Cell<u64>, cache: &TickCache) -> Option<(u64, u64)> {
        let state = cell.get();
        if state.wrapping_add(1) & self.refresh_mask != 0 {
            return None;
        }
        let now = self.clock.now_unix_nanos();
        let (next, id, window) = cache.next_exact(
            state,
            now,
            self.rules.sequence_bits,
            self.refresh_mask,
            &self.packing,
        )?;
        // As a CAS would: a clock that mints through this cell may have moved it meanwhile.
        StateCell::replace(cell, state, next).ok()?;
        cache.cut(window);
        Some((next, id))
    }

    /// The fast-rule window of `tick`, which starts at `start` nanoseconds.
    #[inline(always)]
    fn window(&self, tick: u64, start: u64) -> Option<TickWindow> {
        TickWindow::of_tick(
            tick,
            start,
            self.layout.unit_nanos(),
            // Tick 0 starts at the epoch, or on the Unix grid up to a unit before it.
            self.layout.tick_start_unix_nanos(0) as u64,
            &self.rules,
        )
    }

    #[cold]
    fn wait_and_retry<S: StateCell>(
        &self,
        cell: &S,
        n: u64,
        mut blocked: Blocked,
        timeout: Duration,
    ) -> Result<Taken, MintError> {
        let start = Stopwatch::start(&self.clock);
        let mut waiter = Waiter::new();
        let mut waiting = None;
        // Whether `blocked` was found after `start`: the first was found before, and this
        // thread may have been preempted since, so that its reading lags the clock.
        let mut found_since_start = false;
        loop {
            let Blocked::Wait {
                until_tick,
                now_nanos,
                behind,
            } = blocked
            else {
                return Err(self.gave_up(blocked, waiting, start));
            };
            let remaining_wait = self.nanos_until(until_tick, now_nanos);
            if remaining_wait > timeout.saturating_sub(start.elapsed(&self.clock)) {
                if !found_since_start {
                    // Give up only on a state and a reading taken after the wait began.
                    found_since_start = true;
                    match self.attempt(cell, n) {
                        Ok(taken) => return Ok(taken),
                        Err(b) => blocked = b,
                    }
                    continue;
                }
                return Err(self.gave_up(blocked, waiting, start));
            }
            if waiting.is_none() {
                let reason = if behind {
                    WaitReason::ClockBehind
                } else {
                    WaitReason::Exhausted
                };
                events::wait_started(&self.layout, self.whose, reason, remaining_wait);
                waiting = Some(reason);
            }
            waiter.wait(remaining_wait);
            found_since_start = true;
            match self.attempt(cell, n) {
                Ok(taken) => {
                    if let Some(reason) = waiting {
                        events::wait_ended(reason, start.elapsed(&self.clock));
                    }
                    return Ok(taken);
                }
                Err(b) => blocked = b,
            }
        }
    }

    /// The error of a blocked call that stops waiting, with the end of its wait recorded.
    #[cold]
    fn gave_up(
        &self,
        blocked: Blocked,
        waiting: Option<WaitReason>,
        start: Stopwatch,
    ) -> MintError {
        if let Some(reason) = waiting {
            events::wait_ended(reason, start.elapsed(&self.clock));
        }
        let e = self.error_of_blocked(blocked);
        // A wait for the clock recorded how far behind it was: not again with the error.
        let behind_recorded = waiting == Some(WaitReason::ClockBehind);
        events::mint_error_after_wait(&self.layout, self.whose, e.refusal(), behind_recorded);
        e
    }

    /// One pass of the CAS loop: the new states and the clock tick, or why none may be
    /// issued now.
    #[inline(always)]
    fn attempt<S: StateCell>(&self, cell: &S, n: u64) -> Result<Taken, Blocked> {
        let mut current = cell.get();
        let mut exact = current.wrapping_add(1) & self.refresh_mask == 0;
        let (mut now_nanos, mut now) = self.read_clock(&mut exact)?;
        // Whether the reading was taken after `current` was loaded, as a wait or a refusal
        // must be: a lost CAS hands over a newer state.
        let mut after_state = true;
        let mut doublings = 0;
        loop {
            match step(current, now, n, &self.rules) {
                // Issuing past the lead ahead of a cheap reading (a policy that keeps minting
                // while the clock is behind): the cheap reading may only lag, so ask the
                // exact clock before treating it as a clock that stepped back.
                Step::Issue { first, .. }
                    if !exact
                        && first >> self.rules.sequence_bits
                            > now.saturating_add(self.rules.lead) =>
                {
                    exact = true;
                    (now_nanos, now) = self.read_clock(&mut exact)?;
                }
                Step::Issue { first, last } => match cell.replace(current, last) {
                    Ok(()) => return Ok((first, last, now)),
                    Err(actual) => {
                        current = actual;
                        // The reading predates `actual` (this thread may have been preempted
                        // since): no wait nor refusal may be decided on it.
                        after_state = false;
                        for _ in 0..(1_u32 << doublings) {
                            spin_loop();
                        }
                        doublings = (doublings + 1).min(SPIN_DOUBLINGS);
                    }
                },
                Step::Wait { .. } if !exact || !after_state => {
                    // The cheap reading may lag, and one from before a lost CAS is older than
                    // the state: ask the exact clock before blocking.
                    exact = true;
                    after_state = true;
                    (now_nanos, now) = self.read_clock(&mut exact)?;
                }
                Step::Wait { until_tick, behind } => {
                    return Err(Blocked::Wait {
                        until_tick,
                        now_nanos,
                        behind,
                    });
                }
                Step::Expired => {
                    return Err(Blocked::Fatal(MintError::Expired {
                        expiry_unix_millis: self.layout.expiry_unix_millis(),
                    }));
                }
            }
        }
    }

    /// The clock in nanoseconds and in ticks: the cheap reading unless `exact`, and the
    /// exact one (setting `exact`) when the cheap one lies before the epoch, as a lagging
    /// cheap reading can while the exact one is already past it. An exact reading at most
    /// [`Rollback::TOLERANCE`] before the first tick is the first tick: a layout whose epoch
    /// is `SystemTime::now()` is minted with at once, though the clock may run a few
    /// microseconds behind the `SystemTime` the epoch was taken from.
    #[inline(always)]
    fn read_clock(&self, exact: &mut bool) -> Result<(u64, u64), Blocked> {
        if !*exact {
            let nanos = self.clock.recent_unix_nanos();
            if let Some(tick) = self.ticks(nanos) {
                return Ok((nanos, tick));
            }
            *exact = true;
        }
        let nanos = self.clock.now_unix_nanos();
        match self.ticks(nanos) {
            Some(tick) => Ok((nanos, tick)),
            None => self.just_before_the_epoch(nanos),
        }
    }

    /// An exact reading `nanos` before the first tick: that tick if within
    /// [`Rollback::TOLERANCE`] of it, else [`LayoutError::TimeBeforeEpoch`].
    #[cold]
    #[inline(never)]
    fn just_before_the_epoch(&self, nanos: u64) -> Result<(u64, u64), Blocked> {
        let tolerance = Rollback::TOLERANCE.as_nanos() as u64;
        match self.ticks(nanos.saturating_add(tolerance)) {
            Some(_) => Ok((nanos, 0)),
            None => Err(Blocked::Fatal(MintError::Layout(
                LayoutError::TimeBeforeEpoch {
                    // Exact: u64 milliseconds fit in i64.
                    unix_millis: (nanos / 1_000_000) as i64,
                    epoch_unix_millis: self.layout.epoch_unix_millis(),
                },
            ))),
        }
    }

    /// Clock nanoseconds to ticks, on the layout's time grid; `None` before the first tick.
    #[inline(always)]
    fn ticks(&self, now_nanos: u64) -> Option<u64> {
        self.layout.tick_of_unix_nanos(now_nanos)
    }

    /// Where `tick` starts, in clock nanoseconds, if that fits in 64 bits.
    fn tick_start(&self, tick: u64) -> Option<u64> {
        u64::try_from(self.layout.tick_start_unix_nanos(tick)).ok()
    }

    /// The ID of `state` for the node whose bits, in place, are `node_bits`.
    #[inline]
    pub(crate) fn id_of(&self, state: u64, node_bits: u64) -> Id {
        Id::from_u64(self.packing.id_of_state(state, node_bits))
    }

    /// How long from `now_nanos` until the clock reaches `tick`.
    fn nanos_until(&self, tick: u64, now_nanos: u64) -> Duration {
        let at = self.layout.tick_start_unix_nanos(tick);
        let nanos = at.saturating_sub(now_nanos as u128);
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    #[cold]
    fn error_of(&self, blocked: Blocked) -> MintError {
        let e = self.error_of_blocked(blocked);
        events::mint_error(&self.layout, self.whose, e.refusal());
        e
    }

    fn error_of_blocked(&self, blocked: Blocked) -> MintError {
        match blocked {
            Blocked::Fatal(e) => e,
            Blocked::Wait {
                until_tick,
                now_nanos,
                behind: false,
            } => MintError::Exhausted {
                retry_after: self.nanos_until(until_tick, now_nanos),
            },
            Blocked::Wait {
                until_tick,
                now_nanos,
                behind: true,
            } => MintError::ClockBehind {
                behind: self.nanos_until(until_tick, now_nanos),
            },
        }
    }

    /// The state of `id`: a source resuming from it only issues greater IDs of its node.
    pub(crate) fn state_of(&self, id: Id) -> u64 {
        let d = self.layout.decode(id);
        d.ticks() << self.rules.sequence_bits | d.sequence()
    }
}

#[cfg(test)]
mod tests;
