//! Sharded generators: per-thread shards, owned shards, reuse after release, the overflow shard.

use std::collections::HashSet;
use std::sync::{Arc, Barrier};

use snowmint::clock::ManualClock;
use snowmint::{Id, Layout, MintError, ShardError, ShardedGenerator};

const NOW_MS: u64 = 1_700_000_000_000;

fn frozen() -> ManualClock {
    ManualClock::at_unix_millis(NOW_MS)
}

/// A Twitter-layout sharded generator with one exclusive shard (and the overflow shard) on
/// a frozen clock.
fn one_exclusive_shard() -> ShardedGenerator<ManualClock> {
    ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(1)
        .clock(frozen())
        .build()
        .unwrap()
}

fn node_of(id: Id) -> u64 {
    Layout::TWITTER.decode(id).node()
}

#[test]
fn a_reused_lease_continues_after_its_last_id() {
    // One exclusive shard and a clock that never moves: only the handed-back state can
    // keep the second holder from repeating the first holder's IDs.
    let gen = one_exclusive_shard();
    let mut seen = HashSet::new();
    for round in 0..4 {
        let owned = gen.own_shard().unwrap();
        for _ in 0..1_000 {
            let id = owned.next_id().unwrap();
            assert!(seen.insert(id), "round {round} repeated {id}");
        }
    }
    assert_eq!(seen.len(), 4_000);
}

#[test]
fn a_thread_that_exits_hands_its_shard_back_with_its_state() {
    let gen = Arc::new(one_exclusive_shard());
    let mut seen = HashSet::new();
    for _ in 0..4 {
        let g = Arc::clone(&gen);
        let ids = std::thread::spawn(move || {
            let ids: Vec<Id> = (0..500).map(|_| g.next_id().unwrap()).collect();
            assert_eq!(g.local_shard(), Some(0), "the one exclusive shard was free");
            ids
        })
        .join()
        .unwrap();
        for id in ids {
            assert_eq!(node_of(id), 0, "minted on shard 0, not the overflow shard");
            assert!(seen.insert(id), "a later thread repeated {id}");
        }
    }
    // And the shard is free again for an owned shard.
    let owned = gen
        .own_shard()
        .expect("the last thread handed the shard back");
    assert!(seen.insert(owned.next_id().unwrap()));
}

/// A generator and where to send what is minted from it.
type MintAndSend = (
    Arc<ShardedGenerator<ManualClock>>,
    std::sync::mpsc::Sender<Vec<Id>>,
);

/// Mints 300 IDs from its generator when the thread's thread-locals are destroyed, and
/// sends them back.
struct MintOnExit {
    gen: std::cell::RefCell<Option<MintAndSend>>,
}

impl Drop for MintOnExit {
    fn drop(&mut self) {
        if let Some((gen, sent)) = self.gen.borrow_mut().take() {
            let ids = (0..300).map(|_| gen.next_id().unwrap()).collect();
            sent.send(ids).unwrap();
        }
    }
}

thread_local! {
    static MINT_ON_EXIT: MintOnExit = const {
        MintOnExit {
            gen: std::cell::RefCell::new(None),
        }
    };
}

/// A thread-local destructor that mints through a sharded generator, before or after the
/// thread's shard registry is handed back: its IDs repeat nothing, and the thread leaves
/// no shard taken (the next thread gets the one exclusive shard).
#[test]
fn minting_from_a_thread_local_destructor_repeats_nothing_and_keeps_no_shard() {
    for destructor_first in [false, true] {
        let gen = Arc::new(one_exclusive_shard());
        let (sent, received) = std::sync::mpsc::channel();
        let g = Arc::clone(&gen);
        let ids = std::thread::spawn(move || {
            let arm = || {
                MINT_ON_EXIT.with(|m| *m.gen.borrow_mut() = Some((Arc::clone(&g), sent.clone())))
            };
            // std destroys thread-locals in the reverse order of their first use: armed
            // before the first ID, the destructor runs after the registry's exit.
            if !destructor_first {
                arm();
            }
            let ids: Vec<Id> = (0..500).map(|_| g.next_id().unwrap()).collect();
            if destructor_first {
                arm();
            }
            ids
        })
        .join()
        .unwrap();
        let late = received.recv().expect("the destructor minted");
        // After the registry's exit the thread takes no shard: the overflow shard (1).
        let want_node = if destructor_first { 0 } else { 1 };
        assert!(
            late.iter().all(|&id| node_of(id) == want_node),
            "destructor first: {destructor_first}: minted on shard {}",
            node_of(late[0])
        );
        let mut seen = HashSet::new();
        for id in ids.into_iter().chain(late) {
            assert!(
                seen.insert(id),
                "repeated {id} (destructor first: {destructor_first})"
            );
        }
        let g = Arc::clone(&gen);
        let after = std::thread::spawn(move || {
            let ids: Vec<Id> = (0..500).map(|_| g.next_id().unwrap()).collect();
            (g.local_shard(), ids)
        })
        .join()
        .unwrap();
        assert_eq!(
            after.0,
            Some(0),
            "the exclusive shard was handed back (destructor first: {destructor_first})"
        );
        for id in after.1 {
            assert!(seen.insert(id), "a later thread repeated {id}");
        }
    }
}

