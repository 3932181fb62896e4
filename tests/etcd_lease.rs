//! etcd leases on a real 3-member cluster (started by the test on loopback ports): distinct
//! nodes for concurrent holders, a fencing token that only grows, a released node continued
//! above its old IDs, the forgetting rule's wait at every start, fail-over when a member
//! (the leader included) dies while minting, and clear errors for bad settings.
#![cfg(feature = "etcd")]

#[path = "common/etcd.rs"]
mod etcd;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use etcd::EtcdCluster;
use snowmint::etcd::EtcdLease;
use snowmint::lease::LeaseError;
use snowmint::{FenceError, Generator, Id, Layout};

/// Short enough to keep the file fast, long enough for renewals on a loaded machine.
const TTL: Duration = Duration::from_secs(2);
const MARGIN: Duration = Duration::from_millis(400);

fn lease(cluster: &EtcdCluster, namespace: &str) -> EtcdLease {
    EtcdLease::new(&cluster.url())
        .unwrap()
        .namespace(namespace)
        .ttl(TTL)
        .margin(MARGIN)
}

#[test]
fn holders_get_distinct_nodes_growing_tokens_and_a_released_node_continues_above_its_ids() {
    let Some(cluster) = EtcdCluster::start("etcd-lease-basics") else {
        return;
    };
    let started = Instant::now();
    let a = lease(&cluster, "basics")
        .nodes(0..=1)
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    let waited = started.elapsed();
    assert!(
        waited >= TTL + MARGIN,
        "the forgetting rule waits one TTL plus the margin before the first ID, waited {waited:?}"
    );
    let b = lease(&cluster, "basics")
        .nodes(0..=1)
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    assert_ne!(a.node(), b.node());
    let (ta, tb) = (a.token().expect("a token"), b.token().expect("a token"));
    assert!(tb > ta, "tokens grow: {ta} then {tb}");

    let full = lease(&cluster, "basics")
        .nodes(0..=1)
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(
        matches!(
            full,
            LeaseError::AllTaken {
                first: 0,
                last: 1,
                ..
            }
        ),
        "{full:?}"
    );

    let mut last = a.next_id().unwrap();
    for _ in 0..100_000 {
        let id = a.next_id().unwrap();
        assert!(id > last);
        last = id;
    }
    let node = a.node();
    drop(a);
    let again = lease(&cluster, "basics")
        .nodes(node..=node)
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    assert!(
        again.token().unwrap() > tb,
        "a new claim, a new, larger token"
    );
    let first = again.next_id().unwrap();
    assert!(
        first > last,
        "{first} after the released node's last {last}"
    );
    assert!(
        Layout::TWITTER.decode(first).unix_millis() > Layout::TWITTER.decode(last).unix_millis(),
        "in a later tick"
    );
}

#[test]
fn minting_goes_on_through_the_loss_and_return_of_a_member_and_of_the_leader() {
    let Some(mut cluster) = EtcdCluster::start("etcd-lease-failover") else {
        return;
    };
    let gen = lease(&cluster, "failover")
        .io_timeout(Duration::from_millis(300))
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    let mut seen = HashSet::new();
    let mint_for = |d: Duration, seen: &mut HashSet<Id>| {
        let end = Instant::now() + d;
        let (mut ok, mut fenced) = (0, 0);
        while Instant::now() < end {
            match gen.next_ids(100) {
                Ok(batch) => {
                    for id in batch {
                        assert!(seen.insert(id), "{id} twice");
                        ok += 1;
                    }
                }
                Err(FenceError::Fenced { .. }) => fenced += 1,
                Err(e) => panic!("{e}"),
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        (ok, fenced)
    };
    let (before, _) = mint_for(Duration::from_secs(1), &mut seen);
    assert!(before > 0);
    // The first endpoint, which the client tried first, goes away: renewals fail over.
    cluster.kill(0);
    let (during, _) = mint_for(TTL * 2, &mut seen);
    assert!(during > 0, "no ID while one member of three was down");
    assert!(
        !gen.is_fenced(),
        "the lease was renewed through the other members"
    );
    cluster.restart(0);
    let leader = cluster.leader();
    cluster.kill(leader);
    let (without_leader, _) = mint_for(TTL * 2, &mut seen);
    assert!(without_leader > 0, "no ID after the leader was lost");
    cluster.restart(leader);
    let (after, _) = mint_for(Duration::from_secs(1), &mut seen);
    assert!(after > 0);
    assert!(!gen.is_lost());
}

#[test]
fn bad_settings_are_clear_errors() {
    let err = EtcdLease::new("etcd://127.0.0.1:2379,nohost").unwrap_err();
    assert!(
        err.to_string().contains("\"nohost\" is not HOST:PORT"),
        "{err}"
    );
    let err = EtcdLease::new("etcd://127.0.0.1:1")
        .unwrap()
        .ttl(Duration::from_millis(500))
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(matches!(err, LeaseError::Timing { .. }), "{err:?}");
    assert!(
        err.to_string().contains("the TTL must be 1s to 1 day"),
        "{err}"
    );
    // Nothing listens on port 1: every endpoint fails, and the error says so.
    let err = EtcdLease::new("etcd://127.0.0.1:1")
        .unwrap()
        .io_timeout(Duration::from_millis(200))
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(matches!(err, LeaseError::Etcd { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("could not grant a lease in etcd: 127.0.0.1:1: connect"),
        "{err}"
    );
}
