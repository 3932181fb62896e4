//! `snowmint lease list` and `snowmint lease raise-floor` against a real `redis-server` and a
//! real 3-member etcd cluster (started by `lease/tests/common/`; `SNOWMINT_REQUIRE_REDIS=1` and
//! `SNOWMINT_REQUIRE_ETCD=1` make a missing one a failure), beside a running
//! `snowmint serve`: the listing shows the holder, its mark and the record; a raise lifts
//! every mark and keeps the floor in the record, never lowers either (also under a holder's
//! renewals), and a claim after it starts above the floor, also of a node without a mark;
//! a bad TIME and an unreachable store are clear errors with non-zero exit statuses.
//!
//! Each test takes 10-25 s on an idle 2-core machine (the services' forgetting wait of one
//! 2 s TTL plus the margin, twice), under a minute with the cores busy.

// Both servers' helpers include the same scratch-directory helper, each as its own module.
#![allow(clippy::duplicate_mod)]

#[path = "../../lease/tests/common/etcd.rs"]
mod etcd_cluster;
#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::process::{Command, Output};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use etcd_cluster::EtcdCluster;
use redis_server::RedisServer;
use serve_support::{poll, Server};
use snowmint::{Id, Layout};

/// How long a renewal driven change may take to show (periods of 2/3 s): it bounds a
/// failure only.
const LIMIT: Duration = Duration::from_secs(60);