#[test]
fn threads_beyond_the_shards_mint_on_the_overflow_shard() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(1)
        .node(5)
        .clock(frozen())
        .build()
        .unwrap();
    let owned = gen.own_shard().unwrap();
    assert!(matches!(
        gen.own_shard(),
        Err(MintError::NoFreeShard { shards: 1 })
    ));
    let gen = &gen;
    let from_threads: Vec<Id> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| s.spawn(move || (0..200).map(|_| gen.next_id().unwrap()).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut seen = HashSet::new();
    for &id in &from_threads {
        assert_eq!(node_of(id), 5 << 1 | 1, "the overflow shard is the highest");
        assert!(seen.insert(id));
    }
    for _ in 0..200 {
        let id = owned.next_id().unwrap();
        assert_eq!(node_of(id), 5 << 1);
        assert!(seen.insert(id));
    }
}

#[test]
fn two_sharded_generators_keep_separate_thread_state() {
    let a = ShardedGenerator::builder(Layout::TWITTER)
        .node(1)
        .clock(frozen())
        .build()
        .unwrap();
    let b = ShardedGenerator::builder(Layout::TWITTER)
        .node(2)
        .clock(frozen())
        .build()
        .unwrap();
    let ia = a.next_id().unwrap();
    let ib = b.next_id().unwrap();
    assert_eq!(a.local_shard(), Some(0));
    assert_eq!(b.local_shard(), Some(0));
    assert_eq!(node_of(ia), 1 << 6);
    assert_eq!(node_of(ib), 2 << 6);
    // Each keeps its own sequence: the second ID of each is sequence 1 of its own shard.
    assert_eq!(Layout::TWITTER.decode(a.next_id().unwrap()).sequence(), 1);
    assert_eq!(Layout::TWITTER.decode(b.next_id().unwrap()).sequence(), 1);
    // Releasing one leaves the other in place.
    a.release_local_shard();
    assert_eq!(a.local_shard(), None);
    assert_eq!(b.local_shard(), Some(0));
}

/// One thread alternating between two generators, each on its one exclusive shard, with a
/// clock that never moves: the thread's fast path serves one generator at a time, so every
/// switch moves a shard's state out of the fast path and the other's in. A state lost or
/// mixed up in a move repeats an ID or goes backwards.
#[test]
fn one_thread_alternating_two_generators_repeats_nothing() {
    let make = |node| {
        ShardedGenerator::builder(Layout::TWITTER)
            .shard_bits(1)
            .node(node)
            .clock(frozen())
            .build()
            .unwrap()
    };
    let (a, b) = (make(1), make(2));
    let (mut last_a, mut last_b) = (a.next_id().unwrap(), b.next_id().unwrap());
    for i in 0..1_500 {
        // Runs of different lengths, through the fast path and the general one.
        for _ in 0..i % 3 {
            let id = a.next_id().unwrap();
            assert!(id > last_a, "a went from {last_a} to {id}");
            last_a = id;
        }
        let id = if i % 5 == 0 {
            b.try_next_id()
        } else {
            b.next_id()
        }
        .unwrap();
        assert!(id > last_b, "b went from {last_b} to {id}");
        last_b = id;
    }
    // Handing a's shard back after all that: an owned shard continues after its last ID.
    a.release_local_shard();
    let owned = a.own_shard().expect("the one exclusive shard is free");
    assert!(owned.next_id().unwrap() > last_a);
    assert_eq!(node_of(last_a), 1 << 1);
    assert_eq!(node_of(last_b), 2 << 1);
}

