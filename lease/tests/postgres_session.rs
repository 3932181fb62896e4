//! The PostgreSQL store's session across a call the I/O timeout cut short, against a real
//! throw-away cluster (`common/pg_cluster.rs`): the server's process for the lease's session
//! is stopped (SIGSTOP) while the store renews. One timed-out call keeps the session (its late
//! answer is read and dropped, and the next call answers on the same server process); two in
//! a row end it, and the next call starts a new one.
#![cfg(feature = "postgres")]

#[path = "common/pg_cluster.rs"]
mod pg_cluster;

use std::process::Command;
use std::time::Duration;

use pg_cluster::Cluster;
use snowmint_lease::postgres::PostgresLease;
use snowmint_lease::{Backend, Store};

const TIMEOUT: Duration = Duration::from_millis(500);

/// The server processes of the lease's sessions (`application_name` `snowmint-lease`).
fn lease_pids(pg: &Cluster) -> Vec<String> {
    pg.psql(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'snowmint-lease' ORDER BY pid",
    )
    .lines()
    .map(|l| l.trim().to_string())
    .filter(|l| !l.is_empty())
    .collect()
}

fn signal(pid: &str, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, pid])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid}");
}

#[test]
fn a_timed_out_call_keeps_the_session_once_and_a_second_ends_it() {
    let Some(pg) = Cluster::start("session", &[], "host all all 127.0.0.1/32 trust") else {
        return;
    };
    let backend = PostgresLease::builder(&pg.url("postgres"))
        .unwrap()
        .build()
        .unwrap()
        .backend()
        .clone();
    let mut store = backend
        .open("session", "me", Duration::from_secs(60), TIMEOUT, "layout")
        .expect("opened");
    assert!(store.claim(1, 1).expect("claimed").is_some());
    assert_eq!(store.renew(1_000).expect("renewed"), Some(1_000));
    let first = lease_pids(&pg);
    assert_eq!(first.len(), 1, "one session: {first:?}");

    // One call without an answer: an error naming the timeout, the session kept.
    signal(&first[0], "-STOP");
    let err = store.renew(2_000).expect_err("no answer while stopped");
    signal(&first[0], "-CONT");
    assert!(
        err.to_string().contains("no answer within the I/O timeout"),
        "{err}"
    );
    assert_eq!(store.renew(3_000).expect("renewed after"), Some(3_000));
    assert_eq!(lease_pids(&pg), first, "the same session answered");

    // Two in a row: the session ends, and the next call starts another.
    signal(&first[0], "-STOP");
    store.renew(4_000).expect_err("no answer while stopped");
    store
        .renew(5_000)
        .expect_err("no answer while stopped, again");
    signal(&first[0], "-CONT");
    // A new session's start may itself outlast a call's timeout on a loaded machine: the
    // next calls carry it on.
    let renewed = (0..20).find_map(|_| store.renew(6_000).ok());
    assert_eq!(renewed, Some(Some(6_000)), "renewed on a new session");
    let second = lease_pids(&pg);
    assert_eq!(second.len(), 1, "one session: {second:?}");
    assert_ne!(second, first, "a new session after two timeouts in a row");
}
