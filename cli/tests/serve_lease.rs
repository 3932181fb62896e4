//! `snowmint serve --lease` against a real `redis-server` (started on a free loopback port by
//! `lease/tests/common/redis.rs`; `SNOWMINT_REQUIRE_REDIS=1` makes a missing one a failure): two
//! services get different nodes and hand out no common ID; a dead Redis fences the service
//! (503 with Retry-After, `/healthz` failing) until it returns; a stop releases the lease
//! and leaves its mark; a service paused past its TTL finds its node taken and exits 1.

#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::collections::HashSet;
use std::time::Duration;

use redis_server::RedisServer;
use serve_support::{metric, poll, Server};
use snowmint::{Id, Layout};

/// How long a state change driven by the lease's TTL (1 s in the fence test) may take to
/// show: many TTLs, for a loaded machine; it bounds a failure only.
const LEASE_LIMIT: Duration = Duration::from_secs(30);

/// The flags of a leased service; `ttl` is the lease's TTL.
fn lease_args<'a>(url: &'a str, namespace: &'a str, ttl: &'a str) -> Vec<&'a str> {
    vec![
        "--workers",
        "2",
        "--lease",
        url,
        "--namespace",
        namespace,
        "--ttl",
        ttl,
        "--max-batch",
        "10000",
    ]
}

fn node_of(server: &Server) -> u64 {
    let h = server.get("/healthz").json();
    assert_eq!(h["source"], "lease");
    h["node"].as_u64().expect("node")
}

