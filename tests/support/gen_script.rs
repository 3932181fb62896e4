//! The generator under a scripted clock: a script of clock moves and minting calls, and the
//! properties every run must keep. Shared by `tests/prop_generator.rs` (proptest),
//! `tests/miri_generator.rs` (fixed scripts under miri) and the `generator` fuzz target
//! (`fuzz/fuzz_targets/generator.rs`, which includes this file by path).
//!
//! One [`ManualClock`] drives every generator of a script; the generators share a layout and
//! have distinct nodes. Calls come from "virtual threads" interleaved in script order: the
//! clock never moves during a call, so each call's clock reading is known exactly and the
//! properties can be checked call by call:
//!
//! - IDs are unique across all generators, strictly increasing per generator and per thread,
//!   carry their generator's node and decode back to themselves;
//! - the lead bound: an ID's tick is at least the clock's tick and at most the clock's tick
//!   plus the lead, or (under `Rollback::Continue`) the tick of the generator's last ID;
//! - refusals are never spurious: a clock tick past the last issued tick always mints, at
//!   sequence 0; `Exhausted` only when the last ID used the whole allowed window,
//!   `ClockBehind` only when the clock is behind it beyond the lead, `Expired` and
//!   `BeforeEpoch` only when the clock or the sequence really is out of range;
//! - every hint is exact: moving the clock by `retry_after` makes the next call succeed (or
//!   find the layout expired), one nanosecond less does not;
//! - every wait is bounded: `try_next_id` returns at once and `next_id_timeout(t)` within
//!   `t` (plus [`SLACK`] for scheduling on a loaded machine).
#![allow(dead_code)] // Each includer uses part of it.

use std::collections::HashSet;
use std::fmt;
use std::time::{Duration, Instant};

use snowmint::clock::{Clock, ManualClock, Rollback};
use snowmint::{Generator, Id, Layout, LayoutError, MintError, Parts};

/// How late a call may return beyond its timeout before the wait counts as unbounded.
/// Timeouts in scripts are at most 65 ms and the clock stands still during a call, so a
/// correct call returns within its timeout plus scheduling delays. 5 s covers those on a
/// loaded 2-core machine (two busy loops beside the tests, fuzzing, sanitizers) with a wide
/// margin; a wait that ignores its timeout is still caught, as every script generator's
/// `max_wait` (which no script call uses) is [`MAX_WAIT`], far beyond it, and a wait without
/// any bound hangs the run (the fuzzer's `-timeout` catches that).
pub const SLACK: Duration = Duration::from_secs(5);

/// The `max_wait` of every script generator: no call of a script should wait for it (they
/// wait at most their own timeout), so a call that did would overrun [`SLACK`] visibly.
pub const MAX_WAIT: Duration = Duration::from_secs(30);

/// One step of a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `try_next_id` on generator `generator` (modulo their number) from virtual thread
    /// `thread`.
    Try { generator: u8, thread: u8 },
    /// `next_id_timeout(Duration::from_micros(micros))`.
    Timeout {
        generator: u8,
        thread: u8,
        micros: u16,
    },
    /// `try_next_ids(n)`: a batch of up to `n` consecutive IDs (0 is taken as 1).
    Batch { generator: u8, thread: u8, n: u16 },
    /// Move the clock forward (saturating).
    Advance(u64),
    /// Move the clock back (saturating at 0): an NTP step, or a TSC reading from a core that
    /// lags.
    Rewind(u64),
    /// Move the clock forward by this many of the layout's ticks.
    AdvanceTicks(u32),
    /// Set the clock to `epoch + offset` nanoseconds.
    SetFromEpoch(u64),
    /// Set the clock to any reading at all, possibly before the epoch or past the expiry.
    Set(u64),
    /// If the generator's last call was refused with a hint, check the hint is exact: at
    /// the hint minus 1 ns still refused, at the hint minted (or expired).
    FollowHint { generator: u8 },
}

