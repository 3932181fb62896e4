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

/// A lease on `url` presenting the certificate with `CN=snow`, trusting the CA `ca`.
fn cn_lease(url: &str, certs: &Certs, ca: &PathBuf, namespace: &str) -> LeaseBuilder<Etcd> {
    EtcdLease::builder(url)
        .unwrap()
        .ca_pem(&read(ca))
        .unwrap()
        .client_cert_pem(&read(&certs.cn_client.0), &read(&certs.cn_client.1))
        .unwrap()
        .namespace(namespace)
        .ttl(TTL)
        .margin(MARGIN)
        .io_timeout(Duration::from_secs(1))
        .max_wait(Duration::from_secs(30))
}

/// A client certificate with a common name, as operators' PKIs issue them (the case etcd's
/// JSON gateway refused): alone, it is the user (certificate-as-user, no password: user
/// `snow` has none); with a password user, that user; a wrong password or a wrong CA is an
/// error naming the cause.
#[test]
fn a_certificate_with_a_common_name_is_the_user_or_carries_a_password_user() {
    let certs = certs("etcd-tls-cn");
    let Some(cluster) = secured("etcd-tls-cn", &certs, vec![certs.server.clone()]) else {
        return;
    };
    cluster.add_certificate_user("snow", "snowmint/cn/", "snowmint/cn0");
    let builder = || Generator::builder(Layout::TWITTER).clock(WallClock);
    // Certificate-as-user: no token, etcd takes the CN for the user.
    let gen = cn_lease(&cluster.url(), &certs, &certs.ca, "cn")
        .build()
        .unwrap()
        .acquire(builder())
        .expect("acquire as the certificate's user");
    let first = gen.next_id().expect("mints");
    std::thread::sleep(2 * TTL);
    let later = gen
        .next_id()
        .expect("still held: renewed as the certificate's user");
    assert!(later > first);
    assert!(cluster.has_key("snowmint/cn/record"), "in snow's prefix");
    drop(gen);
    // The same certificate with a password user: the token's user (minter), not the CN's.
    let gen = cn_lease(&cluster.url(), &certs, &certs.ca, "tls")
        .user("minter", Password::new(PASSWORD))
        .build()
        .unwrap()
        .acquire(builder())
        .expect("acquire as the password user with a CN certificate");
    gen.next_id().expect("mints");
    drop(gen);
    // The CN's user may not write minter's prefix: etcd's refusal, quoted.
    let err = cn_lease(&cluster.url(), &certs, &certs.ca, "tls")
        .build()
        .unwrap()
        .acquire(builder())
        .expect_err("snow may not write snowmint/tls/");
    let text = err.to_string();
    assert!(
        text.contains("PermissionDenied") && text.contains("permission denied"),
        "{text}"
    );
    println!("another user's namespace: {text}");
    // A wrong password with the CN certificate: etcd's answer, not a parser's complaint.
    let err = cn_lease(&cluster.url(), &certs, &certs.ca, "tls")
        .user("minter", Password::new("not-the-password"))
        .build()
        .unwrap()
        .acquire(builder())
        .expect_err("a wrong password");
    let text = err.to_string();
    assert!(
        text.contains("authenticate as user \"minter\"")
            && text.contains("InvalidArgument")
            && text.contains("authentication failed"),
        "{text}"
    );
    assert!(!text.contains("not-the-password") && !format!("{err:?}").contains(PASSWORD));
    println!("a wrong password: {text}");
    // A wrong CA with the CN certificate: the handshake's cause.
    let err = cn_lease(&cluster.url(), &certs, &certs.other_ca, "cn")
        .build()
        .unwrap()
        .acquire(builder())
        .expect_err("a wrong CA");
    let text = err.to_string();
    assert!(
        text.contains("TLS") && text.contains("UnknownIssuer"),
        "{text}"
    );
    println!("a wrong CA: {text}");
}

/// Over TLS with a CN certificate as the user, minting goes on while the leader is killed
/// (and comes back): the calls fail over to the other members.
#[test]
fn a_certificate_user_mints_through_the_loss_of_the_leader() {
    let certs = certs("etcd-tls-leader");
    let Some(mut cluster) = secured("etcd-tls-leader", &certs, vec![certs.server.clone()]) else {
        return;
    };
    cluster.add_certificate_user("snow", "snowmint/cn/", "snowmint/cn0");
    let gen = cn_lease(&cluster.url(), &certs, &certs.ca, "cn")
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("acquire as the certificate's user");
    let mut last = gen.next_id().expect("mints");
    let leader = cluster.leader();
    cluster.kill(leader);
    // Through the election and past several renewals, on a loaded machine too.
    let end = std::time::Instant::now() + 4 * TTL;
    let mut minted = 0;
    while std::time::Instant::now() < end {
        match gen.next_id() {
            Ok(id) => {
                assert!(id > last, "IDs only grow");
                last = id;
                minted += 1;
            }
            Err(snowmint::fence::FenceError::Fenced { .. }) => {}
            Err(e) => panic!("the lease must survive the leader's loss: {e}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!gen.is_lost());
    cluster.restart(leader);
    let after = loop {
        match gen.next_id() {
            Ok(id) => break id,
            Err(snowmint::fence::FenceError::Fenced { .. }) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert!(after > last && minted > 0);
}
