//! A lease store restored from an older backup, then `snowmint lease raise-floor`, with real
//! servers (`lease/tests/common/`; `SNOWMINT_REQUIRE_REDIS=1`, `SNOWMINT_REQUIRE_ETCD=1` make a
//! missing one a failure): a `snowmint serve` mints, the store is backed up (an RDB file
//! copied; `etcdctl snapshot save`), the service mints on and stops, the store is restored
//! from the backup (Redis restarted from the copied RDB file; `etcdctl snapshot restore`,
//! a new cluster), the operator raises the floor to the time of the loss, and a new service
//! mints on the same node.
//!
//! Without the raise, the restored store holds the backup's marks, older than IDs already
//! issued, under a record settled before the backup: the listing shows it (the documented
//! outcome in `docs::fleets`). With it, the node's first ID is after the floor, and no ID is
//! handed out twice.
//!
//! Each test takes 10-20 s on an idle 2-core machine (two forgetting waits of one 2 s TTL
//! plus the margin, a restore), under a minute with both cores busy.

// Both servers' helpers include the same scratch-directory helper, each as its own module.
#![allow(clippy::duplicate_mod)]

#[path = "../../lease/tests/common/etcd.rs"]
mod etcd_cluster;
#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::collections::HashSet;
use std::process::{Command, Output};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use etcd_cluster::EtcdCluster;
use redis_server::RedisServer;
use serve_support::{poll, Server};
use snowmint::{Id, Layout};

/// How long the record may take to be settled (the first renewal after the forgetting wait,
/// a third of the 2 s TTL later): it bounds a failure only.
const LIMIT: Duration = Duration::from_secs(60);

fn snowmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(args)
        .output()
        .expect("run snowmint")
}