/// A whole run.
#[derive(Debug, Clone)]
pub struct Script {
    pub layout: Layout,
    /// How many generators (1 to 4, at most one per node).
    pub generators: u8,
    pub lead: u64,
    pub rollback: Rollback,
    /// Start every generator after the ID with these `(ticks, sequence)` (each masked into
    /// range), as after a restart.
    pub start_after: Option<(u64, u64)>,
    /// The clock's first reading, in nanoseconds after the layout's epoch (saturating).
    pub start: u64,
    pub ops: Vec<Op>,
}

/// What a run did, to check that scripts reach every outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub minted: usize,
    pub exhausted: usize,
    pub behind: usize,
    pub expired: usize,
    pub before_epoch: usize,
    pub hints_followed: usize,
}

impl Stats {
    pub fn add(&mut self, o: Stats) {
        self.minted += o.minted;
        self.exhausted += o.exhausted;
        self.behind += o.behind;
        self.expired += o.expired;
        self.before_epoch += o.before_epoch;
        self.hints_followed += o.hints_followed;
    }
}

/// What the checker knows about one generator.
struct Tracked {
    gen: Generator<ManualClock>,
    /// `(ticks, sequence)` of the last issued ID; the generator's initial state counts as
    /// issued (a fresh generator's state is tick 0, sequence 0).
    last: (u64, u64),
    last_id: Option<Id>,
    /// `(clock reading, retry_after)` of the last refusal that carried a hint, until the
    /// next successful call.
    hint: Option<(u64, Duration)>,
}

