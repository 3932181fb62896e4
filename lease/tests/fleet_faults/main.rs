//! The fleet fault suite: leased generators in child processes mint while one fault at a
//! time is injected on real servers the tests start themselves (a redis-server, a 3-member
//! etcd cluster on loopback ports), and every ID each child handed out is checked for
//! duplicates and ownership overlaps. All must be 0.
//!
//! Faults, each test with its own fresh servers and three minters on nodes 1, 2 and 3:
//! - **pause**: a minter stopped (SIGSTOP) past its TTL, a fourth one takes its node and
//!   mints, the paused one resumed (SIGCONT): it must return no ID after it resumed, and
//!   end as lost;
//! - **kill9**: a minter killed -9 and a new one started on its node: every new ID above
//!   the old ones;
//! - **store-restart**: the store restarted empty (Redis without persistence; etcd wiped)
//!   while a new minter tries for a held node: it gets it as soon as the store is back (its
//!   holder, stopped across the restart, cannot take it back first), while that holder,
//!   resumed at once, still believes it holds it;
//! - **leader** (etcd): the leader killed, the others minting on through the election, the
//!   member restarted; once more on a secured cluster (TLS both ways, client certificates,
//!   the minters' etcd user limited to the namespace's keys);
//! - **partition** (Redis, etcd; PostgreSQL ignored by default): one minter in a network
//!   namespace, reaching the store through a veth pair whose link is cut past the TTL; a new
//!   minter takes its node; the link healed.
//! - **rdb-snapshot** (Redis): redis-server killed and started again from an RDB file saved
//!   before the holders' latest renewals, while they run, a new minter claiming a held node:
//!   it waits for the forgetting rule (the `run_id` changed), the old holder learns it lost;
//! - **clock-step**: a holder's clock stepped back 5 s, the holder killed -9, its node taken
//!   by a new minter on a clock as far behind: it waits past the mark, mints above.
//!
//! Faults of `snowmint serve` processes (the CLI's binary, see `serve`), clients minting
//! from them over HTTP, each test's `/readyz` states asserted, not its timings:
//! - **serve kill9**: a server on node 5 killed -9 and started at once with `--nodes 5-5`:
//!   it claims until the dead holder's key lapses, never waits for the forgetting rule, and
//!   mints above the dead one's IDs; with `--nodes 5-6` it takes node 6 at once;
//! - **rolling restart**: three servers, each in turn SIGTERM'd and started again at once
//!   under load: none waits for the forgetting rule, two of three ready in every sample.
//!
//! The minters are this test binary run again (`child_minter`, ignored unless run by a
//! test), on the TSC clock (shifted by an offset the parent may step, `stepped_clock`), with
//! two minting threads each. They print each step of their claim (`PROGRESS`: claiming,
//! the forgetting rule's wait, the wait past the mark, as `/readyz` names them). They write one line
//! per batch they were handed: the node, the wall-clock Unix nanos read before and after
//! the call, and every ID. The parent checks, over all minters:
//! - **duplicates**: IDs handed out twice (every ID of every child, sorted);
//! - **ownership overlaps**: two processes' ID ranges on one node that intersect, and
//!   batches of a node a process asked for after another process had begun serving that
//!   node (the earlier owner minting on after the takeover).
//!
//! Each test prints `fault=NAME backend=redis|etcd|postgres ids=N duplicates=N overlaps=N` and its
//! elapsed time. The tests run one at a time (a lock): each fault's timing is its own.
//!
//! The Redis half needs feature `redis`, the etcd half feature `etcd` too, the PostgreSQL
//! partition feature `postgres` too (the harness tests of the etcd cluster and the namespace
//! need neither lease); the network-namespace
//! tests need root and `ip` (skipped otherwise, unless `SNOWMINT_REQUIRE_NETNS=1`).
//!
//! Files: `settings` (timings, limits, helpers), `child` (the minter process), `minter` (a
//! child as the parent sees it), `fleet` (the store and the minters of one test), `checks`
//! (the tally and the assertions), `serve` (a `snowmint serve` process and its clients),
//! then one file per fault; this file holds the tests. The serve tests need the CLI built
//! beside this test (`cargo build -p snowmint-cli --all-features`; a workspace build does).
#![cfg(feature = "redis")]
// Each server's helper brings its own copy of `common/server.rs`, the start-up code they share.
#![allow(clippy::duplicate_mod)]