fn list(url: &str) -> serde_json::Value {
    let out = snowmint(&[
        "lease",
        "list",
        "--lease",
        url,
        "--namespace",
        "restore",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn mark_of_node_0(listed: &serde_json::Value) -> u64 {
    listed["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|n| n["node"] == 0))
        .and_then(|n| n["mark_unix_millis"].as_u64())
        .unwrap_or_else(|| panic!("node 0 has no mark: {listed}"))
}

/// A service leasing node 0 of namespace `restore` (2 s TTL), ready; started again while
/// the node is held (a restored store brings back the backup's holder keys, whose leases
/// lapse a TTL after the restore).
fn serve(url: &str) -> Server {
    let args = [
        "--workers",
        "1",
        "--lease",
        url,
        "--namespace",
        "restore",
        "--nodes",
        "0-0",
        "--ttl",
        "2s",
        // Calls answered late on a loaded machine are not failures.
        "--lease-timeout",
        "500ms",
        "--lease-wait",
        "60s",
        "--max-batch",
        "1000",
    ];
    poll(LIMIT, "node 0 to be free", || Server::try_start(&args).ok())
}

/// `rounds` batches of 1,000 IDs from `server`, each checked unseen: the first and the last
/// ID's time.
fn mint(server: &Server, rounds: usize, seen: &mut HashSet<u64>) -> (u64, u64) {
    let (mut first, mut last) = (u64::MAX, 0);
    for _ in 0..rounds {
        // A renewal held up (a snapshot being saved, a loaded machine) fences the service
        // for a moment: 503, and it mints again once the renewal gets through.
        let reply = poll(LIMIT, "a batch of IDs", || {
            let reply = server.get("/ids?n=1000");
            assert!(matches!(reply.status, 200 | 503), "{}", reply.text());
            (reply.status == 200).then_some(reply)
        });
        for line in reply.text().lines() {
            let id: u64 = line.parse().expect("a decimal ID");
            assert!(seen.insert(id), "ID {id} handed out twice");
            let ms = Layout::TWITTER.decode(Id::from_u64(id)).unix_millis();
            (first, last) = (first.min(ms), last.max(ms));
        }
    }
    (first, last)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The round on one store: `backup` takes the backup, `restore` restores it.
fn restore_then_raise(url: &str, backup: impl FnOnce(), restore: impl FnOnce()) {
    let mut seen = HashSet::new();
    let mut old = serve(url);
    mint(&old, 5, &mut seen);
    poll(LIMIT, "the record to be settled", || {
        (list(url)["record"]["settled"] == true).then_some(())
    });
    backup();
    // Later writes: the mark moves on with each renewal, and more IDs are issued.
    let renewed = now_ms() + 2_000;
    while now_ms() < renewed {
        mint(&old, 1, &mut seen);
    }
    let (_, last) = mint(&old, 5, &mut seen);
    assert!(old.stop().success(), "{}", old.stderr());
    assert!(mark_of_node_0(&list(url)) >= last);
    let lost_at = now_ms();

    restore();
    // The documented outcome without the raise: the backup's settled record and its older
    // mark, below IDs already issued.
    let restored = list(url);
    assert_eq!(restored["record"]["settled"], true, "{restored}");
    assert!(restored["record"]["floor"].is_null());
    let stale = mark_of_node_0(&restored);
    assert!(
        stale < last,
        "the backup's mark {stale} is not older than the last ID's {last}"
    );

    let out = snowmint(&[
        "lease",
        "raise-floor",
        "--lease",
        url,
        "--namespace",
        "restore",
        "--to",
        &lost_at.to_string(),
        "--yes",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let raised = list(url);
    assert_eq!(raised["record"]["floor_unix_millis"], lost_at, "{raised}");
    assert!(mark_of_node_0(&raised) >= lost_at);

    let mut new = serve(url);
    let before = seen.len();
    let (first, _) = mint(&new, 5, &mut seen);
    assert!(
        first > lost_at,
        "the first ID after the raise, at {first} ms, is not after the floor {lost_at}"
    );
    assert_eq!(seen.len(), before + 5_000, "0 duplicates");
    assert!(new.stop().success(), "{}", new.stderr());
}

#[test]
fn redis_restarted_from_an_older_rdb_file_then_raised_repeats_nothing() {
    let Some(redis) = RedisServer::start("lease-restore") else {
        return;
    };
    let url = redis.url();
    let redis = std::cell::RefCell::new(redis);
    let backup = std::cell::RefCell::new(None);
    restore_then_raise(
        &url,
        || *backup.borrow_mut() = Some(redis.borrow().snapshot("backup")),
        || {
            redis
                .borrow_mut()
                .restart_from(backup.borrow().as_ref().unwrap())
        },
    );
}

#[test]
fn etcd_restored_from_an_older_snapshot_then_raised_repeats_nothing() {
    let Some(etcd) = EtcdCluster::start("lease-restore") else {
        return;
    };
    let url = etcd.url();
    let etcd = std::cell::RefCell::new(etcd);
    let backup = std::cell::RefCell::new(None);
    restore_then_raise(
        &url,
        || *backup.borrow_mut() = Some(etcd.borrow().snapshot_save("backup")),
        || {
            etcd.borrow_mut()
                .restore_all_from(backup.borrow().as_ref().unwrap())
        },
    );
}

/// etcd's sign of a restore: a cluster made anew from a snapshot answers under a raft term
/// below the one recorded with the node's mark, so a claim there waits the forgetting rule
/// although the restored record is settled, and `/readyz` says why; no ID is repeated, even
/// without the raise.
#[test]
fn etcd_restored_with_a_lower_raft_term_waits_and_says_why() {
    let Some(mut etcd) = EtcdCluster::start("lease-raft-term") else {
        return;
    };
    let url = etcd.url();
    // Elections raise the term: three leaders lost before the marks are written.
    for _ in 0..3 {
        let leader = etcd.leader();
        etcd.restart(leader);
    }
    let mut seen = HashSet::new();
    let mut old = serve(&url);
    mint(&old, 2, &mut seen);
    poll(LIMIT, "the record to be settled", || {
        (list(&url)["record"]["settled"] == true).then_some(())
    });
    // Past a renewal after the settle: the mark carries the term.
    let renewed = now_ms() + 1_000;
    while now_ms() < renewed {
        mint(&old, 1, &mut seen);
    }
    let backup = etcd.snapshot_save("backup");
    let (_, last) = mint(&old, 3, &mut seen);
    assert!(old.stop().success(), "{}", old.stderr());
    etcd.restore_all_from(&backup);
    poll(LIMIT, "the backup's holder key to lapse", || {
        list(&url)["nodes"][0]["holder"].is_null().then_some(())
    });

    let args = [
        "--workers",
        "1",
        "--lease",
        &url,
        "--namespace",
        "restore",
        "--nodes",
        "0-0",
        "--ttl",
        "2s",
        // Calls answered late on a loaded machine are not failures.
        "--lease-timeout",
        "500ms",
        "--max-batch",
        "1000",
    ];
    let mut new = Server::start_listening(&args);
    let state = poll(LIMIT, "the restore's wait to show", || {
        let reply = new.get("/readyz");
        let state = reply.json()["state"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (reply.status == 503 && state != "claiming").then_some(state)
    });
    assert!(
        state.starts_with("waiting for the forgetting rule until ")
            && state.contains("below the mark's")
            && state.ends_with("(a restore?)"),
        "{state}"
    );
    new.wait_ready(LIMIT).expect("ready after the wait");
    assert!(
        new.stderr()
            .contains("a sign that the cluster was restored"),
        "{}",
        new.stderr()
    );
    let (first, _) = mint(&new, 3, &mut seen);
    assert!(
        first > last,
        "first ID at {first} ms, not after the last before the loss, {last}"
    );
    assert!(new.stop().success(), "{}", new.stderr());
}
