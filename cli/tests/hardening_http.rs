//! Issue 40, items 4 and 7 on the service's side: HEAD mints nothing, every bad input is
//! refused before the port is bound (exit 2), a namespace made with another TTL is exit 2
//! naming both sides; `/id?n=` is refused naming `/ids`, the 404 lists every route,
//! `/decode/{id}` reads every encoding (UUIDv7 and ULID too, `?from=`), and an unparsable
//! ID's error names every encoding tried.

#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::process::Command;

use redis_server::RedisServer;
use serve_support::{metric, request, Server};

#[test]
fn head_on_a_minting_route_mints_nothing() {
    let server = Server::start(&["--node", "1"]);
    for path in ["/id", "/ids?n=100", "/uuid7?n=100", "/ulid?n=100"] {
        let reply = request(server.port, "HEAD", path, &[]);
        assert_eq!(reply.status, 405, "HEAD {path}");
        assert_eq!(reply.header("allow"), Some("GET"), "HEAD {path}");
    }
    // The other routes still answer HEAD.
    assert_eq!(request(server.port, "HEAD", "/livez", &[]).status, 200);
    let m = server.get("/metrics").text();
    for kind in ["snowflake", "uuid7", "ulid"] {
        let series = format!("snowmint_http_ids_total{{kind=\"{kind}\"}}");
        assert_eq!(metric(&m, &series), Some(0.0), "{series}\n{m}");
    }
    // Every kind is counted.
    assert_eq!(server.get("/uuid7?n=3").status, 200);
    assert_eq!(server.get("/ulid?n=2").status, 200);
    assert_eq!(server.get("/ids?n=4").status, 200);
    let m = server.get("/metrics").text();
    let count = |kind: &str| metric(&m, &format!("snowmint_http_ids_total{{kind=\"{kind}\"}}"));
    assert_eq!(
        (count("snowflake"), count("uuid7"), count("ulid")),
        (Some(4.0), Some(3.0), Some(2.0))
    );
}

#[test]
fn id_with_a_count_is_refused_naming_ids_and_the_404_lists_every_route() {
    let server = Server::start(&["--node", "1"]);
    let reply = server.get("/id?n=5");
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), "n_not_taken");
    assert!(reply.json()["message"]
        .as_str()
        .unwrap()
        .contains("/ids?n=5"));
    let reply = server.get("/nope");
    assert_eq!(reply.status, 404);
    let message = reply.json()["message"].as_str().unwrap().to_owned();
    for route in [
        "/id,",
        "/ids?n=N",
        "/uuid7",
        "/ulid",
        "/decode/{id}",
        "/metrics",
        "/ (the status page)",
    ] {
        assert!(message.contains(route), "{route}: {message}");
    }
    let help = Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).replace('\n', " ");
    for route in ["/uuid7?n=N", "/ulid?n=N", "/ (the status page)"] {
        assert!(help.contains(route), "{route}: {help}");
    }
}

#[test]
fn decode_reads_every_encoding_and_names_them_when_none_reads() {
    let server = Server::start(&["--node", "1"]);
    let uuid = "018f3a5c-7d2e-7abc-8def-0123456789ab";
    let reply = server.get(&format!("/decode/{uuid}"));
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["encoding"], "uuid7");
    assert_eq!(reply.json()["id"], uuid);
    let reply = server.get("/decode/01HZ3V5M6N7P8Q9R0S1T2V3W4X?from=ulid");
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["encoding"], "ulid");
    // 1541815603606036480 in hex.
    let reply = server.get("/decode/1565a11f6217a000?from=hex");
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["id"], "1541815603606036480");
    let reply = server.get("/decode/not-an-id!");
    assert_eq!(reply.status, 400);
    let message = reply.json()["message"].as_str().unwrap().to_owned();
    for name in [
        "decimal", "base2", "base32", "base36", "base58", "base64", "hex", "json", "uuid7", "ulid",
    ] {
        assert!(message.contains(name), "{name}: {message}");
    }
    assert_eq!(server.get("/decode/1?from=nope").status, 400);
}

/// `snowmint serve ARGS`: its exit code and standard error.
fn serve(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_lease_flags_exit_2_before_the_port_is_bound() {
    // Nothing listens on port 1: every one of these is refused before any call to a store.
    let redis = "redis://127.0.0.1:1/";
    for (args, says) in [
        (vec!["--lease", redis, "--ttl", "0s"], "--ttl 0s"),
        (
            vec!["--lease", redis, "--ttl", "8s", "--margin", "5s"],
            "--margin 5s",
        ),
        (
            vec!["--lease", redis, "--shard-bits", "4", "--nodes", "0-200"],
            "--nodes 0-200",
        ),
        (
            vec!["--lease", "redis://127.0.0.1:1/-1"],
            "'-1' is not a number",
        ),
        (
            vec!["--lease", redis, "--namespace", ""],
            "namespace is empty",
        ),
        (
            vec!["--lease", "etcd://127.0.0.1:1", "--ttl", "500ms"],
            "--ttl 500ms",
        ),
    ] {
        let (code, err) = serve(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            !err.contains("listening"),
            "{args:?}: checked after binding: {err}"
        );
    }
}

#[test]
fn a_namespace_made_with_another_ttl_is_bad_input_naming_both() {
    let Some(redis) = RedisServer::start("hardening-mismatch") else {
        return;
    };
    let url = redis.url();
    let mut first = Server::start(&[
        "--workers",
        "2",
        "--lease",
        &url,
        "--namespace",
        "m",
        "--ttl",
        "2s",
    ]);
    let (code, err) = serve(&[
        "--workers",
        "2",
        "--lease",
        &url,
        "--namespace",
        "m",
        "--ttl",
        "3s",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("TTL 2s") && err.contains("TTL 3s"), "{err}");
    first.stop();
}
