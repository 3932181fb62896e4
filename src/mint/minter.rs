//! [`Minter`]: the minting engine every source of IDs shares: the rules, the clock, the
//! waiting, and the CAS loop over a [`StateCell`].

use core::cell::Cell;
use core::time::Duration;

use super::cell::StateCell;
use super::packing::Packing;
use super::rollback::Rollback;
use super::rule::{step, tolerance_ticks, OwnTick, Rules, Step, TickWindow};
use super::tick_cache::TickCache;
use super::wait::{Stopwatch, Waiter};
use crate::clock::Clock;
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
    /// cheap reading can while the exact one is already past it.
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
mod tests {
    use core::cell::Cell;
    use std::time::Duration;

    use super::{Minter, REFRESH_EVERY_BITS};
    use crate::clock::{Clock, ManualClock};
    use crate::layout::LayoutError;
    use crate::layout::{Layout, Order};
    use crate::mint::rollback::Rollback;
    use crate::mint::tick_cache::TickCache;
    use crate::mint::MintError;
    use crate::sync::{AtomicU64, Ordering};

    /// 2023-11-14T22:13:20Z: past every built-in epoch.
    const NOW_MS: u64 = 1_700_000_000_000;

    fn minter<C: Clock>(layout: Layout, rollback: Rollback, clock: C) -> Minter<C> {
        Minter::new(layout, 0, None, rollback, clock)
    }

    /// After the tick's first two IDs through the general path (the second is due for an
    /// exact reading), the rest of the tick comes from the cached window (the owned and
    /// thread-local hot path): each the general path's next state,
    /// packed with the owner's node, in both field orders (the sequence at bit 0, or above
    /// the node).
    #[test]
    fn one_refill_caches_the_rest_of_the_tick() {
        for order in [Order::TimeNodeSequence, Order::TimeSequenceNode] {
            let layout = Layout::builder()
                .order(order)
                .validate()
                .expect("a valid layout");
            let m = minter(layout, Rollback::Wait, ManualClock::at_unix_millis(NOW_MS));
            let (cell, cache) = (Cell::new(0), TickCache::new());
            let node = layout.node_in_place(5);
            assert_eq!(
                m.take_one_from_cache(&cell, &cache),
                None,
                "empty: serves nothing"
            );
            let mut noted = Vec::new();
            let first = m
                .take_one_cached(&cell, &cache, node, Duration::ZERO, |s| noted.push(s))
                .expect("a fresh state mints");
            assert_eq!(noted, [cell.get()], "the general path reports its state");
            assert_eq!(first, m.id_of(cell.get(), node));
            assert_eq!(
                m.take_one_from_cache(&cell, &cache),
                None,
                "the tick's second state reads the exact clock"
            );
            let second = m
                .take_one_cached(&cell, &cache, node, Duration::ZERO, |s| noted.push(s))
                .expect("the tick has room");
            assert_eq!(noted.len(), 2, "the general path reports its state");
            assert_eq!(second.to_u64(), m.id_of(cell.get(), node).to_u64());
            let tick = layout.decode(first).ticks();
            for k in 2..=20 {
                let id = m
                    .take_one_from_cache(&cell, &cache)
                    .expect("the tick's window was cached");
                assert_eq!(id, m.id_of(cell.get(), node).to_u64(), "{order:?}");
                let d = layout.decode(crate::id::Id::from_u64(id));
                assert_eq!(
                    (d.ticks(), d.node(), d.sequence()),
                    (tick, 5, k),
                    "{order:?}"
                );
            }
        }
    }

    /// The shared generator's fast rule serves the state's own tick once the state is in
    /// the clock's tick (from its third state: the second is due for an exact reading), and
    /// nothing before.
    #[test]
    fn the_own_tick_rule_serves_the_state_s_tick() {
        let m = minter(
            Layout::TWITTER,
            Rollback::Wait,
            ManualClock::at_unix_millis(NOW_MS),
        );
        let cell = AtomicU64::new(0);
        assert_eq!(
            m.take_one_in_tick(&cell, 0),
            None,
            "state 0 is not in the clock's tick"
        );
        let (first, _) = m.take(&cell, 1, Duration::ZERO).expect("mints");
        assert_eq!(
            m.take_one_in_tick(&cell, 0),
            None,
            "the tick's second state reads the exact clock"
        );
        assert_eq!(m.take(&cell, 1, Duration::ZERO), Ok((first + 1, first + 1)));
        for k in 2..=20 {
            // The cell's CAS is `compare_exchange_weak`, which may fail spuriously (miri
            // makes it do so; so can LL/SC hardware): then nothing is taken and the caller
            // goes to the general path. Retry a bounded number of times.
            let mut served = None;
            for _ in 0..1_000 {
                served = m.take_one_in_tick(&cell, 0);
                if served.is_some() {
                    break;
                }
                assert_eq!(
                    crate::mint::cell::StateCell::get(&cell),
                    first + k - 1,
                    "a declined take leaves the state alone"
                );
            }
            assert_eq!(served, Some(m.id_of(first + k, 0)));
        }
        assert_eq!(crate::mint::cell::StateCell::get(&cell), first + 20);
    }