/// A thread on the overflow shard retries for an exclusive shard every so often; a retry
/// that finds none must not cost the overflow shard the rest of its tick. With a clock that
/// never moves, the overflow shard issues every sequence number of the tick, then reports
/// the tick used up.
#[test]
fn the_overflow_shard_issues_its_whole_tick() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(1)
        .clock(frozen())
        .max_wait(std::time::Duration::ZERO)
        .build()
        .unwrap();
    let _owned = gen.own_shard().unwrap();
    let per_tick = 1 << Layout::TWITTER.sequence_bits();
    let mut last = None;
    for i in 0..per_tick {
        let id = gen
            .next_id()
            .unwrap_or_else(|e| panic!("ID {i} of {per_tick}: {e}"));
        assert_eq!(node_of(id), 1, "the overflow shard");
        assert!(last < Some(id));
        last = Some(id);
    }
    assert!(matches!(gen.next_id(), Err(MintError::Exhausted { .. })));
}

#[test]
fn a_dropped_generator_does_not_leak_into_a_new_one() {
    let first = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .build()
        .unwrap();
    let before = first.next_id().unwrap();
    drop(first);
    let second = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .build()
        .unwrap();
    assert_eq!(
        second.local_shard(),
        None,
        "a new generator starts without this thread's shard"
    );
    let after = second.next_id().unwrap();
    // Same node and clock: the new generator starts its shard afresh (restart semantics).
    assert_eq!(Layout::TWITTER.decode(after).sequence(), 0);
    assert_eq!(node_of(after), node_of(before));
}

#[test]
fn many_threads_on_shards_never_duplicate_and_each_increases() {
    let layout = Layout::builder()
        .node_bits(10)
        .sequence_bits(12)
        .build_const();
    let gen = Arc::new(
        ShardedGenerator::builder(layout)
            .shard_bits(3)
            .max_wait(PATIENT)
            .build()
            .unwrap(),
    );
    // 12 threads for 7 exclusive shards: some threads mint on the overflow shard.
    let threads = 12;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let gen = Arc::clone(&gen);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                (0..20_000)
                    .map(|_| gen.next_id().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all = HashSet::new();
    for h in handles {
        let ids = h.join().unwrap();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        for id in ids {
            assert!(all.insert(id), "duplicate {id}");
        }
    }
    assert_eq!(all.len(), threads * 20_000);
}

#[test]
fn shard_batches_respect_the_tick_and_the_lead() {
    let clock = frozen();
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .lead_ticks(1)
        .clock(clock.clone())
        .build()
        .unwrap();
    let owned = gen.own_shard().unwrap();
    let first: Vec<Id> = owned.next_ids(10_000).unwrap().collect();
    assert_eq!(first.len(), 8_192, "this tick and one borrowed");
    assert!(owned.try_next_ids(1).is_err());
    assert!(owned.try_next_id().is_err());
    clock.advance(std::time::Duration::from_millis(1));
    let more = owned.next_id().unwrap();
    assert!(more > *first.last().unwrap());
    let thread_batch: Vec<Id> = gen.next_ids(5).unwrap().collect();
    assert_eq!(thread_batch.len(), 5);
    assert_ne!(node_of(thread_batch[0]), node_of(more), "another shard");
}

#[test]
fn the_split_is_validated() {
    let err = ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(0)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        ShardError::ShardBitsOutOfRange {
            shard_bits: 0,
            max: 10
        }
    );
    let err = ShardedGenerator::builder(Layout::SONYFLAKE)
        .shard_bits(17)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        ShardError::ShardBitsOutOfRange {
            shard_bits: 17,
            max: 16
        }
    );
    assert!(err.to_string().contains("allowed 1 to 16"));
    let err = ShardedGenerator::builder(Layout::SONYFLAKE)
        .shard_bits(6)
        .node(1_024)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        ShardError::NodeOutOfRange {
            node: 1_024,
            max: 1_023
        }
    );
    assert_eq!(
        err.to_string(),
        "node 1024 is out of range: allowed 0 to 1023 (the node bits above the shard bits)"
    );
}

