//! Property tests for shards: arbitrary own / mint / release sequences on a scripted clock
//! never repeat an ID, the blocking and non-blocking forms agree call by call, and every call
//! on a shard of known state follows the step rule (the property is `support/shard_script.rs`,
//! shared with the `shards` fuzz target).
#![cfg(not(miri))] // proptest is far too slow under miri.

#[path = "support/shard_script.rs"]
mod shard_script;

use proptest::prelude::*;
use shard_script::{expected, run, Op, Script, Stats};
use snowmint::clock::Rollback;
use snowmint::MintError;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::OwnedShard),
        1 => any::<u8>().prop_map(|slot| Op::Drop { slot }),
        6 => any::<u8>().prop_map(|slot| Op::Mint { slot }),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(slot, n)| Op::Batch { slot, n }),
        5 => Just(Op::MintLocal),
        1 => any::<u8>().prop_map(|n| Op::BatchLocal { n }),
        1 => Just(Op::ReleaseLocal),
        2 => (0_u32..5_000).prop_map(|nanos| Op::Advance { nanos }),
        1 => (0_u32..5_000).prop_map(|nanos| Op::Rewind { nanos }),
    ]
}

fn script() -> impl Strategy<Value = Script> {
    (
        any::<u8>(),
        any::<u8>(),
        any::<bool>(),
        any::<u8>(),
        prop::collection::vec(op(), 0..200),
    )
        .prop_map(|(shard_bits, lead, wait, max_wait, ops)| Script {
            shard_bits,
            lead,
            rollback: if wait {
                Rollback::Wait
            } else {
                Rollback::Continue
            },
            wait: max_wait,
            ops,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn shards_never_repeat_an_id(script in script()) {
        run(&script);
    }
}

fn script_of(shard_bits: u8, lead: u8, rollback: Rollback, ops: Vec<Op>) -> Script {
    Script {
        shard_bits,
        lead,
        rollback,
        wait: 1,
        ops,
    }
}

/// The script can fail: an owned shard, dropped and re-taken, must continue after its last ID
/// (here with the clock frozen, so only the handed-back state prevents a repeat).
#[test]
fn a_scripted_hand_over_mints_and_is_checked() {
    let ops = vec![
        Op::OwnedShard,
        Op::Mint { slot: 0 },
        Op::Mint { slot: 0 },
        Op::Drop { slot: 0 },
        Op::OwnedShard,
        Op::Mint { slot: 0 },
        Op::MintLocal,
        Op::ReleaseLocal,
        Op::MintLocal,
    ];
    let stats = run(&script_of(0, 0, Rollback::Wait, ops));
    // The owned shard holds the one exclusive shard, so the thread mints on the overflow shard;
    // after release_local its next overflow ID must lie past that tick, which the frozen
    // clock and a lead of 0 refuse. The owned shard's three calls follow the step rule (its shard
    // starts at state 0 and is handed back in a known state); the overflow shard's are not
    // modelled.
    assert_eq!((stats.ids, stats.refused, stats.modelled), (4, 1, 3));
}

/// The cached hot paths meet a clock that stepped back: an owned shard and the thread's own shard
/// each mint, the clock goes back 3 ticks (beyond the lead of 1), and each mints again.
/// `Rollback::Wait` refuses with the exact distance; `Continue` keeps minting in the last tick.
#[test]
fn the_cached_paths_follow_the_policy_when_the_clock_steps_back() {
    let ops = vec![
        // Rewinds stop at the clock's start: move on first, to have room to go back.
        Op::Advance { nanos: 10_000 },
        Op::OwnedShard,
        Op::Mint { slot: 0 },
        Op::MintLocal,
        Op::Rewind { nanos: 3_000 },
        Op::Mint { slot: 0 },
        Op::MintLocal,
        Op::Advance { nanos: 1_500 },
        Op::Mint { slot: 0 },
        Op::MintLocal,
        Op::Advance { nanos: 1_500 },
        Op::Mint { slot: 0 },
        Op::MintLocal,
    ];
    // Shard bits 1 % 3 + 1 = 2: three exclusive shards, one for the owned shard and one for the
    // thread.
    let wait = run(&script_of(1, 1, Rollback::Wait, ops.clone()));
    // Refused twice each (3 and 1.5 ticks behind, beyond the lead of 1); then the clock is
    // back, and both mint. Every call but the thread's first (which claims its shard) is on
    // a shard of known state.
    assert_eq!((wait.ids, wait.refused, wait.modelled), (4, 4, 7));
    let cont = run(&script_of(1, 1, Rollback::Continue, ops));
    assert_eq!((cont.ids, cont.refused, cont.modelled), (8, 0, 7));
    // The hint a refusal carries: from 1 µs-tick 1_000_000 (sequence 0 used), the clock
    // 3 ticks back, lead 1: wait until tick 999_999 is reached, 2 ticks from now. 3 µs is
    // within Rollback::TOLERANCE, so it is a wait (Exhausted), not a step back; 3 ms is.
    assert_eq!(
        expected(1_000_000 << 2, 999_997_000, 1, 1, Rollback::Wait),
        Err(MintError::Exhausted {
            retry_after: std::time::Duration::from_micros(2)
        })
    );
    assert_eq!(
        expected(1_000_000 << 2, 997_000_000, 1, 1, Rollback::Wait),
        Err(MintError::ClockBehind {
            behind: std::time::Duration::from_micros(2_999)
        })
    );
}

/// The restated step rule agrees with what the library documents: the rest of the tick,
/// then the lead's ticks, then a wait for the next tick.
#[test]
fn the_restated_rule_fills_ticks_and_borrows_up_to_the_lead() {
    let t = 1_000_000_u64; // the tick at the start of every script
    let now = t * 1_000;
    assert_eq!(expected(0, now, 1, 0, Rollback::Wait), Ok((t << 2, t << 2)));
    assert_eq!(
        expected(t << 2, now, 100, 0, Rollback::Wait),
        Ok((t << 2 | 1, t << 2 | 3))
    );
    assert_eq!(
        expected(t << 2 | 3, now, 100, 2, Rollback::Wait),
        Ok(((t + 1) << 2, (t + 2) << 2 | 3))
    );
    assert_eq!(
        expected(t << 2 | 3, now + 250, 1, 0, Rollback::Continue),
        Err(MintError::Exhausted {
            retry_after: std::time::Duration::from_nanos(750)
        })
    );
}

/// Proptest's scripts reach every kind of outcome, and the step rule checks most calls.
#[test]
fn random_scripts_reach_refusals_and_are_mostly_modelled() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut total = Stats::default();
    for _ in 0..64 {
        let s = run(&script().new_tree(&mut runner).unwrap().current());
        total.calls += s.calls;
        total.ids += s.ids;
        total.refused += s.refused;
        total.modelled += s.modelled;
    }
    eprintln!("64 random scripts: {total:?}");
    assert!(total.ids > 1_000 && total.refused > 100, "{total:?}");
    assert!(total.modelled > total.calls / 4, "{total:?}");
}