    /// A state cell that records the writes the own-tick rule makes.
    struct Recording {
        state: Cell<u64>,
        writes: core::cell::RefCell<Vec<&'static str>>,
    }

    impl crate::mint::cell::StateCell for Recording {
        fn get(&self) -> u64 {
            self.state.get()
        }
        fn replace(&self, current: u64, next: u64) -> Result<(), u64> {
            self.writes.borrow_mut().push("replace");
            crate::mint::cell::StateCell::replace(&self.state, current, next)
        }
        fn restore(&self, taken: u64, previous: u64) {
            self.writes.borrow_mut().push("restore");
            crate::mint::cell::StateCell::restore(&self.state, taken, previous);
        }
    }

    /// Under `Wait` the own-tick rule tests the reading before it takes a state, so a
    /// refused reading writes nothing (a give-back lost to another thread would cost the
    /// tick an ID); under `Continue` it takes first and gives back.
    #[test]
    fn wait_tests_the_reading_before_taking_and_continue_after() {
        for (rollback, writes) in [
            (Rollback::Wait, vec![]),
            (Rollback::Continue, vec!["replace", "restore"]),
        ] {
            let clock = ManualClock::at_unix_millis(NOW_MS);
            let m = minter(Layout::TWITTER, rollback, &clock);
            let cell = Recording {
                state: Cell::new(0),
                writes: core::cell::RefCell::new(Vec::new()),
            };
            let (first, _) = m.take(&cell, 1, Duration::ZERO).expect("mints");
            m.take(&cell, 1, Duration::ZERO).expect("mints");
            assert_eq!(m.take_one_in_tick(&cell, 0), Some(m.id_of(first + 2, 0)));
            clock.advance(Duration::from_millis(1));
            cell.writes.borrow_mut().clear();
            assert_eq!(m.take_one_in_tick(&cell, 0), None, "{rollback:?}");
            assert_eq!(*cell.writes.borrow(), writes, "{rollback:?}");
            assert_eq!(cell.state.get(), first + 2, "{rollback:?}");
        }
    }

    /// A reading the own-tick window does not serve (the clock in a later tick; or, under
    /// `Wait`, behind the state's tick) declines the take: under `Continue` the rule takes the
    /// state first and gives it back, under `Wait` it tests the reading first and takes
    /// nothing. Either way a declined take issues nothing and leaves the state as it was, and
    /// the general path then takes what `step` gives.
    #[test]
    fn a_reading_the_own_tick_does_not_serve_gives_the_state_back() {
        for (rollback, forward) in [
            (Rollback::Wait, true),
            (Rollback::Wait, false),
            (Rollback::Continue, true),
        ] {
            let clock = ManualClock::at_unix_millis(NOW_MS);
            let m = minter(Layout::TWITTER, rollback, &clock);
            let cell = AtomicU64::new(0);
            let (first, _) = m.take(&cell, 1, Duration::ZERO).expect("mints");
            m.take(&cell, 1, Duration::ZERO).expect("mints");
            // As above: the weak CAS may fail spuriously.
            let served = (0..1_000).find_map(|_| m.take_one_in_tick(&cell, 0));
            assert_eq!(served, Some(m.id_of(first + 2, 0)));
            if forward {
                clock.advance(Duration::from_millis(1));
            } else {
                clock.rewind(Duration::from_millis(1));
            }
            for _ in 0..3 {
                assert_eq!(m.take_one_in_tick(&cell, 0), None, "{rollback:?} {forward}");
                assert_eq!(
                    crate::mint::cell::StateCell::get(&cell),
                    first + 2,
                    "{rollback:?} {forward}: the state is given back"
                );
            }
            if forward {
                let tick = first >> Layout::TWITTER.sequence_bits();
                assert_eq!(
                    m.take(&cell, 1, Duration::ZERO).map(|(s, _)| s),
                    Ok((tick + 1) << Layout::TWITTER.sequence_bits()),
                    "the general path moves to the clock's tick"
                );
            }
        }
    }