/// Runs `script` and panics on any broken property.
pub fn run(script: &Script) -> Stats {
    let mut stats = Stats::default();
    let layout = script.layout;
    let epoch = layout.epoch_unix_nanos();
    let clock = ManualClock::at_unix_nanos(epoch.saturating_add(script.start));
    let nodes = distinct_nodes(layout.max_node(), script.generators);
    let start_after = script.start_after.map(|(t, s)| {
        let (t, s) = (t & layout.max_ticks(), s & layout.max_sequence());
        (
            t,
            s,
            layout
                .compose(
                    t,
                    Parts {
                        node: 0,
                        sequence: s,
                    },
                )
                .unwrap(),
        )
    });
    // A layout already expired by the clock is refused when a generator is built: it could
    // never mint (LayoutError::Expired), which counts as the expired outcome.
    let expiry = layout.tick_start_unix_nanos(layout.max_ticks()) + u128::from(layout.unit_nanos());
    if u128::from(clock.now_unix_nanos()) >= expiry {
        for &node in &nodes {
            let built = Generator::builder(layout)
                .clock(clock.clone())
                .node(node)
                .build();
            assert!(
                matches!(built, Err(LayoutError::Expired { .. })),
                "{script:?}: {built:?}"
            );
            stats.expired += 1;
        }
        return stats;
    }
    let mut gens: Vec<Tracked> = nodes
        .iter()
        .map(|&node| {
            let mut b = Generator::builder(layout)
                .clock(clock.clone())
                .node(node)
                .lead_ticks(script.lead)
                .max_wait(MAX_WAIT)
                .on_rollback(script.rollback);
            if let Some((_, _, id)) = start_after {
                b = b.start_after(id);
            }
            let gen = b.build().expect("node within range");
            // Resuming after (0, 0) is no different from a fresh start.
            let last_id = start_after
                .filter(|&(t, s, _)| (t, s) != (0, 0))
                .map(|(t, s, _)| layout.compose(t, Parts { node, sequence: s }).unwrap());
            assert_eq!(gen.last_id(), last_id, "{script:?}");
            Tracked {
                gen,
                last: start_after.map_or((0, 0), |(t, s, _)| (t, s)),
                last_id,
                hint: None,
            }
        })
        .collect();
    // All IDs minted by all generators; per (generator, thread), the last ID.
    let mut seen: HashSet<u64> = HashSet::new();
    let mut per_thread: Vec<[Option<Id>; 256]> = vec![[None; 256]; gens.len()];
    let ops = &script.ops;
    let ctx = |i: usize| Lazy(move |f| write!(f, "op {i} ({:?})", ops[i]));

    for (i, &op) in script.ops.iter().enumerate() {
        let (generator, thread) = match op {
            Op::Advance(ns) => {
                clock.advance(Duration::from_nanos(ns));
                continue;
            }
            Op::Rewind(ns) => {
                clock.rewind(Duration::from_nanos(ns));
                continue;
            }
            Op::AdvanceTicks(k) => {
                let by = (k as u128 * layout.unit_nanos() as u128).min(u64::MAX as u128);
                clock.advance(Duration::from_nanos(by as u64));
                continue;
            }
            Op::SetFromEpoch(ns) => {
                clock.set_unix_nanos(epoch.saturating_add(ns));
                continue;
            }
            Op::Set(ns) => {
                clock.set_unix_nanos(ns);
                continue;
            }
            Op::FollowHint { generator } => {
                let g = generator as usize % gens.len();
                let t = &mut gens[g];
                follow_hint(t, &layout, script, &clock, &mut seen, &mut stats, &ctx(i));
                continue;
            }
            Op::Try { generator, thread }
            | Op::Timeout {
                generator, thread, ..
            }
            | Op::Batch {
                generator, thread, ..
            } => (generator as usize % gens.len(), thread as usize),
        };
        let t = &mut gens[generator];
        let now = clock.now_unix_nanos();
        let started = Instant::now();
        let (result, requested, timeout) = match op {
            Op::Timeout { micros, .. } => {
                let timeout = Duration::from_micros(micros as u64);
                (
                    t.gen.next_id_timeout(timeout).map(|id| vec![id]),
                    1,
                    timeout,
                )
            }
            Op::Batch { n, .. } => (
                t.gen.try_next_ids(n as u64).map(|b| b.collect()),
                (n as u64).max(1),
                Duration::ZERO,
            ),
            _ => (t.gen.try_next_id().map(|id| vec![id]), 1, Duration::ZERO),
        };
        let took = started.elapsed();
        assert!(took <= timeout + SLACK, "{}: call took {took:?}", ctx(i));
        if let Ok(ids) = &result {
            let slot = &mut per_thread[generator][thread];
            for &id in ids {
                assert!(
                    slot.is_none_or(|prev| id > prev),
                    "{}: thread's IDs not increasing: {slot:?} then {id:?}",
                    ctx(i)
                );
                *slot = Some(id);
                assert!(seen.insert(id.to_u64()), "{}: duplicate {id:?}", ctx(i));
            }
        }
        count(&mut stats, &result);
        check_call(t, &layout, script, now, result, requested, &ctx(i));
    }
    assert_eq!(seen.len(), stats.minted);
    stats
}

/// If the generator's last refusal carried a hint, checks the hint is exact: 1 ns before
/// it the generator still refuses, at it the generator mints (or finds the layout expired).
fn follow_hint(
    t: &mut Tracked,
    layout: &Layout,
    script: &Script,
    clock: &ManualClock,
    seen: &mut HashSet<u64>,
    stats: &mut Stats,
    ctx: &dyn fmt::Display,
) {
    let Some((at, hint)) = t.hint else { return };
    // A due time past u64 nanoseconds cannot be shown by a clock (and the hint saturates
    // there), so only hints that land within range are followed.
    let Some(due) = u64::try_from(hint.as_nanos())
        .ok()
        .filter(|&ns| ns < u64::MAX)
        .and_then(|ns| at.checked_add(ns))
    else {
        return;
    };
    assert!(due > at, "{ctx}: a refusal hints at no wait");
    clock.set_unix_nanos(due - 1);
    let early = t.gen.try_next_id();
    assert!(
        matches!(
            early,
            Err(MintError::Exhausted { .. } | MintError::ClockBehind { .. })
        ),
        "{ctx}: 1 ns before the hint {hint:?}: {early:?}"
    );
    check_call(t, layout, script, due - 1, early.map(|id| vec![id]), 1, ctx);
    clock.set_unix_nanos(due);
    let on_time = t.gen.try_next_id().map(|id| vec![id]);
    assert!(
        matches!(on_time, Ok(_) | Err(MintError::Expired { .. })),
        "{ctx}: at the hint {hint:?}: {on_time:?}"
    );
    stats.hints_followed += 1;
    count(stats, &on_time);
    if let Ok(ids) = &on_time {
        assert!(
            seen.insert(ids[0].to_u64()),
            "{ctx}: duplicate {:?}",
            ids[0]
        );
    }
    check_call(t, layout, script, due, on_time, 1, ctx);
}

