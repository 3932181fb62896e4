//! The fleet fault suite: leased generators in child processes mint while one fault at a
//! time is injected on real servers the tests start themselves (a redis-server, a 3-member
//! etcd cluster on loopback ports), and every ID each child handed out is checked for
//! duplicates and ownership overlaps. All must be 0.
//!
//! Faults, each test with its own fresh servers and three minters on nodes 1, 2 and 3:
//! - **pause**: a minter stopped (SIGSTOP) past its TTL, a fourth one takes its node and
//!   mints, the paused one resumed (SIGCONT): it must return no ID after it resumed, and
//!   end as lost;
//! - **kill9**: a minter killed -9 and a new one started on its node: every new ID above
//!   the old ones;
//! - **store-restart**: the store restarted empty (Redis without persistence; etcd wiped)
//!   while a new minter tries for a held node: it gets it as soon as the store is back (its
//!   holder, stopped across the restart, cannot take it back first), while that holder,
//!   resumed at once, still believes it holds it;
//! - **leader** (etcd): the leader killed, the others minting on through the election, the
//!   member restarted;
//! - **partition**: one minter in a network namespace, reaching the store through a veth
//!   pair whose link is cut past the TTL; a new minter takes its node; the link healed.
//!
//! The minters are this test binary run again (`child_minter`, ignored unless run by a
//! test), on the default (TSC) clock, with two minting threads each. They write one line
//! per batch they were handed: the node, the wall-clock Unix nanos read before and after
//! the call, and every ID. The parent checks, over all minters:
//! - **duplicates**: IDs handed out twice (every ID of every child, sorted);
//! - **ownership overlaps**: two processes' ID ranges on one node that intersect, and
//!   batches of a node a process asked for after another process had begun serving that
//!   node (the earlier owner minting on after the takeover).
//!
//! Each test prints `fault=NAME backend=redis|etcd ids=N duplicates=N overlaps=N` and its
//! elapsed time. The tests run one at a time (a lock): each fault's timing is its own.
//!
//! The Redis half needs feature `redis`, the etcd half feature `etcd` too (the harness
//! tests of the etcd cluster and the namespace need neither lease); the network-namespace
//! tests need root and `ip` (skipped otherwise, unless `SNOWMINT_REQUIRE_NETNS=1`).
#![cfg(feature = "redis")]
// Each server's helper brings its own copy of `common/server.rs`, the start-up code they share.
#![allow(clippy::duplicate_mod)]

#[path = "common/etcd.rs"]
mod etcd_cluster;
#[path = "common/netns.rs"]
mod netns;
#[path = "common/redis.rs"]
mod redis_server;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use netns::NetNs;
use redis_server::RedisServer;
use snowmint::redis::RedisLease;
use snowmint::{FenceError, Fenced, Generator, Id, Layout};

// Every limit of this suite bounds a failure, never a success: a loaded machine makes a
// test slower, not red. None of them is a time within which a fault must be survived; the
// properties checked (no duplicate, no overlap, the holder learns it lost) hold at any speed.
// The suite passes beside a CPU hog on both cores: `.ci/faults-under-load`.

/// The lease's TTL and margin: short, to keep the suite fast (a takeover waits about two
/// TTLs: the old lease's expiry, then one TTL plus the margin before minting). Safety does
/// not depend on them; on a loaded machine they only make holders fence (and recover) more
/// often, which the checks allow.
const TTL: Duration = Duration::from_secs(2);
const MARGIN: Duration = Duration::from_millis(400);
/// Each store call's timeout. Beside a CPU hog, etcd answers (a WAL fsync, Go's scheduler)
/// were seen past 200 ms often enough that holders spent much of a test fenced; 500 ms is
/// rarely reached, and still lets a renewal (every TTL/3) fail and be tried again within
/// the hold's window (TTL − margin = 1.6 s).
const IO_TIMEOUT: Duration = Duration::from_millis(500);
/// Each of a child's `THREADS` minting threads asks for `BATCH` IDs every `PACE`: 50,000
/// IDs a second a child, each written out and read back by this harness (a debug build),
/// which must keep up beside a CPU hog, or the children block on their full pipes.
const THREADS: usize = 2;
const BATCH: u64 = 50;
const PACE: Duration = Duration::from_millis(2);
/// How long a child keeps trying to acquire a node: it must outlast the longest the store
/// may be away in a test (an etcd cluster wiped and started again may take up to its
/// harness's 30 s bound on a loaded machine), plus a takeover (two TTLs and the margin).
const ACQUIRE_WITHIN: Duration = Duration::from_secs(90);
/// The longest a child runs: a child whose parent vanished without closing its stdin ends.
/// Above the longest a test may take, every wait of it at its bound.
const CHILD_LIFETIME: Duration = Duration::from_secs(600);
/// The bound on every wait for something a child must do (mint, exit, learn it lost): a
/// property, not a deadline; it only keeps a child that never does it from hanging the
/// suite. The slowest of these on an idle machine is a takeover, about 5 s; 60 s leaves
/// room for a machine many times slower.
const WITHIN: Duration = Duration::from_secs(60);

/// A child's exit codes: it learnt its node was lost; it never got a node.
const EXIT_LOST: i32 = 3;
const EXIT_NO_LEASE: i32 = 4;

const CHILD_BACKEND: &str = "SNOWMINT_FAULT_BACKEND";

/// An error's message and its sources' (a lease error says what failed, its source why).
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

