//! The 128-bit generators: strictly increasing on one thread and across threads, through a
//! clock stepped back, a millisecond used up, batches and fills; the version, variant and
//! method-3 fraction of every UUID; the counter of every ULID.

use std::collections::HashSet;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use snowmint::clock::{Clock, ManualClock};
use snowmint::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};

const THREADS: usize = 3;
const PER_THREAD: usize = 200_000;

/// `THREADS` threads released together by a barrier, each minting `per_thread` IDs with
/// `mint`; each thread's IDs increase, and all are distinct.
fn threads_never_repeat<T, F>(per_thread: usize, mint: F)
where
    T: Ord + Copy + Send + std::hash::Hash + std::fmt::Debug + 'static,
    F: Fn() -> T + Send + Sync + 'static,
{
    let mint = Arc::new(mint);
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let (mint, barrier) = (Arc::clone(&mint), Arc::clone(&barrier));
            thread::spawn(move || {
                barrier.wait();
                (0..per_thread).map(|_| mint()).collect::<Vec<T>>()
            })
        })
        .collect();
    let mut all = HashSet::with_capacity(THREADS * per_thread);
    for handle in handles {
        let ids = handle.join().unwrap();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "a thread's IDs increase"
        );
        all.extend(ids);
    }
    assert_eq!(all.len(), THREADS * per_thread, "no ID twice");
}

#[test]
fn uuid7_threads_sharing_a_generator_never_repeat() {
    let gen = Uuid7Generator::new();
    threads_never_repeat(PER_THREAD, move || gen.next_uuid());
}

#[test]
fn ulid_threads_sharing_a_generator_never_repeat() {
    let gen = UlidGenerator::new();
    threads_never_repeat(PER_THREAD, move || gen.next_ulid());
}

#[test]
fn threads_on_a_clock_that_stands_still_never_repeat() {
    // 3 × 150,000 IDs: within the 524,288 the lead lends a clock that stands still.
    let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    threads_never_repeat(150_000, move || gen.next_uuid());
    let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    threads_never_repeat(150_000, move || gen.next_ulid());
}

fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn ids_on_the_tsc_clock_carry_the_time_now() {
    let before = now_millis();
    let uuid = Uuid7Generator::new().next_uuid();
    let ulid = UlidGenerator::new().next_ulid();
    let after = now_millis();
    for ms in [uuid.unix_millis(), ulid.unix_millis()] {
        assert!(
            ms + 5 >= before && ms <= after + 5,
            "{ms} in {before}..={after}"
        );
    }
}

#[test]
fn every_uuid_is_version_7_rfc_variant_and_parses_back() {
    let gen = Uuid7Generator::new();
    let mut ids = gen.next_uuids(5_000);
    ids.push(gen.next_uuid());
    for id in ids {
        let bytes = id.to_bytes();
        assert_eq!(bytes[6] >> 4, 7);
        assert_eq!(bytes[8] >> 6, 0b10);
        assert_eq!(id.to_string().parse::<Uuid7>(), Ok(id));
    }
}

#[test]
fn rand_a_is_the_sub_millisecond_time_and_the_counter_carries_within_the_lead() {
    // 0.25 ms past a millisecond: rand_a starts at 1024, the counter (atop rand_b) at 0.
    let clock = ManualClock::at_unix_nanos(1_700_000_000_000_250_000);
    let gen = Uuid7Generator::with_clock(clock.clone());
    let first = gen.next_uuid();
    assert_eq!(
        (first.unix_millis(), first.rand_a(), first.rand_b() >> 55),
        (1_700_000_000_000, 1024, 0)
    );
    assert_eq!(first.unix_nanos(), 1_700_000_000_000_250_000);
    // 128 counter values a tick: the 129th ID carries into the next 1/4096 ms.
    let rest = gen.next_uuids(128);
    assert_eq!((rest[126].rand_a(), rest[126].rand_b() >> 55), (1024, 127));
    assert_eq!((rest[127].rand_a(), rest[127].rand_b() >> 55), (1025, 0));
    // The lead's room is 1 ms: a batch on a clock that stands still takes what fits,
    // ending exactly 1 ms (and the tick being filled) ahead of the clock.
    let lent = gen.next_uuids(4096 * 128 - 129 + 128);
    let last = lent.last().unwrap();
    assert_eq!(
        (last.unix_millis(), last.rand_a(), last.rand_b() >> 55),
        (1_700_000_000_001, 1024, 127)
    );
    assert!(lent.windows(2).all(|w| w[0] < w[1]));
    // The clock moves past the lent states: the IDs follow the clock again.
    clock.advance(Duration::from_micros(1_500));
    let next = gen.next_uuid();
    assert_eq!(
        (next.unix_millis(), next.rand_a(), next.rand_b() >> 55),
        (1_700_000_000_001, 3072, 0)
    );
}

