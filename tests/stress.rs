//! Stress: many IDs from more threads than cores, on one shared generator, on generators of
//! distinct nodes, and on sharded generators, with zero duplicates and strictly increasing
//! IDs per thread.
//!
//! The quick tests (about 10^6 IDs each) run in every `cargo test`. The heavy ones (10^8 IDs
//! each) are `#[ignore]`d; run them with `cargo test --release --test stress -- --ignored`.
//!
//! Duplicates are found without a hash set (10^8 IDs would take gigabytes): each thread's
//! IDs are already sorted, since they strictly increase (which is asserted), so a k-way
//! merge of the threads' runs must be strictly increasing too. Memory is the IDs themselves,
//! 8 bytes each (16 for the 128-bit IDs: 1.6 GB for 10^8).
#![cfg(not(miri))] // Far too many IDs for miri, and the TSC clock cannot run under it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::Duration;

use snowmint::clock::{ManualClock, Rollback};
use snowmint::{
    Generator, Id, Layout, ShardedGenerator, Ulid, UlidGenerator, Uuid7, Uuid7Generator,
};

/// No cap worth the name: 4 M IDs per millisecond per node (2^22), 2^41 ms, 63 bits.
const UNCAPPED: Layout = Layout::builder()
    .node_bits(0)
    .sequence_bits(22)
    .build_const();

/// Four nodes of 1 M IDs per millisecond each (2 node bits, 20 sequence bits).
const FOUR_NODES: Layout = Layout::builder()
    .node_bits(2)
    .sequence_bits(20)
    .build_const();

/// Eight shards (one of them the shared overflow shard) of 1 M IDs per millisecond each.
const EIGHT_SHARDS: Layout = Layout::builder()
    .node_bits(3)
    .sequence_bits(19)
    .build_const();

/// More threads than this machine's 2 cores.
const THREADS: usize = 6;

