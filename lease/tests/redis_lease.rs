//! Redis leases against a real `redis-server` (see `common/redis.rs`): node uniqueness, a
//! full range, fencing when the server dies, takeover after a paused process, and restarts
//! with the clock behind.
#![cfg(feature = "redis")]

#[path = "common/redis.rs"]
mod redis_server;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use redis_server::RedisServer;
use snowmint::clock::{Clock, WallClock};
use snowmint::fence::FenceError;
use snowmint::{Generator, Id, Layout};
use snowmint_lease::redis::{Redis, RedisLease};
use snowmint_lease::{LeaseBuilder, LeaseError};

const TTL: Duration = Duration::from_secs(1);

fn lease(server: &RedisServer, namespace: &str) -> LeaseBuilder<Redis> {
    RedisLease::builder(&server.url())
        .expect("url")
        .namespace(namespace)
        .ttl(TTL)
        .margin(TTL / 5)
}

/// The wall clock shifted by a settable number of milliseconds: a host whose clock is
/// behind (negative) or ahead.
#[derive(Clone, Default)]
struct SkewedClock {
    offset_ms: Arc<AtomicI64>,
}

impl SkewedClock {
    fn behind(ms: i64) -> SkewedClock {
        SkewedClock {
            offset_ms: Arc::new(AtomicI64::new(-ms)),
        }
    }
}

impl Clock for SkewedClock {
    fn now_unix_nanos(&self) -> u64 {
        let wall = WallClock.now_unix_nanos() as i64;
        (wall + self.offset_ms.load(Ordering::Relaxed) * 1_000_000) as u64
    }
}

fn assert_unique(ids: &[Id]) {
    let set: HashSet<_> = ids.iter().collect();
    assert_eq!(set.len(), ids.len(), "duplicate IDs");
}

