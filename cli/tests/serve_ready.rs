//! What a starting `snowmint serve --lease` says, against a real `redis-server` (started on a
//! free loopback port by `lease/tests/common/redis.rs`; `SNOWMINT_REQUIRE_REDIS=1` makes a missing
//! one a failure): on a new namespace the port answers at once, `/livez` 200 and `/readyz`
//! 503 naming the forgetting rule's wait and its end, `/id` refused the same way, then ready
//! no earlier than that end; after SIGTERM a restart on the same namespace is ready without
//! that wait, and no ID of the first lifetime comes again.
//!
//! The bounds are load-robust: the one on a restart is half the TTL (10 s of a 20 s TTL),
//! where the wait it must skip would be 24 s; the waits themselves are printed.

#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::collections::HashSet;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis_server::RedisServer;
use serve_support::{metric, poll, Reply, Server, START_LIMIT};
use snowmint::{Id, Layout};

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
    ]
}

fn now_unix_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The `Retry-After` of a 503, whole seconds.
fn retry_after(reply: &Reply) -> u64 {
    reply
        .header("retry-after")
        .unwrap_or_else(|| panic!("Retry-After on {}", reply.text()))
        .parse()
        .expect("whole seconds")
}

/// The end of a `waiting for the forgetting rule until <RFC 3339>` state, Unix ms.
fn forgetting_until(state: &str) -> u64 {
    let stamp = state
        .strip_prefix("waiting for the forgetting rule until ")
        .unwrap_or_else(|| panic!("not the forgetting wait: {state:?}"));
    humantime::parse_rfc3339(stamp)
        .unwrap_or_else(|e| panic!("{stamp:?} is not RFC 3339: {e}"))
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// `n` IDs from `/ids`, in batches of 10,000.
fn mint(server: &Server, n: usize) -> Vec<u64> {
    let mut ids = Vec::with_capacity(n);
    while ids.len() < n {
        let reply = server.get("/ids?n=10000");
        assert_eq!(reply.status, 200, "{}", reply.text());
        ids.extend(
            reply
                .text()
                .lines()
                .map(|l| l.parse::<u64>().expect("decimal")),
        );
    }
    ids
}

#[test]
fn a_new_namespace_listens_at_once_and_says_it_waits_for_the_forgetting_rule() {
    let Some(redis) = RedisServer::start("ready-fresh") else {
        return;
    };
    let url = redis.url();
    // The defaults: a 10 s TTL and a 2 s margin, so a 12 s wait on a new namespace.
    let spawned = Instant::now();
    let mut server = Server::start_listening(&lease_args(&url, "fresh", "10s"));
    let listening = spawned.elapsed();
    let live = server.get("/livez");
    assert_eq!(live.status, 200, "{}", live.text());
    assert_eq!(live.json()["status"], "live");

    // "claiming" until the claim returns, then the wait, which lasts 12 s from the claim.
    let waiting = poll(START_LIMIT, "the forgetting rule's wait", || {
        let reply = server.get("/readyz");
        assert_eq!(
            reply.status,
            503,
            "ready before the wait was seen: {}",
            reply.text()
        );
        let state = reply.json()["state"].as_str().expect("state").to_owned();
        if state == "claiming" {
            assert_eq!(retry_after(&reply), 1, "{}", reply.text());
            return None;
        }
        Some(reply)
    });
    let seen_at = now_unix_millis();
    let body = waiting.json();
    assert_eq!(body["error"], "unavailable", "{body}");
    let state = body["state"].as_str().unwrap().to_owned();
    let until = forgetting_until(&state);
    // At least a second; at most the TTL plus the margin from the claim (12 s), rounded up
    // to whole seconds, so 13 when this probe came within the claim's millisecond (the
    // rule's floor starts at the claim's reading rounded up to a millisecond).
    let retry = retry_after(&waiting);
    assert!((1..=13).contains(&retry), "Retry-After {retry}: {body}");
    assert!(
        until <= seen_at + 12_000 + 1_000,
        "{state} seen at {seen_at}"
    );
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("cannot vouch that it lost no write"),
        "{message}"
    );

    // Minting is refused with the same answer meanwhile; /healthz fails as before.
    for path in ["/id", "/ids?n=5", "/uuid7?n=5", "/ulid?n=5"] {
        let refused = server.get(path);
        assert_eq!(refused.status, 503, "{path}: {}", refused.text());
        assert_eq!(refused.error_code(), "unavailable");
        let s = refused.json()["state"].as_str().unwrap().to_owned();
        // The same wait (unless it ended meanwhile, on a slow machine).
        assert!(s == state || s == "ready", "{path}: {s}");
        assert!(retry_after(&refused) >= 1);
    }
    let health = server.get("/healthz");
    if health.status == 503 {
        let h = health.json();
        assert_eq!(h["status"], "starting", "{h}");
        assert_eq!(h["backend"], "redis", "{h}");
    }
    let page = server.get("/").text();
    assert!(
        page.contains(r#"<td id="state">waiting for the forgetting rule until "#)
            || page.contains(r#"<td id="state">ready</td>"#),
        "{page}"
    );
    let log = server.stderr();
    assert!(
        log.contains("claiming a node in redis namespace \"fresh\""),
        "{log}"
    );
    assert!(
        log.contains(": waiting for the forgetting rule until "),
        "{log}"
    );

    server.wait_ready(START_LIMIT).expect("ready");
    let to_ready = spawned.elapsed();
    let ready_at = now_unix_millis();
    // Never ready before the wait's end (the service's clock follows this one; a few
    // milliseconds of calibration apart at most).
    assert!(
        ready_at + 50 >= until,
        "ready at {ready_at}, before the end of its wait, {until}"
    );
    let ready = server.get("/readyz").json();
    assert_eq!(ready["status"], "ready", "{ready}");
    let id = server.get("/id");
    assert_eq!(id.status, 200, "{}", id.text());
    let stamped = Layout::TWITTER
        .decode(Id::from_u64(id.text().trim().parse().unwrap()))
        .unix_millis();
    assert!(
        stamped > until,
        "an ID stamped {stamped}, not after the wait's end {until}"
    );
    let m = server.get("/metrics").text();
    assert_eq!(metric(&m, "snowmint_serve_minting"), Some(1.0), "{m}");
    assert!(
        server.stderr().contains("ready: node "),
        "{}",
        server.stderr()
    );
    println!(
        "new namespace: listening {:.3} s after spawn, ready {:.3} s after spawn (the forgetting rule: 12 s)",
        listening.as_secs_f64(),
        to_ready.as_secs_f64()
    );
    assert!(server.stop().success(), "{}", server.stderr());
}

#[test]
fn a_restart_after_sigterm_is_ready_without_the_wait_and_repeats_no_id() {
    let Some(redis) = RedisServer::start("ready-restart") else {
        return;
    };
    let url = redis.url();
    // A 20 s TTL: a start the store cannot vouch for waits 24 s, so a restart ready in under
    // half the TTL skipped that wait, however loaded the machine.
    let args = lease_args(&url, "deploy", "20s");
    let spawned = Instant::now();
    let mut first = Server::start_listening(&args);
    first.wait_ready(START_LIMIT).expect("ready");
    let fresh = spawned.elapsed();
    let node_first = first.get("/readyz").json()["node"].as_u64().expect("node");
    let mut ids = mint(&first, 100_000);
    for _ in 0..100 {
        let one = first.get("/id");
        assert_eq!(one.status, 200, "{}", one.text());
        ids.push(one.text().trim().parse().unwrap());
    }
    let last_first = *ids.iter().max().unwrap();
    assert!(first.stop().success(), "{}", first.stderr());
    assert!(
        first.stderr().contains(&format!(
            "released node {node_first} in namespace \"deploy\""
        )),
        "{}",
        first.stderr()
    );

    let spawned = Instant::now();
    let mut second = Server::start_listening(&args);
    second.wait_ready(START_LIMIT).expect("ready");
    let restart = spawned.elapsed();
    let log = second.stderr();
    assert!(
        !log.contains("waiting for the forgetting rule"),
        "a graceful restart waited for the forgetting rule:\n{log}"
    );
    assert!(
        restart < Duration::from_secs(10),
        "the restart was ready only after {restart:?} (half the TTL is 10 s):\n{log}"
    );
    let node_second = second.get("/readyz").json()["node"].as_u64().unwrap();
    let again = mint(&second, 100_000);
    if node_second == node_first {
        // The same node: every new ID comes after the mark the first lifetime left.
        let first_again = *again.iter().min().unwrap();
        assert!(
            first_again > last_first,
            "{first_again} is not after the first lifetime's last ID, {last_first}"
        );
    }
    let mut seen: HashSet<u64> = HashSet::with_capacity(ids.len() + again.len());
    for id in ids.iter().chain(&again) {
        assert!(seen.insert(*id), "ID {id} handed out in both lifetimes");
    }
    println!(
        "restart after SIGTERM: the first start (new namespace) ready after {:.3} s, the restart \
         ready after {:.3} s (node {node_first}, then {node_second}); {} IDs, no repeat",
        fresh.as_secs_f64(),
        restart.as_secs_f64(),
        seen.len()
    );
    assert!(second.stop().success(), "{}", second.stderr());
}
