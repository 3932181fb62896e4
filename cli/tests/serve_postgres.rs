//! `snowmint serve --lease postgres://...` on a real throw-away PostgreSQL (made by
//! `tests/common/pg_cluster.rs`; `SNOWMINT_REQUIRE_POSTGRES=1` makes missing binaries a
//! failure): two services lease different nodes with their own fencing tokens, both serve
//! through the server killed -9 and restarted, a service paused past its TTL (SIGSTOP) is
//! taken over and serves nothing of its node once resumed, and `snowmint lease list`,
//! `raise-floor` and `schema --postgres` work on the store; no ID is handed out twice.

#[path = "../../lease/tests/common/pg_cluster.rs"]
mod pg_cluster;
mod serve_support;

use std::collections::HashSet;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use pg_cluster::Cluster;
use serve_support::Server;
use snowmint::{Id, Layout};

/// Bounds a failure only: a healthy run answers within a second or two.
const MINT_LIMIT: Duration = Duration::from_secs(60);

fn lease_args<'a>(url: &'a str, nodes: &'a str) -> Vec<&'a str> {
    vec![
        "--workers",
        "2",
        "--lease",
        url,
        "--namespace",
        "orders",
        "--nodes",
        nodes,
        "--ttl",
        "2s",
        "--lease-timeout",
        "1s",
        "--max-batch",
        "1000",
    ]
}

/// Starts a service; once more if its claim found no answer within the I/O timeout (a new
/// session's fork and authentication on a machine a CPU hog keeps busy, or a claim that waits
/// for a paused holder's transaction to be cut off by `idle_in_transaction_session_timeout`).
fn start(args: &[&str]) -> Server {
    for _ in 0..3 {
        match Server::try_start(args) {
            Ok(server) => return server,
            Err(log) if log.contains("no answer within the I/O timeout") => {
                eprintln!("a start timed out, again:\n{log}");
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(log) => panic!("the server did not start:\n{log}"),
        }
    }
    panic!("the server did not start in three tries");
}

fn snowmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(args)
        .output()
        .expect("run snowmint")
}

/// Fetches `/ids?n=1000` for at least `min` and until one request was answered: the number
/// of IDs and of refused requests (503). Every ID must be new and of the node `node`.
fn drain(server: &Server, node: u64, min: Duration, seen: &mut HashSet<u64>) -> (usize, usize) {
    let started = Instant::now();
    let shard_bits = server.get("/healthz").json()["shard_bits"]
        .as_u64()
        .expect("shard_bits");
    let (mut ok, mut refused) = (0, 0);
    while started.elapsed() < min || ok == 0 {
        assert!(
            started.elapsed() < MINT_LIMIT,
            "no ID within {MINT_LIMIT:?}"
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
                "every ID under the service's node"
            );
            assert!(seen.insert(id), "ID {id} handed out twice");
            ok += 1;
        }
    }
    (ok, refused)
}

