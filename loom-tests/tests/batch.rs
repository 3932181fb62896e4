//! A batch reserved with one CAS (`try_next_ids`) racing single IDs on a frozen clock: the
//! tick's four sequence numbers are handed out exactly once each, batch and singles together,
//! with no gap, and every refusal is `Exhausted`.

mod common;

use common::{assert_increasing, assert_unique, clock, explore, layout, NODE, START_TICK, UNIT};
use loom::sync::Arc;
use loom::thread;
use snowmint::{Generator, Id, MintError};

/// 2 sequence bits: 4 IDs per tick, fewer than the 3 + 2 the threads ask for.
const LAYOUT: snowmint::Layout = layout(2);

#[test]
fn a_batch_and_single_ids_share_the_tick_exactly() {
    let n = explore("batch", loom::model::Builder::new(), || {
        let gen = Arc::new(
            Generator::builder(LAYOUT)
                .clock(clock())
                .node(NODE)
                .build()
                .unwrap(),
        );
        let batcher = {
            let gen = Arc::clone(&gen);
            thread::spawn(move || gen.try_next_ids(3).map(|batch| batch.collect::<Vec<Id>>()))
        };
        let single = {
            let gen = Arc::clone(&gen);
            thread::spawn(move || (0..2).map(|_| gen.try_next_id()).collect::<Vec<_>>())
        };
        let batch = batcher.join().unwrap();
        let singles = single.join().unwrap();

        let exhausted = MintError::Exhausted { retry_after: UNIT };
        let mut all = Vec::new();
        match batch {
            Ok(ids) => {
                // "Up to n": never more, never an empty batch, consecutive within the tick.
                assert!((1..=3).contains(&ids.len()), "{ids:?}");
                assert_increasing(&ids);
                all.extend(ids);
            }
            Err(e) => assert_eq!(e, exhausted),
        }
        let mut mine = Vec::new();
        for r in singles {
            match r {
                Ok(id) => mine.push(id),
                Err(e) => assert_eq!(e, exhausted),
            }
        }
        assert_increasing(&mine);
        all.extend(mine);
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
        // 5 asked for, 4 in the tick: all 4 handed out, none twice, none skipped.
        assert_eq!(sequences, vec![0, 1, 2, 3]);
    });
    assert!(n > 1, "loom explored a single interleaving");
}
