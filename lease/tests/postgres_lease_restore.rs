//! PostgreSQL leases when the database is not the one that settled the namespace: a standby
//! promoted while a holder runs, and a base backup restored to a point in time. Both give a
//! new timeline; the next claim waits the forgetting rule, and no ID is repeated. After the
//! restore, `raise_floor` is the operator's step. On throw-away clusters (`common/pg_cluster.rs`).
#![cfg(feature = "postgres")]

#[path = "common/pg_cluster.rs"]
mod pg_cluster;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use pg_cluster::Cluster;
use snowmint::clock::WallClock;
use snowmint::fence::{FenceError, Fenced};
use snowmint::{Generator, Layout};
use snowmint_lease::postgres::{Postgres, PostgresLease};
use snowmint_lease::AcquireProgress;
use snowmint_lease::{LeaseBuilder, LeaseError};

const TTL: Duration = Duration::from_secs(1);

fn lease(url: &str, namespace: &str) -> LeaseBuilder<Postgres> {
    PostgresLease::builder(url)
        .expect("url")
        .namespace(namespace)
        .ttl(TTL)
        .margin(TTL / 5)
        .io_timeout(Duration::from_secs(2))
}

type Gen = Fenced<Generator<WallClock>>;

fn acquire(lease: &LeaseBuilder<Postgres>) -> (Result<Gen, LeaseError>, Vec<AcquireProgress>) {
    let mut steps = Vec::new();
    let lease = lease.clone().build().expect("settings");
    let got = lease.acquire_with(Generator::builder(Layout::TWITTER).clock(WallClock), |s| {
        steps.push(s)
    });
    (got, steps)
}

