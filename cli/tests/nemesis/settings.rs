//! The run's settings: the lease's timings every server is started with, the documented
//! bounds the checker holds them to, and what the environment asks for (`NEMESIS_SEED`,
//! `NEMESIS_SECONDS`, `NEMESIS_SERVERS`, `NEMESIS_STORE`, `NEMESIS_SLACK_MS`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The servers' lease TTL and margin (`--ttl 2s --margin 400ms`): short, so that a run of
/// seconds holds many takeovers.
pub const TTL: Duration = Duration::from_secs(2);
pub const MARGIN: Duration = Duration::from_millis(400);
/// Each store call's timeout (`--lease-timeout`): beside a CPU hog, etcd answers past 200 ms
/// often (see `tests/fleet_faults/settings.rs`).
pub const LEASE_TIMEOUT: &str = "500ms";
/// The shard bits below the leased node.
pub const SHARD_BITS: u8 = 2;
/// The namespace of the run.
pub const NAMESPACE: &str = "nemesis";
/// How far a clock step may go by default, in milliseconds: two servers' clocks then differ
/// by at most 2 s, below the TTL plus the margin. A server whose clock is further behind a
/// dead holder's than that can repeat its IDs once the store lost the node's mark (the
/// forgetting rule counts on the claimer's clock); `NEMESIS_MAX_STEP_MS` goes further (at
/// most 4 s: with a mark up to a TTL ahead, a restarted server must wait within
/// `--lease-wait`, 10 s).
pub const MAX_STEP_MS: u64 = 1_000;
/// The fence's tolerance in the checker: the clients' wall clock against the server's TSC
/// clock re-anchored every second, and the slew of a clock stepped back (500 µs/s).
pub const CLOCK_SLOP: Duration = Duration::from_millis(25);

/// The run as the environment asks for it.
#[derive(Clone, Debug)]
pub struct Run {
    pub seed: u64,
    /// How long the schedule of faults lasts.
    pub seconds: u64,
    pub servers: usize,
    /// What a loaded machine may add to the documented time for the fleet to serve again
    /// (a debug build's start, a claim's round trips beside a CPU hog): it bounds a failure,
    /// and is printed with every measured time.
    pub slack: Duration,
    /// How far a server's clock may be stepped either way, in milliseconds.
    pub max_step_ms: u64,
}

impl Run {
    /// From the environment; `default_seconds` when `NEMESIS_SECONDS` is unset.
    pub fn from_env(default_seconds: u64) -> Run {
        let num = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        let seed =
            num("NEMESIS_SEED").unwrap_or_else(|| wall_nanos() ^ u64::from(std::process::id()));
        Run {
            seed,
            seconds: num("NEMESIS_SECONDS").unwrap_or(default_seconds).max(5),
            servers: num("NEMESIS_SERVERS").map_or(4, |n| n.clamp(3, 5) as usize),
            slack: Duration::from_millis(num("NEMESIS_SLACK_MS").unwrap_or(8_000)),
            max_step_ms: num("NEMESIS_MAX_STEP_MS").map_or(MAX_STEP_MS, |n| n.min(4_000)),
        }
    }

    /// Whether the test of store `name` should run: `NEMESIS_STORE` unset or naming it.
    pub fn wants(name: &str) -> bool {
        std::env::var("NEMESIS_STORE").map_or(true, |s| s.split(',').any(|s| s.trim() == name))
    }
}

/// The documented time for a node to be served again after the faults heal
/// (`docs::fleets`): a dead holder's key lapses within one TTL, a claim the store cannot
/// vouch for mints after one TTL plus the margin, and a claim on a clock behind the node's
/// mark waits for that clock to pass it (the mark is at most a TTL ahead of the last
/// holder's clock, which may be `max_back` ahead of this one).
pub fn serve_again_bound(max_back: Duration) -> Duration {
    TTL + TTL + MARGIN + max_back
}

/// Unix nanoseconds of the wall clock.
pub fn wall_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Prints a line past the test harness's capture.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "nemesis: {line}");
}
