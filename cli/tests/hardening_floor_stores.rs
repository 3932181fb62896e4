//! Issue 40, item 2, on every store: `raise-floor` measures `--max-ahead` against the
//! store's clock (Redis `TIME`, PostgreSQL `clock_timestamp()`; etcd tells no time, so
//! there this machine's, and the message says so), so a local clock set days ahead cannot
//! pass a far floor; and its messages and `lease list` agree with the floor the store keeps.

// The three servers' helpers include the same server-start helper, each as its own module.
#![allow(clippy::duplicate_mod)]

#[path = "../../lease/tests/common/etcd.rs"]
mod etcd_cluster;
#[path = "../../lease/tests/common/pg_cluster.rs"]
mod pg_cluster;
#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use serve_support::Server;

const DAY_MS: u64 = 86_400_000;

/// Debian's libfaketime (package `faketime`), preloaded into the one process whose wall clock
/// it moves. Preloaded directly rather than through the `faketime` wrapper, whose shared
/// memory and semaphore are named by its pid and, left behind by a killed wrapper, make a
/// later wrapper with the same pid fail (`sem_open: File exists`).
const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// `snowmint ARGS`, its clock `offset` off (libfaketime: `+3d`), or true if `None`.
fn snowmint(offset: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_snowmint"));
    if let Some(offset) = offset {
        command
            .env("LD_PRELOAD", LIBFAKETIME)
            .env("FAKETIME", offset)
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
    command.args(args).output().expect("run snowmint")
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The story on one store: a holder claims (the record is made); a floor two days ahead,
/// raised from a machine whose clock is three days ahead, is refused against the store's
/// clock (`clock` names it in the message); a floor at now is raised, and the messages and
/// the list show the floor the store keeps.
fn story(url: &str, clock: &str, faked: bool) {
    let ns = "clock";
    let mut holder = Server::start(&["--lease", url, "--namespace", ns, "--ttl", "3s"]);
    let raise = |offset: Option<&str>, to: &str| {
        snowmint(
            offset,
            &[
                "lease",
                "raise-floor",
                "--lease",
                url,
                "--namespace",
                ns,
                "--to",
                to,
                "--yes",
            ],
        )
    };
    let two_days = (now_ms() + 2 * DAY_MS).to_string();
    // A machine three days ahead would call it a day in the past; the store does not.
    let out = raise(faked.then_some("+3d"), &two_days);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(clock) && err.contains("--max-ahead"), "{err}");

    let out = raise(None, "now");
    let said = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(said.contains("the record keeps the floor"), "{said}");
    assert!(!said.contains("no namespace record"), "{said}");
    let listed = snowmint(
        None,
        &["lease", "list", "--lease", url, "--namespace", ns, "--json"],
    );
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    let floor = listed["record"]["floor_unix_millis"].as_u64();
    assert!(floor.is_some_and(|f| f <= now_ms()), "{listed}");
    let again = raise(None, &floor.unwrap().to_string());
    let said = text(&again.stdout);
    assert!(
        said.contains(&format!("({})", floor.unwrap())) && said.contains("the record keeps"),
        "{said}"
    );
    holder.stop();
}

#[test]
fn redis_measures_max_ahead_on_its_clock_and_says_what_it_keeps() {
    let Some(redis) = redis_server::RedisServer::start("floor-clock-redis") else {
        return;
    };
    story(&redis.url(), "Redis's clock (TIME)", true);
}

#[test]
fn postgres_measures_max_ahead_on_its_clock_and_says_what_it_keeps() {
    let Some(pg) =
        pg_cluster::Cluster::start("floor-clock-pg", &[], "host all all 127.0.0.1/32 trust")
    else {
        return;
    };
    story(
        &pg.url("postgres"),
        "PostgreSQL's clock (clock_timestamp())",
        true,
    );
}

#[test]
fn etcd_says_it_measures_max_ahead_on_this_machine_s_clock_and_what_it_keeps() {
    let Some(etcd) = etcd_cluster::EtcdCluster::start("floor-clock-etcd") else {
        return;
    };
    story(
        &etcd.url(),
        "this machine's clock (etcd tells no time)",
        false,
    );
}