#[test]
fn the_ulid_counter_counts_within_a_tick_and_carries() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let gen = UlidGenerator::with_clock(clock.clone());
    let ids = gen.next_ulids(129);
    // The top 19 of the 80 random bits: the fraction (12) and the counter (7).
    assert_eq!(ids[0].random() >> 61, 0);
    assert_eq!(ids[127].random() >> 61, 127);
    assert_eq!(ids[128].random() >> 61, 1 << 7);
    assert!(ids.iter().all(|id| id.unix_millis() == 1_700_000_000_000));
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    clock.advance(Duration::from_millis(5));
    let next = gen.next_ulid();
    assert_eq!(
        (next.unix_millis(), next.random() >> 61),
        (1_700_000_000_005, 0)
    );
}

#[test]
fn a_clock_stepped_back_keeps_the_order() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let uuids = Uuid7Generator::with_clock(clock.clone());
    let ulids = UlidGenerator::with_clock(clock.clone());
    let (mut last_uuid, mut last_ulid) = (uuids.next_uuid(), ulids.next_ulid());
    for step in 0..200 {
        if step % 3 == 0 {
            clock.rewind(Duration::from_millis(7));
        } else {
            // Net forward: IDs wait out no step back (a frozen clock would never end one).
            clock.advance(Duration::from_micros(4_000));
        }
        let (uuid, ulid) = (uuids.next_uuid(), ulids.next_ulid());
        assert!(uuid > last_uuid && ulid > last_ulid, "step {step}");
        (last_uuid, last_ulid) = (uuid, ulid);
    }
    // A step back of an hour: the IDs keep increasing at the high mark, and rejoin the
    // clock when it passes it.
    let high = last_ulid.unix_millis();
    clock.rewind(Duration::from_secs(3_600));
    let (uuid, ulid) = (uuids.next_uuid(), ulids.next_ulid());
    assert!(uuid > last_uuid && ulid > last_ulid);
    assert_eq!(ulid.unix_millis(), high);
    assert_eq!(uuids.last_unix_millis(), uuid.unix_millis());
    clock.advance(Duration::from_secs(3_601));
    assert_eq!(
        ulids.next_ulid().unix_millis(),
        clock.now_unix_nanos() / 1_000_000
    );
}

#[test]
fn batches_and_fills_continue_the_single_calls() {
    let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    let mut seen = vec![gen.next_uuid()];
    seen.extend(gen.next_uuids(3));
    let mut buf = [Uuid7::MIN; 5];
    gen.fill(&mut buf);
    seen.extend(buf);
    gen.fill(&mut []);
    seen.push(gen.next_uuid());
    // One after another: the counter atop rand_b counts up in the one tick.
    let counters: Vec<u64> = seen.iter().map(|id| id.rand_b() >> 55).collect();
    assert_eq!(counters, (0..10).collect::<Vec<u64>>());

    let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    let mut seen = vec![gen.next_ulid()];
    seen.extend(gen.next_ulids(3));
    let mut buf = [Ulid::MIN; 5];
    gen.fill(&mut buf);
    seen.extend(buf);
    seen.push(gen.next_ulid());
    let counters: Vec<u128> = seen.iter().map(|id| id.random() >> 61).collect();
    assert_eq!(counters, (0..10).collect::<Vec<u128>>());
}