#[test]
fn concurrent_acquirers_never_share_a_node_and_a_full_range_is_a_clear_error() {
    let Some(server) = RedisServer::start("share") else {
        return;
    };
    let url = server.url();
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let (url, barrier) = (url.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let lease = RedisLease::builder(&url)
                    .unwrap()
                    .namespace("share")
                    .nodes(10..=17)
                    .ttl(TTL)
                    .build()
                    .unwrap();
                barrier.wait();
                lease.acquire(Generator::builder(Layout::TWITTER))
            })
        })
        .collect();
    let gens: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().expect("thread").expect("acquire"))
        .collect();
    let nodes: HashSet<u64> = gens.iter().map(|g| g.node()).collect();
    assert_eq!(
        nodes,
        (10..=17).collect::<HashSet<_>>(),
        "eight acquirers, eight distinct nodes"
    );

    let ninth = lease(&server, "share")
        .nodes(10..=17)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER));
    let err = ninth.expect_err("every node is held");
    assert!(
        matches!(
            err,
            LeaseError::AllTaken {
                first: 10,
                last: 17,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("every node from 10 to 17 in namespace \"share\" is leased"),
        "{err}"
    );
    // Another namespace is another ID space.
    assert!(lease(&server, "other")
        .nodes(10..=17)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .is_ok());

    let mut ids = Vec::new();
    for g in &gens {
        for _ in 0..500 {
            ids.push(g.next_id().expect("mint"));
        }
    }
    assert_unique(&ids);

    // A released node is free at once, and its next owner continues after the last ID.
    let freed = gens[3].node();
    let last = gens[3].last_id().expect("minted");
    drop(gens);
    let again = lease(&server, "share")
        .nodes(freed..=freed)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .expect("freed");
    assert!(again.next_id().expect("mint") > last);
}

#[test]
fn bad_settings_are_refused_before_touching_redis() {
    // Nothing listens here: the checks come first.
    let lease = RedisLease::builder("redis://127.0.0.1:1/").unwrap();
    let err = lease
        .clone()
        .nodes(0..=1024)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(
        matches!(
            err,
            LeaseError::NodeRange {
                first: 0,
                last: 1024,
                max: 1023
            }
        ),
        "{err:?}"
    );
    let err = lease
        .clone()
        .ttl(Duration::from_secs(1))
        .margin(Duration::from_millis(600))
        .build()
        .unwrap_err();
    // The settings are checked when the lease is built, before any store call.
    assert!(matches!(err, LeaseError::Timing { .. }), "{err:?}");
    let err = lease
        .io_timeout(Duration::from_millis(200))
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(
        matches!(
            err,
            LeaseError::Store {
                store: "redis",
                action: "acquire a node",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn a_dead_server_fences_within_the_ttl_and_a_restarted_one_resumes_without_duplicates() {
    let Some(mut server) = RedisServer::start("fence") else {
        return;
    };
    // On the wall clock, whose cheap reading is exact: the fence's deadline is then checked
    // against the true time, and the bound below holds however late this thread runs. (The
    // TSC clock's cheap reading comes from a ticker thread, which a loaded machine can hold
    // back past the margin.)
    let gen = lease(&server, "fence")
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("acquire");
    let mut ids = Vec::new();
    let mint_for = |ids: &mut Vec<Id>, d: Duration| {
        let end = Instant::now() + d;
        while Instant::now() < end {
            for _ in 0..100 {
                ids.push(gen.next_id().expect("held"));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    mint_for(&mut ids, Duration::from_millis(300));
    let before_kill = ids.len();

    server.kill();
    let killed = Instant::now();
    // The last renewal was sent before the kill, so the window closes by kill + TTL - margin
    // on the generator's clock. A call that began after that must be refused, however late
    // it ran: the bound is on when each call was made, not on when the loop got to run. The
    // margin (200 ms) is left as slack for the wall clock's slew against `Instant`.
    let fenced_after = loop {
        let asked = killed.elapsed();
        match gen.next_id() {
            Ok(id) => {
                assert!(
                    asked < TTL,
                    "minted {id} on a call made {asked:?} after the server died (TTL {TTL:?})"
                );
                ids.push(id);
            }
            Err(FenceError::Fenced { .. }) => break killed.elapsed(),
            Err(e) => panic!("unexpected: {e}"),
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let during_outage = ids.len() - before_kill;
    assert!(gen.is_fenced() && !gen.is_lost());
    let last_before = *ids.last().expect("minted");

    server.restart();
    let restarted = Instant::now();
    let resumed_after = loop {
        match gen.next_id() {
            Ok(id) => {
                ids.push(id);
                break restarted.elapsed();
            }
            Err(FenceError::Fenced { .. }) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => panic!("unexpected: {e}"),
        }
        // The renewal thread retries every fraction of the TTL and resumes at its first
        // success; a minute only keeps a renewal that never comes from hanging the test,
        // with room for a loaded machine.
        assert!(
            restarted.elapsed() < Duration::from_secs(60),
            "no re-acquisition after the restart"
        );
    };
    mint_for(&mut ids, Duration::from_millis(300));
    assert!(ids[ids.len() - 1] > last_before);
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "one thread's IDs strictly increase across the outage"
    );
    assert_unique(&ids);
    // The restarted (empty) server holds the lease and a mark again.
    let owner_key = format!("snowmint:fence:node:{}", gen.node());
    assert_ne!(server.command(&["GET", &owner_key]), "$-1");
    eprintln!(
        "fence: fenced {fenced_after:?} after the server was killed (TTL {TTL:?}, margin {:?}); \
         {during_outage} IDs minted between kill and fence; resumed {resumed_after:?} after restart; \
         {} IDs in all, 0 duplicates",
        TTL / 5,
        ids.len()
    );
}

/// A store that stops answering for a while during the forgetting rule's wait (here Redis
/// stopped by SIGSTOP across the first renewal of the wait, then resumed while the claim is
/// still proven held) does not cost the node: `acquire` tries the renewal again, as the
/// renewal thread would, and returns the generator.
#[test]
fn a_store_silent_during_the_wait_but_back_while_the_claim_holds_costs_nothing() {
    let Some(server) = RedisServer::start("silent_wait") else {
        return;
    };
    // Renewals every 2 s; the claim is proven held 5 s after it was sent. Redis is stopped
    // from just after the claim until 3 s, so the renewal at 2 s finds it silent, and it is
    // back 2 s before the claim would lapse: room for a loaded machine on both sides.
    let ttl = Duration::from_secs(6);
    let lease = RedisLease::builder(&server.url())
        .expect("url")
        .namespace("silent")
        .ttl(ttl)
        .margin(Duration::from_secs(1))
        .io_timeout(Duration::from_millis(300))
        .nodes(4..=4)
        .build()
        .unwrap();
    let acquirer = std::thread::spawn(move || lease.acquire(Generator::builder(Layout::TWITTER)));
    let end = Instant::now() + Duration::from_secs(30);
    while server.command(&["EXISTS", "snowmint:silent:node:4"]) != ":1" {
        assert!(Instant::now() < end, "the claim never reached Redis");
        std::thread::sleep(Duration::from_millis(5));
    }
    server.signal("-STOP");
    std::thread::sleep(Duration::from_secs(3));
    server.signal("-CONT");
    let gen = acquirer
        .join()
        .expect("acquire panicked")
        .expect("a silent spell within the claim's TTL loses no node");
    assert_eq!(gen.node(), 4);
    assert!(gen.next_id().is_ok(), "it mints once the wait is over");
}

#[test]
fn a_restart_with_the_clock_behind_waits_then_mints_above_the_mark() {
    let Some(server) = RedisServer::start("behind") else {
        return;
    };
    let first = lease(&server, "behind")
        .nodes(5..=5)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("acquire");
    let ids: Vec<Id> = (0..1_000).map(|_| first.next_id().expect("mint")).collect();
    let last = *ids.last().expect("minted");
    drop(first);
    let mark: u64 = server
        .command(&["HGET", "snowmint:behind:node:5:last", "ms"])
        .parse()
        .expect("a mark was stored on release");
    assert!(
        mark >= Layout::TWITTER.decode(last).unix_millis(),
        "the mark covers the last ID"
    );

    // This host's clock is 400 ms behind the previous owner's.
    let clock = SkewedClock::behind(400);
    let started = Instant::now();
    let second = lease(&server, "behind")
        .nodes(5..=5)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(clock.clone()))
        .expect("acquire after waiting");
    let waited = started.elapsed();
    assert!(
        clock.now_unix_nanos() / 1_000_000 > mark,
        "acquire returned before the clock passed the mark"
    );
    let next = second.next_id().expect("mint");
    assert!(next > last && Layout::TWITTER.decode(next).unix_millis() > mark);
    drop(second);

    // An hour behind is more than max_clock_wait: refused at once, and the node given back.
    let far = SkewedClock::behind(3_600_000);
    let err = lease(&server, "behind")
        .nodes(5..=5)
        .max_wait(Duration::from_secs(2))
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(far))
        .unwrap_err();
    assert!(
        matches!(err, LeaseError::MarkAhead { node: 5, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("than the lease waits (2s)"),
        "{err}"
    );
    assert!(
        lease(&server, "behind")
            .nodes(5..=5)
            .build()
            .unwrap()
            .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
            .is_ok(),
        "the node was given back"
    );
    eprintln!("clock behind: acquire waited {waited:?} for a clock 400 ms behind the mark");
}

// ---- Two processes: a paused owner whose lease expired and was taken over. ----

const CHILD_OUT: &str = "SNOWMINT_CHILD_OUT";

/// The body of the child processes of `a_paused_owner_taken_over_leaves_no_duplicates`;
/// returns at once unless run by it.
#[test]
#[ignore = "a child process of a_paused_owner_taken_over_leaves_no_duplicates"]
fn child_minter() {
    let Ok(out) = std::env::var(CHILD_OUT) else {
        return;
    };
    let out = PathBuf::from(out);
    let url = std::env::var("SNOWMINT_CHILD_URL").expect("url");
    let stop = PathBuf::from(std::env::var("SNOWMINT_CHILD_STOP").expect("stop"));
    let lease = RedisLease::builder(&url)
        .unwrap()
        .namespace("takeover")
        .nodes(7..=7)
        .ttl(TTL)
        .margin(TTL / 5)
        .build()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let gen = loop {
        match lease.acquire(Generator::builder(Layout::TWITTER)) {
            Ok(g) => break g,
            Err(LeaseError::AllTaken { .. }) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("acquire: {e}"),
        }
    };
    std::fs::write(out.with_extension("ready"), b"").expect("ready");
    let (mut ids, mut fenced, mut lost) = (Vec::new(), 0_u64, 0_u64);
    // At least one round before looking at the stop file: every child mints something,
    // however late it was scheduled.
    loop {
        for _ in 0..256 {
            match gen.next_id() {
                Ok(id) => ids.push(id.to_u64()),
                Err(FenceError::Lost { .. }) => {
                    if lost == 0 {
                        // Tells the parent this owner has learnt it lost the node.
                        std::fs::write(out.with_extension("lost"), b"").expect("lost");
                    }
                    lost += 1;
                }
                Err(FenceError::Fenced { .. }) => fenced += 1,
                // Anything else fails the child, and the parent with it.
                Err(e) => panic!("unexpected error: {e}"),
            }
        }
        if stop.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let bytes: Vec<u8> = ids.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(out.with_extension("ids"), bytes).expect("ids");
    std::fs::write(out.with_extension("stats"), format!("{fenced} {lost}")).expect("stats");
}

fn spawn_child(out: &Path, url: &str, stop: &Path) -> Child {
    let log = std::fs::File::create(out.with_extension("log")).expect("log");
    Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "child_minter",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_OUT, out)
        .env("SNOWMINT_CHILD_URL", url)
        .env("SNOWMINT_CHILD_STOP", stop)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("spawn child")
}

fn wait_for(path: &Path, child: &mut Child, within: Duration) {
    let end = Instant::now() + within;
    while !path.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(path.with_extension("log")).unwrap_or_default();
            panic!("child exited early ({status}):\n{log}");
        }
        assert!(Instant::now() < end, "{} did not appear", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} failed");
}

fn read_ids(out: &Path) -> Vec<u64> {
    let bytes = std::fs::read(out.with_extension("ids")).expect("ids");
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

#[test]
fn a_paused_owner_taken_over_leaves_no_duplicates() {
    let Some(server) = RedisServer::start("takeover") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("snowmint-takeover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let stop = dir.join("stop");
    let (a_out, b_out) = (dir.join("a"), dir.join("b"));

    let mut a = spawn_child(&a_out, &server.url(), &stop);
    wait_for(
        &a_out.with_extension("ready"),
        &mut a,
        Duration::from_secs(20),
    );
    std::thread::sleep(Duration::from_millis(300));
    // A stops dead, renewal thread and all, as in a long GC pause or a frozen VM.
    signal(&a, "-STOP");
    let paused = Instant::now();
    let mut b = spawn_child(&b_out, &server.url(), &stop);
    wait_for(
        &b_out.with_extension("ready"),
        &mut b,
        Duration::from_secs(20),
    );
    let taken_over_after = paused.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    // A wakes up believing, for a moment, that it still holds node 7, until its renewal
    // finds B's lease. Wait for A to say it learnt that (a property, not a deadline: the
    // bound only keeps a child that never learns from hanging the test).
    signal(&a, "-CONT");
    let woke = Instant::now();
    wait_for(
        &a_out.with_extension("lost"),
        &mut a,
        Duration::from_secs(60),
    );
    let learnt_after = woke.elapsed();
    std::fs::write(&stop, b"").expect("stop");
    for (name, child) in [("A", &mut a), ("B", &mut b)] {
        let status = child.wait().expect("wait");
        assert!(status.success(), "child {name} failed: {status}");
    }

    let (ids_a, ids_b) = (read_ids(&a_out), read_ids(&b_out));
    let stats_a = std::fs::read_to_string(a_out.with_extension("stats")).expect("stats");
    let lost_a: u64 = stats_a
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("lost count");
    assert!(!ids_a.is_empty() && !ids_b.is_empty());
    let union: HashSet<u64> = ids_a.iter().chain(&ids_b).copied().collect();
    let duplicates = ids_a.len() + ids_b.len() - union.len();
    assert_eq!(duplicates, 0);
    // Stronger: the new owner starts after the old owner's mark, so every ID of A is below
    // every ID of B.
    let (max_a, min_b) = (ids_a.iter().max().copied(), ids_b.iter().min().copied());
    assert!(
        max_a < min_b,
        "A's IDs reach {max_a:?}, B's start at {min_b:?}"
    );
    assert!(
        lost_a > 0,
        "A must learn that node 7 is lost (stats: {stats_a})"
    );
    assert!(ids_a
        .iter()
        .chain(&ids_b)
        .all(|&v| Layout::TWITTER.decode(Id::from_u64(v)).node() == 7));
    eprintln!(
        "takeover: B took node 7 {taken_over_after:?} after A was paused; A minted {}, B minted {}, \
         {duplicates} duplicates; A learnt it lost node 7 {learnt_after:?} after it woke, and \
         refused {lost_a} calls as lost",
        ids_a.len(),
        ids_b.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example's binary (the `snowmint-examples` package, feature `redis`), built beside
/// this test by `cargo test --workspace --all-features`, or here.
fn leased_shards_example() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join("examples").join("leased_shards");
    if !bin.exists() {
        // Run alone (`--test redis_lease`), cargo builds no examples: build this one.
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "-p",
                "snowmint-examples",
                "--features",
                "redis",
                "--example",
                "leased_shards",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo");
        assert!(
            status.success(),
            "building the leased_shards example failed"
        );
    }
    bin
}

#[test]
fn two_leased_sharded_processes_get_different_nodes_and_share_no_id() {
    let Some(server) = RedisServer::start("leased_shards") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("snowmint-leased-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let run = |name: &str| -> (Child, PathBuf) {
        let out = dir.join(format!("{name}.txt"));
        let child = Command::new(leased_shards_example())
            .args(["--redis", &server.url(), "--threads", "2", "--seconds", "1"])
            .arg("--out")
            .arg(&out)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the example");
        (child, out)
    };
    // Started together: both race for nodes in the same namespace.
    let (a, b) = (run("a"), run("b"));
    let mut nodes = Vec::new();
    let mut files = Vec::new();
    for (child, out) in [a, b] {
        let output = child.wait_with_output().expect("example ran");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "{stdout}");
        let last = stdout.lines().last().unwrap_or_default().to_string();
        assert!(last.ends_with(", 0 duplicates"), "{last}");
        let node: u64 = last
            .split(", node ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .and_then(|h| h.parse().ok())
            .unwrap_or_else(|| panic!("no node in {last:?}"));
        let ids: Vec<Id> = std::fs::read_to_string(&out)
            .expect("IDs written")
            .lines()
            .map(|l| l.parse().expect("decimal ID"))
            .collect();
        assert!(!ids.is_empty());
        assert!(
            last.starts_with(&format!("{} IDs", ids.len())),
            "{last} but {} IDs in the file",
            ids.len()
        );
        // Every ID carries the process's leased node above the 6 shard bits.
        assert!(ids
            .iter()
            .all(|&id| Layout::SONYFLAKE.decode(id).node() >> 6 == node));
        nodes.push(node);
        files.push(ids.into_iter().collect::<HashSet<_>>());
    }
    assert_ne!(
        nodes[0], nodes[1],
        "both processes leased node {}",
        nodes[0]
    );
    assert_eq!(files[0].intersection(&files[1]).count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_leased_sharded_generator_restarts_after_everything_it_issued() {
    let Some(server) = RedisServer::start("leased_restart") else {
        return;
    };
    let builder = || snowmint::ShardedGenerator::builder(Layout::TWITTER).shard_bits(4);
    let first = Arc::new(
        lease(&server, "restart")
            .nodes(3..=3)
            .build()
            .unwrap()
            .acquire(builder())
            .expect("acquire"),
    );
    assert_eq!(first.node(), 3);
    // Two threads on two shards, then a clean release on drop.
    let issued: Vec<Id> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    (0..2_000)
                        .map(|_| first.next_id().expect("mint"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("thread"))
            .collect()
    });
    let highest = *issued.iter().max().expect("issued");
    drop(Arc::into_inner(first).expect("the only handle"));
    let second = lease(&server, "restart")
        .nodes(3..=3)
        .build()
        .unwrap()
        .acquire(builder())
        .expect("the same node again");
    for _ in 0..1_000 {
        let id = second.next_id().expect("mint");
        assert!(
            id > highest,
            "{id} is not after {highest}, issued before the restart"
        );
    }
}