fn wall_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Straight to the process's stderr, past the harness's capture: the figures show in CI.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// One test at a time: each fault's timing is its own on a small machine.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Redis,
    // Constructed by the etcd tests, which need feature `etcd`.
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))]
    Etcd,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Redis => "redis",
            Backend::Etcd => "etcd",
        }
    }
}

// ---- The child: acquire a node, mint batches, print them. ----

/// The body of the minter processes the fault tests start; returns at once unless run by
/// one of them.
#[test]
#[ignore = "a child process of the fault tests"]
fn child_minter() {
    let Ok(backend) = std::env::var(CHILD_BACKEND) else {
        return;
    };
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"));
    let url = var("SNOWMINT_FAULT_URL");
    let namespace = var("SNOWMINT_FAULT_NAMESPACE");
    let nodes = var("SNOWMINT_FAULT_NODES");
    let (first, last) = nodes
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .expect("SNOWMINT_FAULT_NODES is FIRST-LAST");
    let millis = |name: &str| Duration::from_millis(var(name).parse().expect("milliseconds"));
    let (ttl, margin) = (
        millis("SNOWMINT_FAULT_TTL_MS"),
        millis("SNOWMINT_FAULT_MARGIN_MS"),
    );
    let io_timeout = millis("SNOWMINT_FAULT_IO_TIMEOUT_MS");
    let pace = Duration::from_micros(var("SNOWMINT_FAULT_PACE_US").parse().expect("µs"));
    let batch: u64 = var("SNOWMINT_FAULT_BATCH").parse().expect("batch size");
    let threads: usize = var("SNOWMINT_FAULT_THREADS").parse().expect("threads");

    // The parent closes our stdin to stop us (or dies, which closes it too).
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
            // Relaxed: a flag polled by the minting loop; nothing else is published with it.
            stop.store(true, Ordering::Relaxed);
        });
    }
    let mut out = std::io::stdout().lock();
    // The harness may have written "test child_minter ... " without a newline.
    let _ = writeln!(out);

    let started = Instant::now();
    let mut last_error = String::new();
    let acquired = loop {
        let attempt: Result<(Fenced<Generator>, String), String> = match backend.as_str() {
            "redis" => RedisLease::new(&url)
                .map_err(|e| e.to_string())
                .and_then(|l| {
                    l.namespace(&namespace)
                        .ttl(ttl)
                        .margin(margin)
                        .io_timeout(io_timeout)
                        .nodes(first..=last)
                        .acquire(Generator::builder(Layout::TWITTER))
                        .map_err(|e| with_sources(&e))
                })
                .map(|g| (g, "-".to_string())),
            #[cfg(feature = "etcd")]
            "etcd" => snowmint::etcd::EtcdLease::new(&url)
                .map_err(|e| e.to_string())
                .and_then(|l| {
                    l.namespace(&namespace)
                        .ttl(ttl)
                        .margin(margin)
                        .io_timeout(io_timeout)
                        .nodes(first..=last)
                        .acquire(Generator::builder(Layout::TWITTER))
                        .map_err(|e| with_sources(&e))
                })
                .map(|g| {
                    let token = format!("{:?}", g.token());
                    (g, token)
                }),
            #[cfg(not(feature = "etcd"))]
            "etcd" => panic!("this test binary was built without feature `etcd`"),
            other => panic!("unknown backend {other}"),
        };
        match attempt {
            Ok(got) => break got,
            Err(e) => {
                // Every node taken (the normal case while a takeover waits), or the store
                // unreachable: try again until the bound.
                if e != last_error {
                    let _ = writeln!(std::io::stderr(), "acquire: {e}");
                    last_error = e;
                }
                if started.elapsed() > ACQUIRE_WITHIN || stop.load(Ordering::Relaxed) {
                    let _ = writeln!(out, "NOLEASE {last_error}");
                    let _ = out.flush();
                    std::process::exit(EXIT_NO_LEASE);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    let (gen, token) = acquired;
    let node = gen.node();
    let _ = writeln!(out, "ACQUIRED {node} {token} {}", wall_nanos());
    let _ = out.flush();
    // The minting threads write a line at a time.
    drop(out);
    let (batches, fenced, mint_errors) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let last_cause = Mutex::new(String::new());
    // Relaxed (all counters): read for the report after the threads are joined.
    let counts = || {
        format!(
            "batches={} fenced={} mint_errors={}",
            batches.load(Ordering::Relaxed),
            fenced.load(Ordering::Relaxed),
            mint_errors.load(Ordering::Relaxed)
        )
    };
    // Several threads, as a server has: after a pause each is a chance to mint before
    // the process notices the pause.
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut line = String::with_capacity(32 * batch as usize);
                // Relaxed: see the stdin thread.
                while !stop.load(Ordering::Relaxed) && started.elapsed() < CHILD_LIFETIME {
                    let before = wall_nanos();
                    match gen.next_ids(batch) {
                        Ok(ids) => {
                            let after = wall_nanos();
                            if !ids.is_empty() {
                                use std::fmt::Write as _;
                                line.clear();
                                let _ = write!(line, "B {node} {before} {after}");
                                for id in ids {
                                    let _ = write!(line, " {}", id.to_u64());
                                }
                                // The end mark: a line cut short by a kill is told apart.
                                line.push_str(" .\n");
                                // One write per batch, flushed: a child killed -9 leaves every
                                // batch it was handed before its last write.
                                let mut out = std::io::stdout().lock();
                                let _ = out.write_all(line.as_bytes());
                                let _ = out.flush();
                                batches.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Err(FenceError::Lost { .. }) => {
                            let mut out = std::io::stdout().lock();
                            let _ = writeln!(out, "LOST {} {}", wall_nanos(), counts());
                            let _ = out.flush();
                            std::process::exit(EXIT_LOST);
                        }
                        // Expected during faults: the hold is not confirmed, minting resumes
                        // by itself. Each new cause goes to stderr with its time, so that a
                        // test that fails shows what the child was waiting for.
                        Err(FenceError::Fenced { cause, .. }) => {
                            fenced.fetch_add(1, Ordering::Relaxed);
                            // Told apart by their words, not their figures (times, nodes).
                            let cause = cause.to_string();
                            let kind: String =
                                cause.chars().filter(|c| !c.is_ascii_digit()).collect();
                            let mut last =
                                last_cause.lock().unwrap_or_else(PoisonError::into_inner);
                            if *last != kind {
                                let _ = writeln!(
                                    std::io::stderr(),
                                    "fenced at {:.3}: {cause}",
                                    wall_nanos() as f64 / 1e9
                                );
                                *last = kind;
                            }
                        }
                        Err(e) => {
                            if mint_errors.fetch_add(1, Ordering::Relaxed) == 0 {
                                let _ = writeln!(std::io::stderr(), "mint: {e}");
                            }
                        }
                    }
                    std::thread::sleep(pace);
                }
            });
        }
    });
    drop(gen);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "STATS {}", counts());
    let _ = out.flush();
}

