//! The round-trip time of a lease renewal's requests (a keep-alive, then the guarded
//! transaction that raises the mark) on real 3-member clusters, plain and TLS with client
//! certificates and a user's token: over gRPC as the lease sends them (tonic, one kept
//! HTTP/2 connection, a current-thread runtime, a keep-alive stream of one request), and, for
//! comparison, over etcd's JSON gateway with `ureq` and kept connections. Ignored: a
//! measurement, not a check; run it with
//! `cargo test --release --features etcd --test etcd_rtt -- --ignored --nocapture`.
#![cfg(feature = "etcd")]
#![allow(clippy::duplicate_mod)]

#[path = "common/certs.rs"]
mod certs;
#[path = "common/etcd.rs"]
mod etcd;

use std::time::{Duration, Instant};

use etcd::{base64, request, EtcdCluster, Tls};

#[path = "../src/etcd/proto.rs"]
#[allow(dead_code, clippy::all, clippy::pedantic)]
mod proto;

use proto::compare::{CompareResult, CompareTarget, TargetUnion};
use proto::kv_client::KvClient;
use proto::lease_client::LeaseClient;
use proto::request_op::Request as Op;
use proto::{Compare, LeaseGrantRequest, LeaseKeepAliveRequest, PutRequest, RequestOp, TxnRequest};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

const ROUNDS: usize = 500;

/// Median and 99th percentile of `ROUNDS` renewals over gRPC on `channel` (made in
/// `runtime`), with `token`.
fn grpc_renewals(
    (channel, runtime): (Channel, tokio::runtime::Runtime),
    token: Option<&str>,
) -> (Duration, Duration) {
    runtime.block_on(async {
        let mut lease = LeaseClient::new(channel.clone());
        let mut kv = KvClient::new(channel);
        let granted = lease
            .lease_grant(with_token(LeaseGrantRequest { ttl: 10, id: 0 }, token))
            .await
            .expect("grant")
            .into_inner();
        let key = b"snowmint/rtt/mark/1".to_vec();
        let mut times = Vec::with_capacity(ROUNDS);
        for i in 0..ROUNDS {
            let start = Instant::now();
            let once = with_token(
                tokio_stream::once(LeaseKeepAliveRequest { id: granted.id }),
                token,
            );
            let mut answers = lease
                .lease_keep_alive(once)
                .await
                .expect("keep-alive")
                .into_inner();
            let alive = answers.message().await.expect("an answer").expect("one");
            assert!(alive.ttl > 0);
            let put = RequestOp {
                request: Some(Op::RequestPut(PutRequest {
                    key: key.clone(),
                    value: format!("{i} rtt").into_bytes(),
                    lease: 0,
                })),
            };
            let txn = TxnRequest {
                compare: vec![Compare {
                    result: CompareResult::Equal.into(),
                    target: CompareTarget::Create.into(),
                    key: key.clone(),
                    target_union: Some(TargetUnion::CreateRevision(0)),
                }],
                success: vec![put.clone()],
                failure: vec![put],
            };
            kv.txn(with_token(txn, token)).await.expect("txn");
            times.push(start.elapsed());
        }
        times.sort();
        (times[ROUNDS / 2], times[ROUNDS * 99 / 100])
    })
}

/// `message` with `token` in its metadata, if given.
fn with_token<T>(message: T, token: Option<&str>) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Some(token) = token {
        request
            .metadata_mut()
            .insert("token", token.parse().expect("ASCII"));
    }
    request
}

/// A lazily connected channel to `endpoint`, with `tls` if given, and the runtime it runs on
/// (its worker task is spawned there).
fn channel(endpoint: &str, tls: Option<ClientTlsConfig>) -> (Channel, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut e = Endpoint::from_shared(format!("{scheme}://{endpoint}")).expect("a URI");
    if let Some(tls) = tls {
        e = e.tls_config(tls).expect("TLS");
    }
    let _inside = runtime.enter();
    (e.connect_lazy(), runtime)
}

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
    let (median, p99) = grpc_renewals(channel(&plain.endpoints()[0], None), None);
    println!("renewal round trip, gRPC, plain: median {median:?}, p99 {p99:?} ({ROUNDS} renewals)");
    let agent = etcd::agent(None);
    let (median, p99) = renewals(&agent, &format!("http://{}", plain.endpoints()[0]), None);
    println!(
        "renewal round trip, JSON gateway, plain: median {median:?}, p99 {p99:?} ({ROUNDS} renewals)"
    );
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
    let read = |p: &std::path::Path| std::fs::read(p).expect("a PEM file");
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(read(&certs.ca)))
        .identity(Identity::from_pem(
            read(&certs.cn_client.0),
            read(&certs.cn_client.1),
        ));
    let grpc = channel(&secured.endpoints()[0], Some(tls));
    let (median, p99) = grpc_renewals(grpc, Some(&token));
    println!("renewal round trip, gRPC, TLS + client certificate + token: median {median:?}, p99 {p99:?} ({ROUNDS} renewals)");
    let (median, p99) = renewals(&agent, &base, Some(&token));
    println!("renewal round trip, JSON gateway, TLS + client certificate + token: median {median:?}, p99 {p99:?} ({ROUNDS} renewals)");
}
