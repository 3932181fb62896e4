//! The atomic generator under miri: fixed clock scripts through the property checker, and
//! real threads racing one generator (and generators of distinct nodes) while another thread
//! moves a `ManualClock` back and forth. Runs in plain `cargo test` too, with more IDs; under
//! miri (`cargo +nightly miri test --test miri_generator`) it checks the atomics and the
//! generator's code for undefined behaviour and data races. Only `ManualClock`: the TSC clock
//! reads the counter with inline assembly, which miri cannot run.

#[path = "support/gen_script.rs"]
mod gen_script;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use gen_script::{run, Op, Script};
use snowmint::clock::{ManualClock, Rollback};
use snowmint::{Generator, Id, Layout};

/// IDs per thread: enough to make the threads interleave, few enough for miri.
const PER_THREAD: usize = if cfg!(miri) { 40 } else { 5_000 };

/// 4 IDs per 1 µs tick: exhaustion, borrowing and waiting happen within a few calls. The
/// time field lasts 35 years from 2020.
const TINY: Layout = Layout::builder()
    .time_bits(50)
    .node_bits(2)
    .sequence_bits(2)
    .max_bits(64)
    .unit(Duration::from_micros(1))
    .epoch_unix_millis(1_600_000_000_000)
    .build_const();

/// A script exercising every kind of call and clock move on `layout`.
fn script(layout: Layout, lead: u64, rollback: Rollback, generators: u8) -> Script {
    let mut ops = Vec::new();
    for round in 0..6_u8 {
        for thread in 0..3 {
            ops.push(Op::Try {
                generator: round,
                thread,
            });
        }
        ops.push(Op::Batch {
            generator: round + 1,
            thread: 3,
            n: 5,
        });
        ops.push(Op::Try {
            generator: round,
            thread: 0,
        });
        ops.push(Op::FollowHint { generator: round });
        // The readings a TSC gives across cores: a little back, then on.
        ops.push(Op::Rewind(3_000));
        ops.push(Op::Try {
            generator: round + 1,
            thread: 1,
        });
        ops.push(Op::Timeout {
            generator: round,
            thread: 2,
            micros: 5,
        });
        ops.push(Op::FollowHint { generator: round });
        ops.push(Op::AdvanceTicks(u32::from(round % 3)));
        ops.push(Op::Advance(700));
    }
    // An NTP step back by a second, then the clock catches up.
    ops.push(Op::Rewind(1_000_000_000));
    ops.push(Op::Try {
        generator: 0,
        thread: 0,
    });
    ops.push(Op::FollowHint { generator: 0 });
    ops.push(Op::Advance(1_000_000_000));
    ops.push(Op::Try {
        generator: 0,
        thread: 0,
    });
    // Before the epoch, and past the expiry.
    ops.push(Op::Set(0));
    ops.push(Op::Try {
        generator: 0,
        thread: 0,
    });
    ops.push(Op::SetFromEpoch(u64::MAX));
    ops.push(Op::Try {
        generator: 1,
        thread: 0,
    });
    Script {
        layout,
        generators,
        lead,
        rollback,
        start_after: None,
        start: 1_000_000_000,
        ops,
    }
}

#[test]
fn scripted_clock_on_small_and_preset_layouts() {
    for layout in [TINY, Layout::SONYFLAKE, Layout::TWITTER] {
        for lead in [0, 2] {
            for rollback in [Rollback::Continue, Rollback::Wait] {
                let stats = run(&script(layout, lead, rollback, 3));
                assert!(stats.minted > 0, "{layout:?}: {stats:?}");
                assert!(stats.before_epoch > 0, "{stats:?}");
            }
        }
    }
}

#[test]
fn scripted_clock_resumes_after_a_saved_id_and_expires() {
    let short = TINY.to_builder().time_bits(3).build_const();
    assert!(short.lifetime() < Duration::from_micros(10));
    let mut s = script(short, 1, Rollback::Continue, 2);
    s.start_after = Some((2, 1));
    s.start = 0;
    let stats = run(&s);
    assert!(stats.expired > 0, "{stats:?}");
    assert!(stats.exhausted + stats.behind > 0, "{stats:?}");
}

/// Mints `PER_THREAD` IDs on each of `threads` threads (odd ones in batches of 3) from
/// `gens[thread % gens.len()]`, while the main thread moves the clock forwards by ticks and
/// back by less than a tick. Returns each thread's IDs.
fn race(gens: &[Generator<ManualClock>], clock: &ManualClock, threads: usize) -> Vec<Vec<Id>> {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|i| {
                let gen = &gens[i % gens.len()];
                s.spawn(move || {
                    let mut ids = Vec::with_capacity(PER_THREAD + 2);
                    while ids.len() < PER_THREAD {
                        let got = if i % 2 == 1 {
                            gen.try_next_ids(3).map(|batch| ids.extend(batch))
                        } else {
                            gen.try_next_id().map(|id| ids.push(id))
                        };
                        match got {
                            Ok(()) => {}
                            // Exhausted or behind: the mover thread moves the clock on.
                            Err(e) if e.retry_after().is_some() => std::thread::yield_now(),
                            Err(e) => panic!("{e}"),
                        }
                    }
                    ids
                })
            })
            .collect();
        let mover = s.spawn(|| {
            let unit = gens[0].layout().unit();
            let mut n = 0_u32;
            while !done.load(Ordering::Relaxed) {
                n += 1;
                if n.is_multiple_of(3) {
                    clock.rewind(unit / 2);
                } else {
                    clock.advance(unit);
                }
                std::thread::yield_now();
            }
        });
        let ids = workers.into_iter().map(|w| w.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        mover.join().unwrap();
        ids
    })
}

fn assert_unique_and_increasing(runs: &[Vec<Id>]) {
    let mut all = HashSet::new();
    for run in runs {
        assert!(
            run.windows(2).all(|w| w[0] < w[1]),
            "a thread's IDs decrease"
        );
        for &id in run {
            assert!(all.insert(id), "duplicate {id:?}");
        }
    }
}

#[test]
fn threads_racing_a_moving_clock_never_collide() {
    for rollback in [Rollback::Continue, Rollback::Wait] {
        for lead in [0, 1] {
            let clock = ManualClock::at_unix_millis(1_700_000_000_000);
            let gen = Generator::builder(TINY)
                .clock(clock.clone())
                .node(1)
                .lead_ticks(lead)
                .on_rollback(rollback)
                .build()
                .unwrap();
            let runs = race(std::slice::from_ref(&gen), &clock, 3);
            assert_unique_and_increasing(&runs);
            for id in runs.iter().flatten() {
                assert_eq!(TINY.decode(*id).node(), 1);
            }
        }
    }
}

#[test]
fn generators_of_distinct_nodes_never_collide() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let gens: Vec<_> = (0..=TINY.max_node())
        .map(|node| {
            Generator::builder(TINY)
                .clock(clock.clone())
                .node(node)
                .build()
                .unwrap()
        })
        .collect();
    let runs = race(&gens, &clock, 4);
    assert_unique_and_increasing(&runs);
    for (i, run) in runs.iter().enumerate() {
        for id in run {
            assert_eq!(TINY.decode(*id).node(), (i % gens.len()) as u64);
        }
    }
}
