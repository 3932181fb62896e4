//! The 128-bit generators' shared path: two threads mint two UUIDv7s (or ULIDs) each from one
//! generator, on a frozen clock (every interleaving) and with a third thread stepping the
//! clock back (up to three preemptions): the IDs are distinct and increase per thread, and on
//! the frozen clock they take the counter values 0 to 3 (atop `rand_b`, and atop the ULID's
//! random part after the 12-bit fraction) with no gap and no carry.

mod common;

use common::{builder, clock, explore, START_MS};
use loom::sync::Arc;
use loom::thread;
use snowmint::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};

/// Joins `threads`, checks that each one's IDs increase, and returns them all, sorted, with
/// no two equal.
fn gather<T: Ord + Copy + std::fmt::Debug>(threads: Vec<thread::JoinHandle<Vec<T>>>) -> Vec<T> {
    let mut all = Vec::new();
    for t in threads {
        let ids = t.join().unwrap();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "a thread's IDs went back: {ids:?}"
        );
        all.extend(ids);
    }
    all.sort_unstable();
    assert!(
        all.windows(2).all(|w| w[0] != w[1]),
        "duplicate ID among {all:?}"
    );
    all
}

#[test]
fn uuid7_two_threads_two_ids_every_interleaving() {
    let n = explore("uuid7_two_threads", builder(None), || {
        let gen = Arc::new(Uuid7Generator::with_clock(clock()));
        let threads = (0..2)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || (0..2).map(|_| gen.next_uuid()).collect::<Vec<Uuid7>>())
            })
            .collect();
        let all = gather(threads);
        let fields: Vec<(u64, u16, u64)> = all
            .iter()
            .map(|id| (id.unix_millis(), id.rand_a(), id.rand_b() >> 55))
            .collect();
        assert_eq!(fields, (0..4).map(|c| (START_MS, 0, c)).collect::<Vec<_>>());
    });
    assert!(n > 1, "loom explored a single interleaving");
}

#[test]
fn ulid_two_threads_two_ids_every_interleaving() {
    let n = explore("ulid_two_threads", builder(None), || {
        let gen = Arc::new(UlidGenerator::with_clock(clock()));
        let threads = (0..2)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || (0..2).map(|_| gen.next_ulid()).collect::<Vec<Ulid>>())
            })
            .collect();
        let all = gather(threads);
        let fields: Vec<(u64, u128)> = all
            .iter()
            .map(|id| (id.unix_millis(), id.random() >> 61))
            .collect();
        assert_eq!(fields, (0..4).map(|c| (START_MS, c)).collect::<Vec<_>>());
    });
    assert!(n > 1, "loom explored a single interleaving");
}

/// Shards (a block of states each, the fast path within a tick, a new block past it) beside
/// the generator's own calls: every ID distinct, each thread's increasing.
#[test]
fn shards_beside_the_generator_every_interleaving() {
    let n = explore("id128_shards", builder(None), || {
        let ulids = Arc::new(UlidGenerator::with_clock(clock()));
        let uuids = Arc::new(Uuid7Generator::with_clock(clock()));
        let threads = (0..2)
            .map(|i| {
                let ulids = Arc::clone(&ulids);
                let uuids = Arc::clone(&uuids);
                thread::spawn(move || {
                    let mut ulid_shard = ulids.shard();
                    let mut uuid_shard = uuids.shard();
                    let mut out = Vec::new();
                    for _ in 0..2 {
                        out.push(ulid_shard.next_ulid().to_u128());
                    }
                    out.push(if i == 0 {
                        uuid_shard.next_uuid().to_u128()
                    } else {
                        uuids.next_uuid().to_u128()
                    });
                    out.push(if i == 0 {
                        uuids.next_uuid().to_u128()
                    } else {
                        uuid_shard.next_uuid().to_u128()
                    });
                    out
                })
            })
            .collect::<Vec<_>>();
        let mut per_thread = Vec::new();
        for t in threads {
            per_thread.push(t.join().unwrap());
        }
        // Each thread's ULIDs increase, and so do its UUIDs; none is repeated across threads.
        for ids in &per_thread {
            assert!(ids[0] < ids[1], "a shard's ULIDs went back: {ids:?}");
            assert!(ids[2] < ids[3], "shard and generator out of order: {ids:?}");
        }
        let mut ulids_all: Vec<u128> = per_thread.iter().flat_map(|t| t[..2].to_vec()).collect();
        let mut uuids_all: Vec<u128> = per_thread.iter().flat_map(|t| t[2..].to_vec()).collect();
        for all in [&mut ulids_all, &mut uuids_all] {
            all.sort_unstable();
            assert!(all.windows(2).all(|w| w[0] != w[1]), "duplicate among {all:?}");
        }
    });
    assert!(n > 1, "loom explored a single interleaving");
}

