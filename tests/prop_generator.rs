//! Property tests for the generator under a scripted clock (the properties are in
//! `support/gen_script.rs`, shared with the `generator` fuzz target), and with real threads
//! racing a clock that jumps back and forth.
#![cfg(not(miri))] // proptest is far too slow under miri; tests/miri_generator.rs covers miri.

#[path = "support/gen_script.rs"]
mod gen_script;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::Duration;

use gen_script::{distinct_nodes, run, Op, Script, Stats};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use snowmint::clock::{Clock, ManualClock, Rollback};
use snowmint::layout::Order;
use snowmint::{Generator, Id, Layout};

/// Presets, and small custom layouts whose sequence runs out in a few calls and whose time
/// field may expire within a script.
fn layout() -> impl Strategy<Value = Layout> {
    let custom = (
        prop_oneof![1 => 1_u8..=8, 3 => 9_u8..=64],
        0_u8..=4,
        0_u8..=4,
        any::<bool>(),
        prop_oneof![
            Just(1_u64),
            Just(7),
            Just(1_000),
            Just(1_000_000),
            Just(10_000_000),
            Just(1_000_000_000),
            1_u64..=u64::MAX,
        ],
        prop_oneof![Just(0_u64), 0_u64..=2_000_000_000_000_000_000, any::<u64>()],
    )
        .prop_filter_map("invalid layout", |(t, n, s, o, unit, epoch)| {
            Layout::builder()
                .time_bits(t)
                .node_bits(n)
                .sequence_bits(s)
                .max_bits(64)
                .order(if o {
                    Order::TimeNodeSequence
                } else {
                    Order::TimeSequenceNode
                })
                .unit(Duration::from_nanos(unit))
                .epoch_unix_nanos(epoch)
                .validate()
                .ok()
        });
    prop_oneof![
        1 => prop::sample::select(Layout::PRESETS.map(|(_, l)| l).to_vec()),
        4 => custom,
    ]
}

/// Any magnitude, spread evenly over the powers of two (so huge jumps are not the norm).
fn any_scale() -> impl Strategy<Value = u64> {
    (0_u32..64, any::<u64>()).prop_map(|(shift, x)| x >> shift)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        30 => (0_u8..4, 0_u8..4).prop_map(|(generator, thread)| Op::Try { generator, thread }),
        3 => (0_u8..4, 0_u8..4, 0_u16..=50)
            .prop_map(|(generator, thread, micros)| Op::Timeout { generator, thread, micros }),
        4 => (0_u8..4, 0_u8..4, prop_oneof![4 => 0_u16..=64, 1 => 65_u16..=4_096])
            .prop_map(|(generator, thread, n)| Op::Batch { generator, thread, n }),
        5 => (0_u64..=20_000).prop_map(Op::Advance),
        2 => any_scale().prop_map(Op::Advance),
        // Small reversals, as TSC readings seen across cores (up to ~5 µs).
        4 => (0_u64..=5_000).prop_map(Op::Rewind),
        1 => any_scale().prop_map(Op::Rewind),
        6 => (0_u32..=3).prop_map(Op::AdvanceTicks),
        1 => any::<u32>().prop_map(Op::AdvanceTicks),
        1 => any_scale().prop_map(Op::SetFromEpoch),
        1 => any::<u64>().prop_map(Op::Set),
        4 => (0_u8..4).prop_map(|generator| Op::FollowHint { generator }),
    ]
}

fn script() -> impl Strategy<Value = Script> {
    (
        layout(),
        1_u8..=4,
        prop_oneof![3 => Just(0_u64), 3 => 1_u64..=3, 1 => any::<u64>()],
        any::<bool>(),
        prop::option::of(any::<(u64, u64)>()),
        prop_oneof![0_u64..=10_000_000_000, any_scale()],
        prop::collection::vec(op(), 0..200),
    )
        .prop_map(
            |(layout, generators, lead, wait, start_after, start, ops)| Script {
                layout,
                generators,
                lead,
                rollback: if wait {
                    Rollback::Wait
                } else {
                    Rollback::Continue
                },
                start_after,
                start,
                ops,
            },
        )
}

/// `cases` cases; failures are saved beside this file (`prop_generator.regressions`) and
/// replayed first on later runs.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn scripted_clock_keeps_every_property(s in script()) {
        run(&s);
    }
}

