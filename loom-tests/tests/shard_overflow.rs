//! The overflow shard under concurrency: the one state a sharded generator shares between
//! threads, advanced by CAS exactly like a plain `Generator`'s. With `shard_bits(1)` there is
//! one exclusive shard (node 0) and the overflow shard (node 1); an owned shard taken by the model's
//! own thread before it spawns anything holds the exclusive shard, so the threads' `next_id`
//! and `try_next_id` land on the overflow shard.
//!
//! - `two_threads_on_the_overflow_shard`: two threads mint two IDs each there. Every
//!   interleaving gives the tick's four sequence numbers exactly once, each thread's in
//!   order, and every one of the six ways to split them between the threads is reached (so
//!   the threads really interleave on the shared state). Replacing the CAS by a plain store
//!   (the state's `replace` in `src/generator/cell.rs`) makes this model fail at once with a
//!   duplicate; no owned-shard or thread-local model notices, as none of them has two threads on
//!   the overflow shard.
//! - `a_handover_while_another_thread_overflows`: one thread mints on the owned shard and drops it
//!   while another mints through its thread-local path: it lands on the overflow shard while
//!   the owned shard is held, or on the handed-back exclusive shard (continuing after the owned shard)
//!   once it is dropped. Afterwards the model's thread mints on both shards again: each
//!   continues after everything issued on it, whoever issued it.

mod common;

use common::{
    assert_after, assert_increasing, assert_unique, builder, clock, explore, layout,
    lease_retrying, sharded, Seen, START_TICK,
};
use loom::sync::Arc;
use loom::thread;
use snowmint::clock::{ManualClock, Rollback};
use snowmint::{Id, Layout, ShardedGenerator};

/// The exclusive shard's node and the overflow shard's (node 0, 1 shard bit).
const EXCLUSIVE: u64 = 0;
const OVERFLOW: u64 = 1;

/// One thread's IDs through the thread-local path, and its shard as `local_shard` reported
/// after minting.
struct Minted {
    ids: Vec<Id>,
    local_shard: Option<u64>,
}

/// Two IDs through the thread-local path: the cached hot path (`next_id`, which never waits
/// here, as `max_wait` is zero), then the non-blocking path (`try_next_id`).
fn mint_two(gen: &ShardedGenerator<ManualClock>) -> Minted {
    let first = gen.next_id().expect("the IDs of the model fit in the tick");
    let second = gen
        .try_next_id()
        .expect("the IDs of the model fit in the tick");
    Minted {
        ids: vec![first, second],
        local_shard: gen.local_shard(),
    }
}

/// The node all of `ids` carry (checked to be one), with their sequences; every ID is in the
/// frozen clock's tick.
fn node_and_sequences(layout: Layout, ids: &[Id]) -> (u64, Vec<u64>) {
    let decoded: Vec<_> = ids.iter().map(|&id| layout.decode(id)).collect();
    let node = decoded[0].node();
    for d in &decoded {
        assert_eq!((d.ticks(), d.node()), (START_TICK, node), "{ids:?}");
    }
    (node, decoded.iter().map(|d| d.sequence()).collect())
}