#[test]
fn both_through_a_clock_step_back() {
    let mut b = builder(Some(3));
    if let Ok(bound) = std::env::var("LOOM_MAX_PREEMPTIONS") {
        b.preemption_bound = bound.parse().ok();
    }
    let n = explore("id128_step_back", b, || {
        let clock = clock();
        clock.advance(std::time::Duration::from_millis(5));
        let uuids = Arc::new(Uuid7Generator::with_clock(clock.clone()));
        let ulids = Arc::new(UlidGenerator::with_clock(clock.clone()));
        let stepper = thread::spawn(move || clock.rewind(std::time::Duration::from_millis(3)));
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let (uuids, ulids) = (Arc::clone(&uuids), Arc::clone(&ulids));
                thread::spawn(move || {
                    let u = (0..2).map(|_| uuids.next_uuid()).collect::<Vec<Uuid7>>();
                    let l = (0..2).map(|_| ulids.next_ulid()).collect::<Vec<Ulid>>();
                    (u, l)
                })
            })
            .collect();
        stepper.join().unwrap();
        let (mut all_u, mut all_l) = (Vec::new(), Vec::new());
        for t in threads {
            let (u, l) = t.join().unwrap();
            assert!(u[0] < u[1] && l[0] < l[1], "a thread's IDs went back");
            all_u.extend(u);
            all_l.extend(l);
        }
        all_u.sort_unstable();
        all_l.sort_unstable();
        assert!(
            all_u.windows(2).all(|w| w[0] != w[1]),
            "duplicate UUID: {all_u:?}"
        );
        assert!(
            all_l.windows(2).all(|w| w[0] != w[1]),
            "duplicate ULID: {all_l:?}"
        );
    });
    assert!(n > 1, "loom explored a single interleaving");
}

/// The fast path's CAS comes before its test of the reading: a thread that finds the clock
/// past its state's tick gives the state back (or leaves it skipped when another thread built
/// on it) and takes its ID by the rule. Two threads mint two UUIDs each while a third moves
/// the clock 1 ms on (up to three preemptions): the IDs are distinct and increase per thread,
/// an ID minted after them all is above them all, and it carries the moved clock's millisecond.
#[test]
fn uuid7_while_the_clock_moves_on() {
    let mut b = builder(Some(3));
    if let Ok(bound) = std::env::var("LOOM_MAX_PREEMPTIONS") {
        b.preemption_bound = bound.parse().ok();
    }
    let n = explore("uuid7_clock_moves_on", b, || {
        let clock = clock();
        let gen = Arc::new(Uuid7Generator::with_clock(clock.clone()));
        let first = gen.next_uuid();
        let mover = {
            let clock = clock.clone();
            thread::spawn(move || clock.advance(std::time::Duration::from_millis(1)))
        };
        let threads = (0..2)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || (0..2).map(|_| gen.next_uuid()).collect::<Vec<Uuid7>>())
            })
            .collect();
        mover.join().unwrap();
        let all = gather(threads);
        assert!(all[0] > first, "an ID below the first");
        let last = gen.next_uuid();
        assert!(last > all[3], "the last ID is not above the others");
        assert_eq!(last.unix_millis(), START_MS + 1, "the last ID is not at the moved clock");
    });
    assert!(n > 1, "loom explored a single interleaving");
}