/// The script strategy is not vacuous: a fixed sample of scripts reaches every outcome.
#[test]
fn scripts_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};

    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let mut total = Stats::default();
    for _ in 0..300 {
        let s = script().new_tree(&mut runner).unwrap().current();
        total.add(run(&s));
    }
    assert!(total.minted > 1_000, "{total:?}");
    assert!(total.exhausted > 0, "{total:?}");
    assert!(total.behind > 0, "{total:?}");
    assert!(total.expired > 0, "{total:?}");
    assert!(total.before_epoch > 0, "{total:?}");
    assert!(total.hints_followed > 0, "{total:?}");
    eprintln!("300 scripts: {total:?}");
}

/// Threads racing on shared generators while another thread moves the clock.
#[derive(Debug, Clone)]
struct Race {
    layout: Layout,
    generators: u8,
    lead: u64,
    rollback: Rollback,
    threads: usize,
    per_thread: usize,
    /// Clock moves in nanoseconds, forwards or back.
    moves: Vec<i64>,
}

fn race() -> impl Strategy<Value = Race> {
    (
        prop::sample::select(vec![
            Layout::TWITTER,
            Layout::SONYFLAKE,
            Layout::builder()
                .time_bits(40)
                .node_bits(2)
                .sequence_bits(2)
                .unit(Duration::from_micros(1))
                .build_const(),
        ]),
        1_u8..=3,
        0_u64..=2,
        any::<bool>(),
        2_usize..=4,
        1_usize..=300,
        prop::collection::vec(-20_000_i64..=50_000, 0..50),
    )
        .prop_map(
            |(layout, generators, lead, wait, threads, per_thread, moves)| Race {
                layout,
                generators,
                lead,
                rollback: if wait {
                    Rollback::Wait
                } else {
                    Rollback::Continue
                },
                threads,
                per_thread,
                moves,
            },
        )
}

fn run_race(r: &Race) {
    let start = r.layout.epoch_unix_nanos() + 1_000_000_000_000;
    let clock = ManualClock::at_unix_nanos(start);
    let gens: Vec<Generator<ManualClock>> = distinct_nodes(r.layout.max_node(), r.generators)
        .into_iter()
        .map(|node| {
            Generator::builder(r.layout)
                .clock(clock.clone())
                .node(node)
                .lead_ticks(r.lead)
                .on_rollback(r.rollback)
                .build()
                .unwrap()
        })
        .collect();
    let highest = AtomicU64::new(start);
    let done = AtomicBool::new(false);
    let barrier = Barrier::new(r.threads + 1);
    let per_thread: Vec<Vec<Id>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..r.threads)
            .map(|i| {
                let gen = &gens[i % gens.len()];
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let mut ids = Vec::with_capacity(r.per_thread);
                    while ids.len() < r.per_thread {
                        // Odd threads take batches of up to 3, even ones single IDs.
                        let got = if i % 2 == 1 {
                            gen.try_next_ids(3).map(|batch| ids.extend(batch))
                        } else {
                            gen.next_id_timeout(Duration::from_micros(20))
                                .map(|id| ids.push(id))
                        };
                        match got {
                            Ok(()) => {}
                            // Exhausted or behind: the mover thread moves the clock on.
                            Err(e) if e.retry_after().is_some() => std::thread::yield_now(),
                            Err(e) => panic!("{r:?}: {e}"),
                        }
                    }
                    ids
                })
            })
            .collect();
        s.spawn(|| {
            barrier.wait();
            let mut moves = r.moves.iter();
            // The scripted moves, then one tick at a time until every worker is done.
            while !done.load(Ordering::Relaxed) {
                match moves.next() {
                    Some(&m) if m >= 0 => clock.advance(Duration::from_nanos(m as u64)),
                    Some(&m) => clock.rewind(Duration::from_nanos(m.unsigned_abs())),
                    None => clock.advance(r.layout.unit()),
                }
                highest.fetch_max(clock.now_unix_nanos(), Ordering::Relaxed);
                std::thread::yield_now();
            }
        });
        let ids = workers.into_iter().map(|w| w.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        ids
    });
    let highest_tick =
        (highest.load(Ordering::Relaxed) - r.layout.epoch_unix_nanos()) / r.layout.unit_nanos();
    let mut all = Vec::new();
    for ids in &per_thread {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "{r:?}: a thread's IDs decrease"
        );
        for id in ids {
            assert!(
                r.layout.decode(*id).ticks() <= highest_tick + r.lead,
                "{r:?}: {id:?} beyond the lead"
            );
        }
        all.extend_from_slice(ids);
    }
    all.sort_unstable();
    let n = all.len();
    all.dedup();
    assert_eq!(all.len(), n, "{r:?}: duplicate IDs");
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn racing_threads_never_collide(r in race()) {
        run_race(&r);
    }
}
