//! The 128-bit generators' bound: an ID's time is never more than 1 ms ahead of the clock's
//! reading for it, except that after a clock step back the IDs keep the last issued tick;
//! and through any mix of single calls, batches, steps forward and back, the IDs strictly
//! increase. A property over random schedules on a clock that moves 10 µs every reading (so
//! every wait ends), and threads against a clock another thread moves.
#![cfg(not(miri))] // proptest is far too slow under miri.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use proptest::prelude::*;
use snowmint::clock::{Clock, ManualClock};
use snowmint::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};

/// 1 ms in nanoseconds: the lead.
const LEAD_NANOS: u64 = 1_000_000;
/// One tick, 1/4096 ms, rounded up.
const TICK_NANOS: u64 = 245;

/// A clock that moves forward 10 µs at every reading, on top of a manual clock the test
/// steps (so a wait out of a step back takes at most 190 readings).
#[derive(Clone)]
struct Creeping(ManualClock);

impl Clock for Creeping {
    fn now_unix_nanos(&self) -> u64 {
        self.0.advance(Duration::from_micros(10));
        self.0.now_unix_nanos()
    }
}

/// A ULID's time as the generator writes it: the millisecond and the fraction atop the
/// random part, in nanoseconds rounded down.
/// The 1/4096 ms tick a clock reading falls in, counted from the Unix epoch.
fn reading_tick(nanos: u64) -> u64 {
    nanos / 1_000_000 * 4096 + (nanos % 1_000_000) * 4096 / 1_000_000
}

/// The tick of an ID's time, from its time in nanoseconds (the tick's start rounded down to
/// the nanosecond, as `unix_nanos` gives it): rounding up undoes that, where a reading's rule
/// would put such a time in the tick before (a tick is 244.140625 ns).
fn id_tick(nanos: u64) -> u64 {
    nanos / 1_000_000 * 4096 + ((nanos % 1_000_000) * 4096).div_ceil(1_000_000)
}

fn ulid_nanos(id: Ulid) -> u64 {
    id.unix_millis() * 1_000_000 + ((id.random() >> 68) as u64 * 1_000_000) / 4096
}

#[derive(Debug, Clone)]
enum Op {
    Mint(usize),
    Forward(u64),
    Back(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1usize..3_000).prop_map(Op::Mint),
        2 => (0u64..3_000_000).prop_map(Op::Forward),
        // Below 2 ms: a longer wait would sleep, by real time, for a clock that moves only
        // when read.
        1 => (0u64..1_900_000).prop_map(Op::Back),
    ]
}

/// Where the schedules' clock starts, in nanoseconds.
const START_NANOS: u64 = 1_700_000_000_000 * 1_000_000;

/// Checks the bound for one ID of time `nanos` minted with the clock then reading at most
/// `reading` (the manual clock read after the call), `previous` the time of the ID before:
/// within the lead of the clock, or (the clock stepped back) in the previous ID's tick or
/// the one after, or (stepped back before the generator's start) at its start.
fn within_bound(nanos: u64, reading: u64, previous: Option<u64>) -> bool {
    nanos <= reading + LEAD_NANOS + TICK_NANOS
        || previous.is_some_and(|p| nanos / TICK_NANOS <= p / TICK_NANOS + 1)
        || nanos < START_NANOS
}