/// A UUID's 55 random bits are drawn afresh for every ID: they differ between IDs and
/// between threads.
#[test]
fn uuid_random_bits_differ_between_ids_and_threads() {
    let gen = Arc::new(Uuid7Generator::with_clock(ManualClock::at_unix_millis(1)));
    let bits = |ids: Vec<Uuid7>| -> HashSet<u64> {
        ids.iter().map(|id| id.rand_b() & ((1 << 55) - 1)).collect()
    };
    let mut singles: Vec<Uuid7> = (0..500).map(|_| gen.next_uuid()).collect();
    singles.extend(gen.next_uuids(500));
    let here = bits(singles);
    assert_eq!(here.len(), 1_000);
    let other = Arc::clone(&gen);
    let there = bits(
        thread::spawn(move || other.next_uuids(1_000))
            .join()
            .unwrap(),
    );
    assert_eq!(there.len(), 1_000);
    assert!(here.is_disjoint(&there));
}

/// A ULID's 61 random bits are one draw per thread and millisecond (the ULID spec's
/// monotonic mode: within it the fraction and counter tell IDs apart), mixed with the
/// generator's key: the same for one thread's IDs of one millisecond, and different in
/// another millisecond, on another thread and from another generator.
#[test]
fn ulid_random_bits_are_one_draw_per_thread_and_millisecond() {
    let low = |id: &Ulid| id.random() as u64 & ((1 << 61) - 1);
    let clock = ManualClock::at_unix_millis(1_000);
    let gen = Arc::new(UlidGenerator::with_clock(clock.clone()));
    let mut first_ms: Vec<Ulid> = (0..50).map(|_| gen.next_ulid()).collect();
    first_ms.extend(gen.next_ulids(50));
    let mut buf = [Ulid::MIN; 50];
    gen.fill(&mut buf);
    first_ms.extend(buf);
    let bits = low(&first_ms[0]);
    assert!(
        first_ms
            .iter()
            .all(|id| id.unix_millis() == 1_000 && low(id) == bits),
        "one thread's ULIDs of one millisecond share their bits"
    );
    assert!(first_ms.windows(2).all(|w| w[0] < w[1]));

    let other = Arc::clone(&gen);
    let there = thread::spawn(move || other.next_ulid()).join().unwrap();
    assert_eq!(there.unix_millis(), 1_000);
    assert_ne!(low(&there), bits, "another thread draws its own");

    let second = UlidGenerator::with_clock(clock.clone());
    let theirs = second.next_ulid();
    assert_eq!(theirs.unix_millis(), 1_000);
    assert_ne!(low(&theirs), bits, "another generator mixes in its own key");

    let mut per_ms = HashSet::new();
    for _ in 0..1_000 {
        clock.advance(Duration::from_millis(1));
        per_ms.insert(low(&gen.next_ulid()));
    }
    assert_eq!(per_ms.len(), 1_000, "every millisecond draws afresh");
    assert!(!per_ms.contains(&bits));
}

