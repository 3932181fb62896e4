//! The clock-step fault: a holder's clock stepped back, then the holder killed -9 and its
//! node taken again on the same stepped clock.

use std::time::{Duration, Instant};

use crate::checks::*;
use crate::fleet::*;
use crate::settings::*;

/// How far the holder's clock is stepped back: 5 s, past the TTL (2 s) and the window.
const STEP_MS: i64 = -5_000;

/// A's clock stepped back 5 s while it holds node 1 and mints (its renewals go on meanwhile,
/// on the stepped clock), then A killed -9 and A2 started on node 1 on a clock just as far
/// behind (the same machine): A2 must mint above every ID A handed out, which it can only do
/// if A's stepped renewals did not lower the node's mark. A2 normally waits past the mark
/// (its steps are printed); not always: when its claim comes late (etcd slow beside a CPU
/// hog), its clock has passed the mark by then, so the wait is not asserted, the IDs are.
/// B and C mint throughout.
pub(crate) fn clock_step(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(store) = Store::start(backend, "clock_step", None) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "clock_step");
    let url = store.url();
    fleet.set_clock("a", 0);
    for (name, node) in [("a", 1), ("b", 2), ("c", 3)] {
        fleet.spawn(name, &url, (node, node), None);
    }
    for name in ["a", "b", "c"] {
        fleet
            .get(name)
            .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    }
    fleet.set_clock("a", STEP_MS);
    fleet.get("a").wait_for("stepped its clock", WITHIN, |l| {
        l.stepped.last().is_some_and(|s| s.0 == STEP_MS)
    });
    let stepped = fleet.get("a").log().stepped.last().map_or(0, |s| s.1);
    // A TTL on the stepped clock: a few renewals at any speed (each TTL/3), each one a
    // chance to lower the mark; a slower machine renews less often, which only weakens
    // this, never fails it.
    std::thread::sleep(TTL);
    let a_batches_after_step = fleet
        .get("a")
        .log()
        .batches
        .iter()
        .filter(|b| b.before >= stepped)
        .count();
    fleet.get("a").kill9();
    let killed = wall_nanos();
    fleet.set_clock("a2", STEP_MS);
    fleet.spawn("a2", &url, (1, 1), None);
    fleet
        .get("a2")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let a2_first = fleet.get("a2").first_batch_at();
    std::thread::sleep(Duration::from_millis(500));
    for name in ["b", "c"] {
        fleet.get(name).wait_minted_after(a2_first, WITHIN);
    }
    let codes = fleet.stop_all();
    // A2's waits (each attempt begins by claiming, every 20 ms while A's key was held).
    let a2_progress: Vec<(String, u64)> = fleet
        .get("a2")
        .log()
        .progress
        .iter()
        .filter(|(kind, _)| kind != "claiming")
        .cloned()
        .collect();
    let a2_stderr = fleet.get("a2").stderr_tail();
    let t = report(
        "clock-step",
        &fleet,
        started,
        &format!(
            "A's clock stepped back {} s; A minted {a_batches_after_step} batches after the \
             step; A2 (its clock as far behind) minted on node 1 {:.2} s after A was killed \
             ({a2_progress:?}); A2's stderr:\n{a2_stderr}",
            -STEP_MS / 1000,
            secs(killed, a2_first)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "a2"]);
    assert_taken_over(
        &mut fleet,
        &codes,
        ("a", "a2"),
        &["b", "c", "a2"],
        backend != Backend::Redis,
    );
}
