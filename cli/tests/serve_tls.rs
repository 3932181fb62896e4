//! `snowmint serve` with leases from secured stores the tests start: a 3-member etcd cluster
//! with TLS on client and peer URLs, client certificates required and authentication on (a
//! user limited to the namespace's prefix), and a TLS-only redis-server with an ACL user.
//! The password comes from a file or `SNOWMINT_LEASE_PASSWORD`, never an argument, and is in
//! no log line, `/healthz`, `/readyz` or status page; a bad credential exits non-zero with a
//! message naming the store and the cause, no ID served.
#![allow(clippy::duplicate_mod)]

#[path = "../../lease/tests/common/certs.rs"]
mod certs;
#[path = "../../lease/tests/common/etcd.rs"]
mod etcd_cluster;
#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use certs::Certs;
use etcd_cluster::{EtcdCluster, Tls};
use redis_server::{RedisServer, RedisTls};
use serve_support::Server;

const PASSWORD: &str = "serve-secret-91b4";
/// How long a service that cannot reach its store may take to give up and exit.
const EXIT_LIMIT: Duration = Duration::from_secs(60);

fn certs(test: &str) -> (Certs, PathBuf) {
    let dir = std::env::temp_dir().join(format!("snowmint-certs-{test}-{}", std::process::id()));
    let certs = Certs::make(&dir);
    let password_file = dir.join("password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).expect("password file");
    (certs, password_file)
}

fn s(p: &Path) -> String {
    p.to_str().expect("a UTF-8 path").to_string()
}

/// The service's flags for a lease on `url` with the client certificate, CA `ca` and the
/// password file.
fn flags(url: &str, certs: &Certs, ca: &Path, password_file: &Path) -> Vec<String> {
    [
        "--workers",
        "2",
        "--lease",
        url,
        "--namespace",
        "tls",
        "--ttl",
        "3s",
        "--lease-timeout",
        "1s",
        "--lease-cacert",
        &s(ca),
        "--lease-cert",
        &s(&certs.client.0),
        "--lease-key",
        &s(&certs.client.1),
        "--lease-password-file",
        &s(password_file),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

/// Serves, mints, and shows the password nowhere it answers or logs.
fn mints_and_keeps_the_password_to_itself(args: &[String]) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut server = Server::start(&args);
    let reply = server.get("/ids?n=100");
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.text().lines().count(), 100);
    for path in ["/healthz", "/readyz", "/", "/metrics"] {
        let text = server.get(path).text();
        assert!(!text.contains(PASSWORD), "{path} shows the password");
    }
    assert!(
        !server.stderr().contains(PASSWORD),
        "the log shows the password"
    );
    assert!(server.stop().success());
}

/// Starts, gives up on the store, exits non-zero; the log names what went wrong and never
/// the password.
fn exits_with(args: &[String], wanted: &[&str]) {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut server = Server::start_listening(&args);
    let status = server.wait_exit(EXIT_LIMIT);
    let log = server.stderr();
    assert!(!status.success(), "exit status {status:?}:\n{log}");
    for part in wanted {
        assert!(log.contains(part), "the log lacks {part:?}:\n{log}");
    }
    assert!(
        !log.contains(PASSWORD) && !log.contains("not-the-password"),
        "{log}"
    );
}

#[test]
fn serve_leases_from_a_secured_etcd_and_refuses_bad_credentials() {
    let (certs, password_file) = certs("serve-etcd-tls");
    let tls = Tls {
        ca: certs.ca.clone(),
        client_certs: vec![certs.server.clone()],
        peer_cert: certs.server.clone(),
        harness: certs.tls_config(),
    };
    let Some(mut cluster) = EtcdCluster::start_tls("serve-etcd-tls", tls) else {
        return;
    };
    cluster.add_user("minter", PASSWORD, "snowmint/tls/", "snowmint/tls0");
    cluster.enable_auth("root-secret");
    let url = cluster.url();
    let mut args = flags(&url, &certs, &certs.ca, &password_file);
    args.extend(["--lease-user".to_string(), "minter".to_string()]);
    mints_and_keeps_the_password_to_itself(&args);
    // The CA that signed nothing of the cluster's.
    let mut wrong_ca = flags(&url, &certs, &certs.other_ca, &password_file);
    wrong_ca.extend(["--lease-user".to_string(), "minter".to_string()]);
    let first = cluster.endpoints().pop().expect("an endpoint");
    exits_with(
        &wrong_ca,
        &["--lease: could not", "TLS", "UnknownIssuer", &first],
    );
    // A wrong password, from the file.
    let wrong_file = password_file.with_file_name("wrong-password");
    std::fs::write(&wrong_file, "not-the-password\n").expect("write");
    let mut wrong = flags(&url, &certs, &certs.ca, &wrong_file);
    wrong.extend(["--lease-user".to_string(), "minter".to_string()]);
    exits_with(
        &wrong,
        &["authenticate as user \"minter\"", "authentication failed"],
    );
}

#[test]
fn serve_leases_from_rediss_as_an_acl_user_and_refuses_bad_credentials() {
    let (certs, password_file) = certs("serve-redis-tls");
    let tls = RedisTls {
        ca: certs.ca.clone(),
        cert: certs.server.clone(),
        client: certs.client.clone(),
    };
    let Some(server) = RedisServer::start_tls("serve-redis-tls", tls) else {
        return;
    };
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
    let url = server.url_as("minter");
    mints_and_keeps_the_password_to_itself(&flags(&url, &certs, &certs.ca, &password_file));
    // Messages show the URL without its user part (issue 40: no userinfo in any output).
    let shown = format!("rediss://127.0.0.1:{}/", server.port());
    // A namespace outside the user's key pattern.
    let mut outside = flags(&url, &certs, &certs.ca, &password_file);
    let at = outside
        .iter()
        .position(|a| a == "--namespace")
        .expect("a namespace")
        + 1;
    outside[at] = "orders".to_string();
    exits_with(
        &outside,
        &[&format!("--lease {shown}: could not"), "can't access"],
    );
    // A wrong password, from the file; a CA that signed nothing of the server's.
    let wrong_file = password_file.with_file_name("wrong-password");
    std::fs::write(&wrong_file, "not-the-password\n").expect("write");
    exits_with(
        &flags(&url, &certs, &certs.ca, &wrong_file),
        &[
            &format!("--lease {shown}: could not"),
            "authentication failed",
        ],
    );
    exits_with(
        &flags(&url, &certs, &certs.other_ca, &password_file),
        &[&format!("--lease {shown}: could not"), "UnknownIssuer"],
    );
    // A password in the URL is refused before anything is connected.
    let with_password = format!("rediss://minter:{PASSWORD}@127.0.0.1:{}/", server.port());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--lease",
            &with_password,
        ])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("holds a password"),
        "{err}"
    );
    // No flag takes the password itself.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(["serve", "--lease", &url, "--lease-password", "x"])
        .output()
        .expect("run");
    assert!(!out.status.success());
}