// ---- The parent: minters, their output, and the checks. ----

struct Batch {
    node: u64,
    /// Wall-clock Unix nanos read just before the call and just after it returned.
    before: u64,
    after: u64,
    ids: Vec<u64>,
}

#[derive(Default)]
struct Log {
    batches: Vec<Batch>,
    node: Option<u64>,
    token: Option<u64>,
    lost: Option<String>,
    stats: Option<String>,
    no_lease: Option<String>,
    /// Batch lines cut short or garbled.
    torn: usize,
}

impl Log {
    fn parse(&mut self, line: &str) {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("B") => {
                let nums: Option<Vec<u64>> = match line.strip_suffix(" .") {
                    Some(whole) => whole
                        .split_ascii_whitespace()
                        .skip(1)
                        .map(|w| w.parse().ok())
                        .collect(),
                    None => None,
                };
                // A line without its end mark (the child killed while writing it) or with
                // anything but numbers, or without an ID: counted, never read as IDs.
                let Some(nums) = nums.filter(|n| n.len() > 3) else {
                    self.torn += 1;
                    return;
                };
                let (node, before, after) = (nums[0], nums[1], nums[2]);
                let ids = nums[3..].to_vec();
                self.batches.push(Batch {
                    node,
                    before,
                    after,
                    ids,
                });
            }
            Some("ACQUIRED") => {
                self.node = words.next().and_then(|w| w.parse().ok());
                // "Some(N)" for etcd's create_revision, "-" for Redis.
                self.token = words.next().and_then(|w| {
                    w.trim_start_matches("Some(")
                        .trim_end_matches(')')
                        .parse()
                        .ok()
                });
            }
            Some("LOST") => self.lost = Some(line.to_string()),
            Some("STATS") => self.stats = Some(line.to_string()),
            Some("NOLEASE") => self.no_lease = Some(line.to_string()),
            // The harness's own lines.
            _ => {}
        }
    }
}

struct Minter {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    log: Arc<Mutex<Log>>,
    reader: Option<JoinHandle<()>>,
    stderr: PathBuf,
    status: Option<ExitStatus>,
    /// Killed -9 by the test: its last line may be cut short.
    killed: bool,
}