fn count(stats: &mut Stats, result: &Result<Vec<Id>, MintError>) {
    match result {
        Ok(ids) => stats.minted += ids.len(),
        Err(MintError::Exhausted { .. }) => stats.exhausted += 1,
        Err(MintError::ClockBehind { .. }) => stats.behind += 1,
        Err(MintError::Expired { .. }) => stats.expired += 1,
        Err(MintError::Layout(LayoutError::TimeBeforeEpoch { .. })) => stats.before_epoch += 1,
        Err(_) => {}
    }
}

/// Context for assertion messages, formatted only when one fails (formatting it for every
/// ID would cost more than the checks).
struct Lazy<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result>(F);

impl<F: Fn(&mut fmt::Formatter<'_>) -> fmt::Result> fmt::Display for Lazy<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.0)(f)
    }
}

/// `count` distinct nodes spread over `0..=max_node` (fewer if the layout has fewer).
pub fn distinct_nodes(max_node: u64, count: u8) -> Vec<u64> {
    let mut nodes = Vec::new();
    for candidate in [0, max_node, max_node / 2, 1] {
        if nodes.len() < count.clamp(1, 4) as usize
            && candidate <= max_node
            && !nodes.contains(&candidate)
        {
            nodes.push(candidate);
        }
    }
    nodes
}

