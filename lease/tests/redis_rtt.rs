//! The round-trip time of a Redis lease renewal (the store's renewal script: the holder
//! checked, the hold extended, the mark raised) on a real redis-server over loopback, sent by
//! the Redis store itself (`Backend::open`, one claim, then renewals), plain and over TLS with
//! client certificates and an ACL user. Ignored: a measurement, not a check; run it with
//! `cargo test -p snowmint-lease --release --features redis --test redis_rtt -- --ignored --nocapture`.
#![cfg(feature = "redis")]
#![allow(clippy::duplicate_mod)]

#[path = "common/certs.rs"]
mod certs;
#[path = "common/redis.rs"]
mod redis_server;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use certs::Certs;
use redis_server::{RedisServer, RedisTls};
use snowmint_lease::redis::{Redis, RedisLease};
use snowmint_lease::{Backend, LeaseBuilder, Password, Store};

const ROUNDS: usize = 1000;
const TTL: Duration = Duration::from_secs(10);
const PASSWORD: &str = "rtt-secret-7f1e";

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Median and 99th percentile of `ROUNDS` renewals of one claimed node, by the store the
/// lease opens.
fn renewals(lease: LeaseBuilder<Redis>) -> (Duration, Duration) {
    let lease = lease
        .namespace("rtt")
        .ttl(TTL)
        .io_timeout(Duration::from_secs(2))
        .build()
        .expect("settings");
    let mut store = lease
        .backend()
        .open("rtt", "rtt-owner", TTL, Duration::from_secs(2), "rtt")
        .expect("open");
    let claim = store.claim(1, 1).expect("claim").expect("node 1 is free");
    assert_eq!(claim.node, 1);
    let mut times = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS as u64 {
        let want = now_ms() + i;
        let start = Instant::now();
        let got = store.renew(want).expect("renewed");
        times.push(start.elapsed());
        assert!(got.is_some(), "still held");
    }
    store.release(None).expect("release");
    times.sort();
    (times[ROUNDS / 2], times[ROUNDS * 99 / 100])
}

#[test]
#[ignore = "a measurement: run with --release -- --ignored --nocapture"]
fn renewal_round_trip() {
    let Some(plain) = RedisServer::start("rtt") else {
        return;
    };
    let (median, p99) = renewals(RedisLease::builder(&plain.url()).expect("url"));
    println!("Redis renewal round trip over loopback, plain, {ROUNDS} rounds: median {median:?}, p99 {p99:?}");
    drop(plain);

    let dir = std::env::temp_dir().join(format!("snowmint-certs-rtt-{}", std::process::id()));
    let certs = Certs::make(&dir);
    let tls = RedisTls {
        ca: certs.ca.clone(),
        cert: certs.server.clone(),
        client: certs.client.clone(),
    };
    let Some(secured) = RedisServer::start_tls("rtt-tls", tls) else {
        return;
    };
    let ok = secured.command(&[
        "ACL",
        "SETUSER",
        "minter",
        "on",
        &format!(">{PASSWORD}"),
        "~snowmint:rtt:*",
        "+@all",
    ]);
    assert_eq!(ok, "OK");
    let read = |p: &std::path::Path| std::fs::read(p).expect("read a PEM file");
    let lease = RedisLease::builder(&secured.url_as("minter"))
        .expect("url")
        .ca_pem(&read(&certs.ca))
        .expect("ca")
        .client_cert_pem(&read(&certs.client.0), &read(&certs.client.1))
        .expect("client certificate")
        .password(Password::new(PASSWORD))
        .expect("password");
    let (median, p99) = renewals(lease);
    println!(
        "Redis renewal round trip over loopback, TLS (client certificate, ACL user), {ROUNDS} rounds: median {median:?}, p99 {p99:?}"
    );
}