/// Three threads each mint from a shard of one generator while a fourth calls the
/// generator itself: every ID is distinct, each shard's IDs increase, and every ID's time is
/// at least the clock's reading before it and at most 1 ms (and a tick) past the reading
/// after it (the clock, moved by the test, only goes forward).
#[test]
fn shards_are_unique_across_the_generator_and_keep_the_bound() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let uuids = Arc::new(Uuid7Generator::with_clock(clock.clone()));
    let ulids = Arc::new(UlidGenerator::with_clock(clock.clone()));
    let per_thread = 50_000;
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let (uuids, ulids, clock) = (Arc::clone(&uuids), Arc::clone(&ulids), clock.clone());
            thread::spawn(move || {
                let (mut u_shard, mut l_shard) = (uuids.shard(), ulids.shard());
                let mut out = Vec::with_capacity(per_thread);
                for i in 0..per_thread {
                    if i % 1_000 == 0 {
                        clock.advance(Duration::from_micros(50));
                    }
                    let before = clock.now_unix_nanos();
                    let (u, l) = if t == 3 {
                        (uuids.next_uuid(), ulids.next_ulid())
                    } else {
                        (u_shard.next_uuid(), l_shard.next_ulid())
                    };
                    let after = clock.now_unix_nanos();
                    let tick = (before / 1_000_000) * 1_000_000
                        + (before % 1_000_000) * 4096 / 1_000_000 * 1_000_000 / 4096;
                    assert!(
                        u.unix_nanos() + 245 >= tick,
                        "a shard's ID behind the clock"
                    );
                    assert!(u.unix_nanos() <= after + 1_000_245, "past the bound");
                    let l_ms = l.unix_millis();
                    assert!(l_ms + 1 >= before / 1_000_000 && l_ms <= after / 1_000_000 + 1);
                    out.push((u, l));
                }
                out
            })
        })
        .collect();
    let (mut all_u, mut all_l) = (HashSet::new(), HashSet::new());
    for handle in handles {
        let ids = handle.join().unwrap();
        assert!(ids.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        for (u, l) in ids {
            assert!(all_u.insert(u) && all_l.insert(l), "an ID twice");
        }
    }
}

#[test]
fn a_shard_continues_above_the_generator_and_through_a_step_back() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let gen = Uuid7Generator::with_clock(clock.clone());
    let before = gen.next_uuid();
    let mut shard = gen.shard();
    let first = shard.next_uuid();
    assert!(first > before);
    clock.rewind(Duration::from_millis(5));
    // 200 IDs: the block's rest and the last tick's values, then it would wait for the clock.
    let ids: Vec<Uuid7> = (0..200).map(|_| shard.next_uuid()).collect();
    assert!(ids[0] > first && ids.windows(2).all(|w| w[0] < w[1]));
    // The shard's block holds the rest of the last tick: the clock must come back first.
    clock.advance(Duration::from_millis(6));
    assert!(
        gen.next_uuid() > ids[199],
        "the shared calls take later states"
    );
}

/// A clock whose cheap reading stands at `recent` while its exact one reads `exact`.
struct Lagging {
    recent: u64,
    exact: ManualClock,
}

impl Clock for Lagging {
    fn now_unix_nanos(&self) -> u64 {
        self.exact.now_unix_nanos()
    }

    fn recent_unix_nanos(&self) -> u64 {
        self.recent
    }
}

#[test]
fn the_cheap_reading_stamps_ids_until_it_would_wait_then_the_exact_one_does() {
    let t0_ms = 1_700_000_000_000_u64;
    // Made at t0 (the exact reading then), minting while the exact reading is 10 ms later
    // and the cheap one still says t0.
    let exact = ManualClock::at_unix_millis(t0_ms);
    let lagging = || Lagging {
        recent: t0_ms * 1_000_000,
        exact: exact.clone(),
    };
    let uuids = Uuid7Generator::with_clock(lagging());
    let ulids = UlidGenerator::with_clock(lagging());
    exact.advance(Duration::from_millis(10));
    let first = uuids.next_uuid();
    assert_eq!(first.unix_millis(), t0_ms, "stamped from the cheap reading");
    assert_eq!(ulids.next_ulid().unix_millis(), t0_ms);
    // 1 ms of states ahead of the cheap reading is 524,288 IDs: past them the cheap reading
    // would make the call wait, and the exact one (10 ms later) lets it go on at once.
    let mut last = first;
    for _ in 0..600_000 {
        let id = uuids.next_uuid();
        assert!(id > last);
        last = id;
    }
    assert!(
        (t0_ms + 10..=t0_ms + 11).contains(&last.unix_millis()),
        "after the lead the exact reading stamps: {} ms after t0",
        last.unix_millis() - t0_ms
    );
}