#[test]
fn a_thread_keeps_increasing_across_release_local() {
    // A frozen clock, and a lead so that moving past a tick needs no wait.
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .shard_bits(2)
        .lead_ticks(3)
        .build()
        .unwrap();
    let first = gen.own_shard().unwrap();
    let _second = gen.own_shard().unwrap();
    let a = gen.next_id().unwrap();
    assert_eq!(node_of(a) & 3, 2, "shards 0 and 1 are owned");
    drop(first);
    gen.release_local_shard();
    let b = gen.next_id().unwrap();
    assert_eq!(node_of(b) & 3, 0, "the freed, lower shard");
    assert!(
        b > a,
        "a lower shard in the same tick would mint a smaller ID"
    );
    // From the overflow shard to an own shard, through release_local too.
    gen.release_local_shard();
    let _all = (gen.own_shard().unwrap(), gen.own_shard().unwrap());
    let c = gen.next_id().unwrap();
    assert_eq!(
        node_of(c) & 3,
        3,
        "every exclusive shard is held: the overflow shard"
    );
    assert!(c > b);
}

/// `max_wait` for the thread tests whose threads wait for the next tick (at a tick's cap, or
/// on the overflow shard, which a thread pushes to the end of its tick every 1,024 mints
/// when it looks for a shard of its own). The wait ends when the tick does; but at load 15
/// on 2 cores a waiting thread was kept off the CPU for over the default 1 s and its call
/// gave up. These tests count duplicates, not waits: a minute leaves room for any scheduler.
const PATIENT: std::time::Duration = std::time::Duration::from_secs(60);

/// A layout with room for the thread tests: 21 sequence bits (2 M IDs per ms per shard), 2
/// node bits, 40 time bits.
const ROOMY: Layout = Layout::builder()
    .time_bits(40)
    .node_bits(2)
    .sequence_bits(21)
    .build_const();

/// IDs each thread mints at least, and keeps minting after until every thread has minted as
/// many: so all threads are minting together while the last of them mints its first
/// `OVERLAP_IDS`, however the scheduler ran them (the overlap is a property of the loop, not
/// of timing).
const OVERLAP_IDS: usize = 100_000;

/// A thread stops at this many IDs even if another has not reached `OVERLAP_IDS` (a starved
/// thread on a loaded machine), to bound memory; the overlap then covers this many.
const CAP_IDS: usize = 2_000_000;