#[cfg(feature = "etcd")]
#[path = "../common/certs.rs"]
mod certs;
#[path = "../common/etcd.rs"]
mod etcd_cluster;
#[path = "../common/netns.rs"]
mod netns;
#[cfg(feature = "postgres")]
#[path = "../common/pg_cluster.rs"]
mod pg_cluster;
#[path = "../common/redis.rs"]
mod redis_server;

mod checks;
mod child;
mod clock_step;
mod fleet;
mod kill9;
mod kill9_same_node;
#[cfg(feature = "etcd")]
mod leader;
mod minter;
mod partition;
mod pause;
mod rdb_snapshot;
mod rolling;
mod serve;
mod settings;
mod stepped_clock;
mod store_restart;

use std::process::Stdio;
use std::time::{Duration, Instant};

use clock_step::clock_step;
use kill9::kill9;
use kill9_same_node::kill9_same_node;
#[cfg(feature = "etcd")]
use leader::{leader, leader_over_tls};
use netns::NetNs;
use partition::partition;
use pause::pause;
use rdb_snapshot::rdb_snapshot;
use rolling::rolling_restart;
use settings::{one_at_a_time, say, Backend};
use store_restart::store_restart;

/// The body of the minter processes the fault tests start; returns at once unless run by
/// one of them.
#[test]
#[ignore = "a child process of the fault tests"]
fn child_minter() {
    child::run();
}

