//! Restarts against a real `redis-server` (see `common/redis.rs`): the forgetting rule's wait
//! is paid only where Redis may have lost writes. A fresh namespace waits once; a holder
//! released and claimed again (a graceful restart) mints at once, above its old IDs; a Redis
//! server restarted from its snapshot (its data kept, its `run_id` new) makes the next claim
//! wait; a holder with another TTL or layout than the namespace's record is refused.
//!
//! Every bound is one-sided and loose: a wait is at least the rule's TTL plus the margin
//! (time cannot run faster under load), and "at once" is under half the TTL, which a few round
//! trips to a local server stay far below beside a CPU hog.
#![cfg(feature = "redis")]

#[path = "common/redis.rs"]
mod redis_server;
#[path = "common/restart.rs"]
mod restart;

use std::time::Duration;

use redis_server::RedisServer;
use restart::{mint, timed, MARGIN, TTL};
use snowmint::{Generator, Layout};
use snowmint_lease::redis::{Redis, RedisLease};
use snowmint_lease::{LeaseBuilder, LeaseError};

fn lease(server: &RedisServer, namespace: &str) -> LeaseBuilder<Redis> {
    RedisLease::builder(&server.url())
        .expect("url")
        .namespace(namespace)
        .ttl(TTL)
        .margin(MARGIN)
}

#[test]
fn a_fresh_namespace_waits_once_and_a_graceful_restart_mints_at_once_above_its_ids() {
    let Some(server) = RedisServer::start("restart-graceful") else {
        return;
    };
    let (first, waited) = timed(lease(&server, "graceful"), 3);
    assert!(
        waited >= TTL + MARGIN,
        "the first claim of a namespace waits the forgetting rule, waited {waited:?}"
    );
    assert!(
        !server
            .command(&["HGET", "snowmint:graceful:record", "server"])
            .is_empty(),
        "the wait over, the record is settled by this server"
    );
    let old = mint(&first, 10_000);
    drop(first);

    // A graceful restart: the node was released, Redis forgot nothing.
    let (again, took) = timed(lease(&server, "graceful"), 3);
    assert!(
        took < TTL / 2,
        "a claim the record vouches for waits no TTL, took {took:?}"
    );
    let new = mint(&again, 10_000);
    assert!(
        new[0] > *old.last().expect("minted"),
        "the restarted holder continues above its old IDs"
    );
    // A node never used, under the settled record: at once too.
    let (other, took) = timed(lease(&server, "graceful"), 4);
    assert!(took < TTL / 2, "an unused node waits no TTL, took {took:?}");
    assert_eq!(other.node(), 4);
    eprintln!("graceful restart: the first claim waited {waited:?}, the restart took {took:?}");
}

#[test]
fn a_redis_restarted_from_its_snapshot_makes_the_next_claim_wait_then_settles_again() {
    let Some(mut server) = RedisServer::start("restart-rdb") else {
        return;
    };
    let (first, _) = timed(lease(&server, "rdb"), 2);
    let old = mint(&first, 1_000);
    drop(first);
    let run_id = |server: &RedisServer| {
        server.command(&[
            "EVAL",
            "return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')",
            "0",
        ])
    };
    let before = run_id(&server);
    // Snapshot, then a crash: the new server loads the snapshot (every key kept here, but it
    // could as well be an older one), under a new run_id.
    assert_eq!(server.command(&["SAVE"]), "+OK");
    server.restart();
    assert_ne!(run_id(&server), before, "a new server process");
    assert_eq!(
        server.command(&["EXISTS", "snowmint:rdb:record"]),
        ":1",
        "the record survived the restart: only the server's identity tells it apart"
    );
    let (again, waited) = timed(lease(&server, "rdb"), 2);
    assert!(
        waited >= TTL + MARGIN,
        "a claim on a server other than the one that settled the record waits, waited {waited:?}"
    );
    assert!(mint(&again, 1_000)[0] > *old.last().expect("minted"));
    drop(again);
    // Settled again by the new server: the next restart is quick.
    let (_quick, took) = timed(lease(&server, "rdb"), 2);
    assert!(took < TTL / 2, "settled anew, took {took:?}");
    eprintln!("redis restarted: the claim waited {waited:?}; then {took:?}");
}

#[test]
fn a_holder_with_another_ttl_or_layout_is_refused_by_the_namespace_record() {
    let Some(server) = RedisServer::start("restart-mismatch") else {
        return;
    };
    let short = Duration::from_secs(1);
    let made = RedisLease::builder(&server.url())
        .expect("url")
        .namespace("mismatch")
        .ttl(short)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .expect("acquire");
    let err = RedisLease::builder(&server.url())
        .expect("url")
        .namespace("mismatch")
        .ttl(Duration::from_secs(2))
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    let LeaseError::Mismatch {
        record_ttl, ttl, ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((*record_ttl, *ttl), (short, Duration::from_secs(2)));
    let text = err.to_string();
    assert!(
        text.contains("was made with TTL 1s") && text.contains("but this lease has TTL 2s"),
        "{text}"
    );
    let err = RedisLease::builder(&server.url())
        .expect("url")
        .namespace("mismatch")
        .ttl(short)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::SONYFLAKE))
        .unwrap_err();
    let LeaseError::Mismatch {
        record_layout,
        layout,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_ne!(record_layout, layout);
    assert!(err.to_string().contains(layout.as_str()), "{err}");
    // The refused holders took nothing: the namespace's one node key is the first holder's.
    assert_eq!(
        server.command(&[
            "EXISTS",
            &format!("snowmint:mismatch:node:{}", made.node() + 1)
        ]),
        ":0"
    );
}