/// An ID's tick read back from its nanoseconds is the tick it was stamped with, for every
/// tick of a millisecond; and the case the property below once found (a UUID stamped in the
/// very tick of the cheap reading, 245 ns before it) is within the bound.
#[test]
fn an_ids_tick_reads_back_from_its_nanoseconds() {
    for tick in 0..4096u64 {
        let nanos = 1_700_000_000_000_000_000 + tick * 1_000_000 / 4096;
        assert_eq!(
            id_tick(nanos),
            reading_tick(1_700_000_000_000_000_000) + tick
        );
    }
    assert!(id_tick(1_700_000_000_013_173_583) >= reading_tick(1_700_000_000_013_173_828));
    assert!(id_tick(1_700_000_000_013_173_583) < reading_tick(1_700_000_000_013_173_828 + 245));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn ids_increase_and_keep_within_the_bound(ops in prop::collection::vec(op(), 1..40)) {
        let manual = ManualClock::at_unix_nanos(START_NANOS);
        let uuids = Uuid7Generator::with_clock(Creeping(manual.clone()));
        let ulids = UlidGenerator::with_clock(Creeping(manual.clone()));
        let (mut last_uuid, mut last_ulid): (Option<Uuid7>, Option<Ulid>) = (None, None);
        for op in ops {
            match op {
                Op::Forward(n) => manual.advance(Duration::from_nanos(n)),
                Op::Back(n) => manual.rewind(Duration::from_nanos(n)),
                Op::Mint(n) => {
                    let batch = if n % 2 == 0 { uuids.next_uuids(n) } else { vec![uuids.next_uuid()] };
                    let reading = manual.now_unix_nanos();
                    for id in batch {
                        prop_assert!(last_uuid.is_none_or(|l| id > l), "UUIDs went back");
                        let previous = last_uuid.map(|l| l.unix_nanos());
                        prop_assert!(within_bound(id.unix_nanos(), reading, previous),
                            "UUID at {} ns, clock {reading}", id.unix_nanos());
                        last_uuid = Some(id);
                    }
                    let batch = if n % 2 == 0 { ulids.next_ulids(n) } else { vec![ulids.next_ulid()] };
                    let reading = manual.now_unix_nanos();
                    for id in batch {
                        prop_assert!(last_ulid.is_none_or(|l| id > l), "ULIDs went back");
                        let previous = last_ulid.map(ulid_nanos);
                        prop_assert!(within_bound(ulid_nanos(id), reading, previous),
                            "ULID at {} ns, clock {reading}", ulid_nanos(id));
                        last_ulid = Some(id);
                    }
                }
            }
        }
    }
}

/// A clock whose cheap reading is the last one published (by the `Publish` step), lagging
/// the exact one, which creeps 10 µs at every reading as [`Creeping`]'s does.
#[derive(Clone)]
struct Lagging {
    exact: ManualClock,
    published: Arc<AtomicU64>,
}

impl Clock for Lagging {
    fn now_unix_nanos(&self) -> u64 {
        self.exact.advance(Duration::from_micros(10));
        self.exact.now_unix_nanos()
    }

    fn recent_unix_nanos(&self) -> u64 {
        // Relaxed: one thread; a lone value.
        self.published.load(Ordering::Relaxed)
    }
}

#[derive(Debug, Clone)]
enum LagOp {
    /// Single calls, a fill, or a shard's calls (`n % 3`).
    Mint(usize),
    /// The exact clock moves on; the cheap reading stays.
    Forward(u64),
    /// The cheap reading catches up with the exact one.
    Publish,
    /// Both step back (the cheap one to the exact one if it was ahead).
    Back(u64),
}