/// `threads` threads mint through `mint` (thread index, then where to put the IDs) until
/// each has minted `OVERLAP_IDS` and every other thread has too (see `OVERLAP_IDS`). Returns
/// each thread's IDs; panics on a duplicate across all of them (counting the duplicates),
/// or if the IDs of a thread below `increasing` (by index) do not strictly increase.
fn mint_overlapping<F>(threads: usize, increasing: usize, mint: F) -> Vec<Vec<Id>>
where
    F: Fn(usize, &mut Vec<Id>) + Sync,
{
    use std::sync::atomic::{AtomicUsize, Ordering};
    let reached = AtomicUsize::new(0);
    let runs: Vec<Vec<Id>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (reached, mint) = (&reached, &mint);
                s.spawn(move || {
                    let mut ids = Vec::with_capacity(2 * OVERLAP_IDS);
                    while ids.len() < OVERLAP_IDS {
                        mint(i, &mut ids);
                    }
                    // Relaxed: a lone counter; it orders nothing but itself.
                    reached.fetch_add(1, Ordering::Relaxed);
                    while reached.load(Ordering::Relaxed) < threads && ids.len() < CAP_IDS {
                        for _ in 0..64 {
                            mint(i, &mut ids);
                        }
                        // Let a thread still short of OVERLAP_IDS run on a busy machine.
                        std::thread::yield_now();
                    }
                    ids
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut seen = HashSet::new();
    let (mut duplicates, mut decreases) = (0_usize, 0_usize);
    for (i, run) in runs.iter().enumerate() {
        if i < increasing {
            decreases += run.windows(2).filter(|w| w[0] >= w[1]).count();
        }
        duplicates += run.iter().filter(|&&id| !seen.insert(id)).count();
    }
    let total: usize = runs.iter().map(Vec::len).sum();
    assert_eq!(
        (duplicates, decreases),
        (0, 0),
        "duplicates, and IDs not above their thread's last, among {total} IDs"
    );
    runs
}

#[test]
fn threads_overlapping_on_the_overflow_shard_never_duplicate() {
    // One exclusive shard, held by an owned shard for the whole test: four threads meet on the
    // overflow shard, the sharded generator's only state shared by CAS, through every
    // thread-local call that reaches it.
    let gen = ShardedGenerator::builder(ROOMY)
        .shard_bits(1)
        .node(1)
        .max_wait(PATIENT)
        .build()
        .unwrap();
    let owned = gen.own_shard().unwrap();
    let runs = mint_overlapping(4, 4, |i, ids| match i % 4 {
        0 => ids.push(gen.next_id().unwrap()),
        1 => match gen.try_next_id() {
            Ok(id) => ids.push(id),
            Err(e) => assert!(e.retry_after().is_some(), "{e}"),
        },
        2 => ids.extend(gen.next_ids(7).unwrap()),
        _ => match gen.try_next_ids(5) {
            Ok(batch) => ids.extend(batch),
            // A full tick (not expected at 2 M per ms, but allowed): try again.
            Err(e) => assert!(e.retry_after().is_some(), "{e}"),
        },
    });
    for run in &runs {
        assert!(run.iter().all(|&id| ROOMY.decode(id).node() == 0b11));
    }
    assert_eq!(ROOMY.decode(owned.next_id().unwrap()).node(), 0b10);
}

#[test]
fn more_threads_than_shards_overlapping_never_duplicate() {
    // Three exclusive shards and six threads: three mint on shards of their own, the rest on
    // the overflow shard, all at once; and an owned shard taken and dropped over and over moves the
    // shards between the leasing threads and the overflowing ones.
    let gen = ShardedGenerator::builder(ROOMY)
        .shard_bits(2)
        .max_wait(PATIENT)
        .build()
        .unwrap();
    // Thread 5's IDs come from one owned after another, or the overflow shard: an owned shard of a
    // lower shard in the same tick mints lower IDs, so only threads 0 to 4 must increase.
    let runs = mint_overlapping(6, 5, |i, ids| {
        if i == 5 {
            // An owned shard for a few IDs; while every shard is held, the overflow shard.
            match gen.own_shard() {
                Ok(owned) => ids.push(owned.next_id().unwrap()),
                Err(MintError::NoFreeShard { shards: 3 }) => ids.push(gen.next_id().unwrap()),
                Err(e) => panic!("{e}"),
            }
        } else {
            ids.push(gen.next_id().unwrap());
        }
    });
    let on_overflow = runs
        .iter()
        .flatten()
        .filter(|&&id| ROOMY.decode(id).node() == 0b11)
        .count();
    assert!(
        on_overflow > 0,
        "six threads for three shards: some overflow"
    );
}

/// A thread on the overflow shard looks for a shard of its own every 1,024 IDs (not on every
/// ID, and not never): a shard freed meanwhile is taken on the 1,024th overflow ID after the
/// last look, and the thread's IDs keep increasing across the move.
#[test]
fn a_thread_on_the_overflow_shard_takes_a_freed_shard_every_1024_ids() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .shard_bits(1)
        .lead_ticks(1)
        .build()
        .unwrap();
    let owned = gen.own_shard().unwrap();
    let mut ids = vec![gen.next_id().unwrap()];
    assert_eq!(gen.local_shard(), None, "the one exclusive shard is owned");
    drop(owned);
    for _ in 0..1_024 {
        ids.push(gen.next_id().unwrap());
    }
    assert_eq!(
        gen.local_shard(),
        None,
        "1,024 overflow IDs before the next look"
    );
    assert!(
        ids.iter().all(|&id| node_of(id) == 1),
        "all on the overflow shard"
    );
    ids.push(gen.next_id().unwrap());
    assert_eq!(
        gen.local_shard(),
        Some(0),
        "the freed shard, at the next look"
    );
    assert_eq!(node_of(*ids.last().unwrap()), 0);
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "increasing across the move"
    );
}

/// `claim_local_shard`, `local_shard` and `next_id_timeout` on the calling thread's shard, an
/// exclusive one or (every one held) the overflow shard, and `max_wait` as built.
#[test]
fn a_thread_claims_reports_and_mints_on_its_shard() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .shard_bits(2)
        .max_wait(std::time::Duration::from_millis(7))
        .build()
        .unwrap();
    assert_eq!(gen.max_wait(), std::time::Duration::from_millis(7));
    let _owned = (gen.own_shard().unwrap(), gen.own_shard().unwrap());
    assert_eq!(gen.claim_local_shard(), Some(2), "shards 0 and 1 are owned");
    assert_eq!(gen.local_shard(), Some(2));
    let id = gen
        .next_id_timeout(std::time::Duration::from_millis(5))
        .unwrap();
    assert_eq!(node_of(id), 2);
    std::thread::scope(|s| {
        s.spawn(|| {
            assert_eq!(
                gen.claim_local_shard(),
                None,
                "every exclusive shard is held"
            );
            assert_eq!(gen.local_shard(), None);
            let id = gen
                .next_id_timeout(std::time::Duration::from_millis(5))
                .unwrap();
            assert_eq!(node_of(id), 3, "the overflow shard");
        });
    });
}

