//! Shards under arbitrary own / mint / release sequences on a scripted clock: the property
//! behind `tests/prop_shards.rs` and the `shards` fuzz target.
//!
//! Every script runs on two sharded generators of the same settings and clock, in lockstep:
//! one is driven through the blocking forms (`next_id`, `next_ids`: the cached hot path of
//! owned shards and thread-local shards, with a `max_wait` of 0 to 5 µs so that a blocked call
//! waits, retries and gives up instead of hanging on the standing clock), the other through
//! the non-blocking forms (`try_next_id`, `try_next_ids`). The clock never moves during a
//! call, so the two must agree on every call: the same IDs, or the same error with the same
//! retry hint. And whenever the state of the shard a call lands on is known (an owned shard's, from
//! the IDs it minted and the state its shard was handed back with; the thread's own shard's,
//! while it keeps it), the outcome must be exactly what the pure step rule of
//! `src/generator/step.rs`, restated in [`expected`], gives.
//!
//! Whatever the order of owned shards taken and dropped, thread-local mints, shard releases and
//! clock steps (forwards, backwards, none), under both rollback policies: no ID is ever
//! repeated, every owned shard's and the thread's own IDs strictly increase, every ID carries a
//! node of this host, and under `Rollback::Wait` no ID is stamped beyond the clock plus the
//! lead.
#![allow(dead_code)]

use std::collections::HashSet;
use std::time::Duration;

use snowmint::clock::{Clock, ManualClock, Rollback};
use snowmint::shard::OwnedShard;
use snowmint::{Id, Layout, MintError, ShardedGenerator};

/// One step of a script.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    /// `own_shard()`: a new owned shard, kept (or `NoFreeShard`).
    OwnedShard,
    /// Drop owned `slot` (modulo the owned shards held), handing its shard back.
    Drop { slot: u8 },
    /// `next_id` / `try_next_id` on owned shard `slot`.
    Mint { slot: u8 },
    /// `next_ids(n)` / `try_next_ids(n)` on owned shard `slot`.
    Batch { slot: u8, n: u8 },
    /// `next_id` / `try_next_id` through this thread's own shard.
    MintLocal,
    /// `next_ids(n)` / `try_next_ids(n)` through this thread's own shard.
    BatchLocal { n: u8 },
    /// `release_local()`.
    ReleaseLocal,
    /// Move the clock forward.
    Advance { nanos: u32 },
    /// Move the clock back.
    Rewind { nanos: u32 },
}

/// A generator's settings and the steps to run on it.
#[derive(Debug, Clone)]
pub struct Script {
    /// Shard bits, taken modulo 3 plus 1 (1 to 3: one to seven exclusive shards).
    pub shard_bits: u8,
    /// Ticks of lead, modulo 3.
    pub lead: u8,
    pub rollback: Rollback,
    /// The blocking generator's `max_wait`, modulo 4: 0, 1, 2 or 5 µs. Ticks are 1 µs, so a
    /// wait of a tick or a few starts, retries on the standing clock, and gives up; longer
    /// waits would only spin longer (and yield, slowly on a busy machine).
    pub wait: u8,
    pub ops: Vec<Op>,
}

/// 40 time bits of 1 µs from 0 (12 days), 1 node bit, up to 3 shard bits, 2 sequence bits:
/// four IDs per tick, so exhaustion, borrowing and waiting come up within a few steps.
const LAYOUT: Layout = Layout::builder()
    .time_bits(40)
    .node_bits(4)
    .sequence_bits(2)
    .unit(Duration::from_micros(1))
    .epoch_unix_millis(0)
    .build_const();

/// The layout's sequence bits and unit, for the restated step rule.
const SEQUENCE_BITS: u8 = 2;
const UNIT_NANOS: u64 = 1_000;

/// The clock starts 1 s after the epoch: rewinds saturate there, far from the epoch error.
const START_NANOS: u64 = 1_000_000_000;

/// What a run minted.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    /// Minting calls made (on each of the two generators).
    pub calls: usize,
    pub ids: usize,
    pub refused: usize,
    /// Calls whose outcome was checked against [`expected`] (the shard's state was known).
    pub modelled: usize,
}

