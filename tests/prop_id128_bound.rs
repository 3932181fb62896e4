//! The 128-bit generators' bound: an ID's time is never more than 1 ms ahead of the clock's
//! reading for it, except that after a clock step back the IDs keep the last issued tick;
//! and through any mix of single calls, batches, steps forward and back, the IDs strictly
//! increase. A property over random schedules on a clock that moves 10 µs every reading (so
//! every wait ends), and threads against a clock another thread moves.
#![cfg(not(miri))] // proptest is far too slow under miri.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use proptest::prelude::*;
use snowmint::{Clock, ManualClock, Ulid, UlidGenerator, Uuid7, Uuid7Generator};

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
