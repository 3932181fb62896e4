//! A tick's sequence running out on a frozen clock, with `try_next_id` (which never waits):
//! however the threads interleave, exactly the tick's capacity (plus the lead's) is issued,
//! every other call says `Exhausted` with the time to the next usable tick, and once a thread
//! is refused it stays refused while the clock stands still.

mod common;

use common::{assert_unique, clock, explore, layout, NODE, START_TICK, UNIT};
use loom::sync::Arc;
use loom::thread;
use snowmint::{Generator, Id, MintError};

/// 1 sequence bit: 2 IDs per tick.
const LAYOUT: snowmint::Layout = layout(1);

/// Runs `threads` × `calls` `try_next_id` calls on a frozen clock with `lead` ticks of lead
/// and checks the outcome; returns the interleavings explored.
fn model(name: &str, lead: u64, threads: usize, calls: usize) -> usize {
    let expected_ok = (LAYOUT.ids_per_tick() * (1 + lead)) as usize;
    assert!(
        threads * calls > expected_ok,
        "the model must ask for more than fits"
    );
    explore(name, loom::model::Builder::new(), move || {
        let gen = Arc::new(
            Generator::builder(LAYOUT)
                .clock(clock())
                .node(NODE)
                .lead_ticks(lead)
                .build()
                .unwrap(),
        );
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let gen = Arc::clone(&gen);
                thread::spawn(move || {
                    (0..calls)
                        .map(|_| gen.try_next_id())
                        .collect::<Vec<Result<Id, MintError>>>()
                })
            })
            .collect();
        let mut issued = Vec::new();
        let mut refused = 0;
        for h in handles {
            let results = h.join().unwrap();
            // Refusal is final on a frozen clock: no success after the first error.
            if let Some(first_err) = results.iter().position(Result::is_err) {
                assert!(
                    results[first_err..].iter().all(Result::is_err),
                    "a thread was issued an ID after being refused: {results:?}"
                );
            }
            for r in results {
                match r {
                    Ok(id) => issued.push(id),
                    Err(e) => {
                        // The clock sits on a tick boundary and the next usable tick is the
                        // one after it, whatever the lead: exactly one unit away.
                        assert_eq!(e, MintError::Exhausted { retry_after: UNIT });
                        refused += 1;
                    }
                }
            }
        }
        assert_eq!(issued.len(), expected_ok, "issued {issued:?}");
        assert_eq!(refused, threads * calls - expected_ok);
        assert_unique(&issued);
        for &id in &issued {
            let d = LAYOUT.decode(id);
            assert_eq!(d.node(), NODE);
            assert!(
                (START_TICK..=START_TICK + lead).contains(&d.ticks()),
                "{id:?} is stamped at tick {}, beyond clock + lead {}",
                d.ticks(),
                START_TICK + lead
            );
        }
    })
}

#[test]
fn without_lead_exactly_one_tick_is_issued() {
    // 4 calls for 2 IDs.
    assert!(model("exhaustion_no_lead", 0, 2, 2) > 1);
}

#[test]
fn with_one_tick_of_lead_exactly_two_ticks_are_issued() {
    // 6 calls for 4 IDs: the tick the clock reads and one borrowed tick.
    assert!(model("exhaustion_lead_1", 1, 2, 3) > 1);
}
