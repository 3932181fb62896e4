//! etcd leases over TLS on real 3-member clusters the tests start (TLS on client and peer
//! URLs, client certificates required both ways, etcd's authentication on, certificates
//! made at test time): a user whose role covers only the namespace's prefix leases and
//! mints, and keeps minting when its token is refused after a change of roles; every bad
//! credential is a clear error naming the endpoint and the cause, with no password in it.
#![cfg(feature = "etcd")]
#![allow(clippy::duplicate_mod)]

#[path = "common/certs.rs"]
mod certs;
#[path = "common/etcd.rs"]
mod etcd;

use std::path::PathBuf;
use std::time::Duration;

use certs::Certs;
use etcd::{EtcdCluster, Tls};
use snowmint::clock::WallClock;
use snowmint::{Generator, Layout};
use snowmint_lease::etcd::{Etcd, EtcdLease};
use snowmint_lease::{LeaseBuilder, LeaseError, Password};

const TTL: Duration = Duration::from_secs(3);
const MARGIN: Duration = Duration::from_millis(400);
const PASSWORD: &str = "minter-secret-7f3a";

/// The certificates of one test, in a directory of its own.
fn certs(test: &str) -> Certs {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("snowmint-certs-{test}-{}", std::process::id()));
    Certs::make(&dir)
}

/// A secured cluster, user `minter` limited to `snowmint/tls/`, auth on; member `i` serves
/// `client_certs[i]` on its client URL.
fn secured(
    test: &str,
    certs: &Certs,
    client_certs: Vec<(PathBuf, PathBuf)>,
) -> Option<EtcdCluster> {
    let tls = Tls {
        ca: certs.ca.clone(),
        client_certs,
        peer_cert: certs.server.clone(),
        // The harness checks health on members whose certificates are bad on purpose.
        harness: ureq::tls::TlsConfig::builder()
            .disable_verification(true)
            .client_cert(certs.tls_config().client_cert().cloned())
            .build(),
    };
    let mut cluster = EtcdCluster::start_tls(test, tls)?;
    cluster.add_user("minter", PASSWORD, "snowmint/tls/", "snowmint/tls0");
    cluster.enable_auth("root-secret");
    Some(cluster)
}

fn read(path: &PathBuf) -> Vec<u8> {
    std::fs::read(path).expect("read a PEM file")
}

/// A lease on `url` with the client certificate, the CA `ca` and user `minter`.
fn lease(url: &str, certs: &Certs, ca: &PathBuf, password: &str) -> LeaseBuilder<Etcd> {
    EtcdLease::builder(url)
        .unwrap()
        .ca_pem(&read(ca))
        .unwrap()
        .client_cert_pem(&read(&certs.client.0), &read(&certs.client.1))
        .unwrap()
        .user("minter", Password::new(password))
        .namespace("tls")
        .ttl(TTL)
        .margin(MARGIN)
        .io_timeout(Duration::from_secs(1))
        .max_wait(Duration::from_secs(30))
}

#[test]
fn a_limited_user_leases_over_tls_and_mints_on_after_its_token_is_refused() {
    let certs = certs("etcd-tls-mint");
    let Some(cluster) = secured("etcd-tls-mint", &certs, vec![certs.server.clone()]) else {
        return;
    };
    let gen = lease(&cluster.url(), &certs, &certs.ca, PASSWORD)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("acquire over TLS as the limited user");
    let first = gen.next_id().expect("mints");
    assert!(gen.token().is_some(), "a fencing token from etcd");
    // A change of users bumps the auth store's revision: etcd refuses every older token,
    // so the renewals go on only if the lease authenticates again.
    cluster.add_user("other", "other-secret", "elsewhere/", "elsewhere0");
    std::thread::sleep(3 * TTL);
    let later = gen.next_id().expect("still held: renewed with a new token");
    assert!(later > first);
    assert!(
        cluster.has_key("snowmint/tls/record"),
        "the record, in the user's prefix"
    );
}

#[test]
fn every_bad_credential_is_a_clear_error_naming_the_endpoint() {
    let certs = certs("etcd-tls-bad");
    let members = vec![
        certs.server.clone(),
        certs.expired.clone(),
        certs.wrong_name.clone(),
    ];
    let Some(cluster) = secured("etcd-tls-bad", &certs, members) else {
        return;
    };
    let eps = cluster.endpoints();
    let one = |i: usize| format!("etcds://{}", eps[i]);
    let builder = || Generator::builder(Layout::TWITTER).clock(WallClock);
    let fails = |lease: LeaseBuilder<Etcd>, what: &str, wanted: &[&str]| {
        let err = lease.build().unwrap().acquire(builder()).expect_err(what);
        let text = err.to_string();
        assert!(
            matches!(err, LeaseError::Store { store: "etcd", .. }),
            "{what}: {err:?}"
        );
        for part in wanted {
            assert!(text.contains(part), "{what}: {text:?} lacks {part:?}");
        }
        assert!(!text.contains(PASSWORD) && !format!("{err:?}").contains(PASSWORD));
        text
    };
    // The members' certificates signed by a CA the client does not trust.
    fails(
        lease(&one(0), &certs, &certs.other_ca, PASSWORD),
        "a wrong CA",
        &[&eps[0], "TLS", "UnknownIssuer"],
    );
    // A certificate whose validity ended.
    fails(
        lease(&one(1), &certs, &certs.ca, PASSWORD),
        "an expired server certificate",
        &[&eps[1], "TLS", "certificate expired"],
    );
    // A certificate for another name than 127.0.0.1.
    fails(
        lease(&one(2), &certs, &certs.ca, PASSWORD),
        "a certificate for another host",
        &[&eps[2], "TLS", "not valid for name"],
    );
    // No client certificate: the member refuses the handshake.
    let no_cert = EtcdLease::builder(&one(0))
        .unwrap()
        .ca_pem(&read(&certs.ca))
        .unwrap()
        .user("minter", Password::new(PASSWORD))
        .namespace("tls")
        .ttl(TTL);
    fails(no_cert, "no client certificate", &[&eps[0]]);
    // A wrong password, on every member of a fail-over list: etcd's own answer.
    let wrong = fails(
        lease(&cluster.url(), &certs, &certs.ca, "not-the-password"),
        "a wrong password",
        &["authenticate as user \"minter\"", "authentication failed"],
    );
    assert!(!wrong.contains("not-the-password"), "{wrong}");
    // A namespace outside the user's prefix.
    fails(
        lease(&one(0), &certs, &certs.ca, PASSWORD).namespace("orders"),
        "a namespace the user may not write",
        &[&eps[0], "permission denied"],
    );
}