/// The outcome of asking for up to `n` (0 taken as 1) states after `state` at clock reading
/// `now_nanos`, under `lead` and the policy: the first and last state issued, or the refusal
/// with its hint. The rule of `step` in `src/generator/step.rs` (which is crate-private),
/// restated for this layout, which never expires in a script.
pub fn expected(
    state: u64,
    now_nanos: u64,
    n: u64,
    lead: u64,
    rollback: Rollback,
) -> Result<(u64, u64), MintError> {
    let s = SEQUENCE_BITS;
    let now = now_nanos / UNIT_NANOS;
    // The next state, or the clock's tick at sequence 0 if that is later.
    let first = (state + 1).max(now << s);
    let tick = first >> s;
    let last_tick = state >> s;
    let horizon = now + lead;
    let limit = if tick <= horizon {
        horizon
    } else if rollback == Rollback::Continue && tick == last_tick {
        // The clock is behind the state's tick, which still has room: keep minting there.
        last_tick
    } else {
        let until = tick - lead;
        let wait = Duration::from_nanos(until * UNIT_NANOS - now_nanos);
        // Behind by no more than the tolerance is a lagging reading, not a step back.
        let tolerance = (Rollback::TOLERANCE.as_nanos() as u64).div_ceil(UNIT_NANOS);
        return Err(if last_tick > horizon + tolerance {
            MintError::ClockBehind { behind: wait }
        } else {
            MintError::Exhausted { retry_after: wait }
        });
    };
    let room = ((limit + 1) << s) - first;
    Ok((first, first + n.max(1).min(room) - 1))
}

/// The state (`tick << sequence_bits | sequence`) an ID was minted from.
fn state_of(id: Id) -> u64 {
    let d = LAYOUT.decode(id);
    d.ticks() << SEQUENCE_BITS | d.sequence()
}

/// An owned shard shard of each generator on the same shard, what it last minted, and its state when
/// known.
struct Held {
    blocking: OwnedShard<ManualClock>,
    trying: OwnedShard<ManualClock>,
    last: Option<Id>,
    state: Option<u64>,
}

/// What the checker knows of the thread's own shard.
#[derive(Default)]
struct Local {
    last: Option<Id>,
    /// The exclusive shard the thread held after its last call (`local_shard`).
    shard: Option<u64>,
    /// That shard's state, if known: set by a call that minted on it, kept while the thread
    /// keeps it.
    state: Option<u64>,
}

