//! Redis leases over TLS on real redis-servers the tests start (`--port 0 --tls-port`,
//! client certificates required, certificates made at test time): an ACL user limited to
//! the namespace's keys leases and mints; every bad credential is an error that says what
//! is wrong, with no password in it.
#![cfg(feature = "redis")]
#![allow(clippy::duplicate_mod)]

#[path = "common/certs.rs"]
mod certs;
#[path = "common/redis.rs"]
mod redis_server;

use std::error::Error as _;
use std::path::PathBuf;
use std::time::Duration;

use certs::Certs;
use redis_server::{RedisServer, RedisTls};
use snowmint::clock::WallClock;
use snowmint::{Generator, Layout};
use snowmint_lease::redis::{Redis, RedisLease};
use snowmint_lease::{LeaseBuilder, LeaseError, Password};

const TTL: Duration = Duration::from_secs(3);
const PASSWORD: &str = "minter-secret-2c9d";

fn certs(test: &str) -> Certs {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("snowmint-certs-{test}-{}", std::process::id()));
    Certs::make(&dir)
}

/// A TLS-only server with `cert`, and ACL user `minter` limited to `snowmint:tls:*`.
fn server(test: &str, certs: &Certs, cert: &(PathBuf, PathBuf)) -> Option<RedisServer> {
    let tls = RedisTls {
        ca: certs.ca.clone(),
        cert: cert.clone(),
        client: certs.client.clone(),
    };
    let server = RedisServer::start_tls(test, tls)?;
    let pass = format!(">{PASSWORD}");
    let ok = server.command(&[
        "ACL",
        "SETUSER",
        "minter",
        "on",
        &pass,
        "~snowmint:tls:*",
        "+@all",
    ]);
    assert_eq!(ok, "OK");
    Some(server)
}

fn read(path: &PathBuf) -> Vec<u8> {
    std::fs::read(path).expect("read a PEM file")
}

fn lease(url: &str, certs: &Certs, ca: &PathBuf, password: &str) -> LeaseBuilder<Redis> {
    RedisLease::builder(url)
        .unwrap()
        .ca_pem(&read(ca))
        .unwrap()
        .client_cert_pem(&read(&certs.client.0), &read(&certs.client.1))
        .unwrap()
        .password(Password::new(password))
        .unwrap()
        .namespace("tls")
        // Room for TLS handshakes of a debug build on a loaded machine.
        .ttl(TTL)
        .io_timeout(Duration::from_secs(1))
        .max_wait(Duration::from_secs(30))
}

/// The error and its causes, as one text.
fn chain(err: &LeaseError) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

#[test]
fn an_acl_user_leases_over_tls_and_mints() {
    let certs = certs("redis-tls-mint");
    let Some(server) = server("redis-tls-mint", &certs, &certs.server) else {
        return;
    };
    let gen = lease(&server.url_as("minter"), &certs, &certs.ca, PASSWORD)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("acquire over TLS as the ACL user");
    let first = gen.next_id().expect("mints");
    std::thread::sleep(2 * TTL);
    assert!(gen.next_id().expect("renewed") > first);
    let holder = format!("snowmint:tls:node:{}", gen.node());
    assert_ne!(server.command(&["EXISTS", &holder]), ":0", "the holder key");
}

#[test]
fn every_bad_credential_is_a_clear_error() {
    let certs = certs("redis-tls-bad");
    let (Some(good), Some(expired), Some(wrong_name)) = (
        server("redis-tls-bad", &certs, &certs.server),
        server("redis-tls-expired", &certs, &certs.expired),
        server("redis-tls-name", &certs, &certs.wrong_name),
    ) else {
        return;
    };
    let fails = |lease: LeaseBuilder<Redis>, what: &str, wanted: &[&str]| {
        let err = lease
            .build()
            .unwrap()
            .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
            .expect_err(what);
        let text = chain(&err);
        for part in wanted {
            assert!(text.contains(part), "{what}: {text:?} lacks {part:?}");
        }
        assert!(!text.contains(PASSWORD) && !format!("{err:?}").contains(PASSWORD));
        assert!(!text.contains("not-the-password"));
    };
    let url = good.url_as("minter");
    fails(
        lease(&url, &certs, &certs.other_ca, PASSWORD),
        "a wrong CA",
        &["UnknownIssuer"],
    );
    fails(
        lease(&expired.url_as("minter"), &certs, &certs.ca, PASSWORD),
        "an expired server certificate",
        &["certificate expired"],
    );
    fails(
        lease(&wrong_name.url_as("minter"), &certs, &certs.ca, PASSWORD),
        "a certificate for another host",
        &["not valid for name"],
    );
    fails(
        lease(&url, &certs, &certs.ca, "not-the-password"),
        "a wrong password",
        &["Password authentication failed"],
    );
    fails(
        lease(&url, &certs, &certs.ca, PASSWORD).namespace("orders"),
        "a namespace the user may not touch",
        &["can't access at least one of the keys"],
    );
}
