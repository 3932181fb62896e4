//! The pause fault.

use std::time::{Duration, Instant};

use crate::checks::*;
use crate::fleet::*;
use crate::settings::*;

/// A stopped past its TTL (renewal thread and all: a GC pause, a frozen VM), D takes its
/// node and mints, A resumed: A must return no ID after it resumed, and end as lost.
pub(crate) fn pause(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(store) = Store::start(backend, "pause", None) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "pause");
    let url = store.url();
    fleet.spawn_three(|_| url.clone(), None);
    std::thread::sleep(Duration::from_secs(1));
    let node = fleet.get("a").node();
    fleet.get("a").signal("-STOP");
    let paused = wall_nanos();
    fleet.spawn("d", &url, (node, node), None);
    fleet
        .get("d")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let d_first = fleet.get("d").first_batch_at();
    std::thread::sleep(Duration::from_millis(500));
    // Read before the signal: every batch A was handed after it woke ends after this.
    let resumed = wall_nanos();
    fleet.get("a").signal("-CONT");
    let a_status = fleet.get("a").wait_exit(WITHIN);
    let learnt = wall_nanos();
    for name in ["b", "c", "d"] {
        fleet.get(name).wait_minted_after(learnt, WITHIN);
    }
    let codes = fleet.stop_all();
    let after_resume = fleet
        .get("a")
        .log()
        .batches
        .iter()
        .filter(|b| b.after >= resumed)
        .map(|b| b.ids.len())
        .sum::<usize>();
    let t = report(
        "pause",
        &fleet,
        started,
        &format!(
            "D minted {:.2} s after A was paused; A exited {a_status} {:.2} s after it resumed, \
             {after_resume} IDs returned to A after it resumed",
            secs(paused, d_first),
            secs(resumed, learnt)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "d"]);
    assert_eq!(after_resume, 0, "A returned IDs after it resumed");
    assert_eq!(
        a_status.code(),
        Some(EXIT_LOST),
        "A must learn that its node is lost"
    );
    assert_taken_over(
        &mut fleet,
        &codes,
        ("a", "d"),
        &["b", "c", "d"],
        backend != Backend::Redis,
    );
}
