//! The old-snapshot fault (Redis): redis-server restarted from an RDB file saved before the
//! holders' latest renewals, while they run.

use std::time::{Duration, Instant};

use crate::checks::*;
use crate::fleet::*;
use crate::settings::*;

/// A, B and C hold nodes 1–3 and mint; `SAVE` writes the RDB file; every holder mints on
/// past a TTL after it (so each renewed, and raised its mark, after the snapshot); C is
/// stopped (SIGSTOP) and redis-server killed -9 and started again on the same port from that
/// older file: its node keys have expired, its marks are a TTL and more behind, its namespace
/// record is there with the old server's `run_id`. E, trying for node 3 all along, claims it
/// while C is stopped, and must wait for the forgetting rule (the `run_id` changed, so the
/// marks are no evidence), not start above the old mark; C, resumed at once, still believes
/// it holds node 3 until its deadline: it must mint nothing E mints, and learn it lost the
/// node. A and B fence themselves or carry on (exit 0 or lost); no ID comes twice.
pub(crate) fn rdb_snapshot() {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(mut store) = Store::start(Backend::Redis, "rdb_snapshot", None) else {
        return;
    };
    let mut fleet = Fleet::new(Backend::Redis, "rdb_snapshot");
    let url = store.url();
    fleet.spawn_three(|_| url.clone(), None);
    let node = fleet.get("c").node();
    fleet.spawn("e", &url, (node, node), None);
    let Store::Redis(redis) = &mut store else {
        unreachable!("a Redis store")
    };
    let record = format!("snowmint:{}:record", fleet.namespace);
    let mark = format!("snowmint:{}:node:{node}:last", fleet.namespace);
    assert_eq!(redis.command(&["SAVE"]), "+OK");
    let saved = wall_nanos();
    let mark_saved = redis.command(&["HGET", &mark, "ms"]);
    let ttl_nanos = u64::try_from(TTL.as_nanos()).expect("ttl");
    for name in ["a", "b", "c"] {
        fleet.get(name).wait_minted_after(saved + ttl_nanos, WITHIN);
    }
    let mark_before = redis.command(&["HGET", &mark, "ms"]);
    assert!(
        fleet.get("e").log().node.is_none(),
        "E got node {node} while C held it"
    );
    fleet.get("c").signal("-STOP");
    let down = wall_nanos();
    redis.restart();
    let restarted = wall_nanos();
    assert_eq!(
        redis.command(&["EXISTS", &record]),
        ":1",
        "the namespace record came back from the snapshot"
    );
    let mark_loaded = redis.command(&["HGET", &mark, "ms"]);
    // Nobody but E asks for node 3 while C is stopped; E retries every 20 ms.
    store.wait_held(&fleet.namespace, node, WITHIN);
    let claimed = wall_nanos();
    fleet.get("c").signal("-CONT");
    fleet
        .get("e")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let e_first = fleet.get("e").first_batch_at();
    let c_status = fleet.get("c").wait_exit(WITHIN);
    std::thread::sleep(Duration::from_millis(500));
    let codes = fleet.stop_all();
    // E's waits (each attempt begins by claiming, every 20 ms while C held the node).
    let e_progress: Vec<(String, u64)> = fleet
        .get("e")
        .log()
        .progress
        .iter()
        .filter(|(kind, _)| kind != "claiming")
        .cloned()
        .collect();
    let t = report(
        "rdb-snapshot",
        &fleet,
        started,
        &format!(
            "node {node}'s mark {mark_saved} when saved, {mark_before} before the restart, \
             {mark_loaded} loaded; the store was back {:.2} s after it went down; E claimed \
             node {node} {:.2} s after that ({e_progress:?}) and minted {:.2} s after its \
             claim; C exited {c_status}; codes {codes:?}",
            secs(down, restarted),
            secs(restarted, claimed),
            secs(claimed, e_first)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "e"]);
    assert_eq!(
        mark_loaded, mark_saved,
        "the restart loaded the older snapshot"
    );
    assert_ne!(
        mark_before, mark_saved,
        "the holders' renewals raised the mark after the save"
    );
    assert!(
        e_progress.iter().any(|(kind, _)| kind == "forgetting"),
        "E did not wait for the forgetting rule after the run_id changed: {e_progress:?}"
    );
    assert_eq!(
        c_status.code(),
        Some(EXIT_LOST),
        "C must learn that node {node} is lost"
    );
    for name in ["a", "b"] {
        assert!(
            matches!(codes[name], Some(0 | EXIT_LOST)),
            "minter {name} failed: {:?}",
            codes[name]
        );
    }
    assert_eq!(codes["e"], Some(0), "minter e failed");
    let (c_max, e_min) = (fleet.get("c").max_id(), fleet.get("e").min_id());
    assert!(
        c_max < e_min,
        "C's IDs reach {c_max:?}, E's start at {e_min:?}"
    );
}
