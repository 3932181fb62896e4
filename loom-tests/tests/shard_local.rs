//! The thread-local path of a sharded generator with one exclusive shard (`shard_bits(1)`):
//! `next_id` takes the shard on a thread's first call, or settles for the overflow shard if
//! another thread holds it, and the shard goes back, with its state, when the thread exits
//! (or calls `release_local`).
//!
//! loom runs a model thread's thread-locals' destructors when the thread ends, before the
//! thread counts as finished (`loom::rt::thread_done`, loom 0.7.3), and snowmint's
//! `const_thread_local!` is `loom::thread_local!` under `--cfg loom`: so the hand-back on thread
//! exit is modelled as it runs, with no explicit `release_local`. The first model checks it
//! is reached: one of its outcomes needs the first thread's exit to free the shard.
//!
//! One difference from std: loom's `JoinHandle::join` returns once the thread's closure has
//! returned, *before* its thread-locals are destroyed (`spawn_internal` notifies the joiner,
//! then `thread_done` drops the locals), whereas std's explicit `join` waits for them. So a
//! model thread that joins an exiting thread may still find the shard held, and the models
//! took it as an owned shard after the joins with the yielding retry, which lets the exiting thread finish.

mod common;

use common::{
    assert_after, assert_increasing, assert_unique, builder, clock, explore, layout,
    lease_retrying, sharded, Seen, LEASE_TRIES, START_TICK,
};
use loom::sync::Arc;
use loom::thread;
use snowmint::clock::{ManualClock, Rollback};
use snowmint::{Id, Layout, ShardedGenerator};

/// 3 sequence bits: 8 IDs per tick, enough for the two threads and the final owned.
const LAYOUT: Layout = layout(3);

/// The exclusive shard's node and the overflow shard's (node 0, 1 shard bit).
const EXCLUSIVE: u64 = 0;
const OVERFLOW: u64 = 1;

/// What one thread got: its IDs, and its shard as `local_shard` reported after minting.
struct Minted {
    ids: Vec<Id>,
    local_shard: Option<u64>,
}

/// Two IDs through the thread-local path: the cached hot path (`next_id`, which never waits
/// here), then the batch path (`try_next_id`).
fn mint_two(gen: &ShardedGenerator<ManualClock>) -> Minted {
    let first = gen.next_id().expect("4 IDs fit in the tick");
    let second = gen.try_next_id().expect("4 IDs fit in the tick");
    Minted {
        ids: vec![first, second],
        local_shard: gen.local_shard(),
    }
}

/// The node of `m`'s IDs (all the same, and the shard `local_shard` reported), and their
/// sequences; every ID is in the frozen clock's tick.
fn shard_and_sequences(m: &Minted) -> (u64, Vec<u64>) {
    assert_increasing(&m.ids);
    let decoded: Vec<_> = m.ids.iter().map(|&id| LAYOUT.decode(id)).collect();
    let node = decoded[0].node();
    for d in &decoded {
        assert_eq!((d.ticks(), d.node()), (START_TICK, node), "{:?}", m.ids);
    }
    let expected_shard = (node == EXCLUSIVE).then_some(EXCLUSIVE);
    assert_eq!(m.local_shard, expected_shard, "{:?}", m.ids);
    (node, decoded.iter().map(|d| d.sequence()).collect())
}

/// Once both threads are done (exits included: see the module docs), the exclusive shard is
/// free for an owned shard, whose first ID comes after every ID minted on the shard.
fn lease_continues_after(gen: &ShardedGenerator<ManualClock>, minted: &[&Minted]) {
    let on_shard: Vec<Id> = minted
        .iter()
        .flat_map(|m| m.ids.iter().copied())
        .filter(|&id| LAYOUT.decode(id).node() == EXCLUSIVE)
        .collect();
    let id = lease_retrying(gen)
        .next_id()
        .expect("8 IDs fit in the tick");
    assert_after(&on_shard, &[id]);
}