/// The accessors report the split as built.
#[test]
fn the_split_is_reported_as_built() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .node(3)
        .shard_bits(3)
        .build()
        .unwrap();
    assert_eq!((gen.node(), gen.shard_bits(), gen.shards()), (3, 3, 7));
    let (first, second) = (gen.own_shard().unwrap(), gen.own_shard().unwrap());
    assert_eq!(
        (first.node_field(), second.node_field()),
        (3 << 3, 3 << 3 | 1)
    );
    assert_eq!(node_of(second.next_id().unwrap()), second.node_field());
    assert_eq!(second.max_wait(), gen.max_wait());
}

/// `Debug` names the type and the split, never an empty string.
#[test]
fn debug_shows_the_split() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .node(5)
        .build()
        .unwrap();
    let text = format!("{gen:?}");
    assert!(text.starts_with("ShardedGenerator {"), "{text}");
    assert!(
        text.contains("node: 5") && text.contains("shard_bits: 6"),
        "{text}"
    );
    let owned = gen.own_shard().unwrap();
    assert!(
        format!("{owned:?}").starts_with("OwnedShard {"),
        "{owned:?}"
    );
}

/// As a `SourceBuilder` (what node sources and owned shards build from), a sharded builder's node
/// is its node: the node bits above the shard bits.
#[test]
fn the_source_builder_node_is_the_node_above_the_shards() {
    use snowmint::source::SourceBuilder;
    let b = ShardedGenerator::builder(Layout::TWITTER)
        .clock(frozen())
        .shard_bits(4);
    assert_eq!(
        SourceBuilder::max_node(&b),
        (1 << 6) - 1,
        "10 node bits, 4 for shards"
    );
    let b = SourceBuilder::node(b, 9);
    assert_eq!(SourceBuilder::node_number(&b), 9);
    assert_eq!(*SourceBuilder::layout(&b), Layout::TWITTER);
    let gen = SourceBuilder::build(b).unwrap();
    assert_eq!((gen.node(), gen.shard_bits()), (9, 4));
    let default = ShardedGenerator::builder(Layout::SONYFLAKE).clock(frozen());
    assert_eq!(
        SourceBuilder::max_node(&default),
        (1 << 10) - 1,
        "16 node bits, 6 for shards by default"
    );
}

/// `last_id` covers every ID issued so far: on a shard reused in a later tick, on an owned shard
/// whose ticks move on, and across the middle of the layout's lifetime (where a tick shifted
/// up by the sequence bits would wrap past 2^64).
#[test]
fn last_id_covers_every_id_of_reused_shards_and_later_ticks() {
    let layout = Layout::TWITTER;
    let half = layout.epoch_unix_millis() + (1 << 40) - 2;
    for start_ms in [NOW_MS, half] {
        let clock = ManualClock::at_unix_millis(start_ms);
        let gen = ShardedGenerator::builder(layout)
            .clock(clock.clone())
            .build()
            .unwrap();
        let first = gen.own_shard().unwrap();
        let id = first.next_id().unwrap();
        assert!(gen.last_id() >= Some(id));
        drop(first);
        for _ in 0..3 {
            clock.advance(std::time::Duration::from_millis(1));
            let owned = gen.own_shard().unwrap();
            for _ in 0..3 {
                let id = owned.next_id().unwrap();
                assert!(gen.last_id() >= Some(id), "start {start_ms} ms");
                clock.advance(std::time::Duration::from_millis(1));
            }
        }
    }
}

/// A thread that has minted nowhere else and lands on the overflow shard in the layout's
/// first tick mints there at once: nothing of tick 0 is skipped, whether it is the thread's
/// first call or it held a shard without minting and handed it back.
#[test]
fn the_overflow_shard_mints_in_the_first_tick() {
    let layout = Layout::TWITTER;
    for held_first in [false, true] {
        let gen = ShardedGenerator::builder(layout)
            .clock(ManualClock::at_unix_millis(layout.epoch_unix_millis()))
            .shard_bits(1)
            .build()
            .unwrap();
        if held_first {
            assert_eq!(gen.claim_local_shard(), Some(0));
            gen.release_local_shard();
        }
        let _owned = gen.own_shard().unwrap();
        let id = gen.try_next_id().expect("tick 0 has room");
        assert_eq!((layout.decode(id).ticks(), node_of(id)), (0, 1));
    }
}