#[test]
fn two_threads_on_the_overflow_shard() {
    // 4 IDs per tick: the two threads' four IDs fill it exactly.
    const LAYOUT: Layout = layout(2);
    let seen = Seen::default();
    let tally = seen.clone();
    let n = explore("overflow_two_threads", builder(None), move || {
        let gen = Arc::new(sharded(LAYOUT, clock(), Rollback::default()));
        let owned = gen.own_shard().expect("the one exclusive shard is free");
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || mint_two(&gen))
            })
            .collect();
        let minted: Vec<Minted> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let (a, b) = (&minted[0], &minted[1]);
        assert_unique(&[a.ids.as_slice(), &b.ids].concat());
        assert_increasing(&a.ids);
        assert_increasing(&b.ids);
        let (node_a, seq_a) = node_and_sequences(LAYOUT, &a.ids);
        let (node_b, seq_b) = node_and_sequences(LAYOUT, &b.ids);
        assert_eq!(
            (node_a, node_b),
            (OVERFLOW, OVERFLOW),
            "the owned shard holds shard 0"
        );
        assert_eq!((a.local_shard, b.local_shard), (None, None));
        // The tick's sequence numbers, each exactly once: a lost CAS race burns none.
        let mut all = [seq_a.clone(), seq_b].concat();
        all.sort_unstable();
        assert_eq!(all, vec![0, 1, 2, 3]);
        tally.record(match seq_a.as_slice() {
            [0, 1] => "a 0 1",
            [0, 2] => "a 0 2",
            [0, 3] => "a 0 3",
            [1, 2] => "a 1 2",
            [1, 3] => "a 1 3",
            [2, 3] => "a 2 3",
            other => panic!("thread a got {other:?}"),
        });
        // The owned shard's shard was never touched: its first ID starts the tick.
        let own = owned.next_id().expect("the exclusive shard is empty");
        assert_eq!(node_and_sequences(LAYOUT, &[own]), (EXCLUSIVE, vec![0]));
    });
    assert!(n > 1, "loom explored a single interleaving");
    seen.assert_exactly(
        "overflow_two_threads",
        &["a 0 1", "a 0 2", "a 0 3", "a 1 2", "a 1 3", "a 2 3"],
    );
}

#[test]
fn a_handover_while_another_thread_overflows() {
    // 8 IDs per tick: up to 5 on one shard (2 + 2 + the final owned shard's).
    const LAYOUT: Layout = layout(3);
    let seen = Seen::default();
    let tally = seen.clone();
    let n = explore("overflow_during_handover", builder(None), move || {
        let gen = Arc::new(sharded(LAYOUT, clock(), Rollback::default()));
        let owned = gen.own_shard().expect("the one exclusive shard is free");
        let holder = thread::spawn(move || {
            let ids: Vec<Id> = (0..2)
                .map(|_| {
                    owned
                        .next_id()
                        .expect("the IDs of the model fit in the tick")
                })
                .collect();
            drop(owned); // hands the shard back, with its state
            ids
        });
        let other = {
            let gen = Arc::clone(&gen);
            thread::spawn(move || mint_two(&gen))
        };
        let held = holder.join().unwrap();
        let other = other.join().unwrap();
        assert_unique(&[held.as_slice(), &other.ids].concat());
        assert_increasing(&held);
        assert_increasing(&other.ids);
        assert_eq!(node_and_sequences(LAYOUT, &held), (EXCLUSIVE, vec![0, 1]));
        let (other_node, other_seq) = node_and_sequences(LAYOUT, &other.ids);
        let mut on_exclusive = held.clone();
        let mut on_overflow = Vec::new();
        match other_node {
            OVERFLOW => {
                // The owned shard was held at the other's first call: the overflow shard, from 0.
                assert_eq!((other.local_shard, other_seq), (None, vec![0, 1]));
                on_overflow.extend(&other.ids);
                tally.record("other on overflow");
            }
            EXCLUSIVE => {
                // The owned shard was dropped first: the other took the shard and continued it.
                assert_eq!(
                    (other.local_shard, other_seq),
                    (Some(EXCLUSIVE), vec![2, 3])
                );
                assert_after(&held, &other.ids);
                on_exclusive.extend(&other.ids);
                tally.record("other took the shard after the owned shard");
            }
            node => panic!("node {node} is not a shard of node 0"),
        }
        // Once every thread is done (their exits handing back what they held), each shard
        // continues after all it issued: the exclusive one through an owned shard, the overflow one
        // through this thread's registry, which finds the exclusive shard owned.
        let owned = lease_retrying(&gen);
        let own = owned
            .next_id()
            .expect("the IDs of the model fit in the tick");
        assert_after(&on_exclusive, &[own]);
        let shared = gen.next_id().expect("the IDs of the model fit in the tick");
        assert_eq!(
            gen.local_shard(),
            None,
            "the owned shard holds the exclusive shard"
        );
        assert_after(&on_overflow, &[shared]);
        assert_eq!(
            node_and_sequences(LAYOUT, &[shared]),
            (OVERFLOW, vec![on_overflow.len() as u64])
        );
    });
    assert!(n > 1, "loom explored a single interleaving");
    seen.assert_exactly(
        "overflow_during_handover",
        &[
            "other on overflow",
            "other took the shard after the owned shard",
        ],
    );
}