    /// A clock whose cheap reading is stuck at `cheap` while the exact one moves on: a
    /// ticker that stopped.
    struct Stuck {
        cheap: u64,
        exact: AtomicU64,
    }

    impl Stuck {
        fn at(unix_nanos: u64) -> Stuck {
            Stuck {
                cheap: unix_nanos,
                exact: AtomicU64::new(unix_nanos),
            }
        }

        /// Moves the exact reading (only) `ms` milliseconds on.
        fn advance_exact(&self, ms: u64) {
            // Relaxed: one thread reads and moves it; no other memory hangs on it.
            self.exact.fetch_add(ms * 1_000_000, Ordering::Relaxed);
        }
    }

    impl Clock for Stuck {
        fn now_unix_nanos(&self) -> u64 {
            // Relaxed: as in `advance_exact`.
            self.exact.load(Ordering::Relaxed)
        }
        fn recent_unix_nanos(&self) -> u64 {
            self.cheap
        }
    }

    /// The three minting paths over one minter: the general one, the shared generator's
    /// own-tick rule, and the owner's tick cache, each on a state of its own.
    struct Paths<'c> {
        m: Minter<&'c Stuck>,
        shared: AtomicU64,
        cell: Cell<u64>,
        cache: TickCache,
    }

    impl Paths<'_> {
        fn new(rollback: Rollback, clock: &Stuck) -> Paths<'_> {
            Paths {
                m: minter(Layout::TWITTER, rollback, clock),
                shared: AtomicU64::new(0),
                cell: Cell::new(0),
                cache: TickCache::new(),
            }
        }

        /// One state through `path`.
        fn mint(&self, path: &str) -> u64 {
            let m = &self.m;
            match path {
                "general" => m.take(&self.shared, 1, Duration::ZERO).unwrap().0,
                "own tick" => match m.take_one_in_tick(&self.shared, 0) {
                    Some(_) => crate::mint::cell::StateCell::get(&self.shared),
                    None => m.take(&self.shared, 1, Duration::ZERO).unwrap().0,
                },
                _ => {
                    m.take_one_cached(&self.cell, &self.cache, 0, Duration::ZERO, |_| {})
                        .unwrap();
                    self.cell.get()
                }
            }
        }
    }

    const PATHS: [&str; 3] = ["general", "own tick", "cached"];

    /// Every path stamps IDs with the cheap reading while no exact one is due, and reads the
    /// exact clock for each state whose sequence is 0 or 1 modulo 1,024: a stuck cheap
    /// reading holds a busy generator's time back for 1,022 IDs at most.
    #[test]
    fn a_stuck_cheap_reading_holds_a_busy_minter_back_for_1022_ids_at_most() {
        let tick_of = |state: u64| state >> 12;
        let stale_tick = Layout::TWITTER
            .tick_of_unix_nanos(NOW_MS * 1_000_000)
            .unwrap();
        let per_refresh = 1_usize << REFRESH_EVERY_BITS;
        for rollback in [Rollback::Wait, Rollback::Continue] {
            for path in PATHS {
                let clock = Stuck::at(NOW_MS * 1_000_000);
                let p = Paths::new(rollback, &clock);
                // Two IDs while the ticker runs: sequence 0 and 1 of the clock's tick.
                let first_two = [p.mint(path), p.mint(path)];
                assert_eq!(
                    first_two,
                    [stale_tick << 12, stale_tick << 12 | 1],
                    "{path}"
                );
                // The ticker stops; the exact clock moves on 5 ms.
                clock.advance_exact(5);
                let busy: Vec<u64> = (0..per_refresh + 100).map(|_| p.mint(path)).collect();
                let stale = busy
                    .iter()
                    .take_while(|&&s| tick_of(s) == stale_tick)
                    .count();
                assert_eq!(
                    stale,
                    per_refresh - 2,
                    "{path} {rollback:?}: IDs stamped by the stuck reading (sequence 2 to 1,023)"
                );
                assert!(
                    busy[stale..].iter().all(|&s| tick_of(s) == stale_tick + 5),
                    "{path} {rollback:?}: after the exact reading, its tick"
                );
            }
        }
    }

    /// A slow minter (one ID per tick, each a tick's first) reads the exact clock for every
    /// ID, as the state after a tick's first is due for it: a stuck cheap reading never
    /// holds its time back.
    #[test]
    fn a_slow_minter_stamps_every_id_with_the_exact_time() {
        let tick = Layout::TWITTER
            .tick_of_unix_nanos(NOW_MS * 1_000_000)
            .unwrap();
        for rollback in [Rollback::Wait, Rollback::Continue] {
            for path in PATHS {
                let clock = Stuck::at(NOW_MS * 1_000_000);
                let p = Paths::new(rollback, &clock);
                let mut want = tick;
                assert_eq!(p.mint(path), want << 12, "{path}: the clock's tick");
                for _ in 0..50 {
                    clock.advance_exact(1);
                    want += 1;
                    assert_eq!(
                        p.mint(path),
                        want << 12,
                        "{path} {rollback:?}: the exact tick, sequence 0"
                    );
                }
            }
        }
    }

    /// A cheap reading behind the state's tick (it lags an exact reading that moved the
    /// state on) is checked against the exact clock by the general path under both
    /// policies, so `Rollback::Continue` does not keep minting there in an old tick for a
    /// clock that only looked behind. (Under Continue the fast paths serve such a reading
    /// in the state's tick, as `step` does; the refresh states bound that.)
    #[test]
    fn a_cheap_reading_behind_the_state_is_checked_against_the_exact_clock() {
        let tick = Layout::TWITTER
            .tick_of_unix_nanos(NOW_MS * 1_000_000)
            .unwrap();
        for rollback in [Rollback::Wait, Rollback::Continue] {
            for path in PATHS {
                if rollback == Rollback::Continue && path != "general" {
                    continue;
                }
                let clock = Stuck::at(NOW_MS * 1_000_000);
                let p = Paths::new(rollback, &clock);
                clock.advance_exact(5);
                // The first two states read the exact clock: 5 ms past the cheap one.
                assert_eq!(
                    [p.mint(path), p.mint(path)],
                    [(tick + 5) << 12, (tick + 5) << 12 | 1]
                );
                for k in 6..20 {
                    clock.advance_exact(1);
                    assert_eq!(
                        p.mint(path),
                        (tick + k) << 12,
                        "{path} {rollback:?}: the exact clock's tick, not the state's"
                    );
                    assert_eq!(p.mint(path), (tick + k) << 12 | 1, "{path} {rollback:?}");
                }
            }
        }
    }

    /// A refusal says how long until the call could succeed: the rest of the tick for a used
    /// up sequence, and the way back to the last issued tick for a clock stepped back.
    #[test]
    fn refusals_say_how_long_to_wait() {
        let clock = ManualClock::at_unix_nanos(NOW_MS * 1_000_000 + 300_000);
        let m = minter(Layout::TWITTER, Rollback::Wait, clock.clone());
        let cell = AtomicU64::new(0);
        let (first, last) = m.try_take(&cell, 1 << 12).unwrap();
        assert_eq!(last - first + 1, 1 << 12, "the whole tick");
        assert_eq!(
            m.try_take(&cell, 1).unwrap_err(),
            MintError::Exhausted {
                retry_after: Duration::from_micros(700)
            }
        );
        clock.rewind(Duration::from_secs(1));
        assert_eq!(
            m.try_take(&cell, 1).unwrap_err(),
            MintError::ClockBehind {
                behind: Duration::from_secs(1) + Duration::from_micros(700)
            }
        );
    }

    /// A clock before the epoch is refused with the reading and the epoch, in milliseconds.
    #[test]
    fn a_reading_before_the_epoch_names_both_times() {
        let layout = Layout::TWITTER;
        let before = layout.epoch_unix_millis() - 1_234;
        let m = minter(
            layout,
            Rollback::Wait,
            ManualClock::at_unix_nanos(before * 1_000_000 + 999_999),
        );
        let err = m.try_take(&AtomicU64::new(0), 1).unwrap_err();
        assert_eq!(
            err,
            MintError::Layout(LayoutError::TimeBeforeEpoch {
                unix_millis: before as i64,
                epoch_unix_millis: layout.epoch_unix_millis(),
            })
        );
    }
}