/// Runs `script` and panics on the first broken property.
pub fn run(script: &Script) -> Stats {
    let shard_bits = script.shard_bits % 3 + 1;
    let shard_mask = (1_u64 << shard_bits) - 1;
    let lead = u64::from(script.lead % 3);
    let rollback = script.rollback;
    let clock = ManualClock::at_unix_nanos(START_NANOS);
    let build = |max_wait: Duration| {
        ShardedGenerator::builder(LAYOUT)
            .shard_bits(shard_bits)
            .node(1)
            .lead_ticks(lead)
            .on_rollback(rollback)
            .max_wait(max_wait)
            .clock(clock.clone())
            .build()
            .expect("the split fits the layout")
    };
    let blocking = build(Duration::from_micros(
        [0, 1, 2, 5][usize::from(script.wait % 4)],
    ));
    let trying = build(Duration::ZERO);
    // Every exclusive shard starts at state 0; `None` once the thread-local path held it
    // and handed it back in a state the checker did not follow.
    let mut shard_state: Vec<Option<u64>> = vec![Some(0); trying.shards() as usize];
    let mut seen = HashSet::new();
    let mut held_shards: Vec<Held> = Vec::new();
    let mut local = Local::default();
    let mut stats = Stats::default();

    for (step, op) in script.ops.iter().enumerate() {
        let ctx = || format!("op {step} ({op:?})");
        let now = clock.now_unix_nanos();
        // The call's outcome on both generators, how many IDs it asked for, and the state
        // the shard it lands on had, when known.
        let (a, b, n, known): (Call, Call, u64, Option<u64>) = match *op {
            Op::OwnedShard => {
                match (blocking.own_shard(), trying.own_shard()) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a.node_field(), b.node_field(), "{}", ctx());
                        let state = shard_state[(b.node_field() & shard_mask) as usize];
                        held_shards.push(Held {
                            blocking: a,
                            trying: b,
                            last: None,
                            state,
                        });
                    }
                    (Err(a), Err(b)) => {
                        let none_free = MintError::NoFreeShard {
                            shards: trying.shards(),
                        };
                        assert!(a == none_free && b == none_free, "{}: {a:?}", ctx());
                    }
                    (a, b) => panic!("{}: the generators disagree: {a:?} / {b:?}", ctx()),
                }
                continue;
            }
            Op::Drop { slot } if !held_shards.is_empty() => {
                let held = held_shards.swap_remove(usize::from(slot) % held_shards.len());
                shard_state[(held.trying.node_field() & shard_mask) as usize] = held.state;
                continue;
            }
            Op::Mint { slot } if !held_shards.is_empty() => {
                let held = &held_shards[usize::from(slot) % held_shards.len()];
                (
                    held.blocking.next_id().map(|id| vec![id]),
                    held.trying.try_next_id().map(|id| vec![id]),
                    1,
                    held.state,
                )
            }
            Op::Batch { slot, n } if !held_shards.is_empty() => {
                let held = &held_shards[usize::from(slot) % held_shards.len()];
                (
                    held.blocking.next_ids(n.into()).map(Iterator::collect),
                    held.trying.try_next_ids(n.into()).map(Iterator::collect),
                    n.into(),
                    held.state,
                )
            }
            Op::MintLocal => (
                blocking.next_id().map(|id| vec![id]),
                trying.try_next_id().map(|id| vec![id]),
                1,
                local.state,
            ),
            Op::BatchLocal { n } => (
                blocking.next_ids(n.into()).map(Iterator::collect),
                trying.try_next_ids(n.into()).map(Iterator::collect),
                n.into(),
                local.state,
            ),
            Op::ReleaseLocal => {
                if let Some(shard) = local.shard {
                    shard_state[shard as usize] = local.state;
                }
                blocking.release_local_shard();
                trying.release_local_shard();
                local = Local {
                    last: local.last,
                    ..Local::default()
                };
                continue;
            }
            Op::Advance { nanos } => {
                clock.advance(Duration::from_nanos(nanos.into()));
                continue;
            }
            Op::Rewind { nanos } => {
                let back = u64::from(nanos).min(clock.now_unix_nanos() - START_NANOS);
                clock.rewind(Duration::from_nanos(back));
                continue;
            }
            Op::Drop { .. } | Op::Mint { .. } | Op::Batch { .. } => continue,
        };
        stats.calls += 1;
        assert_eq!(a, b, "{}: next_id(s) and try_next_id(s) disagree", ctx());
        if let Some(state) = known {
            let want = expected(state, now, n, lead, rollback);
            let got = b
                .as_ref()
                .map(|ids| (state_of(ids[0]), state_of(ids[ids.len() - 1])));
            assert_eq!(
                got,
                want.as_ref().copied(),
                "{}: not the step rule from state {state}",
                ctx()
            );
            if let (Ok(ids), Ok((first, last))) = (&b, &want) {
                assert_eq!(
                    ids.len() as u64,
                    last - first + 1,
                    "{}: not consecutive",
                    ctx()
                );
            }
            stats.modelled += 1;
        }
        let ids = match b {
            Ok(ids) => ids,
            Err(e) => {
                assert!(
                    matches!(
                        e,
                        MintError::Exhausted { .. } | MintError::ClockBehind { .. }
                    ),
                    "{}: unexpected error {e:?}",
                    ctx()
                );
                stats.refused += 1;
                Vec::new()
            }
        };
        assert!(ids.len() as u64 <= n.max(1), "{}: {} IDs", ctx(), ids.len());
        let is_local = matches!(op, Op::MintLocal | Op::BatchLocal { .. });
        let shard_index = if is_local {
            0
        } else {
            slot_of(op) % held_shards.len()
        };
        let last = if is_local {
            &mut local.last
        } else {
            &mut held_shards[shard_index].last
        };
        for &id in &ids {
            assert!(seen.insert(id), "{}: {id} minted twice", ctx());
            assert!(*last < Some(id), "{}: {id} not above {last:?}", ctx());
            *last = Some(id);
            let d = LAYOUT.decode(id);
            assert_eq!(
                d.node() >> shard_bits,
                1,
                "{}: a shard of another node",
                ctx()
            );
            if rollback == Rollback::Wait {
                assert!(
                    d.ticks() <= now / UNIT_NANOS + lead,
                    "{}: {id} stamped beyond the clock plus the lead",
                    ctx()
                );
            }
        }
        stats.ids += ids.len();
        let after = ids.last().map(|&id| state_of(id));
        if is_local {
            let shard = trying.local_shard();
            assert_eq!(blocking.local_shard(), shard, "{}", ctx());
            if let Some(&id) = ids.first() {
                let node = LAYOUT.decode(id).node() & shard_mask;
                assert_eq!(shard.unwrap_or(shard_mask), node, "{}", ctx());
            }
            // The state is known after a mint on the thread's own shard, and stays known
            // over a refusal only if the thread kept the shard it had.
            local.state = match (shard, after) {
                (Some(_), Some(state)) => Some(state),
                (Some(s), None) if local.shard == Some(s) => local.state,
                _ => None,
            };
            local.shard = shard;
        } else {
            let held = &mut held_shards[shard_index];
            if let Some(&id) = ids.first() {
                assert_eq!(
                    LAYOUT.decode(id).node(),
                    held.trying.node_field(),
                    "{}",
                    ctx()
                );
            }
            held.state = after.or(held.state);
        }
    }
    stats
}

/// A call's IDs or refusal.
type Call = Result<Vec<Id>, MintError>;

/// The owned slot an owned shard op names (only called for owned ops, with owned shards held).
fn slot_of(op: &Op) -> usize {
    match *op {
        Op::Mint { slot } | Op::Batch { slot, .. } | Op::Drop { slot } => usize::from(slot),
        _ => unreachable!("not an owned shard op: {op:?}"),
    }
}
