//! Three threads mint two IDs each on a frozen clock, explored up to two preemptions: the six
//! IDs are distinct, increase per thread, and take the tick's sequence numbers 0 to 5 with no
//! gap (a lost CAS race never burns a sequence number).

mod common;

use common::{assert_increasing, assert_unique, clock, explore, layout, NODE, START_TICK};
use loom::sync::Arc;
use loom::thread;
use snowmint::{Generator, Id};

/// 8 IDs per tick: the 6 IDs of the model fit in the clock's one tick.
const LAYOUT: snowmint::Layout = layout(3);

#[test]
fn three_threads_two_ids_at_preemption_bound_2() {
    let mut builder = loom::model::Builder::new();
    // Unbounded, 3 threads are out of reach. Measured here (2 vCPUs, load ~7): 22 k
    // interleavings, ~7 s at 2 preemptions; 200 k, ~48 s at 3. `LOOM_MAX_PREEMPTIONS`
    // overrides the default of 2.
    builder.preemption_bound.get_or_insert(2);
    let n = explore("three_threads", builder, || {
        let gen = Arc::new(
            Generator::builder(LAYOUT)
                .clock(clock())
                .node(NODE)
                .build()
                .unwrap(),
        );
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || {
                    (0..2)
                        .map(|_| gen.try_next_id().expect("6 IDs fit in one tick"))
                        .collect::<Vec<Id>>()
                })
            })
            .collect();
        let mut all = Vec::new();
        for t in threads {
            let ids = t.join().unwrap();
            assert_increasing(&ids);
            all.extend(ids);
        }
        assert_eq!(all.len(), 6);
        assert_unique(&all);
        let mut sequences: Vec<u64> = all
            .iter()
            .map(|&id| {
                let d = LAYOUT.decode(id);
                assert_eq!((d.ticks(), d.node()), (START_TICK, NODE));
                d.sequence()
            })
            .collect();
        sequences.sort_unstable();
        assert_eq!(sequences, (0..6).collect::<Vec<u64>>());
    });
    assert!(n > 1, "loom explored a single interleaving");
}
