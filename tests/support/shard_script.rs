//! Shards under arbitrary lease / mint / release sequences on a scripted clock: the property
//! behind `tests/prop_shards.rs` and the `shards` fuzz target. Whatever the order of leases
//! taken and dropped, thread-local mints, shard releases and clock steps (forwards and
//! backwards), no ID is ever repeated, every lease's and the thread's own IDs strictly
//! increase, every ID carries a node of this host, and under `Rollback::Wait` no ID is
//! stamped beyond the clock plus the lead.
#![allow(dead_code)]

use std::collections::HashSet;
use std::time::Duration;

use snowmint::{Clock, Id, Layout, Lease, ManualClock, MintError, Rollback, ShardedGenerator};

/// One step of a script.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    /// `lease()`: a new lease, kept (or `NoFreeShard`).
    Lease,
    /// Drop lease `slot` (modulo the leases held), handing its shard back.
    Drop { slot: u8 },
    /// `try_next_id` on lease `slot`.
    Mint { slot: u8 },
    /// `try_next_ids(n)` on lease `slot`.
    Batch { slot: u8, n: u8 },
    /// `try_next_id` through this thread's own shard.
    MintLocal,
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
    pub ops: Vec<Op>,
}

/// 40 time bits of 1 µs from 0 (12 days), 1 host bit, up to 3 shard bits, 2 sequence bits:
/// four IDs per tick, so exhaustion, borrowing and waiting come up within a few steps.
const LAYOUT: Layout = Layout::builder()
    .time_bits(40)
    .node_bits(4)
    .sequence_bits(2)
    .unit(Duration::from_micros(1))
    .epoch_unix_millis(0)
    .build_const();

/// The clock starts 1 s after the epoch: rewinds saturate there, far from the epoch error.
const START_NANOS: u64 = 1_000_000_000;

/// What a run minted.
#[derive(Debug, Default)]
pub struct Stats {
    pub ids: usize,
    pub refused: usize,
}

/// Runs `script` and panics on the first broken property.
pub fn run(script: &Script) -> Stats {
    let shard_bits = script.shard_bits % 3 + 1;
    let lead = u64::from(script.lead % 3);
    let clock = ManualClock::at_unix_nanos(START_NANOS);
    let gen = ShardedGenerator::builder(LAYOUT)
        .clock(clock.clone())
        .shard_bits(shard_bits)
        .host(1)
        .lead_ticks(lead)
        .on_rollback(script.rollback)
        .max_wait(Duration::ZERO)
        .build()
        .expect("the split fits the layout");
    let mut seen = HashSet::new();
    let mut leases: Vec<(Lease<ManualClock>, Option<Id>)> = Vec::new();
    let mut local_last: Option<Id> = None;
    let mut stats = Stats::default();
    let mut record = |id: Id, last: &mut Option<Id>, stats: &mut Stats| {
        assert!(seen.insert(id), "{id} minted twice");
        assert!(
            *last < Some(id),
            "{id} not above {last:?} from the same minter"
        );
        *last = Some(id);
        let d = LAYOUT.decode(id);
        assert_eq!(
            d.node() >> shard_bits,
            1,
            "{id}: another host's node {}",
            d.node()
        );
        if script.rollback == Rollback::Wait {
            let now_tick = (clock.now_unix_nanos() - START_NANOS) / 1_000 + START_NANOS / 1_000;
            assert!(
                d.ticks() <= now_tick + lead,
                "{id} stamped beyond the clock plus the lead"
            );
        }
        stats.ids += 1;
    };
    let refused = |e: MintError, stats: &mut Stats| {
        assert!(
            matches!(
                e,
                MintError::Exhausted { .. } | MintError::ClockBehind { .. }
            ),
            "unexpected error {e:?}"
        );
        stats.refused += 1;
    };
    for op in &script.ops {
        match *op {
            Op::Lease => match gen.lease() {
                Ok(lease) => leases.push((lease, None)),
                Err(e) => assert_eq!(
                    e,
                    MintError::NoFreeShard {
                        shards: gen.shards()
                    }
                ),
            },
            Op::Drop { slot } if !leases.is_empty() => {
                leases.swap_remove(usize::from(slot) % leases.len());
            }
            Op::Mint { slot } if !leases.is_empty() => {
                let i = usize::from(slot) % leases.len();
                let (lease, last) = &mut leases[i];
                match lease.try_next_id() {
                    Ok(id) => {
                        assert_eq!(LAYOUT.decode(id).node(), lease.node());
                        record(id, last, &mut stats);
                    }
                    Err(e) => refused(e, &mut stats),
                }
            }
            Op::Batch { slot, n } if !leases.is_empty() => {
                let i = usize::from(slot) % leases.len();
                let (lease, last) = &mut leases[i];
                match lease.try_next_ids(u64::from(n)) {
                    Ok(batch) => {
                        assert!(!batch.is_empty() && batch.len() <= usize::from(n.max(1)));
                        for id in batch {
                            record(id, last, &mut stats);
                        }
                    }
                    Err(e) => refused(e, &mut stats),
                }
            }
            Op::MintLocal => match gen.try_next_id() {
                Ok(id) => record(id, &mut local_last, &mut stats),
                Err(e) => refused(e, &mut stats),
            },
            Op::ReleaseLocal => gen.release_local_shard(),
            Op::Advance { nanos } => clock.advance(Duration::from_nanos(nanos.into())),
            Op::Rewind { nanos } => {
                let floor = START_NANOS;
                let back = u64::from(nanos).min(clock.now_unix_nanos() - floor);
                clock.rewind(Duration::from_nanos(back));
            }
            Op::Drop { .. } | Op::Mint { .. } | Op::Batch { .. } => {}
        }
    }
    stats
}