fn lag_op() -> impl Strategy<Value = LagOp> {
    prop_oneof![
        4 => (1usize..3_000).prop_map(LagOp::Mint),
        2 => (0u64..3_000_000).prop_map(LagOp::Forward),
        2 => Just(LagOp::Publish),
        1 => (0u64..1_900_000).prop_map(LagOp::Back),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// The fast path (a cheap reading within the last state's tick) and the rule behind it,
    /// under a cheap reading that lags the exact one by any amount: single calls, fills and a
    /// shard's calls stay unique, increase (per generator for its calls and fills, per
    /// shard for the shard's), keep within the lead of the exact clock and are never behind
    /// the cheap reading's tick.
    #[test]
    fn a_lagging_cheap_reading_keeps_order_uniqueness_and_the_bound(
        ops in prop::collection::vec(lag_op(), 1..40)
    ) {
        let exact = ManualClock::at_unix_nanos(START_NANOS);
        let published = Arc::new(AtomicU64::new(START_NANOS));
        let clock = Lagging { exact: exact.clone(), published: Arc::clone(&published) };
        let uuids = Uuid7Generator::with_clock(clock.clone());
        let ulids = UlidGenerator::with_clock(clock);
        let (mut u_shard, mut l_shard) = (uuids.shard(), ulids.shard());
        let (mut seen_u, mut seen_l) = (HashSet::new(), HashSet::new());
        // The last ID of the generator's calls (0) and of the shard (1), per kind.
        let mut last_u: [Option<Uuid7>; 2] = [None, None];
        let mut last_l: [Option<Ulid>; 2] = [None, None];
        for op in ops {
            match op {
                LagOp::Forward(n) => exact.advance(Duration::from_nanos(n)),
                // Relaxed (both): one thread; a lone value.
                LagOp::Publish => published.store(exact.now_unix_nanos(), Ordering::Relaxed),
                LagOp::Back(n) => {
                    exact.rewind(Duration::from_nanos(n));
                    published.fetch_min(exact.now_unix_nanos(), Ordering::Relaxed);
                }
                LagOp::Mint(n) => {
                    let (which, us, ls) = match n % 3 {
                        0 => (0, uuids.next_uuids(n), ulids.next_ulids(n)),
                        1 => (0, (0..n).map(|_| uuids.next_uuid()).collect(), (0..n).map(|_| ulids.next_ulid()).collect()),
                        _ => (1, (0..n).map(|_| u_shard.next_uuid()).collect(), (0..n).map(|_| l_shard.next_ulid()).collect()),
                    };
                    let reading = exact.now_unix_nanos();
                    // Relaxed: one thread; a lone value.
                    let cheap = published.load(Ordering::Relaxed);
                    for id in us {
                        prop_assert!(id_tick(id.unix_nanos()) >= reading_tick(cheap),
                            "UUID at {} ns, behind the cheap reading {cheap}", id.unix_nanos());
                        prop_assert!(seen_u.insert(id), "a UUID twice");
                        prop_assert!(last_u[which].is_none_or(|l| id > l), "UUIDs went back");
                        // After a step back any source keeps the generator's last tick.
                        let previous = last_u.iter().flatten().max().map(|l| l.unix_nanos());
                        prop_assert!(within_bound(id.unix_nanos(), reading, previous),
                            "UUID at {} ns, clock {reading}", id.unix_nanos());
                        last_u[which] = Some(id);
                    }
                    for id in ls {
                        prop_assert!(id_tick(ulid_nanos(id)) >= reading_tick(cheap),
                            "ULID at {} ns, behind the cheap reading {cheap}", ulid_nanos(id));
                        prop_assert!(seen_l.insert(id), "a ULID twice");
                        prop_assert!(last_l[which].is_none_or(|l| id > l), "ULIDs went back");
                        let previous = last_l.iter().flatten().max().map(|&l| ulid_nanos(l));
                        prop_assert!(within_bound(ulid_nanos(id), reading, previous),
                            "ULID at {} ns, clock {reading}", ulid_nanos(id));
                        last_l[which] = Some(id);
                    }
                }
            }
        }
    }
}

/// Two threads mint from one generator as fast as they can while a third moves the clock
/// 10 µs at a time: every ID's time is within the bound of the clock read after it (the
/// clock only moves forward, so that reading is at least the one the ID was minted at).
/// The minters' count is fixed, not their speed: a busy machine only slows the clock's
/// thread, and a slower clock makes the minters wait, never pass the bound.
#[test]
fn threads_in_a_tight_loop_stay_within_a_millisecond_of_the_clock() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let uuids = Arc::new(Uuid7Generator::with_clock(clock.clone()));
    let ulids = Arc::new(UlidGenerator::with_clock(clock.clone()));
    let done = Arc::new(AtomicBool::new(false));
    let mover = {
        let (clock, done) = (clock.clone(), Arc::clone(&done));
        thread::spawn(move || {
            // Relaxed: a stop flag; nothing else is published through it.
            while !done.load(Ordering::Relaxed) {
                clock.advance(Duration::from_micros(10));
                thread::yield_now();
            }
        })
    };
    let minters: Vec<_> = (0..2)
        .map(|_| {
            let (uuids, ulids, clock) = (Arc::clone(&uuids), Arc::clone(&ulids), clock.clone());
            thread::spawn(move || {
                let mut worst = 0i64;
                for _ in 0..100_000 {
                    let u = uuids.next_uuid().unix_nanos();
                    let l = ulid_nanos(ulids.next_ulid());
                    let reading = clock.now_unix_nanos();
                    worst = worst
                        .max(u as i64 - reading as i64)
                        .max(l as i64 - reading as i64);
                }
                worst
            })
        })
        .collect();
    let worst = minters
        .into_iter()
        .map(|t| t.join().unwrap())
        .max()
        .unwrap();
    // Relaxed: as for the load.
    done.store(true, Ordering::Relaxed);
    mover.join().unwrap();
    assert!(
        worst <= (LEAD_NANOS + TICK_NANOS) as i64,
        "an ID ran {worst} ns ahead of the clock"
    );
}