/// The flags of a lease on `url` presenting the client certificate with `CN=snow`.
fn cn_flags(url: &str, certs: &Certs) -> Vec<String> {
    [
        "--workers",
        "2",
        "--lease",
        url,
        "--ttl",
        "3s",
        "--lease-timeout",
        "1s",
        "--lease-cacert",
        &s(&certs.ca),
        "--lease-cert",
        &s(&certs.cn_client.0),
        "--lease-key",
        &s(&certs.cn_client.1),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

/// A client certificate with a common name, as PKIs issue them: with no `--lease-user` the
/// CN is etcd's user (certificate-as-user, a user with no password); with `--lease-user` and
/// a password, that user.
#[test]
fn serve_leases_from_etcd_as_the_certificates_common_name_or_a_password_user() {
    let (certs, password_file) = certs("serve-etcd-cn");
    let tls = Tls {
        ca: certs.ca.clone(),
        client_certs: vec![certs.server.clone()],
        peer_cert: certs.server.clone(),
        harness: certs.tls_config(),
    };
    let Some(mut cluster) = EtcdCluster::start_tls("serve-etcd-cn", tls) else {
        return;
    };
    cluster.add_certificate_user("snow", "snowmint/cn/", "snowmint/cn0");
    cluster.add_user("minter", PASSWORD, "snowmint/tls/", "snowmint/tls0");
    cluster.enable_auth("root-secret");
    let mut as_cn = cn_flags(&cluster.url(), &certs);
    as_cn.extend(["--namespace".to_string(), "cn".to_string()]);
    mints_and_keeps_the_password_to_itself(&as_cn);
    assert!(cluster.has_key("snowmint/cn/record"), "written as snow");
    let mut with_user = cn_flags(&cluster.url(), &certs);
    with_user.extend(
        [
            "--namespace",
            "tls",
            "--lease-user",
            "minter",
            "--lease-password-file",
            &s(&password_file),
        ]
        .map(String::from),
    );
    mints_and_keeps_the_password_to_itself(&with_user);
    assert!(cluster.has_key("snowmint/tls/record"), "written as minter");
}
