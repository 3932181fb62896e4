//! A PostgreSQL lease on a secured server: TLS with the test's CA and a client certificate,
//! a SCRAM-SHA-256 password, a role that may not create tables (the DBA's script from
//! `schema` gives it the least it needs); a wrong password and a wrong CA each named in the
//! error, and the password in no output. On a throw-away cluster (`common/pg_cluster.rs`).
#![cfg(feature = "postgres")]

#[path = "common/certs.rs"]
mod certs;
#[path = "common/pg_cluster.rs"]
mod pg_cluster;

use std::time::Duration;

use pg_cluster::Cluster;
use snowmint::{Generator, Layout};
use snowmint_lease::postgres::{schema, PostgresLease};
use snowmint_lease::Password;
use snowmint_lease::{LeaseError, StoreError};

const PASSWORD: &str = "pg-Secret-4242";

/// What a failed call says, its causes included.
fn said(e: &LeaseError) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(" | ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[test]
fn tls_with_scram_works_and_a_wrong_password_or_ca_is_named_without_the_password() {
    let scratch = std::env::temp_dir().join(format!("snowmint-pg-tls-{}", std::process::id()));
    let certs = certs::Certs::make(&scratch.join("certs"));
    let Some(pg) = Cluster::start(
        "tls",
        &[],
        "hostssl all minter 127.0.0.1/32 scram-sha-256 clientcert=verify-ca",
    ) else {
        let _ = std::fs::remove_dir_all(&scratch);
        return;
    };
    for (from, to) in [
        (&certs.server.0, "server.crt"),
        (&certs.server.1, "server.key"),
        (&certs.ca, "root.crt"),
    ] {
        std::fs::copy(from, pg.data().join(to)).expect("copy a certificate");
    }
    pg.own(pg.data());
    let ok = std::process::Command::new("chmod")
        .arg("600")
        .arg(pg.data().join("server.key"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok);
    pg.psql("ALTER SYSTEM SET ssl = on");
    pg.psql("ALTER SYSTEM SET ssl_ca_file = 'root.crt'");
    pg.psql("SELECT pg_reload_conf()");
    pg.wait_for("SHOW ssl", "on");
    pg.psql(&format!(
        "CREATE ROLE minter LOGIN PASSWORD '{PASSWORD}'; REVOKE CREATE ON SCHEMA public FROM PUBLIC"
    ));
    assert!(pg
        .psql("SELECT rolpassword FROM pg_authid WHERE rolname = 'minter'")
        .starts_with("SCRAM-SHA-256$"));

    let url = pg.url("minter");
    let read = |p: &std::path::Path| std::fs::read(p).expect("read a PEM file");
    let secured = |ca: &std::path::Path, password: &str| {
        PostgresLease::builder(&url)
            .expect("url")
            .namespace("tls")
            .ttl(Duration::from_secs(1))
            .io_timeout(Duration::from_secs(3))
            .ca_pem(&read(ca))
            .expect("CA")
            .client_cert_pem(&read(&certs.client.0), &read(&certs.client.1))
            .expect("client certificate")
            .password(Password::new(password))
            .build()
            .expect("settings")
    };
    let mut outputs = Vec::new();

    // The role may not create the tables: the error says so and names the DBA's script.
    let err = secured(&certs.ca, PASSWORD).list().unwrap_err();
    let text = said(&err);
    assert!(
        text.contains("create the lease's tables")
            && text.contains("snowmint lease schema --postgres"),
        "{text}"
    );
    assert!(
        text.contains("42501"),
        "permission denied's SQLSTATE: {text}"
    );
    outputs.push(text);

    // The DBA's script: the tables and the least privileges, then the role leases.
    pg.psql(&schema("minter"));
    let lease = secured(&certs.ca, PASSWORD);
    outputs.push(format!("{lease:?}"));
    let gen = lease
        .acquire(Generator::builder(Layout::TWITTER))
        .expect("acquire over TLS with SCRAM");
    gen.next_id().expect("mint");
    assert!(gen.token().is_some());
    let state = lease.list().expect("list");
    outputs.push(format!("{state:?}"));
    assert_eq!(state.nodes.len(), 1);
    let over_tls = pg.psql(
        "SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE a.usename = 'minter'",
    );
    assert_eq!(over_tls, "t", "the holder's session is TLS");
    drop(gen);

    // A wrong password: PostgreSQL's words and SQLSTATE 28P01, never the password.
    let err = secured(&certs.ca, "not-the-pw-777").list().unwrap_err();
    let text = said(&err);
    assert!(
        text.contains("password authentication failed for user \"minter\"")
            && text.contains("28P01"),
        "{text}"
    );
    let pg_err = std::error::Error::source(&err)
        .and_then(|s| s.downcast_ref::<StoreError>())
        .expect("a StoreError");
    assert!(pg_err.message().contains("(SQLSTATE 28P01)"), "{pg_err}");
    assert!(
        text.starts_with("could not list the namespace in PostgreSQL: 127.0.0.1:"),
        "{text}"
    );
    outputs.push(text);
    outputs.push(format!("{err:?}"));

    // A CA that did not sign the server's certificate: the TLS error says so.
    let err = secured(&certs.other_ca, PASSWORD).list().unwrap_err();
    let text = said(&err);
    assert!(
        text.contains("UnknownIssuer") || text.contains("unknown issuer"),
        "{text}"
    );
    outputs.push(text);

    // Without TLS the server refuses the role (hostssl only).
    let err = PostgresLease::builder(&url)
        .expect("url")
        .password(Password::new(PASSWORD))
        .build()
        .expect("settings")
        .list()
        .unwrap_err();
    let text = said(&err);
    assert!(
        text.contains("no pg_hba.conf entry") && text.contains("28000"),
        "{text}"
    );
    outputs.push(text);

    for out in &outputs {
        eprintln!("{out}");
        assert!(
            !out.contains(PASSWORD) && !out.contains("not-the-pw-777"),
            "a password in: {out}"
        );
    }
    drop(pg);
    let _ = std::fs::remove_dir_all(&scratch);
}