/// As [`acquire`], tried again while the store gives no answer within the I/O timeout (a
/// session's start beside a CPU hog), every node is held (by the claim of a try that timed
/// out, until its hold expires), or the claim lost its node while it waited (a renewal
/// slower than the 1 s TTL): the last try's outcome, after at most a minute.
fn acquire_patiently(
    lease: &LeaseBuilder<Postgres>,
) -> (Result<Gen, LeaseError>, Vec<AcquireProgress>) {
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        match acquire(lease) {
            (
                Err(
                    e @ (LeaseError::Store { .. }
                    | LeaseError::AllTaken { .. }
                    | LeaseError::LostWhileWaiting { .. }),
                ),
                _,
            ) if Instant::now() < end => {
                eprintln!("a claim failed, again: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
            outcome => return outcome,
        }
    }
}

fn waited(steps: &[AcquireProgress]) -> bool {
    steps
        .iter()
        .any(|s| matches!(s, AcquireProgress::Forgetting { .. }))
}

/// Mints for `d`, as long as the source is held.
fn mint_for(gen: &Gen, ids: &mut Vec<u64>, d: Duration) {
    let end = Instant::now() + d;
    while Instant::now() < end {
        match gen.next_id() {
            Ok(id) => ids.push(id.to_u64()),
            Err(FenceError::Fenced { .. }) | Err(FenceError::Lost { .. }) => {}
            Err(e) => panic!("{e}"),
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

#[test]
fn a_promoted_standby_makes_the_next_claim_wait_and_repeats_no_id() {
    let Some(primary) = Cluster::start("promote", &[], "host all all 127.0.0.1/32 trust") else {
        return;
    };
    let url = primary.url("postgres");
    let (holder, steps) = acquire_patiently(&lease(&url, "promote").nodes(4..=4));
    let holder = holder.expect("acquire");
    assert!(waited(&steps), "a new namespace waits");
    let mut theirs = Vec::new();
    // Past the wait a renewal settles the record on the primary (within a minute beside a
    // CPU hog).
    let end = Instant::now() + Duration::from_secs(60);
    loop {
        mint_for(&holder, &mut theirs, TTL / 4);
        let settled = primary.psql("SELECT settled_on FROM snowmint_lease_namespace");
        if settled.ends_with("/00000001") {
            break;
        }
        assert!(Instant::now() < end, "never settled: {settled}");
    }

    let standby = primary.base_backup("promote-standby", true);
    standby.start_again();
    standby.wait_for("SELECT pg_is_in_recovery()", "t");
    // With both hosts given, the lease finds the read-write one (the primary): a claim
    // there is vouched.
    let both = format!(
        "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/postgres",
        standby.port, primary.port
    );
    let (other, steps) = acquire_patiently(&lease(&both, "promote").nodes(5..=5));
    let other = other.expect("the read-write host is found");
    assert!(!waited(&steps), "the primary vouches: {steps:?}");
    drop(other);

    mint_for(&holder, &mut theirs, TTL / 2);
    let lsn = primary.psql("SELECT pg_current_wal_lsn()");
    standby.wait_for(
        &format!("SELECT pg_last_wal_replay_lsn() >= '{lsn}'::pg_lsn"),
        "t",
    );
    // The primary dies under the holder; the standby is promoted.
    primary.kill9();
    standby.promote();
    standby.wait_for("SELECT pg_is_in_recovery()", "f");
    assert_eq!(standby.timeline(), "00000002");

    // The holder's node, claimed on the promoted standby once its hold expired there.
    let url = standby.url("postgres");
    let end = Instant::now() + Duration::from_secs(60);
    let (taker, steps) = loop {
        match acquire(&lease(&url, "promote").nodes(4..=4)) {
            (Err(LeaseError::AllTaken { .. }), _) if Instant::now() < end => {
                mint_for(&holder, &mut theirs, Duration::from_millis(50))
            }
            // A call slower than the I/O timeout on a loaded machine: claimed again.
            (
                Err(
                    e @ LeaseError::Store {
                        store: "postgres", ..
                    },
                ),
                _,
            ) if Instant::now() < end => {
                eprintln!("claim on the promoted standby failed, again: {e}");
                mint_for(&holder, &mut theirs, Duration::from_millis(50))
            }
            (got, steps) => break (got.expect("acquire on the promoted standby"), steps),
        }
    };
    assert!(waited(&steps), "a new timeline: the claim waits: {steps:?}");
    let mut ours = Vec::new();
    mint_for(&taker, &mut ours, TTL);
    mint_for(&holder, &mut theirs, TTL / 2);
    assert!(!ours.is_empty() && !theirs.is_empty());
    let all: HashSet<u64> = ours.iter().chain(&theirs).copied().collect();
    assert_eq!(all.len(), ours.len() + theirs.len(), "an ID was repeated");
    // The record now vouches for the new timeline.
    let settled = standby.psql("SELECT settled_on FROM snowmint_lease_namespace");
    assert!(settled.ends_with("/00000002"), "{settled}");
}

#[test]
fn a_point_in_time_restore_makes_the_next_claim_wait_then_raise_floor_keeps_claims_above() {
    let Some(primary) = Cluster::start("pitr", &[], "host all all 127.0.0.1/32 trust") else {
        return;
    };
    let archive = primary.dir().join("archive");
    primary.psql("ALTER SYSTEM SET archive_mode = on");
    primary.psql(&format!(
        "ALTER SYSTEM SET archive_command = 'cp %p {}/%f'",
        archive.display()
    ));
    primary.stop("fast");
    primary.start_again();
    let url = primary.url("postgres");
    let (holder, _) = acquire_patiently(&lease(&url, "pitr").nodes(2..=2));
    let holder = holder.expect("acquire");
    let mut before = Vec::new();
    mint_for(&holder, &mut before, TTL * 2);
    let backup = primary.base_backup("pitr-restored", false);
    primary.psql("SELECT pg_create_restore_point('before_loss')");
    // Issued after the restore point: the restore loses the marks that cover these.
    mint_for(&holder, &mut before, TTL * 2);
    drop(holder);
    let last_issued = *before.iter().max().expect("minted");
    let wal = primary.psql("SELECT pg_walfile_name(pg_current_wal_lsn())");
    primary.psql("SELECT pg_switch_wal()");
    primary.wait_for(
        &format!("SELECT last_archived_wal >= '{wal}' FROM pg_stat_archiver"),
        "t",
    );
    primary.stop("fast");

    backup.recover_with(&format!(
        "restore_command = 'cp {}/%f %p'\nrecovery_target_name = 'before_loss'\nrecovery_target_action = 'promote'\n",
        archive.display()
    ));
    backup.start_again();
    backup.wait_for("SELECT pg_is_in_recovery()", "f");
    assert_ne!(backup.timeline(), "00000001", "a new timeline");
    let url = backup.url("postgres");
    let mark: u64 = backup
        .psql("SELECT mark_ms FROM snowmint_lease_node WHERE node = 2")
        .parse()
        .expect("a mark from before the restore point");
    assert!(mark < now_ms(), "the restored mark is behind");

    let (gen, steps) = acquire_patiently(&lease(&url, "pitr").nodes(2..=2));
    let gen = gen.expect("acquire on the restored cluster");
    assert!(waited(&steps), "a new timeline: the claim waits: {steps:?}");
    let first = gen.next_id().expect("mint").to_u64();
    assert!(
        first > last_issued,
        "the restored claim repeated the lost range"
    );
    drop(gen);

    // The operator's step: raise the floor to now; every claim starts above it.
    let to = now_ms() + 2_000;
    let raised = lease(&url, "pitr")
        .build()
        .expect("settings")
        .raise_floor(to)
        .expect("raise the floor");
    assert_eq!(raised.floor_unix_millis, Some(to));
    assert_eq!(raised.raised, vec![2]);
    let state = lease(&url, "pitr")
        .build()
        .expect("settings")
        .list()
        .expect("list");
    let record = state.record.expect("a record");
    assert_eq!(record.floor_unix_millis, Some(to));
    assert_eq!(state.nodes[0].mark_unix_millis, Some(to));
    assert_eq!(state.nodes[0].mark_owner.as_deref(), Some("raise-floor"));
    let (gen, _) = acquire_patiently(&lease(&url, "pitr").nodes(3..=3));
    let gen = gen.expect("acquire a node without a mark");
    let id = gen.next_id().expect("mint");
    assert!(
        Layout::TWITTER.decode(id).unix_millis() > to,
        "a node without a mark starts above the floor"
    );
}
