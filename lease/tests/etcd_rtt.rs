//! The round-trip time of a lease renewal's requests (a keep-alive, then the guarded
//! transaction that raises the mark) on real 3-member clusters, plain and TLS with client
//! certificates and a user's token, through `ureq` with kept connections as the lease's
//! gateway client sends them. Ignored: a measurement, not a check; run it with
//! `cargo test --release --all-features --test etcd_rtt -- --ignored --nocapture`.
#![cfg(feature = "etcd")]
#![allow(clippy::duplicate_mod)]

#[path = "common/certs.rs"]
mod certs;
#[path = "common/etcd.rs"]
mod etcd;

use std::time::{Duration, Instant};

use etcd::{base64, request, EtcdCluster, Tls};

const ROUNDS: usize = 500;

/// Median and 99th percentile of `ROUNDS` renewals on `base` with `agent` and `token`.
fn renewals(agent: &ureq::Agent, base: &str, token: Option<&str>) -> (Duration, Duration) {
    let post = |path: &str, body: &str| {
        let (code, text) = request(agent, base, "POST", path, body, token).expect("an answer");
        assert_eq!(code, 200, "{path}: {text}");
        serde_json::from_str::<serde_json::Value>(&text).expect("JSON")
    };
    let granted = post("/v3/lease/grant", r#"{"TTL":10}"#);
    let id = granted["ID"].as_str().expect("a lease ID").to_string();
    let key = base64(b"snowmint/rtt/mark/1");
    let mut times = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS {
        let start = Instant::now();
        post("/v3/lease/keepalive", &format!(r#"{{"ID":"{id}"}}"#));
        let mark = base64(format!("{i} rtt").as_bytes());
        let txn = format!(
            r#"{{"compare":[{{"key":"{key}","result":"EQUAL","target":"CREATE","create_revision":"0"}}],"success":[{{"request_put":{{"key":"{key}","value":"{mark}"}}}}],"failure":[{{"request_put":{{"key":"{key}","value":"{mark}"}}}}]}}"#
        );
        post("/v3/kv/txn", &txn);
        times.push(start.elapsed());
    }
    times.sort();
    (times[ROUNDS / 2], times[ROUNDS * 99 / 100])
}

#[test]
#[ignore = "a measurement: prints the renewal round-trip times"]
fn renewal_round_trip_plain_and_tls() {
    let Some(plain) = EtcdCluster::start("rtt-plain") else {
        return;
    };
    let agent = etcd::agent(None);
    let (median, p99) = renewals(&agent, &format!("http://{}", plain.endpoints()[0]), None);
    println!("renewal round trip, plain: median {median:?}, p99 {p99:?} ({ROUNDS} renewals)");
    drop(plain);

    let dir = std::env::temp_dir().join(format!("snowmint-certs-rtt-{}", std::process::id()));
    let certs = certs::Certs::make(&dir);
    let tls = Tls {
        ca: certs.ca.clone(),
        client_certs: vec![certs.server.clone()],
        peer_cert: certs.server.clone(),
        harness: certs.tls_config(),
    };
    let Some(mut secured) = EtcdCluster::start_tls("rtt-tls", tls) else {
        return;
    };
    secured.add_user("minter", "pw", "snowmint/rtt/", "snowmint/rtt0");
    secured.enable_auth("root-pw");
    let agent = etcd::agent(Some(certs.tls_config()));
    let base = format!("https://{}", secured.endpoints()[0]);
    let (code, text) = request(
        &agent,
        &base,
        "POST",
        "/v3/auth/authenticate",
        r#"{"name":"minter","password":"pw"}"#,
        None,
    )
    .expect("authenticate");
    assert_eq!(code, 200, "{text}");
    let token: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let token = token["token"].as_str().expect("a token").to_string();
    let (median, p99) = renewals(&agent, &base, Some(&token));
    println!("renewal round trip, TLS + client certificate + token: median {median:?}, p99 {p99:?} ({ROUNDS} renewals)");
}
