//! The store-restart fault: the store restarted with nothing it held.

use std::time::{Duration, Instant};

use crate::checks::*;
use crate::fleet::*;
use crate::settings::*;

/// The store restarted with nothing it held, while E tries for node 3, held by C. C is
/// stopped (SIGSTOP) just before the store goes down and resumed as soon as the store holds
/// E's claim: so E, and not C taking its own node back, gets node 3 from the forgetful store
/// (no race to win), while C, resumed within moments, still believes it holds the node (its
/// deadline may not have passed yet). E must wait out the forgetting rule before it mints;
/// C must learn it lost the node and mint nothing past its deadline; no ID may be shared, and
/// E's IDs must lie above every ID of C's. A and B take their nodes back and mint on.
pub(crate) fn store_restart(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(mut store) = Store::start(backend, "store_restart", None) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "store_restart");
    let url = store.url();
    fleet.spawn_three(|_| url.clone(), None);
    let node = fleet.get("c").node();
    fleet.spawn("e", &url, (node, node), None);
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        fleet.get("e").log().node.is_none(),
        "E got node {node} while C held it"
    );
    fleet.get("c").signal("-STOP");
    let down = wall_nanos();
    store.restart_empty();
    let restarted = wall_nanos();
    // Nobody but E asks for node 3 while C is stopped; E retries every 20 ms.
    store.wait_held(&fleet.namespace, node, WITHIN);
    let claimed = wall_nanos();
    fleet.get("c").signal("-CONT");
    fleet
        .get("e")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let e_first = fleet.get("e").first_batch_at();
    let c_status = fleet.get("c").wait_exit(WITHIN);
    for name in ["a", "b"] {
        fleet.get(name).wait_minted_after(restarted, WITHIN);
    }
    std::thread::sleep(Duration::from_millis(500));
    let codes = fleet.stop_all();
    let t = report(
        "store-restart",
        &fleet,
        started,
        &format!(
            "the store was back {:.2} s after it went down; E claimed node {node} {:.2} s after \
             that and minted {:.2} s after its claim; C exited {c_status}",
            secs(down, restarted),
            secs(restarted, claimed),
            secs(claimed, e_first)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "e"]);
    assert_eq!(
        c_status.code(),
        Some(EXIT_LOST),
        "C must learn that node {node} is lost"
    );
    // A store that forgot has no token to grow: etcd's revisions start anew.
    assert_taken_over(&mut fleet, &codes, ("c", "e"), &["a", "b", "e"], false);
}
