//! `snowmint serve --lease etcd://...` on a real 3-member etcd cluster (started on free
//! loopback ports by `lease/tests/common/etcd.rs`; `SNOWMINT_REQUIRE_ETCD=1` makes a missing `etcd`
//! a failure): two services lease different nodes, `/healthz` names the backend and the
//! fencing token, and both go on serving through the loss and return of the cluster's
//! leader with no ID handed out twice.

#[path = "../../lease/tests/common/etcd.rs"]
mod etcd_cluster;
mod serve_support;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use etcd_cluster::EtcdCluster;
use serve_support::Server;
use snowmint::{Id, Layout};

fn lease_args(url: &str) -> Vec<&str> {
    vec![
        "--workers",
        "2",
        "--lease",
        url,
        "--namespace",
        "orders",
        "--ttl",
        "2s",
        "--lease-timeout",
        "300ms",
        "--max-batch",
        "1000",
    ]
}

/// How long a service may go without answering one `/ids` with 200 before the test fails:
/// the leader's election, the renewal that follows it and a loaded machine's delays all fit
/// many times over. It bounds a failure; a healthy run answers within a second.
const MINT_LIMIT: Duration = Duration::from_secs(60);

/// Fetches `/ids?n=1000` from `server` for at least `min` and until one request was answered
/// (so a machine too slow to fit a request into `min` only makes the phase longer): the IDs
/// of the 200s, and how many requests were refused (503 while a renewal could not get
/// through in time).
fn drain(server: &Server, node: u64, min: Duration, seen: &mut HashSet<u64>) -> (usize, usize) {
    let started = Instant::now();
    let shard_bits = server.get("/healthz").json()["shard_bits"]
        .as_u64()
        .expect("shard_bits");
    let (mut ok, mut refused) = (0, 0);
    while started.elapsed() < min || ok == 0 {
        assert!(
            started.elapsed() < MINT_LIMIT,
            "no ID within {MINT_LIMIT:?}, {refused} requests refused"
        );
        let reply = server.get("/ids?n=1000");
        if reply.status != 200 {
            assert_eq!(reply.status, 503, "{}", reply.text());
            refused += 1;
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        for line in reply.text().lines() {
            let id: u64 = line.parse().expect("decimal");
            let d = Layout::TWITTER.decode(Id::from_u64(id));
            assert_eq!(
                d.node() >> shard_bits,
                node,
                "every ID under the service's own node"
            );
            assert!(seen.insert(id), "ID {id} handed out twice");
            ok += 1;
        }
    }
    (ok, refused)
}

#[test]
fn two_services_on_a_three_member_cluster_survive_the_leader_s_loss_with_no_shared_id() {
    let Some(mut cluster) = EtcdCluster::start("serve-etcd") else {
        return;
    };
    let url = cluster.url();
    let mut a = Server::start(&lease_args(&url));
    let mut b = Server::start(&lease_args(&url));
    let (ha, hb) = (a.get("/healthz").json(), b.get("/healthz").json());
    for h in [&ha, &hb] {
        assert_eq!(h["status"], "ok", "{h}");
        assert_eq!(h["backend"], "etcd", "{h}");
        assert!(h["token"].as_u64().is_some_and(|t| t > 0), "{h}");
        assert!(h["deadline_unix_ms"].as_u64().is_some(), "{h}");
    }
    let (na, nb) = (ha["node"].as_u64().unwrap(), hb["node"].as_u64().unwrap());
    assert_ne!(na, nb, "one namespace, two holders, two nodes");
    assert_ne!(ha["token"], hb["token"], "each claim its own fencing token");

    let mut seen = HashSet::new();
    let phase = |seen: &mut HashSet<u64>, d: Duration| {
        let a_got = drain(&a, na, d, seen);
        let b_got = drain(&b, nb, Duration::from_millis(200), seen);
        (a_got, b_got)
    };
    let before = phase(&mut seen, Duration::from_secs(1));
    assert!(before.0 .0 > 0 && before.1 .0 > 0, "{before:?}");

    let leader = cluster.leader();
    cluster.kill(leader);
    let without = phase(&mut seen, Duration::from_secs(4));
    assert!(
        without.0 .0 > 0 && without.1 .0 > 0,
        "both services minted with the leader gone: {without:?}"
    );
    cluster.restart(leader);
    let after = phase(&mut seen, Duration::from_secs(1));
    assert!(after.0 .0 > 0 && after.1 .0 > 0, "{after:?}");
    // A renewal may still be on its way through the restarted member on a loaded machine.
    for s in [&a, &b] {
        serve_support::poll(MINT_LIMIT, "a healthy service", || {
            (s.get("/healthz").json()["status"] == "ok").then_some(())
        });
    }
    println!(
        "serve on etcd: {} IDs, no duplicate; 200s/503s of A before {:?}, leader {leader} down {:?}, after {:?}",
        seen.len(),
        before.0,
        without.0,
        after.0
    );
    assert!(a.stop().success(), "{}", a.stderr());
    assert!(b.stop().success(), "{}", b.stderr());
}