impl Minter {
    fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// Polls `cond` on the log until it holds; panics (with the child's stderr) after
    /// `within` or if the child exits first.
    fn wait_for(&mut self, what: &str, within: Duration, cond: impl Fn(&Log) -> bool) {
        let end = Instant::now() + within;
        loop {
            if cond(&self.log()) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // Its last lines may still be in the pipe.
                std::thread::sleep(Duration::from_millis(100));
                if cond(&self.log()) {
                    return;
                }
                panic!(
                    "minter {} exited ({status}) before it {what}:\n{}",
                    self.name,
                    self.stderr_tail()
                );
            }
            assert!(
                Instant::now() < end,
                "minter {} has not {what} within {within:?}:\n{}",
                self.name,
                self.stderr_tail()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until the child has minted a batch asked for at or after `t` (wall nanos).
    fn wait_minted_after(&mut self, t: u64, within: Duration) {
        self.wait_for(&format!("minted after {t}"), within, |l| {
            l.batches.last().is_some_and(|b| b.before >= t)
        });
    }

    fn node(&self) -> u64 {
        self.log().node.expect("acquired")
    }

    fn token(&self) -> Option<u64> {
        self.log().token
    }

    fn first_batch_at(&self) -> u64 {
        self.log()
            .batches
            .first()
            .map(|b| b.before)
            .expect("minted")
    }

    fn max_id(&self) -> Option<u64> {
        self.log()
            .batches
            .iter()
            .flat_map(|b| b.ids.iter())
            .max()
            .copied()
    }

    fn min_id(&self) -> Option<u64> {
        self.log()
            .batches
            .iter()
            .flat_map(|b| b.ids.iter())
            .min()
            .copied()
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill {sig} {} failed", self.child.id());
    }

    /// SIGKILL: a crash, nothing flushed or released.
    fn kill9(&mut self) {
        self.killed = true;
        let _ = self.child.kill();
        self.status = self.child.wait().ok();
    }

    /// Waits for the child to exit by itself.
    fn wait_exit(&mut self, within: Duration) -> ExitStatus {
        if let Some(s) = self.status {
            return s;
        }
        let end = Instant::now() + within;
        loop {
            if let Ok(Some(s)) = self.child.try_wait() {
                self.status = Some(s);
                if let Some(r) = self.reader.take() {
                    let _ = r.join();
                }
                return s;
            }
            assert!(
                Instant::now() < end,
                "minter {} did not exit within {within:?}:\n{}",
                self.name,
                self.stderr_tail()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Closes the child's stdin (it stops minting, releases its node and exits) and waits.
    fn stop(&mut self) -> ExitStatus {
        self.stdin = None;
        self.wait_exit(WITHIN)
    }
}

impl Drop for Minter {
    fn drop(&mut self) {
        if self.status.is_none() {
            // SIGKILL ends a stopped child too.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// The store of one test: a redis-server or an etcd cluster.
enum Store {
    Redis(RedisServer),
    Etcd(etcd_cluster::EtcdCluster),
}

impl Store {
    /// Fresh servers, listening also on `extra` if given; `None` if not installed (skipped).
    fn start(backend: Backend, test: &str, extra: Option<&str>) -> Option<Store> {
        match backend {
            Backend::Redis => RedisServer::start_on(test, extra).map(Store::Redis),
            Backend::Etcd => etcd_cluster::EtcdCluster::start_with(test, extra).map(Store::Etcd),
        }
    }

    fn url_on(&self, host: &str) -> String {
        match self {
            Store::Redis(r) => r.url_on(host),
            Store::Etcd(e) => e.url_on(host),
        }
    }

    fn url(&self) -> String {
        self.url_on("127.0.0.1")
    }

    /// Waits until the store holds a claim on `node` of `namespace` (its holder key exists);
    /// panics after `within`.
    fn wait_held(&self, namespace: &str, node: u64, within: Duration) {
        let end = Instant::now() + within;
        while !self.holds(namespace, node) {
            assert!(
                Instant::now() < end,
                "nobody claimed node {node} within {within:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn holds(&self, namespace: &str, node: u64) -> bool {
        match self {
            Store::Redis(r) => {
                r.command(&["EXISTS", &format!("snowmint:{namespace}:node:{node}")]) == ":1"
            }
            Store::Etcd(e) => e.has_key(&format!("snowmint/{namespace}/holder/{node}")),
        }
    }

    /// The store restarted with nothing it held: Redis without persistence, etcd wiped.
    fn restart_empty(&mut self) {
        match self {
            Store::Redis(r) => r.restart(),
            Store::Etcd(e) => e.wipe_and_restart_all(),
        }
    }
}

/// The minters of one test, all killed on drop (also when the test fails).
struct Fleet {
    backend: Backend,
    namespace: String,
    dir: PathBuf,
    minters: Vec<Minter>,
}

impl Fleet {
    fn new(backend: Backend, test: &str) -> Fleet {
        let dir = std::env::temp_dir().join(format!(
            "snowmint-faults-{test}-{}-{}",
            backend.name(),
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Fleet {
            backend,
            namespace: format!("faults-{test}"),
            dir,
            minters: Vec::new(),
        }
    }

    /// Starts minter `name` on `nodes` of the store at `url`, inside `net` if given.
    fn spawn(&mut self, name: &str, url: &str, nodes: (u64, u64), net: Option<&NetNs>) -> usize {
        let exe = std::env::current_exe().expect("test binary");
        let mut cmd = match net {
            Some(net) => net.command(&exe),
            None => Command::new(&exe),
        };
        let stderr = self.dir.join(format!("{name}.stderr"));
        let log_file = std::fs::File::create(&stderr).expect("stderr file");
        cmd.args([
            "child_minter",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_BACKEND, self.backend.name())
        .env("SNOWMINT_FAULT_URL", url)
        .env("SNOWMINT_FAULT_NAMESPACE", &self.namespace)
        .env("SNOWMINT_FAULT_NODES", format!("{}-{}", nodes.0, nodes.1))
        .env("SNOWMINT_FAULT_TTL_MS", TTL.as_millis().to_string())
        .env("SNOWMINT_FAULT_MARGIN_MS", MARGIN.as_millis().to_string())
        .env(
            "SNOWMINT_FAULT_IO_TIMEOUT_MS",
            IO_TIMEOUT.as_millis().to_string(),
        )
        .env("SNOWMINT_FAULT_PACE_US", PACE.as_micros().to_string())
        .env("SNOWMINT_FAULT_BATCH", BATCH.to_string())
        .env("SNOWMINT_FAULT_THREADS", THREADS.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log_file);
        let mut child = cmd.spawn().expect("spawn a minter");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let log = Arc::new(Mutex::new(Log::default()));
        let reader = {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                // Lines are handed to the log a pipe-read at a time, not one by one, so that
                // the test's thread polling the log meets the lock taken once per read, not
                // once per line (a lock is not fair, and beside a CPU hog every wait on it
                // is long).
                let mut reader = BufReader::with_capacity(1 << 16, stdout);
                let mut lines = Vec::new();
                loop {
                    let mut line = String::new();
                    let done = !matches!(reader.read_line(&mut line), Ok(n) if n > 0);
                    if !done {
                        lines.push(line);
                    }
                    if done || reader.buffer().is_empty() {
                        let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
                        for line in lines.drain(..) {
                            log.parse(line.trim_end_matches('\n'));
                        }
                    }
                    if done {
                        break;
                    }
                }
            })
        };
        self.minters.push(Minter {
            name: name.to_string(),
            child,
            stdin,
            log,
            reader: Some(reader),
            stderr,
            status: None,
            killed: false,
        });
        self.minters.len() - 1
    }

    fn get(&mut self, name: &str) -> &mut Minter {
        self.minters
            .iter_mut()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no minter {name}"))
    }

    /// Minters a, b and c on nodes 1, 2 and 3, all minting.
    fn spawn_three(&mut self, url_of: impl Fn(&str) -> String, net_for_a: Option<&NetNs>) {
        for (i, name) in ["a", "b", "c"].into_iter().enumerate() {
            let node = i as u64 + 1;
            let net = if name == "a" { net_for_a } else { None };
            self.spawn(name, &url_of(name), (node, node), net);
        }
        for name in ["a", "b", "c"] {
            self.get(name)
                .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
        }
    }

    /// Stops every minter still running; returns each one's exit code (`None`: a signal).
    fn stop_all(&mut self) -> BTreeMap<String, Option<i32>> {
        // Close every stdin first, so that they all stop together.
        for m in &mut self.minters {
            m.stdin = None;
        }
        self.minters
            .iter_mut()
            .map(|m| (m.name.clone(), m.stop().code()))
            .collect()
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.minters.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What the checks found over every minter of a test.
#[derive(Debug, Default)]
struct Tally {
    ids: usize,
    duplicates: usize,
    /// Pairs of processes whose ID ranges on one node intersect.
    range_overlaps: usize,
    /// Batches of a node a process asked for after another process had begun serving it,
    /// while its own tenure began earlier.
    late_batches: usize,
    /// IDs whose node field is not the node their minter leased.
    wrong_node: usize,
    /// Batch lines cut short or garbled, of minters that were not killed while writing.
    torn: usize,
}

impl Tally {
    fn overlaps(&self) -> usize {
        self.range_overlaps + self.late_batches
    }
}

fn tally(minters: &[Minter]) -> Tally {
    let mut t = Tally::default();
    let mut all = Vec::new();
    // Per node: (minter, lowest ID, highest ID, when its first batch was asked for).
    let mut tenures: BTreeMap<u64, Vec<(usize, u64, u64, u64)>> = BTreeMap::new();
    for (i, m) in minters.iter().enumerate() {
        let log = m.log();
        if !m.killed {
            t.torn += log.torn;
        }
        let mut per_node: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
        for b in &log.batches {
            for &id in &b.ids {
                if Layout::TWITTER.decode(Id::from_u64(id)).node() != b.node {
                    t.wrong_node += 1;
                }
            }
            all.extend_from_slice(&b.ids);
            let (lo, hi) = (
                *b.ids.iter().min().expect("non-empty"),
                *b.ids.iter().max().expect("non-empty"),
            );
            let e = per_node.entry(b.node).or_insert((lo, hi, b.before));
            *e = (e.0.min(lo), e.1.max(hi), e.2.min(b.before));
        }
        for (node, (lo, hi, first)) in per_node {
            tenures.entry(node).or_default().push((i, lo, hi, first));
        }
    }
    t.ids = all.len();
    all.sort_unstable();
    all.dedup();
    t.duplicates = t.ids - all.len();
    for (node, ten) in &tenures {
        for (x, &(i, lo_i, hi_i, first_i)) in ten.iter().enumerate() {
            for &(j, lo_j, hi_j, first_j) in &ten[x + 1..] {
                if lo_i.max(lo_j) <= hi_i.min(hi_j) {
                    t.range_overlaps += 1;
                }
                // The one whose tenure began earlier must not mint on after the other began.
                let (early, later_first) = if first_i <= first_j {
                    (i, first_j)
                } else {
                    (j, first_i)
                };
                t.late_batches += minters[early]
                    .log()
                    .batches
                    .iter()
                    .filter(|b| b.node == *node && b.before > later_first)
                    .count();
            }
        }
    }
    t
}

/// Prints the fault's line and checks that nothing was repeated or shared.
fn report(fault: &str, fleet: &Fleet, started: Instant, extra: &str) -> Tally {
    let t = tally(&fleet.minters);
    say(&format!(
        "fault={fault} backend={} ids={} duplicates={} overlaps={}",
        fleet.backend.name(),
        t.ids,
        t.duplicates,
        t.overlaps()
    ));
    let per_child: Vec<String> = fleet
        .minters
        .iter()
        .map(|m| {
            let log = m.log();
            let n: usize = log.batches.iter().map(|b| b.ids.len()).sum();
            format!(
                "{}: node {:?} token {:?} {n} IDs, {}",
                m.name,
                log.node,
                log.token,
                log.stats
                    .as_deref()
                    .or(log.lost.as_deref())
                    .or(log.no_lease.as_deref())
                    .unwrap_or("killed")
            )
        })
        .collect();
    say(&format!(
        "  fault={fault} backend={}: range overlaps {}, late batches {}, wrong node {}, torn \
         lines {}; {extra}; elapsed {:.1} s\n  {}",
        fleet.backend.name(),
        t.range_overlaps,
        t.late_batches,
        t.wrong_node,
        t.torn,
        started.elapsed().as_secs_f64(),
        per_child.join("\n  ")
    ));
    t
}

fn assert_clean(t: &Tally) {
    assert_eq!(t.duplicates, 0, "duplicate IDs: {t:?}");
    assert_eq!(
        t.overlaps(),
        0,
        "two processes served one node at once: {t:?}"
    );
    assert_eq!(
        t.wrong_node, 0,
        "IDs of a node their minter did not lease: {t:?}"
    );
    assert_eq!(t.torn, 0, "batch lines cut short: {t:?}");
}

/// `old` lost its node to `new`: every ID `old` handed out lies below `new`'s first, each of
/// `ran_on` exited 0, and, where `token_grows` (an etcd store that kept its data), `new`'s
/// fencing token is above `old`'s.
fn assert_taken_over(
    fleet: &mut Fleet,
    codes: &BTreeMap<String, Option<i32>>,
    (old, new): (&str, &str),
    ran_on: &[&str],
    token_grows: bool,
) {
    let (old_max, new_min) = (fleet.get(old).max_id(), fleet.get(new).min_id());
    assert!(
        old_max < new_min,
        "{old}'s IDs reach {old_max:?}, {new}'s start at {new_min:?}"
    );
    for name in ran_on {
        assert_eq!(codes[*name], Some(0), "minter {name} failed");
    }
    if token_grows {
        let (old_token, new_token) = (fleet.get(old).token(), fleet.get(new).token());
        assert!(
            new_token > old_token,
            "the fencing token grows: {old} {old_token:?}, {new} {new_token:?}"
        );
    }
}

/// Every minter named minted, and nobody failed to get a node.
fn assert_minted(fleet: &Fleet, names: &[&str]) {
    for m in &fleet.minters {
        let log = m.log();
        assert!(
            log.no_lease.is_none(),
            "minter {} got no node: {:?}",
            m.name,
            log.no_lease
        );
        if names.contains(&m.name.as_str()) {
            assert!(!log.batches.is_empty(), "minter {} minted nothing", m.name);
        }
    }
}

fn secs(from: u64, to: u64) -> f64 {
    to.saturating_sub(from) as f64 / 1e9
}

// ---- The faults. ----

/// A stopped past its TTL (renewal thread and all: a GC pause, a frozen VM), D takes its
/// node and mints, A resumed: A must return no ID after it resumed, and end as lost.
fn pause(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(store) = Store::start(backend, "pause", None) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "pause");
    let url = store.url();
    fleet.spawn_three(|_| url.clone(), None);
    std::thread::sleep(Duration::from_secs(1));
    let node = fleet.get("a").node();
    fleet.get("a").signal("-STOP");
    let paused = wall_nanos();
    fleet.spawn("d", &url, (node, node), None);
    fleet
        .get("d")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let d_first = fleet.get("d").first_batch_at();
    std::thread::sleep(Duration::from_millis(500));
    // Read before the signal: every batch A was handed after it woke ends after this.
    let resumed = wall_nanos();
    fleet.get("a").signal("-CONT");
    let a_status = fleet.get("a").wait_exit(WITHIN);
    let learnt = wall_nanos();
    for name in ["b", "c", "d"] {
        fleet.get(name).wait_minted_after(learnt, WITHIN);
    }
    let codes = fleet.stop_all();
    let after_resume = fleet
        .get("a")
        .log()
        .batches
        .iter()
        .filter(|b| b.after >= resumed)
        .map(|b| b.ids.len())
        .sum::<usize>();
    let t = report(
        "pause",
        &fleet,
        started,
        &format!(
            "D minted {:.2} s after A was paused; A exited {a_status} {:.2} s after it resumed, \
             {after_resume} IDs returned to A after it resumed",
            secs(paused, d_first),
            secs(resumed, learnt)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "d"]);
    assert_eq!(after_resume, 0, "A returned IDs after it resumed");
    assert_eq!(
        a_status.code(),
        Some(EXIT_LOST),
        "A must learn that its node is lost"
    );
    assert_taken_over(
        &mut fleet,
        &codes,
        ("a", "d"),
        &["b", "c", "d"],
        backend != Backend::Redis,
    );
}

/// A killed -9 and a new minter started on its node: it waits out A's lease, then mints
/// above every ID A handed out.
fn kill9(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(store) = Store::start(backend, "kill9", None) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "kill9");
    let url = store.url();
    fleet.spawn_three(|_| url.clone(), None);
    std::thread::sleep(Duration::from_secs(1));
    let node = fleet.get("a").node();
    fleet.get("a").kill9();
    let killed = wall_nanos();
    fleet.spawn("a2", &url, (node, node), None);
    fleet
        .get("a2")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let a2_first = fleet.get("a2").first_batch_at();
    std::thread::sleep(Duration::from_secs(1));
    for name in ["b", "c"] {
        fleet.get(name).wait_minted_after(a2_first, WITHIN);
    }
    let codes = fleet.stop_all();
    let t = report(
        "kill9",
        &fleet,
        started,
        &format!(
            "A2 minted on node {node} {:.2} s after A was killed",
            secs(killed, a2_first)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "a2"]);
    assert_taken_over(
        &mut fleet,
        &codes,
        ("a", "a2"),
        &["b", "c", "a2"],
        backend != Backend::Redis,
    );
}

/// The store restarted with nothing it held, while E tries for node 3, held by C. C is
/// stopped (SIGSTOP) just before the store goes down and resumed as soon as the store holds
/// E's claim: so E, and not C taking its own node back, gets node 3 from the forgetful store
/// (no race to win), while C, resumed within moments, still believes it holds the node (its
/// deadline may not have passed yet). E must wait out the forgetting rule before it mints;
/// C must learn it lost the node and mint nothing past its deadline; no ID may be shared, and
/// E's IDs must lie above every ID of C's. A and B take their nodes back and mint on.
fn store_restart(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(mut store) = Store::start(backend, "store_restart", None) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "store_restart");
    let url = store.url();
    fleet.spawn_three(|_| url.clone(), None);
    let node = fleet.get("c").node();
    fleet.spawn("e", &url, (node, node), None);
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        fleet.get("e").log().node.is_none(),
        "E got node {node} while C held it"
    );
    fleet.get("c").signal("-STOP");
    let down = wall_nanos();
    store.restart_empty();
    let restarted = wall_nanos();
    // Nobody but E asks for node 3 while C is stopped; E retries every 20 ms.
    store.wait_held(&fleet.namespace, node, WITHIN);
    let claimed = wall_nanos();
    fleet.get("c").signal("-CONT");
    fleet
        .get("e")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let e_first = fleet.get("e").first_batch_at();
    let c_status = fleet.get("c").wait_exit(WITHIN);
    for name in ["a", "b"] {
        fleet.get(name).wait_minted_after(restarted, WITHIN);
    }
    std::thread::sleep(Duration::from_millis(500));
    let codes = fleet.stop_all();
    let t = report(
        "store-restart",
        &fleet,
        started,
        &format!(
            "the store was back {:.2} s after it went down; E claimed node {node} {:.2} s after \
             that and minted {:.2} s after its claim; C exited {c_status}",
            secs(down, restarted),
            secs(restarted, claimed),
            secs(claimed, e_first)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "e"]);
    assert_eq!(
        c_status.code(),
        Some(EXIT_LOST),
        "C must learn that node {node} is lost"
    );
    // A store that forgot has no token to grow: etcd's revisions start anew.
    assert_taken_over(&mut fleet, &codes, ("c", "e"), &["a", "b", "e"], false);
}

/// A in a network namespace, reaching the store only through a veth pair; the link cut
/// past the TTL, D takes A's node, the link healed: A must have stopped within its TTL of
/// the cut, and learn it lost its node.
fn partition(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(net) = NetNs::create("partition") else {
        return;
    };
    let Some(store) = Store::start(backend, "partition", Some(net.host_addr())) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "partition");
    let (url, url_a) = (store.url(), store.url_on(net.host_addr()));
    fleet.spawn_three(
        |name| {
            if name == "a" {
                url_a.clone()
            } else {
                url.clone()
            }
        },
        Some(&net),
    );
    std::thread::sleep(Duration::from_secs(1));
    let node = fleet.get("a").node();
    net.cut();
    let cut = wall_nanos();
    fleet.spawn("d", &url, (node, node), None);
    fleet
        .get("d")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let d_first = fleet.get("d").first_batch_at();
    std::thread::sleep(Duration::from_millis(500));
    net.heal();
    let healed = wall_nanos();
    let a_status = fleet.get("a").wait_exit(WITHIN);
    let learnt = wall_nanos();
    for name in ["b", "c", "d"] {
        fleet.get(name).wait_minted_after(learnt, WITHIN);
    }
    let codes = fleet.stop_all();
    let ttl_nanos = u64::try_from(TTL.as_nanos()).expect("ttl");
    let (a_last, past_ttl) = {
        let a = fleet.get("a").log();
        let last = a.batches.last().map_or(0, |b| b.after);
        let past = a
            .batches
            .iter()
            .filter(|b| b.before >= cut + ttl_nanos)
            .count();
        (last, past)
    };
    let a_stderr = fleet.get("a").stderr_tail();
    let t = report(
        "partition",
        &fleet,
        started,
        &format!(
            "A's last batch {:.2} s after the cut; D minted {:.2} s after the cut; A exited \
             {a_status} {:.2} s after the heal; {past_ttl} batches of A asked for a TTL or more \
             after the cut; the heal at {:.3}, A's stderr:\n{}",
            secs(cut, a_last),
            secs(cut, d_first),
            secs(healed, learnt),
            healed as f64 / 1e9,
            a_stderr
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "d"]);
    assert_eq!(past_ttl, 0, "A minted a TTL after it was cut off");
    assert_eq!(
        a_status.code(),
        Some(EXIT_LOST),
        "A must learn that its node is lost"
    );
    assert_taken_over(
        &mut fleet,
        &codes,
        ("a", "d"),
        &["b", "c", "d"],
        backend != Backend::Redis,
    );
    drop(fleet);
    drop(store);
    drop(net);
}

/// etcd's leader killed: the three mint on through the election (on the two members
/// left), then the member restarted from its data rejoins; nothing shared, nobody lost.
#[cfg(feature = "etcd")]
fn leader() {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(mut cluster) = etcd_cluster::EtcdCluster::start("leader") else {
        return;
    };
    let mut fleet = Fleet::new(Backend::Etcd, "leader");
    let url = cluster.url();
    fleet.spawn_three(|_| url.clone(), None);
    std::thread::sleep(Duration::from_secs(1));
    let old = cluster.leader();
    cluster.kill(old);
    let killed = wall_nanos();
    let new = cluster.leader();
    let elected = wall_nanos();
    assert_ne!(new, old, "the killed member is still named leader");
    for name in ["a", "b", "c"] {
        fleet.get(name).wait_minted_after(elected, WITHIN);
    }
    let minted_on = wall_nanos();
    cluster.restart(old);
    let restarted = wall_nanos();
    for name in ["a", "b", "c"] {
        fleet.get(name).wait_minted_after(restarted, WITHIN);
    }
    std::thread::sleep(Duration::from_millis(500));
    let codes = fleet.stop_all();
    let t = report(
        "leader",
        &fleet,
        started,
        &format!(
            "leader m{} killed, m{} elected {:.2} s later, all three minted again {:.2} s after \
             the kill; m{} back {:.2} s after the kill",
            old + 1,
            new + 1,
            secs(killed, elected),
            secs(killed, minted_on),
            old + 1,
            secs(killed, restarted)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c"]);
    for name in ["a", "b", "c"] {
        assert_eq!(codes[name], Some(0), "minter {name} failed or was lost");
    }
}

/// The etcd harness itself, with no lease: a key written survives the leader's loss and
/// is on the restarted member, and a wiped cluster on the same ports has forgotten it.
#[test]
fn the_etcd_cluster_fails_over_rejoins_and_forgets_when_wiped() {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(mut cluster) = etcd_cluster::EtcdCluster::start("harness") else {
        return;
    };
    // The key "probe" and the value "1", base64 as the JSON gateway takes them.
    let has_probe = |cluster: &etcd_cluster::EtcdCluster, i: usize| {
        let (code, body) = etcd_cluster::http(
            "127.0.0.1",
            cluster.client_port(i),
            "POST",
            "/v3/kv/range",
            r#"{"key":"cHJvYmU="}"#,
        )
        .expect("the member answers");
        assert_eq!(code, 200, "{body}");
        body.contains(r#""value":"MQ==""#)
    };
    let endpoints = cluster.endpoints();
    let (code, body) = etcd_cluster::http(
        "127.0.0.1",
        cluster.client_port(0),
        "POST",
        "/v3/kv/put",
        r#"{"key":"cHJvYmU=","value":"MQ=="}"#,
    )
    .expect("put");
    assert_eq!(code, 200, "{body}");
    assert!(cluster.has_key("probe"), "the key written is found");
    assert!(!cluster.has_key("probe2"), "a key never written is not");
    let old = cluster.leader();
    cluster.kill(old);
    let new = cluster.leader();
    assert_ne!(new, old);
    assert!(has_probe(&cluster, new), "the new leader has the key");
    cluster.restart(old);
    assert!(has_probe(&cluster, old), "the restarted member has the key");
    let wipe = Instant::now();
    cluster.wipe_and_restart_all();
    let wiped_in = wipe.elapsed();
    assert_eq!(cluster.endpoints(), endpoints, "the same client ports");
    assert!(
        (0..3).all(|i| !has_probe(&cluster, i)),
        "a wiped cluster forgets"
    );
    assert!(!cluster.has_key("probe"), "a wiped cluster forgets");
    assert!(cluster.url().starts_with("etcd://127.0.0.1:"));
    say(&format!(
        "etcd harness: leader m{} killed, m{} elected, m{} rejoined, wiped and healthy again \
         in {:.1} s; {:.1} s in all",
        old + 1,
        new + 1,
        old + 1,
        wiped_in.as_secs_f64(),
        started.elapsed().as_secs_f64()
    ));
}

/// The partition harness itself: from inside the namespace an etcd member is reachable
/// on the pair's host address (not on loopback, the namespace's own), not while the link
/// is cut, and again once it is healed.
#[test]
fn the_namespace_reaches_the_store_through_the_pair_only_until_cut() {
    let _one = one_at_a_time();
    let Some(net) = NetNs::create("harness") else {
        return;
    };
    let Some(cluster) = etcd_cluster::EtcdCluster::start_with("netns", Some(net.host_addr()))
    else {
        return;
    };
    let port = cluster.client_port(0);
    // A TCP connect from inside the namespace, by bash's /dev/tcp, within 2 s.
    let reaches = |host: &str| {
        net.command("timeout")
            .args([
                "2",
                "bash",
                "-c",
                &format!("exec 3<>/dev/tcp/{host}/{port}"),
            ])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    assert!(reaches(net.host_addr()), "the member on the pair's address");
    assert!(!reaches("127.0.0.1"), "the namespace's loopback is its own");
    net.cut();
    assert!(!reaches(net.host_addr()), "nothing passes a cut link");
    net.heal();
    let end = Instant::now() + Duration::from_secs(10);
    while !reaches(net.host_addr()) {
        assert!(Instant::now() < end, "the healed link carries nothing");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn redis_pause_past_the_ttl_then_takeover_and_resume() {
    pause(Backend::Redis);
}

#[test]
fn redis_kill9_then_the_node_reused_above_the_old_ids() {
    kill9(Backend::Redis);
}

#[test]
fn redis_restarted_empty_while_three_hold_nodes() {
    store_restart(Backend::Redis);
}

#[test]
fn redis_partition_of_one_minter_past_the_ttl() {
    partition(Backend::Redis);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_pause_past_the_ttl_then_takeover_and_resume() {
    pause(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_kill9_then_the_node_reused_above_the_old_ids() {
    kill9(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_wiped_and_restarted_while_three_hold_nodes() {
    store_restart(Backend::Etcd);
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_leader_killed_and_restarted() {
    leader();
}

#[cfg(feature = "etcd")]
#[test]
fn etcd_partition_of_one_minter_past_the_ttl() {
    partition(Backend::Etcd);
}