/// The etcd harness itself, with no lease: a key written survives the leader's loss and
/// is on the restarted member, and a wiped cluster on the same ports has forgotten it.
#[test]
fn the_etcd_cluster_fails_over_rejoins_and_forgets_when_wiped() {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(mut cluster) = etcd_cluster::EtcdCluster::start("harness") else {
        return;
    };
    // The key "probe" and the value "1", base64 as the JSON gateway takes them.
    let has_probe = |cluster: &etcd_cluster::EtcdCluster, i: usize| {
        let (code, body) = etcd_cluster::http(
            "127.0.0.1",
            cluster.client_port(i),
            "POST",
            "/v3/kv/range",
            r#"{"key":"cHJvYmU="}"#,
        )
        .expect("the member answers");
        assert_eq!(code, 200, "{body}");
        body.contains(r#""value":"MQ==""#)
    };
    let endpoints = cluster.endpoints();
    let (code, body) = etcd_cluster::http(
        "127.0.0.1",
        cluster.client_port(0),
        "POST",
        "/v3/kv/put",
        r#"{"key":"cHJvYmU=","value":"MQ=="}"#,
    )
    .expect("put");
    assert_eq!(code, 200, "{body}");
    assert!(cluster.has_key("probe"), "the key written is found");
    assert!(!cluster.has_key("probe2"), "a key never written is not");
    let old = cluster.leader();
    cluster.kill(old);
    let new = cluster.leader();
    assert_ne!(new, old);
    assert!(has_probe(&cluster, new), "the new leader has the key");
    cluster.restart(old);
    assert!(has_probe(&cluster, old), "the restarted member has the key");
    let wipe = Instant::now();
    cluster.wipe_and_restart_all();
    let wiped_in = wipe.elapsed();
    assert_eq!(cluster.endpoints(), endpoints, "the same client ports");
    assert!(
        (0..3).all(|i| !has_probe(&cluster, i)),
        "a wiped cluster forgets"
    );
    assert!(!cluster.has_key("probe"), "a wiped cluster forgets");
    assert!(cluster.url().starts_with("etcd://127.0.0.1:"));
    say(&format!(
        "etcd harness: leader m{} killed, m{} elected, m{} rejoined, wiped and healthy again \
         in {:.1} s; {:.1} s in all",
        old + 1,
        new + 1,
        old + 1,
        wiped_in.as_secs_f64(),
        started.elapsed().as_secs_f64()
    ));
}

/// The partition harness itself: from inside the namespace an etcd member is reachable
/// on the pair's host address (not on loopback, the namespace's own), not while the link
/// is cut, and again once it is healed.
#[test]
fn the_namespace_reaches_the_store_through_the_pair_only_until_cut() {
    let _one = one_at_a_time();
    let Some(net) = NetNs::create("harness") else {
        return;
    };
    let Some(cluster) = etcd_cluster::EtcdCluster::start_with("netns", Some(net.host_addr()))
    else {
        return;
    };
    let port = cluster.client_port(0);
    // A TCP connect from inside the namespace, by bash's /dev/tcp, within 2 s.
    let reaches = |host: &str| {
        net.command("timeout")
            .args([
                "2",
                "bash",
                "-c",
                &format!("exec 3<>/dev/tcp/{host}/{port}"),
            ])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    assert!(reaches(net.host_addr()), "the member on the pair's address");
    assert!(!reaches("127.0.0.1"), "the namespace's loopback is its own");
    net.cut();
    assert!(!reaches(net.host_addr()), "nothing passes a cut link");
    net.heal();
    let end = Instant::now() + Duration::from_secs(10);
    while !reaches(net.host_addr()) {
        assert!(Instant::now() < end, "the healed link carries nothing");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn redis_pause_past_the_ttl_then_takeover_and_resume() {
    pause(Backend::Redis);
}

#[test]
fn redis_kill9_then_the_node_reused_above_the_old_ids() {
    kill9(Backend::Redis);
}

#[test]
fn redis_serve_kill9_then_restarted_on_its_node_or_a_free_one() {
    kill9_same_node(Backend::Redis);
}

#[test]
fn redis_serve_rolling_restart_of_three_under_load() {
    rolling_restart(Backend::Redis);
}

#[test]
fn redis_clock_stepped_back_then_the_holder_killed_and_restarted() {
    clock_step(Backend::Redis);
}

#[test]
fn redis_restarted_from_a_snapshot_older_than_the_renewals() {
    rdb_snapshot();
}

#[test]
fn redis_restarted_empty_while_three_hold_nodes() {
    store_restart(Backend::Redis);
}

#[test]
fn redis_partition_of_one_minter_past_the_ttl() {
    partition(Backend::Redis);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_pause_past_the_ttl_then_takeover_and_resume() {
    pause(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_kill9_then_the_node_reused_above_the_old_ids() {
    kill9(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_serve_kill9_then_restarted_on_its_node_or_a_free_one() {
    kill9_same_node(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_serve_rolling_restart_of_three_under_load() {
    rolling_restart(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_clock_stepped_back_then_the_holder_killed_and_restarted() {
    clock_step(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_wiped_and_restarted_while_three_hold_nodes() {
    store_restart(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_leader_killed_and_restarted() {
    leader();
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_leader_killed_and_restarted_over_tls_with_a_limited_user() {
    leader_over_tls();
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_partition_of_one_minter_past_the_ttl() {
    partition(Backend::Etcd);
}

/// Beside a CPU hog, `.ci/faults-under-load` runs it with the kernel's autogroups off: with
/// them on, each PostgreSQL backend (a session of its own) was seen waiting seconds for a CPU
/// (see the lease guide's fault suite).
#[cfg(feature = "postgres")]
#[test]
fn postgres_partition_of_one_minter_past_the_ttl() {
    partition(Backend::Postgres);
}