#[test]
fn services_lease_from_postgres_through_a_crash_of_the_server_and_a_paused_holder() {
    let Some(pg) = Cluster::start("serve-pg", &[], "host all all 127.0.0.1/32 trust") else {
        return;
    };
    let url = pg.url("postgres");
    let mut a = start(&lease_args(&url, "0-1"));
    let mut b = start(&lease_args(&url, "0-1"));
    let (ha, hb) = (a.get("/healthz").json(), b.get("/healthz").json());
    for h in [&ha, &hb] {
        assert_eq!(h["status"], "ok", "{h}");
        assert_eq!(h["backend"], "postgres", "{h}");
        assert!(h["token"].as_u64().is_some_and(|t| t > 0), "{h}");
    }
    let (na, nb) = (ha["node"].as_u64().unwrap(), hb["node"].as_u64().unwrap());
    assert_ne!(na, nb, "one namespace, two holders, two nodes");
    assert_ne!(ha["token"], hb["token"], "each claim its own fencing token");

    let mut seen = HashSet::new();
    let before = drain(&a, na, Duration::from_secs(1), &mut seen);
    drain(&b, nb, Duration::from_millis(200), &mut seen);

    // The server killed -9 and restarted: both services serve again, nothing twice.
    pg.kill9();
    std::thread::sleep(Duration::from_secs(1));
    pg.start_again();
    let after_crash = drain(&a, na, Duration::from_secs(1), &mut seen);
    drain(&b, nb, Duration::from_millis(200), &mut seen);

    // `lease list` shows both holders and the record settled on this server.
    let out = snowmint(&[
        "lease",
        "list",
        "--lease",
        &url,
        "--namespace",
        "orders",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = listed.to_string();
    assert!(
        text.contains(&pg.timeline()),
        "settled on this timeline: {text}"
    );

    // A paused service: its hold expires, a third service takes its node; resumed, it
    // serves no ID of that node again (fenced, then lost).
    a.signal("STOP");
    let mut c = start(&lease_args(&url, &format!("{na}-{na}")));
    let hc = c.get("/healthz").json();
    assert_eq!(hc["node"].as_u64(), Some(na), "{hc}");
    assert!(
        hc["token"].as_u64() > ha["token"].as_u64(),
        "the token only grows: {hc}"
    );
    let taken = drain(&c, na, Duration::from_millis(500), &mut seen);
    a.signal("CONT");
    let end = Instant::now() + Duration::from_secs(3);
    while Instant::now() < end {
        // A service that finds its node taken exits: nothing listens then.
        let Some(reply) = serve_support::try_get(a.port, "/ids?n=1000") else {
            break;
        };
        if reply.status == 200 {
            for line in reply.text().lines() {
                let id: u64 = line.parse().expect("decimal");
                assert!(seen.insert(id), "the resumed service repeated ID {id}");
            }
        }
        drain(&c, na, Duration::from_millis(50), &mut seen);
        std::thread::sleep(Duration::from_millis(50));
    }

    // The operator's commands on the store.
    let out = snowmint(&[
        "lease",
        "raise-floor",
        "--lease",
        &url,
        "--namespace",
        "orders",
        "--to",
        "now",
        "--yes",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = snowmint(&["lease", "schema", "--postgres", "--role", "minter"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("TO \"minter\""));
    let out = snowmint(&["serve", "--lease", "postgres://u:hunter22@127.0.0.1:1/db"]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("holds a password") && !said.contains("hunter22"),
        "{said}"
    );

    println!(
        "serve on PostgreSQL: {} IDs, no duplicate; A before {before:?}, after kill -9 {after_crash:?}; C on A's node {taken:?}",
        seen.len()
    );
    let ended = a.stop();
    assert!(
        !ended.success(),
        "the service whose node was taken ends in failure"
    );
    assert!(a.stderr().contains("lost"), "{}", a.stderr());
    assert!(b.stop().success(), "{}", b.stderr());
    assert!(c.stop().success(), "{}", c.stderr());
}

/// A claim the database cannot vouch for (here `fsync` off: a crash may lose commits) waits
/// the forgetting rule, and `/readyz`, the refused requests, the status page and the log say
/// why in the store's words and how long is left, not only "not ready".
#[test]
fn an_unvouched_claim_says_why_and_how_long_it_waits_on_readyz_and_the_status_page() {
    const WHY: &str = "fsync is off on the server: a crash may lose commits";
    let Some(pg) = Cluster::start(
        "serve-pg-unvouched",
        &[("fsync", "off")],
        "host all all 127.0.0.1/32 trust",
    ) else {
        return;
    };
    let url = pg.url("postgres");
    // A 10 s TTL and the default 2 s margin: a 12 s wait, long enough to be seen.
    let mut server = Server::start_listening(&[
        "--workers",
        "2",
        "--lease",
        &url,
        "--namespace",
        "orders",
        "--nodes",
        "0-1",
        "--ttl",
        "10s",
        "--lease-timeout",
        "1s",
    ]);
    let waiting = serve_support::poll(MINT_LIMIT, "the forgetting rule's wait", || {
        let reply = server.get("/readyz");
        assert_eq!(
            reply.status,
            503,
            "ready before the wait was seen: {}",
            reply.text()
        );
        (reply.json()["state"] != "claiming").then_some(reply)
    });
    let body = waiting.json();
    let state = body["state"].as_str().expect("state");
    assert!(
        state.starts_with("waiting for the forgetting rule until ")
            && state.ends_with(&format!(": {WHY}")),
        "{body}"
    );
    let message = body["message"].as_str().expect("message");
    assert!(
        message.contains(&format!("cannot vouch that it lost no write ({WHY})"))
            && message.contains(" s from now)")
            && !message.contains("Redis"),
        "{message}"
    );
    let retry: u64 = waiting
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("whole seconds");
    assert!((1..=13).contains(&retry), "Retry-After {retry}: {body}");
    let refused = server.get("/id");
    assert!(
        refused.status == 503 && refused.json()["message"].as_str().unwrap().contains(WHY)
            || refused.status == 200,
        "{}",
        refused.text()
    );
    let page = server.get("/").text();
    assert!(
        page.contains(WHY) || page.contains(r#"<td id="state">ready</td>"#),
        "{page}"
    );
    assert!(server.stderr().contains(WHY), "{}", server.stderr());
    server.wait_ready(MINT_LIMIT).expect("ready after the wait");
    assert_eq!(server.get("/readyz").json()["status"], "ready");
    assert!(server.stop().success(), "{}", server.stderr());
}