#[test]
fn threads_share_the_shard_or_overflow_and_an_exit_hands_it_on() {
    let seen = Seen::default();
    let tally = seen.clone();
    let n = explore("local_two_threads", builder(None), move || {
        let gen = Arc::new(sharded(LAYOUT, clock(), Rollback::default()));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || mint_two(&gen))
            })
            .collect();
        let minted: Vec<Minted> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let (a, b) = (&minted[0], &minted[1]);
        assert_unique(&[a.ids.as_slice(), &b.ids].concat());
        let outcome = match (shard_and_sequences(a), shard_and_sequences(b)) {
            // Concurrent: one holds the exclusive shard, the other mints on the overflow
            // shard; each shard's tick starts at sequence 0.
            ((EXCLUSIVE, sa), (OVERFLOW, sb)) => {
                assert_eq!((sa, sb), (vec![0, 1], vec![0, 1]));
                "a exclusive, b overflow"
            }
            ((OVERFLOW, sa), (EXCLUSIVE, sb)) => {
                assert_eq!((sa, sb), (vec![0, 1], vec![0, 1]));
                "b exclusive, a overflow"
            }
            // One after the other: the first thread's exit handed the shard back, and the
            // second continued after its last ID.
            ((EXCLUSIVE, sa), (EXCLUSIVE, sb)) => {
                let (first, second, order) = if a.ids[0] < b.ids[0] {
                    (sa, sb, "both exclusive, a exited first")
                } else {
                    (sb, sa, "both exclusive, b exited first")
                };
                assert_eq!((first, second), (vec![0, 1], vec![2, 3]));
                order
            }
            (x, y) => panic!("both on the overflow shard: {x:?}, {y:?}"),
        };
        tally.record(outcome);
        lease_continues_after(&gen, &[a, b]);
    });
    assert!(n > 1, "loom explored a single interleaving");
    seen.assert_exactly(
        "local_two_threads",
        &[
            "a exclusive, b overflow",
            "b exclusive, a overflow",
            "both exclusive, a exited first",
            "both exclusive, b exited first",
        ],
    );
}

/// How the first thread gives its shard back.
#[derive(Clone, Copy)]
enum HandBack {
    /// By exiting: its thread-local entry is destroyed.
    Exit,
    /// By `release_local`, staying alive.
    Release,
}

/// A thread (the leaver) mints two IDs and gives its shard back; another (the claimer) claims
/// the exclusive shard, giving up the overflow shard and yielding while the shard is held,
/// then mints two and exits. Whoever holds the shard first, the other's IDs on it come after.
fn claim_after(name: &'static str, hand_back: HandBack) {
    let seen = Seen::default();
    let tally = seen.clone();
    let n = explore(name, builder(None), move || {
        let gen = Arc::new(sharded(LAYOUT, clock(), Rollback::default()));
        let leaver = {
            let gen = Arc::clone(&gen);
            thread::spawn(move || {
                let minted = mint_two(&gen);
                if let HandBack::Release = hand_back {
                    gen.release_local_shard();
                    assert_eq!(gen.local_shard(), None);
                }
                minted
            })
        };
        let claimer = {
            let gen = Arc::clone(&gen);
            thread::spawn(move || {
                for _ in 0..LEASE_TRIES {
                    if gen.claim_local_shard() == Some(EXCLUSIVE) {
                        return mint_two(&gen);
                    }
                    // On the overflow shard: drop the entry, so the next claim tries again.
                    gen.release_local_shard();
                    thread::yield_now();
                }
                panic!("the shard never came back in {LEASE_TRIES} tries");
            })
        };
        let left = leaver.join().unwrap();
        let claimed = claimer.join().unwrap();
        assert_unique(&[left.ids.as_slice(), &claimed.ids].concat());
        let (left_node, left_sequences) = shard_and_sequences(&left);
        let (claimed_node, claimed_sequences) = shard_and_sequences(&claimed);
        let outcome = match (left_node, claimed_node) {
            (OVERFLOW, EXCLUSIVE) => {
                assert_eq!(
                    (left_sequences, claimed_sequences),
                    (vec![0, 1], vec![0, 1])
                );
                "claimer held first, leaver on overflow"
            }
            (EXCLUSIVE, EXCLUSIVE) if left.ids[0] < claimed.ids[0] => {
                assert_after(&left.ids, &claimed.ids);
                assert_eq!(
                    (left_sequences, claimed_sequences),
                    (vec![0, 1], vec![2, 3])
                );
                "leaver held first, claimer continued"
            }
            (EXCLUSIVE, EXCLUSIVE) => {
                // The claimer was done, and had exited, before the leaver's first ID.
                assert_after(&claimed.ids, &left.ids);
                assert_eq!(
                    (claimed_sequences, left_sequences),
                    (vec![0, 1], vec![2, 3])
                );
                "claimer exited first, leaver continued"
            }
            other => panic!("the claimer minted on the overflow shard: {other:?}"),
        };
        tally.record(outcome);
        lease_continues_after(&gen, &[&left, &claimed]);
    });
    assert!(n > 1, "loom explored a single interleaving");
    seen.assert_exactly(
        name,
        &[
            "leaver held first, claimer continued",
            "claimer held first, leaver on overflow",
            "claimer exited first, leaver continued",
        ],
    );
}

#[test]
fn a_thread_that_exits_is_continued_by_a_claimer() {
    claim_after("local_exit_then_claim", HandBack::Exit);
}

#[test]
fn a_thread_that_releases_is_continued_by_a_claimer() {
    claim_after("local_release_then_claim", HandBack::Release);
}