/// Checks one call's result (the IDs of one call, or its refusal) against what the clock
/// (reading `now`) and the generator's last ID allow, and records it. `requested` is how
/// many IDs the call asked for.
fn check_call(
    t: &mut Tracked,
    layout: &Layout,
    script: &Script,
    now: u64,
    result: Result<Vec<Id>, MintError>,
    requested: u64,
    ctx: &dyn fmt::Display,
) {
    let epoch = layout.epoch_unix_nanos();
    // A reading at most the rollback tolerance before the epoch is the epoch's first tick
    // (an exact reading may lag the `SystemTime` the epoch was taken from).
    let epoch_tolerance = Rollback::TOLERANCE.as_nanos() as u64;
    let clock_tick = now
        .checked_sub(epoch)
        .or_else(|| (now.saturating_add(epoch_tolerance) >= epoch).then_some(0))
        .map(|since| since / layout.unit_nanos());
    let (last_tick, last_seq) = t.last;
    let max_seq = layout.max_sequence();
    match result {
        Ok(ids) => {
            let clock_tick = clock_tick.expect("minted before the epoch");
            let horizon = clock_tick.saturating_add(script.lead);
            assert!(
                !ids.is_empty() && ids.len() as u64 <= requested,
                "{ctx}: {} IDs for {requested}",
                ids.len()
            );
            for (k, &id) in ids.iter().enumerate() {
                let d = layout.decode(id);
                let (tick, seq) = (d.ticks(), d.sequence());
                let ctx =
                    Lazy(|f| write!(f, "{ctx}: #{k} {id:?} = {d:?} at clock tick {clock_tick}"));
                assert_eq!(d.node(), t.gen.node(), "{ctx}");
                assert_eq!(
                    layout.compose(
                        tick,
                        Parts {
                            node: d.node(),
                            sequence: seq
                        }
                    ),
                    Ok(id),
                    "{ctx}: bits outside the layout"
                );
                if k == 0 {
                    assert!((tick, seq) > t.last, "{ctx}: not after {:?}", t.last);
                    if clock_tick > last_tick {
                        // A fresh tick always mints, from sequence 0.
                        assert_eq!((tick, seq), (clock_tick, 0), "{ctx}");
                    }
                } else {
                    // A batch is consecutive states.
                    let (pt, ps) = t.last;
                    let next = if ps == max_seq {
                        (pt + 1, 0)
                    } else {
                        (pt, ps + 1)
                    };
                    assert_eq!((tick, seq), next, "{ctx}: batch not consecutive");
                }
                if let Some(prev) = t.last_id {
                    assert!(id > prev, "{ctx}: not after {prev:?}");
                }
                assert!(tick >= clock_tick, "{ctx}: stamped before the clock");
                let continued = script.rollback == Rollback::Continue && tick == last_tick;
                assert!(
                    tick <= horizon || continued,
                    "{ctx}: beyond the lead {}",
                    script.lead
                );
                t.last = (tick, seq);
                t.last_id = Some(id);
            }
            // A batch stops short only at the end of the window it may use: the lead's
            // horizon (or the expiry), or the last issued tick when continuing behind.
            if (ids.len() as u64) < requested {
                let (tick, seq) = t.last;
                assert!(
                    seq == max_seq
                        && (tick == horizon.min(layout.max_ticks())
                            || (script.rollback == Rollback::Continue && tick == last_tick)),
                    "{ctx}: {} of {requested} IDs, stopped at ({tick}, {seq})",
                    ids.len()
                );
            }
            assert_eq!(t.gen.last_id(), t.last_id, "{ctx}");
            t.hint = None;
        }
        Err(err) => {
            let ctx = Lazy(|f| {
                write!(
                    f,
                    "{ctx}: {err:?} at clock tick {clock_tick:?}, last ({last_tick}, {last_seq})"
                )
            });
            assert!(!err.to_string().is_empty());
            // A refusal changes nothing.
            assert_eq!(t.gen.last_id(), t.last_id, "{ctx}");
            let Some(clock_tick) = clock_tick else {
                assert!(
                    matches!(err, MintError::Layout(LayoutError::TimeBeforeEpoch { .. })),
                    "{ctx}"
                );
                return;
            };
            let horizon = clock_tick.saturating_add(script.lead);
            let sequence_full = last_seq == max_seq;
            // A clock this many ticks behind the horizon is a lagging reading, not a step
            // back: the wait is reported as exhaustion.
            let unit = layout.unit_nanos() as u128;
            let tolerance = (Rollback::TOLERANCE.as_nanos().div_ceil(unit)) as u64;
            let lagging = last_tick > horizon && last_tick <= horizon.saturating_add(tolerance);
            let continues = script.rollback == Rollback::Continue;
            match err {
                MintError::Layout(_) => panic!("{ctx}: the clock is past the epoch"),
                MintError::Expired { .. } => assert!(
                    clock_tick > layout.max_ticks()
                        || (last_tick == layout.max_ticks() && sequence_full),
                    "{ctx}: expired early"
                ),
                MintError::Exhausted { retry_after } => {
                    assert!(
                        clock_tick <= layout.max_ticks()
                            && ((last_tick == horizon && sequence_full)
                                || (lagging && (sequence_full || !continues))),
                        "{ctx}: exhausted with room left"
                    );
                    t.hint = Some((now, retry_after));
                }
                MintError::ClockBehind { behind } => {
                    assert!(
                        clock_tick <= layout.max_ticks()
                            && last_tick > horizon.saturating_add(tolerance),
                        "{ctx}: not behind beyond the lead and the tolerance"
                    );
                    if continues {
                        assert!(sequence_full, "{ctx}: Continue refused with sequence left");
                    }
                    t.hint = Some((now, behind));
                }
                _ => panic!("{ctx}: unexpected error"),
            }
        }
    }
}
