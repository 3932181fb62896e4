//! The fence window through the real `Fenced` wrapper: a renewal that takes the node back
//! from another owner (a floor) races a minting thread, and no ID at or before the floor,
//! or past the limit, is ever handed out.
//!
//! The first window expires before the threads start (the clock moves past its deadline), so
//! the minter is refused until the renewal opens the second window, which carries the floor:
//! the previous owner issued up to the current tick. A minter that saw the new deadline but
//! the old range would hand out an ID of that tick; `fence_window_control.rs` shows loom
//! finding exactly that when the deadline's Release/Acquire pair is weakened.

mod common;

use std::time::Duration;

use common::{builder, clock, explore, layout, Seen, START_MS};
use loom::sync::Arc;
use loom::thread;
use snowmint::{Generator, Id};
use snowmint::fence::{Fenced, Keeper, Renewal};

/// 4 IDs per tick.
const LAYOUT: snowmint::Layout = layout(2);
/// The last time the other owner may have issued: the tick the clock is in when the threads run.
const FLOOR_MS: u64 = START_MS + 1;
/// The secured limit: a few ticks ahead.
const LIMIT_MS: u64 = START_MS + 5;

/// Hands out its renewals in order, the last one forever.
struct Script {
    renewals: Vec<Renewal>,
    next: usize,
}

impl Keeper for Script {
    fn renew(&mut self, _now: u64) -> Renewal {
        let r = self.renewals[self.next.min(self.renewals.len() - 1)].clone();
        self.next += 1;
        r
    }

    fn release(&mut self, _last_unix_millis: Option<u64>) {}

    fn period(&self, _ok: bool) -> Duration {
        Duration::from_millis(1)
    }
}

#[test]
fn a_taken_back_window_admits_nothing_at_or_before_its_floor() {
    let seen = Seen::default();
    let tally = seen.clone();
    explore("fence window", builder(Some(3)), move || {
        let clock = clock();
        let script = Script {
            renewals: vec![
                // The first window: its deadline passes before the threads start.
                Renewal::Held {
                    limit_unix_millis: LIMIT_MS,
                    valid_until_nanos: START_MS * 1_000_000 + 1,
                    floor_unix_millis: None,
                },
                // Taken back from an owner who issued up to FLOOR_MS.
                Renewal::Held {
                    limit_unix_millis: LIMIT_MS,
                    valid_until_nanos: u64::MAX,
                    floor_unix_millis: Some(FLOOR_MS),
                },
            ],
            next: 0,
        };
        let gen = Generator::builder(LAYOUT)
            .node(1)
            .clock(clock.clone())
            .build()
            .unwrap();
        let fenced = Arc::new(Fenced::start_manual(gen, 1, script).expect("first window"));
        clock.advance(Duration::from_millis(1));

        let renewer = {
            let fenced = Arc::clone(&fenced);
            thread::spawn(move || fenced.renew())
        };
        let minter = {
            let fenced = Arc::clone(&fenced);
            let clock = clock.clone();
            thread::spawn(move || {
                let first = fenced.try_next_id();
                clock.advance(Duration::from_millis(1));
                let second = fenced.try_next_id();
                [first.ok(), second.ok()]
            })
        };
        renewer.join().unwrap();
        let minted = minter.join().unwrap();
        for id in minted.iter().flatten() {
            let ms = LAYOUT.decode(*id).unix_millis();
            assert!(
                ms > FLOOR_MS,
                "{id} ({ms} ms) handed out at or before the floor"
            );
            assert!(ms <= LIMIT_MS, "{id} ({ms} ms) handed out past the limit");
        }
        tally.record(match minted {
            [None, None] => "both refused",
            [None, Some(_)] => "refused, then admitted",
            [Some(_), _] => "admitted at the floor's tick",
        });
        let _: Option<Id> = fenced.last_id();
    });
    // The first attempt lies in the floor's tick: always refused. The second, a tick later,
    // is admitted once the renewal's window is seen, and refused while the expired one is.
    seen.assert_exactly("fence window", &["both refused", "refused, then admitted"]);
}
