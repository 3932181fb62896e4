//! The suite's settings and small helpers: the lease's timings, the children's pace, every
//! limit with what it bounds, the exit codes, and the one-at-a-time lock.

use std::io::Write;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

// Every limit of this suite bounds a failure, never a success: a loaded machine makes a
// test slower, not red. None of them is a time within which a fault must be survived; the
// properties checked (no duplicate, no overlap, the holder learns it lost) hold at any speed.
// The suite passes beside a CPU hog on both cores: `.ci/faults-under-load`.

/// The lease's TTL and margin: short, to keep the suite fast (a takeover waits about two
/// TTLs: the old lease's expiry, then one TTL plus the margin before minting). Safety does
/// not depend on them; on a loaded machine they only make holders fence (and recover) more
/// often, which the checks allow.
pub(crate) const TTL: Duration = Duration::from_secs(2);
pub(crate) const MARGIN: Duration = Duration::from_millis(400);
/// Each store call's timeout. Beside a CPU hog, etcd answers (a WAL fsync, Go's scheduler)
/// were seen past 200 ms often enough that holders spent much of a test fenced; 500 ms is
/// rarely reached, and still lets a renewal (every TTL/3) fail and be tried again within
/// the hold's window (TTL − margin = 1.6 s).
pub(crate) const IO_TIMEOUT: Duration = Duration::from_millis(500);
/// PostgreSQL's: each renewal is a commit whose WAL is flushed to disk (`fsync` on, which the
/// lease needs to vouch). Beside a CPU hog on a disk shared with other builds, its calls gave
/// no answer within 500 ms for seconds on end: a holder lost its node with every renewal
/// timed out, a healed one never renewed within 60 s. 1 s still lets a failed renewal be tried
/// again within the hold's window (TTL − margin = 1.6 s).
pub(crate) const PG_IO_TIMEOUT: Duration = Duration::from_secs(1);
/// Each of a child's `THREADS` minting threads asks for `BATCH` IDs every `PACE`: 50,000
/// IDs a second a child, each written out and read back by this harness (a debug build),
/// which must keep up beside a CPU hog, or the children block on their full pipes.
pub(crate) const THREADS: usize = 2;
pub(crate) const BATCH: u64 = 50;
pub(crate) const PACE: Duration = Duration::from_millis(2);
/// How long a child keeps trying to acquire a node: it must outlast the longest the store
/// may be away in a test (an etcd cluster wiped and started again may take up to its
/// harness's 30 s bound on a loaded machine), plus a takeover (two TTLs and the margin).
pub(crate) const ACQUIRE_WITHIN: Duration = Duration::from_secs(90);
/// The longest a child runs: a child whose parent vanished without closing its stdin ends.
/// Above the longest a test may take, every wait of it at its bound.
pub(crate) const CHILD_LIFETIME: Duration = Duration::from_secs(600);
/// The bound on every wait for something a child must do (mint, exit, learn it lost): a
/// property, not a deadline; it only keeps a child that never does it from hanging the
/// suite. The slowest of these on an idle machine is a takeover, about 5 s; 60 s leaves
/// room for a machine many times slower.
pub(crate) const WITHIN: Duration = Duration::from_secs(60);

/// A child's exit codes: it learnt its node was lost; it never got a node.
pub(crate) const EXIT_LOST: i32 = 3;
pub(crate) const EXIT_NO_LEASE: i32 = 4;

pub(crate) const CHILD_BACKEND: &str = "SNOWMINT_FAULT_BACKEND";

/// An error's message and its sources' (a lease error says what failed, its source why).
pub(crate) fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

pub(crate) fn wall_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Straight to the process's stderr, past the harness's capture: the figures show in CI.
pub(crate) fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// One test at a time: each fault's timing is its own on a small machine.
pub(crate) fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    Redis,
    // Constructed by the etcd tests, which need feature `etcd`.
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))]
    Etcd,
    // Constructed by the PostgreSQL tests, which need feature `postgres`.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Postgres,
}

impl Backend {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Backend::Redis => "redis",
            Backend::Etcd => "etcd",
            Backend::Postgres => "postgres",
        }
    }

    /// Each store call's timeout (`IO_TIMEOUT`, `PG_IO_TIMEOUT`).
    pub(crate) fn io_timeout(self) -> Duration {
        match self {
            Backend::Postgres => PG_IO_TIMEOUT,
            Backend::Redis | Backend::Etcd => IO_TIMEOUT,
        }
    }
}

pub(crate) fn secs(from: u64, to: u64) -> f64 {
    to.saturating_sub(from) as f64 / 1e9
}
