//! Property test of `fill` under a scripted clock: fills of any length between clock moves
//! (forwards and back), on a generator and on a thread-local shard, never write an ID twice
//! or out of order, write exactly the count they report, and leave the rest alone.
#![cfg(not(miri))] // proptest is far too slow under miri; tests/fill.rs runs there.

use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use snowmint::clock::{ManualClock, Rollback};
use snowmint::source::FillError;
use snowmint::{Generator, Id, Layout, MintError, ShardedGenerator};

/// 4 IDs per 1 ms tick, 4 node numbers.
const TINY: Layout = Layout::builder()
    .time_bits(50)
    .node_bits(2)
    .sequence_bits(2)
    .max_bits(64)
    .epoch_unix_millis(1_600_000_000_000)
    .build_const();

/// What no source issues: the slots a fill left alone keep it.
const UNTOUCHED: Id = Id::MIN;

#[derive(Debug, Clone)]
enum Op {
    Fill(usize),
    Advance(u64),
    Rewind(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0_usize..30).prop_map(Op::Fill),
        2 => (0_u64..3_000).prop_map(Op::Advance),
        1 => (0_u64..3_000).prop_map(Op::Rewind),
    ]
}

/// Runs `ops`, filling through `fill`; checks every fill against everything written before.
fn run(
    clock: &ManualClock,
    ops: &[Op],
    fill: impl Fn(&mut [Id]) -> Result<(), FillError<MintError>>,
) -> Result<(), TestCaseError> {
    let mut last: Option<Id> = None;
    for op in ops {
        match *op {
            Op::Advance(us) => clock.advance(Duration::from_micros(us)),
            Op::Rewind(us) => clock.rewind(Duration::from_micros(us)),
            Op::Fill(n) => {
                let mut out = vec![UNTOUCHED; n];
                let filled = match fill(&mut out) {
                    Ok(()) => n,
                    Err(e) => {
                        prop_assert!(e.filled() < n, "an error after filling everything");
                        e.filled()
                    }
                };
                prop_assert!(out[filled..].iter().all(|&id| id == UNTOUCHED));
                for &id in &out[..filled] {
                    prop_assert!(last.is_none_or(|l| id > l), "{id} after {last:?}");
                    last = Some(id);
                }
            }
        }
    }
    Ok(())
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fills_never_repeat_or_reorder(
        ops in prop::collection::vec(op(), 1..40),
        lead in 0_u64..3,
        wait in any::<bool>(),
    ) {
        let policy = if wait { Rollback::Wait } else { Rollback::Continue };
        let clock = ManualClock::at_unix_millis(1_700_000_000_000);
        let gen = Generator::builder(TINY)
            .clock(clock.clone())
            .lead_ticks(lead)
            .on_rollback(policy)
            .max_wait(Duration::ZERO)
            .build()
            .unwrap();
        run(&clock, &ops, |out| gen.fill(out))?;

        let clock = ManualClock::at_unix_millis(1_700_000_000_000);
        let sharded = ShardedGenerator::builder(TINY)
            .clock(clock.clone())
            .shard_bits(1)
            .lead_ticks(lead)
            .on_rollback(policy)
            .max_wait(Duration::ZERO)
            .build()
            .unwrap();
        run(&clock, &ops, |out| sharded.fill(out))?;
    }
}
