//! Property tests for shards: arbitrary lease / mint / release sequences on a scripted clock
//! never repeat an ID (the property is `support/shard_script.rs`, shared with the `shards`
//! fuzz target).
#![cfg(not(miri))] // proptest is far too slow under miri.

#[path = "support/shard_script.rs"]
mod shard_script;

use proptest::prelude::*;
use shard_script::{run, Op, Script};
use snowmint::Rollback;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Lease),
        1 => any::<u8>().prop_map(|slot| Op::Drop { slot }),
        6 => any::<u8>().prop_map(|slot| Op::Mint { slot }),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(slot, n)| Op::Batch { slot, n }),
        5 => Just(Op::MintLocal),
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
        prop::collection::vec(op(), 0..200),
    )
        .prop_map(|(shard_bits, lead, wait, ops)| Script {
            shard_bits,
            lead,
            rollback: if wait {
                Rollback::Wait
            } else {
                Rollback::Continue
            },
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

/// The script can fail: a lease, dropped and re-taken, must continue after its last ID
/// (here with the clock frozen, so only the handed-back state prevents a repeat).
#[test]
fn a_scripted_hand_over_mints_and_is_checked() {
    let ops = vec![
        Op::Lease,
        Op::Mint { slot: 0 },
        Op::Mint { slot: 0 },
        Op::Drop { slot: 0 },
        Op::Lease,
        Op::Mint { slot: 0 },
        Op::MintLocal,
        Op::ReleaseLocal,
        Op::MintLocal,
    ];
    let stats = run(&Script {
        shard_bits: 0,
        lead: 0,
        rollback: Rollback::Wait,
        ops,
    });
    // The lease holds the one exclusive shard, so the thread mints on the overflow shard;
    // after release_local its next overflow ID must lie past that tick, which the frozen
    // clock and a lead of 0 refuse.
    assert_eq!((stats.ids, stats.refused), (4, 1));
}
