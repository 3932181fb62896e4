//! `snowmint serve` over loopback, the real binary: every endpoint, every bad request, start
//! errors, and a graceful stop by SIGTERM that finishes the request in flight.

mod serve_support;

use std::collections::HashSet;
use std::time::Duration;

use serve_support::{metric, poll, request, Server};
use snowmint::{Id, Layout};

/// `--workers 2` gives 2 shard bits (3 exclusive shards and the overflow), whatever the
/// machine: node 5 owns nodes 20 to 23.
const FIXED: &[&str] = &["--workers", "2", "--node", "5", "--max-batch", "5000"];

fn node_of(id: u64) -> u64 {
    Layout::TWITTER.decode(Id::from_u64(id)).node()
}

#[test]
fn every_endpoint_answers() {
    let mut server = Server::start(FIXED);

    let one = server.get("/id");
    assert_eq!(one.status, 200);
    assert_eq!(
        one.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(one.header("cache-control"), Some("no-store"));
    let text = one.text();
    assert!(
        text.ends_with('\n') && text.lines().count() == 1,
        "{text:?}"
    );
    let id: u64 = text.trim_end().parse().expect("a decimal ID");
    assert_eq!(node_of(id) >> 2, 5, "node 5, shard below it");

    let lines = server.get("/ids?n=5000");
    assert_eq!(lines.status, 200);
    assert_eq!(lines.header("cache-control"), Some("no-store"));
    let ids: Vec<u64> = lines
        .text()
        .lines()
        .map(|l| l.parse().expect("decimal"))
        .collect();
    assert_eq!(
        ids.len(),
        5000,
        "more than a tick's 4,096: waits for the next"
    );
    let unique: HashSet<u64> = ids.iter().copied().chain([id]).collect();
    assert_eq!(unique.len(), 5001);
    assert!(ids.iter().all(|&i| node_of(i) >> 2 == 5));

    let json = server.get_with("/ids?n=3", &[("Accept", "application/json")]);
    assert_eq!(json.status, 200);
    assert_eq!(json.header("content-type"), Some("application/json"));
    let array = json.json();
    let strings: Vec<&str> = array
        .as_array()
        .expect("array")
        .iter()
        .map(|v| v.as_str().expect("IDs as strings"))
        .collect();
    assert_eq!(strings.len(), 3);
    assert!(strings.iter().all(|s| s.parse::<u64>().is_ok()));

    let decoded = server.get(&format!("/decode/{id}"));
    assert_eq!(decoded.status, 200);
    let d = decoded.json();
    let expected = Layout::TWITTER.decode(Id::from_u64(id));
    assert_eq!(d["id"], id.to_string(), "the ID as a string");
    assert_eq!(d["layout"], "twitter");
    assert_eq!(d["unix_ms"], expected.unix_millis());
    assert_eq!(d["node"], expected.node());
    assert_eq!(d["sequence"], expected.sequence());
    assert!(d["time"].as_str().expect("time").ends_with('Z'));

    let health = server.get("/healthz");
    assert_eq!(health.status, 200);
    let h = health.json();
    assert_eq!(
        (h["status"].as_str(), h["node"].as_u64()),
        (Some("ok"), Some(5))
    );
    assert_eq!(h["source"], "fixed");

    // HEAD works where GET does, without a body.
    let head = request(server.port, "HEAD", "/healthz", &[]);
    assert_eq!(head.status, 200);

    let metrics = server.get("/metrics");
    assert_eq!(metrics.status, 200);
    let m = metrics.text();
    assert_eq!(
        metric(
            &m,
            r#"snowmint_http_requests_total{route="/id",status="200"}"#
        ),
        Some(1.0),
        "{m}"
    );
    assert_eq!(
        metric(
            &m,
            r#"snowmint_http_requests_total{route="/ids",status="200"}"#
        ),
        Some(2.0)
    );
    assert_eq!(
        metric(&m, r#"snowmint_http_ids_total{kind="snowflake"}"#),
        Some(5004.0)
    );
    assert_eq!(metric(&m, "snowmint_serve_minting"), Some(1.0));
    assert!(
        m.contains("# TYPE snowmint_http_request_duration_seconds histogram"),
        "{m}"
    );
    assert!(
        m.contains(r#"snowmint_http_request_duration_seconds_bucket{route="/ids","#),
        "{m}"
    );
    assert!(server.stop().success(), "{}", server.stderr());
}

#[test]
fn every_bad_request_gets_a_json_error_naming_its_rule() {
    let mut server = Server::start(&["--workers", "1", "--max-batch", "50"]);
    let cases: &[(&str, u16, &str, &str)] = &[
        ("/ids?n=0", 400, "n_out_of_range", "allowed 1 to 50"),
        ("/ids?n=51", 400, "n_out_of_range", "allowed 1 to 50"),
        ("/ids?n=abc", 400, "n_not_a_number", "plain decimal digits"),
        ("/ids?n=-3", 400, "n_not_a_number", "plain decimal digits"),
        ("/ids?n=", 400, "n_not_a_number", "plain decimal digits"),
        (
            "/ids?n=99999999999999999999",
            400,
            "n_not_a_number",
            "1 to 50",
        ),
        ("/ids", 400, "n_missing", "/ids?n=100"),
        ("/ids?n=1&n=2", 400, "n_repeated", "once"),
        // Parameters an endpoint does not take are ignored, so /ids?count=2 lacks n.
        ("/ids?count=2", 400, "n_missing", "/ids?n=100"),
        ("/ids?n=%3", 400, "bad_query", "two hex digits"),
        // Any encoding is read: a text that reads in several is refused, naming `from`.
        ("/decode/abc", 400, "bad_id", "?from=hex"),
        ("/decode/abc?from=base2", 400, "bad_id", "not a base2 ID"),
        ("/decode/-1", 400, "bad_id", "read furthest as decimal"),
        (
            "/decode/18446744073709551616",
            400,
            "bad_id",
            "read furthest as decimal: value exceeds",
        ),
        // Twitter's IDs are 63 bits wide.
        ("/decode/18446744073709551615", 400, "bad_id", "too wide"),
        ("/decode/%FF", 400, "bad_id", "UTF-8"),
        ("/nowhere", 404, "not_found", "/ids?n=N"),
        ("/decode", 404, "not_found", "/decode/{id}"),
    ];
    for &(path, status, code, words) in cases {
        let reply = server.get(path);
        assert_eq!(reply.status, status, "{path}: {}", reply.text());
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{path}"
        );
        assert_eq!(reply.error_code(), code, "{path}");
        let message = reply.json()["message"].as_str().unwrap().to_owned();
        assert!(message.contains(words), "{path}: {message}");
    }
    let post = request(server.port, "POST", "/id", &[]);
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET"), "a minting route");
    let post = request(server.port, "POST", "/livez", &[]);
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    assert_eq!(post.error_code(), "method_not_allowed");

    // Bad requests are counted, and mint nothing.
    let m = server.get("/metrics").text();
    assert_eq!(
        metric(
            &m,
            r#"snowmint_http_requests_total{route="/ids",status="400"}"#
        ),
        Some(10.0),
        "{m}"
    );
    assert_eq!(
        metric(&m, r#"snowmint_http_ids_total{kind="snowflake"}"#),
        Some(0.0)
    );
    assert!(server.stop().success());
}

#[test]
fn bad_settings_are_refused_at_start_with_exit_status_2_or_1() {
    // Twitter with 2 shard bits leaves nodes 0 to 255.
    let err = Server::try_start(&["--workers", "2", "--node", "256"])
        .err()
        .expect("refused");
    assert!(
        err.contains("node 256 is out of range: allowed 0 to 255"),
        "{err}"
    );
    let err = Server::try_start(&["--layout", "mastodon"])
        .err()
        .expect("refused");
    assert!(err.contains("layout mastodon has no node bits"), "{err}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(["serve", "--namespace", "x"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lease"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(["serve", "--lease", "redis://127.0.0.1:1/", "--node", "3"])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(2),
        "--lease and --node exclude each other"
    );
    // A port already in use: a system failure, exit status 1.
    let mut first = Server::start(&["--workers", "1"]);
    let taken = format!("127.0.0.1:{}", first.port);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(["serve", "--workers", "1", "--listen", &taken])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!("--listen {taken}")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(first.stop().success());
}

#[test]
fn sigterm_finishes_the_request_in_flight_then_exits_0() {
    // 10 sequence bits: one shard mints at most 1,024 IDs per millisecond, so a million IDs
    // take at least 0.97 s (a bound of the layout, not of the machine): the request is
    // still in flight when the poll below looks, however fast the machine.
    let mut server = Server::start(&[
        "--workers",
        "1",
        "--max-batch",
        "1000000",
        "--layout",
        "node=12,seq=10",
    ]);
    let port = server.port;
    let big = std::thread::spawn(move || serve_support::get(port, "/ids?n=1000000", &[]));
    poll(
        Duration::from_secs(60),
        "the big request to be in flight",
        || {
            let m = server.get("/metrics").text();
            // The scrape itself is one.
            (metric(&m, "snowmint_http_requests_in_flight")? >= 2.0).then_some(())
        },
    );
    server.signal_term();
    let reply = big.join().expect("client thread");
    assert_eq!(reply.status, 200, "the request in flight is finished");
    let ids: HashSet<&str> = std::str::from_utf8(&reply.body).unwrap().lines().collect();
    assert_eq!(ids.len(), 1_000_000);
    let status = server.wait_exit(serve_support::EXIT_LIMIT);
    assert!(status.success(), "{status:?}: {}", server.stderr());
    let log = server.stderr();
    assert!(log.contains("SIGTERM: no new connections"), "{log}");
}