/// Runs `per_thread(i)` on `threads` threads started together; returns what each returned.
fn on_threads<T: Send, F>(threads: usize, per_thread: F) -> Vec<T>
where
    F: Fn(usize) -> T + Sync,
{
    let barrier = Barrier::new(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (barrier, per_thread) = (&barrier, &per_thread);
                s.spawn(move || {
                    barrier.wait();
                    per_thread(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Thread `i`'s share of `total` IDs split over `threads`: the shares differ by at most one
/// and add up to `total` exactly (`total / threads` each would leave up to `threads - 1`
/// IDs unminted).
fn share(total: usize, threads: usize, i: usize) -> usize {
    total / threads + usize::from(i < total % threads)
}

/// `n` IDs from `mint`, which is retried while it reports a wait (never for long: every
/// layout here has room, and the blocking calls wait by themselves).
fn collect(
    n: usize,
    mut mint: impl FnMut(&mut Vec<Id>) -> Result<(), snowmint::MintError>,
) -> Vec<Id> {
    let mut ids = Vec::with_capacity(n + 64);
    while ids.len() < n {
        if let Err(e) = mint(&mut ids) {
            assert!(e.retry_after().is_some(), "{e}");
            std::thread::yield_now();
        }
    }
    ids
}

/// Asserts every run strictly increases and no ID appears twice across runs, by a k-way
/// merge of the (sorted) runs. Returns the number of IDs checked.
fn assert_unique<T: Ord + Copy + std::fmt::Debug>(runs: &[Vec<T>]) -> usize {
    for (i, run) in runs.iter().enumerate() {
        if let Some(k) = run.windows(2).position(|w| w[0] >= w[1]) {
            panic!("run {i}: {:?} then {:?} at {k}", run[k], run[k + 1]);
        }
    }
    let mut heap: BinaryHeap<Reverse<(T, usize, usize)>> = runs
        .iter()
        .enumerate()
        .filter(|(_, run)| !run.is_empty())
        .map(|(r, run)| Reverse((run[0], r, 0)))
        .collect();
    let mut previous: Option<(T, usize)> = None;
    let mut count = 0;
    while let Some(Reverse((id, r, k))) = heap.pop() {
        if let Some((prev, pr)) = previous {
            assert!(id > prev, "duplicate {id:?}: runs {pr} and {r}");
        }
        previous = Some((id, r));
        count += 1;
        if let Some(&next) = runs[r].get(k + 1) {
            heap.push(Reverse((next, r, k + 1)));
        }
    }
    assert_eq!(count, runs.iter().map(Vec::len).sum::<usize>());
    count
}

/// `total` IDs from `THREADS` threads on one generator (even threads one at a time, odd ones
/// in batches), with a lead and waiting out rollbacks.
fn shared_generator(total: usize) {
    let gen = Generator::builder(UNCAPPED)
        .lead_ticks(2)
        .on_rollback(Rollback::Wait)
        .build()
        .unwrap();
    let runs = on_threads(THREADS, |i| {
        collect(share(total, THREADS, i), |ids| {
            if i % 2 == 0 {
                gen.next_id().map(|id| ids.push(id))
            } else {
                gen.next_ids(100).map(|b| ids.extend(b))
            }
        })
    });
    assert!(assert_unique(&runs) >= total);
}

/// `total` IDs from four generators of distinct nodes, two threads on each (uncontended
/// node, contended state).
fn distinct_nodes(total: usize) {
    let gens: Vec<_> = (0..4)
        .map(|n| Generator::new(FOUR_NODES, n).unwrap())
        .collect();
    let runs = on_threads(8, |i| {
        collect(share(total, 8, i), |ids| {
            gens[i % 4].next_id().map(|id| ids.push(id))
        })
    });
    for (i, run) in runs.iter().enumerate() {
        assert!(run
            .iter()
            .all(|id| FOUR_NODES.decode(*id).node() == (i % 4) as u64));
    }
    assert!(assert_unique(&runs) >= total);
}

/// `total` IDs from a sharded generator with more threads than exclusive shards, so some
/// threads mint on the shared overflow shard; half the threads mint through leases that
/// they drop and take again, so shards change hands mid-run. IDs increase per thread on
/// `next_id` and per lease (a thread's next lease may be a lower shard in the same tick, so
/// each lease is a run of its own).
fn sharded(total: usize) {
    // The threads on the overflow shard wait for the next tick now and then (each pushes it
    // to the end of its tick every 1,024 mints, when it looks for a shard of its own), and
    // unwrap: a minute of max_wait keeps a thread a loaded machine holds off the CPU for
    // over the default 1 s from failing a test that counts duplicates.
    let gen = ShardedGenerator::builder(EIGHT_SHARDS)
        .shard_bits(3)
        .node(0)
        .max_wait(Duration::from_secs(60))
        .build()
        .unwrap();
    let threads = 10; // > 7 exclusive shards.
    let runs: Vec<Vec<Id>> = on_threads(threads, |i| {
        let per = share(total, threads, i);
        if i % 2 == 0 {
            return vec![collect(per, |ids| gen.next_id().map(|id| ids.push(id)))];
        }
        let mut runs = Vec::new();
        let mut overflow = Vec::new();
        let mut minted = 0;
        while minted < per {
            match gen.own_shard() {
                Ok(lease) => {
                    let run: Vec<Id> = (0..10_000).map(|_| lease.next_id().unwrap()).collect();
                    minted += run.len();
                    runs.push(run);
                }
                // Every exclusive shard is held: mint on the overflow shard meanwhile.
                Err(_) => {
                    overflow.push(gen.next_id().unwrap());
                    minted += 1;
                }
            }
        }
        runs.push(overflow);
        runs
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(assert_unique(&runs) >= total);
}

/// Threads mint from one generator on a `ManualClock` that another thread moves forwards by
/// ticks and back by up to three ticks, under both rollback policies.
fn rollback_storm(per_thread: usize) {
    for rollback in [Rollback::Continue, Rollback::Wait] {
        let clock = ManualClock::at_unix_millis(1_700_000_000_000);
        let gen = Generator::builder(Layout::SONYFLAKE)
            .clock(clock.clone())
            .lead_ticks(1)
            .on_rollback(rollback)
            .build()
            .unwrap();
        let done = AtomicBool::new(false);
        let runs = std::thread::scope(|s| {
            let mover = s.spawn(|| {
                let tick = Layout::SONYFLAKE.unit();
                let mut n: u32 = 0;
                while !done.load(Ordering::Relaxed) {
                    n = n.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    if n.is_multiple_of(4) {
                        clock.rewind(tick * ((n >> 8) % 3 + 1));
                    } else {
                        clock.advance(tick);
                    }
                    std::thread::yield_now();
                }
            });
            let runs = on_threads(4, |_| {
                collect(per_thread, |ids| {
                    gen.next_id_timeout(Duration::from_micros(50))
                        .map(|id| ids.push(id))
                })
            });
            done.store(true, Ordering::Relaxed);
            mover.join().unwrap();
            runs
        });
        assert_unique(&runs);
    }
}

/// `total` UUIDv7s and then `total` ULIDs from `THREADS` threads on one generator of each
/// kind: a third of the threads one call at a time, a third by fills of 100, a third from
/// their own shard. Per thread strictly increasing, no ID twice.
fn id128(total: usize) {
    let gen = Uuid7Generator::new();
    let runs: Vec<Vec<Uuid7>> = on_threads(THREADS, |i| {
        let n = share(total, THREADS, i);
        let mut ids = vec![Uuid7::MIN; n];
        match i % 3 {
            0 => ids.iter_mut().for_each(|id| *id = gen.next_uuid()),
            1 => ids.chunks_mut(100).for_each(|chunk| gen.fill(chunk)),
            _ => {
                let mut shard = gen.shard();
                ids.iter_mut().for_each(|id| *id = shard.next_uuid());
            }
        }
        ids
    });
    assert_eq!(assert_unique(&runs), total);
    drop(runs);
    let gen = UlidGenerator::new();
    let runs: Vec<Vec<Ulid>> = on_threads(THREADS, |i| {
        let n = share(total, THREADS, i);
        let mut ids = vec![Ulid::MIN; n];
        match i % 3 {
            0 => ids.iter_mut().for_each(|id| *id = gen.next_ulid()),
            1 => ids.chunks_mut(100).for_each(|chunk| gen.fill(chunk)),
            _ => {
                let mut shard = gen.shard();
                ids.iter_mut().for_each(|id| *id = shard.next_ulid());
            }
        }
        ids
    });
    assert_eq!(assert_unique(&runs), total);
}

#[test]
fn quick_uuid7_and_ulid_calls_fills_and_shards() {
    id128(1_000_000);
}

#[test]
fn quick_shared_generator_more_threads_than_cores() {
    shared_generator(1_000_000);
}

#[test]
fn quick_generators_of_distinct_nodes() {
    distinct_nodes(1_000_000);
}

#[test]
fn quick_sharded_generator_more_threads_than_shards() {
    sharded(1_000_000);
}

#[test]
fn quick_rollback_storm_on_a_manual_clock() {
    rollback_storm(50_000);
}

#[test]
fn the_shares_add_up_to_the_total() {
    for (total, threads) in [
        (1_000_000, 6),
        (1_000_000, 8),
        (100_000_000, 6),
        (5, 10),
        (0, 3),
    ] {
        let shares: Vec<usize> = (0..threads).map(|i| share(total, threads, i)).collect();
        assert_eq!(
            shares.iter().sum::<usize>(),
            total,
            "{total} over {threads}"
        );
        let (min, max) = (shares.iter().min(), shares.iter().max());
        assert!(max.unwrap() - min.unwrap() <= 1, "{shares:?}");
    }
}

#[test]
fn the_merge_check_finds_a_duplicate_across_runs() {
    let a: Vec<Id> = [1, 5, 9].map(Id::from_u64).to_vec();
    let b: Vec<Id> = [2, 5, 10].map(Id::from_u64).to_vec();
    let caught = std::panic::catch_unwind(|| assert_unique(&[a.clone(), b]));
    assert!(caught.is_err());
    let c: Vec<Id> = [2, 6, 10].map(Id::from_u64).to_vec();
    assert_eq!(assert_unique(&[a, c]), 6);
}

#[test]
#[ignore = "heavy: 10^8 IDs; run with --release -- --ignored"]
fn heavy_shared_generator_1e8() {
    shared_generator(100_000_000);
}

#[test]
#[ignore = "heavy: 10^8 IDs; run with --release -- --ignored"]
fn heavy_generators_of_distinct_nodes_1e8() {
    distinct_nodes(100_000_000);
}

#[test]
#[ignore = "heavy: 10^8 IDs; run with --release -- --ignored"]
fn heavy_sharded_generator_1e8() {
    sharded(100_000_000);
}

#[test]
#[ignore = "heavy: 10^8 UUIDv7s and 10^8 ULIDs; run with --release -- --ignored"]
fn heavy_uuid7_and_ulid_1e8() {
    id128(100_000_000);
}

#[test]
#[ignore = "heavy: 4 x 2.5 x 10^6 IDs against a clock stepping back; run with --release -- --ignored"]
fn heavy_rollback_storm() {
    rollback_storm(2_500_000);
}
