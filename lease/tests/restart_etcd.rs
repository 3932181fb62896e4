//! Restarts on a real 3-member etcd cluster (see `common/etcd.rs`): the forgetting rule's
//! wait is paid only where etcd may have lost writes. A fresh namespace waits once; a holder
//! released and claimed again (a graceful restart) and a node never used mint at once; a
//! wiped cluster (the record gone) makes the next claim wait; a holder with another TTL or
//! layout than the namespace's record is refused.
//!
//! Every bound is one-sided and loose: a wait is at least the rule's TTL plus the margin, and
//! "at once" is under half the TTL, which a few round trips stay far below beside a CPU hog.
#![cfg(feature = "etcd")]

#[path = "common/etcd.rs"]
mod etcd;
#[path = "common/restart.rs"]
mod restart;

use std::time::Duration;

use etcd::EtcdCluster;
use restart::{mint, timed, MARGIN, TTL};
use snowmint::{Generator, Layout};
use snowmint_lease::etcd::{Etcd, EtcdLease};
use snowmint_lease::{LeaseBuilder, LeaseError};

fn lease(cluster: &EtcdCluster, namespace: &str) -> LeaseBuilder<Etcd> {
    EtcdLease::builder(&cluster.url())
        .expect("url")
        .namespace(namespace)
        .ttl(TTL)
        .margin(MARGIN)
}

#[test]
fn a_fresh_namespace_waits_once_a_graceful_restart_does_not_and_a_wiped_cluster_does() {
    let Some(mut cluster) = EtcdCluster::start("restart-etcd") else {
        return;
    };
    let (first, waited) = timed(lease(&cluster, "graceful"), 3);
    assert!(
        waited >= TTL + MARGIN,
        "the first claim of a namespace waits the forgetting rule, waited {waited:?}"
    );
    assert!(cluster.has_key("snowmint/graceful/record"));
    let old = mint(&first, 10_000);
    drop(first);

    let (again, took) = timed(lease(&cluster, "graceful"), 3);
    assert!(
        took < TTL / 2,
        "a claim the record vouches for waits no TTL, took {took:?}"
    );
    assert!(mint(&again, 1_000)[0] > *old.last().expect("minted"));
    let (_unused, took_unused) = timed(lease(&cluster, "graceful"), 4);
    assert!(
        took_unused < TTL / 2,
        "an unused node waits no TTL, took {took_unused:?}"
    );
    drop(again);
    drop(_unused);

    // Every member's data lost: the record with it, so the next claim cannot tell a node
    // released from one whose holder, cut off, still mints.
    cluster.wipe_and_restart_all();
    let (_after, waited_wiped) = timed(lease(&cluster, "graceful"), 3);
    assert!(
        waited_wiped >= TTL + MARGIN,
        "a claim without the record waits the forgetting rule, waited {waited_wiped:?}"
    );
    eprintln!(
        "etcd: the first claim waited {waited:?}, a graceful restart took {took:?}, after a wipe {waited_wiped:?}"
    );
}

#[test]
fn a_holder_with_another_ttl_or_layout_is_refused_by_the_namespace_record() {
    let Some(cluster) = EtcdCluster::start("restart-etcd-mismatch") else {
        return;
    };
    let one = Duration::from_secs(1);
    let _made = EtcdLease::builder(&cluster.url())
        .expect("url")
        .namespace("mismatch")
        .ttl(one)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .expect("acquire");
    let err = EtcdLease::builder(&cluster.url())
        .expect("url")
        .namespace("mismatch")
        .ttl(Duration::from_secs(2))
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(
        matches!(&err, LeaseError::Mismatch { record_ttl, ttl, .. }
            if *record_ttl == one && *ttl == Duration::from_secs(2)),
        "{err:?}"
    );
    let err = EtcdLease::builder(&cluster.url())
        .expect("url")
        .namespace("mismatch")
        .ttl(one)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::SONYFLAKE))
        .unwrap_err();
    assert!(
        matches!(&err, LeaseError::Mismatch { record_layout, layout, .. } if record_layout != layout),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("use those, or another namespace"),
        "{err}"
    );
}
