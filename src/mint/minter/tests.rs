use core::cell::Cell;
use std::time::Duration;

use super::{Minter, REFRESH_EVERY_BITS};
use crate::clock::Rollback;
use crate::clock::{Clock, ManualClock};
use crate::layout::LayoutError;
use crate::layout::{Layout, Order};
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