#[test]
fn two_services_on_one_redis_get_different_nodes_and_share_no_id_in_a_million() {
    let Some(redis) = RedisServer::start("serve-two") else {
        return;
    };
    let url = redis.url();
    // A TTL of 3 s: renewals (every second, each allowed 300 ms) never lapse on a loaded
    // machine, so every request of the million must be answered.
    let mut a = Server::start(&lease_args(&url, "orders", "3s"));
    let mut b = Server::start(&lease_args(&url, "orders", "3s"));
    let (node_a, node_b) = (node_of(&a), node_of(&b));
    assert_ne!(node_a, node_b, "one namespace, two holders, two nodes");

    // The library's lease metrics reach /metrics: the recorder is installed before the
    // lease is taken.
    let m = a.get("/metrics").text();
    assert_eq!(
        metric(&m, r#"snowmint_lease_node{namespace="orders"}"#),
        Some(node_a as f64),
        "{m}"
    );
    // The status page names the lease: backend, namespace, a held fence and its deadline.
    let page = a.get("/").text();
    for cell in [
        format!(r#"<td id="node">{node_a}</td>"#),
        r#"<td id="backend">redis</td>"#.to_owned(),
        r#"<td id="namespace">orders</td>"#.to_owned(),
        r#"<td id="fence">held</td>"#.to_owned(),
    ] {
        assert!(page.contains(&cell), "{cell} in {page}");
    }
    assert!(page.contains(r#"<td id="fence-deadline">20"#), "{page}");

    let mut seen = HashSet::with_capacity(1_000_000);
    let mut latest_ms = [0_u64; 2];
    for round in 0..100 {
        let (server, node, side) = if round % 2 == 0 {
            (&a, node_a, 0)
        } else {
            (&b, node_b, 1)
        };
        let reply = server.get("/ids?n=10000");
        assert_eq!(reply.status, 200, "{}", reply.text());
        for line in reply.text().lines() {
            let id: u64 = line.parse().expect("decimal");
            let d = Layout::TWITTER.decode(Id::from_u64(id));
            assert_eq!(d.node() >> 2, node, "each service mints under its own node");
            latest_ms[side] = latest_ms[side].max(d.unix_millis());
            assert!(seen.insert(id), "ID {id} handed out twice");
        }
    }
    assert_eq!(seen.len(), 1_000_000);

    for (server, node, side) in [(&mut a, node_a, 0), (&mut b, node_b, 1)] {
        let status = server.stop();
        assert!(status.success(), "{status:?}: {}", server.stderr());
        assert!(
            server
                .stderr()
                .contains(&format!("released node {node} in namespace \"orders\"")),
            "{}",
            server.stderr()
        );
        // Released: the key is gone, so the next service takes the node at once...
        let key = format!("snowmint:orders:node:{node}");
        assert_eq!(redis.command(&["EXISTS", &key]), ":0");
        // ...and the mark it left covers every ID it handed out.
        let mark: u64 = redis
            .command(&["HGET", &format!("{key}:last"), "ms"])
            .parse()
            .expect("a mark in Unix ms");
        assert!(
            mark >= latest_ms[side],
            "mark {mark} < last ID's {}",
            latest_ms[side]
        );
    }
}

#[test]
fn a_dead_redis_fences_the_service_until_it_returns() {
    let Some(mut redis) = RedisServer::start("serve-fence") else {
        return;
    };
    let url = redis.url();
    // A TTL of 1 s: the service fences itself within a second of losing Redis.
    let mut server = Server::start(&lease_args(&url, "fence", "1s"));
    let node = node_of(&server);
    assert_eq!(server.get("/id").status, 200);

    redis.kill();
    // The lease cannot be renewed: within its TTL (1 s) the service stops minting.
    poll(LEASE_LIMIT, "/healthz to fail", || {
        (server.get("/healthz").status == 503).then_some(())
    });
    let health = server.get("/healthz").json();
    assert_eq!(health["status"], "fenced");
    // /readyz names the exact cause: the deadline passed and why the renewal failed.
    let ready = server.get("/readyz");
    assert_eq!(ready.status, 503);
    let state = ready.json()["state"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let failed = "fenced: the hold's deadline passed and the last renewal failed: ";
    assert!(
        state.starts_with(failed) && state.len() > failed.len() && state.contains("Redis"),
        "{state}"
    );
    let refused = server.get("/id");
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert_eq!(refused.error_code(), "unavailable");
    let retry: u64 = refused
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("whole seconds");
    assert!(retry >= 1);
    assert!(refused.json()["message"]
        .as_str()
        .unwrap()
        .contains(&format!("node {node} is fenced")));
    assert_eq!(server.get("/ids?n=10").status, 503);
    let m = server.get("/metrics").text();
    assert_eq!(metric(&m, "snowmint_serve_minting"), Some(0.0), "{m}");
    assert!(
        metric(&m, r#"snowmint_fence_renewals_total{outcome="failed"}"#).is_some_and(|n| n >= 1.0),
        "the library's own metrics are exported: {m}"
    );

    // Redis is back (empty: it had no persistence); the service takes its node back.
    redis.restart();
    poll(LEASE_LIMIT, "/healthz to pass again", || {
        (server.get("/healthz").status == 200).then_some(())
    });
    assert_eq!(node_of(&server), node);
    let again = server.get("/id");
    assert_eq!(again.status, 200, "{}", again.text());
    // Both changes were logged (issue 40: fencing was silent), the fence with its cause.
    poll(LEASE_LIMIT, "the fence and the recovery logged", || {
        let log = server.stderr();
        (log.contains(&format!("node {node} fenced: not minting"))
            && log.contains("cause: ")
            && log.contains(&format!("node {node} minting again")))
        .then_some(())
    });
    assert!(server.stop().success(), "{}", server.stderr());
}

#[test]
fn a_service_paused_past_its_ttl_finds_its_node_taken_and_exits_1() {
    let Some(redis) = RedisServer::start("serve-pause") else {
        return;
    };
    let url = redis.url();
    let mut args = lease_args(&url, "pause", "1s");
    args.extend(["--nodes", "5-5"]);
    let mut paused = Server::start(&args);
    assert_eq!(node_of(&paused), 5);
    // A garbage-collection pause, or a VM frozen: the process cannot renew.
    paused.signal("STOP");
    // Node 5 is the only one of the range: a second service claims again until the first
    // one's lease lapsed (after its 1 s TTL), then gets it (refused only if it is still held
    // after two TTLs, when it is tried anew).
    let taker = poll(LEASE_LIMIT, "the lapsed node to be taken", || {
        Server::try_start(&args).ok()
    });
    assert_eq!(node_of(&taker), 5);
    assert_eq!(taker.get("/id").status, 200);

    paused.signal("CONT");
    // Its renewal finds another owner: it stops serving and exits with status 1.
    let status = paused.wait_exit(LEASE_LIMIT);
    assert_eq!(status.code(), Some(1), "{}", paused.stderr());
    let log = paused.stderr();
    assert!(
        log.contains("node 5 was taken over by another process"),
        "{log}"
    );
    assert!(log.contains("error: the lease on node 5 was lost"), "{log}");
    assert!(!log.contains("released node"), "{log}");
    // The new owner is untouched.
    assert_eq!(taker.get("/healthz").status, 200);
    let mut taker = taker;
    assert!(taker.stop().success(), "{}", taker.stderr());
}
