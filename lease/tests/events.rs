//! The lease's metrics and trace events against a real redis-server (started by
//! `common/redis.rs`; `SNOWMINT_REQUIRE_REDIS=1` makes a missing one a failure): the exact
//! counts a recording `metrics` recorder sees and the events a `tracing` subscriber sees.
#![cfg(feature = "redis")]

use std::time::Duration;

use snowmint::clock::ManualClock;
use snowmint::fence::FenceError;
use snowmint::{Generator, Layout};
use tracing::Level;

const T0: u64 = 1_700_000_000_000;

#[path = "../../tests/support/observe.rs"]
mod observe;

use observe::{counter, gauge, observe, outline};

const NOT_MINTED_FENCED: &str = "not minted: fenced";

#[path = "common/redis.rs"]
mod redis_server;

/// Two leases against a real Redis: two acquisitions, the gauge at the second's node, two
/// `info` events with the node and namespace.
#[test]
fn redis_lease_acquisitions() {
    let Some(server) = redis_server::RedisServer::start("redis_lease_acquisitions") else {
        return;
    };
    let lease = snowmint_lease::redis::RedisLease::builder(&server.url())
        .unwrap()
        .namespace("events")
        .ttl(Duration::from_secs(2))
        .build()
        .unwrap();
    let mut nodes = Vec::new();
    let (metrics, events) = observe(|| {
        let a = lease.acquire(Generator::builder(Layout::TWITTER)).unwrap();
        let b = lease.acquire(Generator::builder(Layout::TWITTER)).unwrap();
        assert_ne!(a.node(), b.node());
        nodes = vec![a.node(), b.node()];
    });
    let acquired = counter(
        &metrics,
        "snowmint_lease_acquisitions_total",
        "namespace=events",
    );
    assert_eq!(acquired, 2);
    assert_eq!(
        gauge(&metrics, "snowmint_lease_node"),
        Some(nodes[1] as f64)
    );
    let infos: Vec<_> = events
        .iter()
        .filter(|e| e.level == Level::INFO && e.message.starts_with("leased"))
        .collect();
    assert_eq!(infos.len(), 2, "{events:?}");
    // The namespace is new: the first claim waits and settles its record, the second is
    // vouched for and settles nothing.
    let settled: Vec<_> = events
        .iter()
        .filter(|e| e.message.starts_with("the forgetting rule's wait is over"))
        .collect();
    assert_eq!(settled.len(), 1, "{events:?}");
    assert_eq!(settled[0].field("node"), nodes[0].to_string());
    assert_eq!(settled[0].field("settled"), "true");
    for (e, node) in infos.iter().zip(&nodes) {
        assert_eq!(e.message, "leased a node from Redis");
        assert_eq!(e.field("node"), node.to_string());
        assert_eq!(e.field("namespace"), "events");
    }
}

