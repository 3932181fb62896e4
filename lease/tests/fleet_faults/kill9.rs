//! The kill -9 fault.

use std::time::{Duration, Instant};

use crate::checks::*;
use crate::fleet::*;
use crate::settings::*;

/// A killed -9 and a new minter started on its node: it waits out A's lease, then mints
/// above every ID A handed out.
pub(crate) fn kill9(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(store) = Store::start(backend, "kill9", None) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "kill9");
    let url = store.url();
    fleet.spawn_three(|_| url.clone(), None);
    std::thread::sleep(Duration::from_secs(1));
    let node = fleet.get("a").node();
    fleet.get("a").kill9();
    let killed = wall_nanos();
    fleet.spawn("a2", &url, (node, node), None);
    fleet
        .get("a2")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let a2_first = fleet.get("a2").first_batch_at();
    std::thread::sleep(Duration::from_secs(1));
    for name in ["b", "c"] {
        fleet.get(name).wait_minted_after(a2_first, WITHIN);
    }
    let codes = fleet.stop_all();
    let t = report(
        "kill9",
        &fleet,
        started,
        &format!(
            "A2 minted on node {node} {:.2} s after A was killed",
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
