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
//!   `t` (plus [`SLACK`] for scheduling).
#![allow(dead_code)] // Each includer uses part of it.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use snowmint::{Clock, Generator, Id, Layout, ManualClock, MintError, Rollback};

/// How late a call may return beyond its timeout before the wait counts as unbounded. Generous
/// because the machine may be loaded (fuzzing, parallel builds); an unbounded wait is caught
/// either way.
pub const SLACK: Duration = Duration::from_millis(500);

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
        (t, s, layout.compose(t, 0, s).unwrap())
    });
    let mut gens: Vec<Tracked> = nodes
        .iter()
        .map(|&node| {
            let mut b = Generator::with_clock(layout, clock.clone())
                .node(node)
                .lead_ticks(script.lead)
                .on_rollback(script.rollback);
            if let Some((_, _, id)) = start_after {
                b = b.start_after(id);
            }
            let gen = b.build().expect("node within range");
            // Resuming after (0, 0) is no different from a fresh start.
            let last_id = start_after
                .filter(|&(t, s, _)| (t, s) != (0, 0))
                .map(|(t, s, _)| layout.compose(t, node, s).unwrap());
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
    let ctx = |i: usize| format!("op {i} ({:?})", script.ops[i]);

    for (i, &op) in script.ops.iter().enumerate() {
        match op {
            Op::Advance(ns) => clock.advance(Duration::from_nanos(ns)),
            Op::Rewind(ns) => clock.rewind(Duration::from_nanos(ns)),
            Op::AdvanceTicks(k) => {
                let by = (k as u128 * layout.unit_nanos() as u128).min(u64::MAX as u128);
                clock.advance(Duration::from_nanos(by as u64));
            }
            Op::SetFromEpoch(ns) => clock.set_unix_nanos(epoch.saturating_add(ns)),
            Op::Set(ns) => clock.set_unix_nanos(ns),
            Op::Try { generator, thread }
            | Op::Timeout {
                generator, thread, ..
            } => {
                let g = generator as usize % gens.len();
                let timeout = match op {
                    Op::Timeout { micros, .. } => Some(Duration::from_micros(micros as u64)),
                    _ => None,
                };
                let t = &mut gens[g];
                let now = clock.now_unix_nanos();
                let started = Instant::now();
                let result = match timeout {
                    Some(timeout) => t.gen.next_id_timeout(timeout),
                    None => t.gen.try_next_id(),
                };
                let took = started.elapsed();
                let bound = timeout.unwrap_or(Duration::ZERO) + SLACK;
                assert!(took <= bound, "{}: call took {took:?}", ctx(i));
                if let Ok(id) = result {
                    let slot = &mut per_thread[g][thread as usize];
                    assert!(
                        slot.is_none_or(|prev| id > prev),
                        "{}: thread's IDs not increasing: {slot:?} then {id:?}",
                        ctx(i)
                    );
                    *slot = Some(id);
                    assert!(seen.insert(id.to_u64()), "{}: duplicate {id:?}", ctx(i));
                }
                count(&mut stats, &result);
                check_call(t, &layout, script, now, result, &ctx(i));
            }
            Op::FollowHint { generator } => {
                let g = generator as usize % gens.len();
                let t = &mut gens[g];
                let Some((at, hint)) = t.hint else { continue };
                // A due time past u64 nanoseconds cannot be shown by a clock (and the hint
                // saturates there), so only hints that land within range are followed.
                let Some(due) = u64::try_from(hint.as_nanos())
                    .ok()
                    .filter(|&ns| ns < u64::MAX)
                    .and_then(|ns| at.checked_add(ns))
                else {
                    continue;
                };
                let hint_ns = due - at;
                assert!(hint_ns > 0, "{}: a refusal hints at no wait", ctx(i));
                clock.set_unix_nanos(due - 1);
                let early = t.gen.try_next_id();
                assert!(
                    matches!(
                        early,
                        Err(MintError::Exhausted { .. } | MintError::ClockBehind { .. })
                    ),
                    "{}: 1 ns before the hint {hint:?}: {early:?}",
                    ctx(i)
                );
                check_call(t, &layout, script, due - 1, early, &ctx(i));
                clock.set_unix_nanos(due);
                let on_time = t.gen.try_next_id();
                assert!(
                    matches!(on_time, Ok(_) | Err(MintError::Expired { .. })),
                    "{}: at the hint {hint:?}: {on_time:?}",
                    ctx(i)
                );
                stats.hints_followed += 1;
                count(&mut stats, &on_time);
                if let Ok(id) = on_time {
                    assert!(seen.insert(id.to_u64()), "{}: duplicate {id:?}", ctx(i));
                }
                check_call(t, &layout, script, due, on_time, &ctx(i));
            }
        }
    }
    assert_eq!(seen.len(), stats.minted);
    stats
}

fn count(stats: &mut Stats, result: &Result<Id, MintError>) {
    match result {
        Ok(_) => stats.minted += 1,
        Err(MintError::Exhausted { .. }) => stats.exhausted += 1,
        Err(MintError::ClockBehind { .. }) => stats.behind += 1,
        Err(MintError::Expired { .. }) => stats.expired += 1,
        Err(MintError::BeforeEpoch { .. }) => stats.before_epoch += 1,
        Err(_) => {}
    }
}

/// `count` distinct nodes spread over `0..=max_node` (fewer if the layout has fewer).
pub fn distinct_nodes(max_node: u64, count: u8) -> Vec<u64> {
    let mut nodes = Vec::new();
    for candidate in [0, max_node, max_node / 2, 1] {
        if nodes.len() < count.clamp(1, 4) as usize && candidate <= max_node {
            if !nodes.contains(&candidate) {
                nodes.push(candidate);
            }
        }
    }
    nodes
}

/// Checks one call's result against what the clock (reading `now`) and the generator's
/// last ID allow, and records it.
fn check_call(
    t: &mut Tracked,
    layout: &Layout,
    script: &Script,
    now: u64,
    result: Result<Id, MintError>,
    ctx: &str,
) {
    let epoch = layout.epoch_unix_nanos();
    let clock_tick = now
        .checked_sub(epoch)
        .map(|since| since / layout.unit_nanos());
    let (last_tick, last_seq) = t.last;
    let horizon = clock_tick.map(|c| c.saturating_add(script.lead));
    match result {
        Ok(id) => {
            let d = layout.decode(id);
            let tick = d.ticks();
            let ctx = format!("{ctx}: {id:?} = {d:?} at clock tick {clock_tick:?}");
            assert_eq!(d.node(), t.gen.node(), "{ctx}");
            assert_eq!(
                layout.compose(tick, d.node(), d.sequence()),
                Ok(id),
                "{ctx}: bits outside the layout"
            );
            assert!(
                (tick, d.sequence()) > t.last,
                "{ctx}: not after {:?}",
                t.last
            );
            if let Some(prev) = t.last_id {
                assert!(id > prev, "{ctx}: not after {prev:?}");
            }
            let clock_tick = clock_tick.expect("minted before the epoch");
            assert!(tick >= clock_tick, "{ctx}: stamped before the clock");
            let continued = script.rollback == Rollback::Continue && tick == last_tick;
            assert!(
                tick <= clock_tick.saturating_add(script.lead) || continued,
                "{ctx}: beyond the lead {}",
                script.lead
            );
            if clock_tick > last_tick {
                assert_eq!((tick, d.sequence()), (clock_tick, 0), "{ctx}");
            }
            assert_eq!(t.gen.last_id(), Some(id), "{ctx}");
            t.last = (tick, d.sequence());
            t.last_id = Some(id);
            t.hint = None;
        }
        Err(err) => {
            let ctx = format!(
                "{ctx}: {err:?} at clock tick {clock_tick:?}, last ({last_tick}, {last_seq})"
            );
            assert!(!err.to_string().is_empty());
            // A refusal changes nothing.
            assert_eq!(t.gen.last_id(), t.last_id, "{ctx}");
            let Some(clock_tick) = clock_tick else {
                assert!(matches!(err, MintError::BeforeEpoch { .. }), "{ctx}");
                return;
            };
            let horizon = horizon.unwrap();
            let sequence_full = last_seq == layout.max_sequence();
            match err {
                MintError::BeforeEpoch { .. } => panic!("{ctx}: the clock is past the epoch"),
                MintError::Expired { .. } => assert!(
                    clock_tick > layout.max_ticks()
                        || (last_tick == layout.max_ticks() && sequence_full),
                    "{ctx}: expired early"
                ),
                MintError::Exhausted { retry_after } => {
                    assert!(
                        clock_tick <= layout.max_ticks() && last_tick == horizon && sequence_full,
                        "{ctx}: exhausted with room left"
                    );
                    t.hint = Some((now, retry_after));
                }
                MintError::ClockBehind { behind } => {
                    assert!(
                        clock_tick <= layout.max_ticks() && last_tick > horizon,
                        "{ctx}: not behind beyond the lead"
                    );
                    if script.rollback == Rollback::Continue {
                        assert!(sequence_full, "{ctx}: Continue refused with sequence left");
                    }
                    t.hint = Some((now, behind));
                }
                _ => panic!("{ctx}: unknown error"),
            }
        }
    }
}