/// A lease against a real redis-server that fails for real: the server dies (a renewal
/// fails), the window closes (a call is refused), the server comes back with the node
/// taken by another owner (the renewal finds it lost, and the next call is refused as
/// lost). The generator's clock is a `ManualClock` (the window's deadline is on it); Redis
/// keeps real time. Renewals are made by this thread, so the recorder and subscriber (both
/// local to it) see them all: the lease's TTL is 10 minutes, so its own renewal thread,
/// which first renews a third of the TTL after the start, stays asleep throughout (the
/// test takes well under a second; 200 s leaves room for any load).
#[test]
fn redis_fence_lost_for_real() {
    let Some(mut server) = redis_server::RedisServer::start("redis_fence_lost") else {
        return;
    };
    const TTL: Duration = Duration::from_secs(600);
    let lease = snowmint_lease::redis::RedisLease::builder(&server.url())
        .unwrap()
        .namespace("lost")
        .ttl(TTL)
        // A dead server's connection errors come at once; this bounds a hung one.
        .io_timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let clock = ManualClock::at_unix_millis(T0);
    let started = std::time::Instant::now();
    let mut node = 0;
    let (metrics, events) = observe(|| {
        // The forgetting rule: the first ID comes one TTL plus the margin after the claim,
        // on the generator's clock. Another thread moves the manual clock on meanwhile.
        let acquired = std::sync::atomic::AtomicBool::new(false);
        let gen = std::thread::scope(|s| {
            s.spawn(|| {
                while !acquired.load(std::sync::atomic::Ordering::Relaxed) {
                    clock.advance(Duration::from_secs(10));
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
            let gen = lease
                .acquire(Generator::builder(Layout::TWITTER).clock(clock.clone()))
                .unwrap();
            acquired.store(true, std::sync::atomic::Ordering::Relaxed);
            gen
        });
        node = gen.node();
        for _ in 0..100 {
            gen.next_id().unwrap();
        }
        gen.renew(); // held
        server.kill();
        gen.renew(); // failed: connection refused
        assert!(
            !gen.is_fenced(),
            "a failed renewal leaves the window to close"
        );
        // Past the window's deadline (TTL less the margin) on the generator's clock.
        clock.advance(TTL);
        assert!(matches!(gen.next_id(), Err(FenceError::Fenced { .. })));
        server.restart();
        // Another owner took the node while this process was cut off.
        let owner_key = format!("{}{node}", lease.key_prefix());
        assert_eq!(server.command(&["SET", &owner_key, "someone-else"]), "+OK");
        gen.renew(); // lost
        assert!(gen.is_lost());
        assert!(matches!(gen.next_id(), Err(FenceError::Lost { .. })));
    });
    assert!(
        started.elapsed() < TTL / 3,
        "the lease's renewal thread may have renewed too: the counts above are not all this \
         thread's ({:?})",
        started.elapsed()
    );
    let renewals = |o| counter(&metrics, "snowmint_fence_renewals_total", o);
    // The acquisition's first renewal, then the test's.
    assert_eq!(renewals("outcome=held"), 2);
    assert_eq!(renewals("outcome=failed"), 1);
    assert_eq!(renewals("outcome=lost"), 1);
    assert_eq!(renewals(""), 4);
    assert_eq!(counter(&metrics, "snowmint_errors_total", "kind=fenced"), 1);
    assert_eq!(counter(&metrics, "snowmint_errors_total", "kind=lost"), 1);
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 2);
    assert_eq!(
        counter(
            &metrics,
            "snowmint_lease_acquisitions_total",
            "namespace=lost"
        ),
        1
    );
    assert_eq!(gauge(&metrics, "snowmint_lease_node"), Some(node as f64));
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 0);
    assert_eq!(
        outline(&events),
        [
            (Level::INFO, "leased a node from Redis"),
            (
                Level::INFO,
                "the forgetting rule's wait is over: the namespace's record now vouches for \
                 the store (unless it changed since the claim)"
            ),
            (Level::TRACE, "fence renewed"),
            (Level::TRACE, "fence renewed"),
            (
                Level::WARN,
                "fence renewal failed: minting stops when the window closes"
            ),
            (Level::DEBUG, NOT_MINTED_FENCED),
            (Level::ERROR, "fence lost: this source never mints again"),
            (Level::DEBUG, NOT_MINTED_FENCED),
        ]
    );
    // The record's event names the node only (it is the namespace's, not the source's).
    assert_eq!(events[1].field("node"), node.to_string());
    let events: Vec<_> = events
        .iter()
        .filter(|e| !e.message.starts_with("the forgetting rule's wait is over"))
        .collect();
    let node = node.to_string();
    assert!(events.iter().all(|e| e.field("node") == node), "{events:?}");
    assert!(
        events.iter().all(|e| e.field("unit_ms") == "1.0"),
        "{events:?}"
    );
    assert!(
        events.iter().all(|e| e.field("sequence_bits") == "12"),
        "{events:?}"
    );
    assert_eq!(events[0].field("namespace"), "lost");
    assert!(
        events[3].field("cause").contains("renew the lease"),
        "{events:?}"
    );
    assert!(
        events[5]
            .field("cause")
            .contains("another owner holds node"),
        "{events:?}"
    );
    assert_eq!(events[4].field("kind"), "fenced");
    assert_eq!(events[6].field("kind"), "lost");
}