fn snowmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(args)
        .output()
        .expect("run snowmint")
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// `snowmint lease list --json`, parsed.
fn list(url: &str, ns: &str) -> serde_json::Value {
    let out = snowmint(&["lease", "list", "--lease", url, "--namespace", ns, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn node_entry(listed: &serde_json::Value, node: u64) -> serde_json::Value {
    listed["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["node"] == node)
        .cloned()
        .unwrap_or_else(|| panic!("node {node} not listed: {listed}"))
}

fn mark_of(listed: &serde_json::Value, node: u64) -> u64 {
    node_entry(listed, node)["mark_unix_millis"]
        .as_u64()
        .unwrap_or_else(|| panic!("node {node} has no mark: {listed}"))
}

fn serve_args<'a>(url: &'a str, ns: &'a str, nodes: &'a str) -> Vec<&'a str> {
    vec![
        "--workers",
        "1",
        "--lease",
        url,
        "--namespace",
        ns,
        "--nodes",
        nodes,
        "--ttl",
        "2s",
        // Calls answered late on a loaded machine are not failures.
        "--lease-timeout",
        "500ms",
        "--lease-wait",
        "60s",
    ]
}

fn node_of(server: &Server) -> u64 {
    server.get("/healthz").json()["node"]
        .as_u64()
        .expect("node")
}

fn id_millis(server: &Server) -> u64 {
    let reply = server.get("/id");
    assert_eq!(reply.status, 200, "{}", reply.text());
    let id: u64 = reply.text().trim().parse().expect("a decimal ID");
    Layout::TWITTER.decode(Id::from_u64(id)).unix_millis()
}

fn raise(url: &str, ns: &str, to: &str) -> String {
    let out = snowmint(&[
        "lease",
        "raise-floor",
        "--lease",
        url,
        "--namespace",
        ns,
        "--to",
        to,
        "--yes",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The whole operator's round on one store, `backend` naming it in the listing.
fn list_and_raise(url: &str, backend: &str) {
    let ns = "ops";
    let mut holder = Server::start(&serve_args(url, ns, "0-3"));
    let node = node_of(&holder);
    let last = id_millis(&holder);

    // The listing: the holder, its mark (at or after every ID it issued), the record.
    let listed = list(url, ns);
    assert_eq!(listed["backend"], backend);
    let entry = node_entry(&listed, node);
    assert!(
        entry["holder"].as_str().is_some_and(|h| h.contains('/')),
        "{entry}"
    );
    assert!(
        entry["lease_left_ms"]
            .as_u64()
            .is_some_and(|ms| ms <= 2_000),
        "{entry}"
    );
    assert!(mark_of(&listed, node) >= last, "{entry}");
    assert_eq!(entry["mark"].as_str().map(|m| m.ends_with('Z')), Some(true));
    assert_eq!(entry["token"].is_u64(), backend == "etcd", "{entry}");
    let record = &listed["record"];
    assert_eq!(record["ttl_ms"], 2_000, "{listed}");
    assert!(
        record["layout"].as_str().unwrap().contains("41+10+12 bits"),
        "{record}"
    );
    assert!(record["floor"].is_null());
    let text = snowmint(&["lease", "list", "--lease", url, "--namespace", ns]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "namespace \"ops\" on {backend}\nrecord: incarnation "
        )),
        "{text}"
    );
    assert!(text.contains(&format!("node {node}: held by ")), "{text}");

    // Raise to a floor 4 s ahead: the held mark and the record's floor go up to it.
    let floor = now_ms() + 4_000;
    let said = raise(url, ns, &floor.to_string());
    assert!(said.contains("the record keeps the floor "), "{said}");
    let listed = list(url, ns);
    assert_eq!(listed["record"]["floor_unix_millis"], floor);
    assert!(mark_of(&listed, node) >= floor);
    // A lower raise lowers nothing.
    let said = raise(url, ns, "2020-01-01T00:00:00Z");
    assert!(said.contains(" 0 marks raised"), "{said}");
    assert_eq!(list(url, ns)["record"]["floor_unix_millis"], floor);
    // The holder's renewals (every 2/3 s) never lower the raised mark.
    let renewals = now_ms() + 2_000;
    poll(LIMIT, "two renewal periods", || {
        (now_ms() > renewals).then_some(())
    });
    assert!(mark_of(&list(url, ns), node) >= floor);
    // It still mints (below the floor it may: its IDs are all at or below its mark).
    assert!(id_millis(&holder) > 0);

    // A claim after the raise starts above the floor: the same node, released below the
    // floor (its mark lowered to its last ID), and a node that never had a mark.
    assert!(holder.stop().success(), "{}", holder.stderr());
    let fresh = (0..=3).find(|n| *n != node).unwrap();
    for n in [node, fresh] {
        let range = format!("{n}-{n}");
        let next = Server::start(&serve_args(url, ns, &range));
        assert_eq!(node_of(&next), n);
        let first = id_millis(&next);
        assert!(
            first > floor,
            "node {n}: first ID at {first} ms, not after the floor {floor}"
        );
        let mut next = next;
        assert!(next.stop().success(), "{}", next.stderr());
    }

    // Errors: a bad TIME (exit 2), an unreachable store (exit 1), each saying what was wrong.
    let bad = snowmint(&["lease", "raise-floor", "--lease", url, "--to", "yesterday"]);
    assert_eq!(bad.status.code(), Some(2));
    let said = String::from_utf8_lossy(&bad.stderr);
    assert!(
        said.contains("'yesterday' is not a valid time") && said.contains("RFC 3339"),
        "{said}"
    );
}

#[test]
fn redis_lists_and_raises_the_floor() {
    let Some(redis) = RedisServer::start("lease-ops") else {
        return;
    };
    list_and_raise(&redis.url(), "redis");
}

#[test]
fn etcd_lists_and_raises_the_floor() {
    let Some(etcd) = EtcdCluster::start("lease-ops") else {
        return;
    };
    list_and_raise(&etcd.url(), "etcd");
}

#[test]
fn an_unreachable_store_is_an_error_naming_it() {
    for url in ["redis://127.0.0.1:1/", "etcd://127.0.0.1:1"] {
        for args in [vec!["list"], vec!["raise-floor", "--to", "now"]] {
            let mut all = vec!["lease"];
            all.extend(&args);
            all.extend([
                "--lease",
                url,
                "--namespace",
                "gone",
                "--lease-timeout",
                "200ms",
            ]);
            let out = snowmint(&all);
            assert_eq!(out.status.code(), Some(1), "{all:?}");
            let said = String::from_utf8_lossy(&out.stderr);
            assert!(
                said.starts_with("error: could not ")
                    && said.contains(&format!("namespace \"gone\" at {url}")),
                "{said}"
            );
            assert!(said.contains("refused"), "{said}");
        }
    }
}
