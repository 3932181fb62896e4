//! A nemesis for the fleet (issue 41): 3–5 `snowmint serve` processes on one store, clients
//! logging every ID with its server and its send and receive times, and faults picked from a
//! seed, several at once and overlapping: a server paused (short, and past the TTL), killed
//! -9 and restarted (on its node or any), cut off from the store (its namespace's route
//! blackholed) and healed, its clock stepped (libfaketime); the store restarted, wiped,
//! restored from an older backup followed by `snowmint lease raise-floor`, its etcd leader
//! lost, its PostgreSQL primary killed -9 and the streaming standby promoted (the servers'
//! URL names both hosts). Afterwards the whole history is checked (`nemesis/checker.rs`): no ID twice, each
//! node's owners in order, the fence's bound, the time to serve again.
//!
//! The fleet is driven only through the `snowmint` binary, HTTP and the stores' own tools,
//! never through the library's lease code. Each store is a test: `cargo test -p
//! snowmint-cli --test nemesis` runs a short schedule on each (25 s of faults; a TTL of 2 s).
//! A long run is one command:
//!
//! ```text
//! NEMESIS_SECONDS=600 NEMESIS_SEED=42 NEMESIS_STORE=etcd cargo test -p snowmint-cli --test nemesis -- --nocapture
//! ```
//!
//! `NEMESIS_SERVERS` (3–5, default 4) sets the fleet's size, `NEMESIS_SLACK_MS` what a loaded
//! machine may add to the documented time to serve again (default 8 s), `NEMESIS_MAX_STEP_MS`
//! how far a clock is stepped (default ±1 s; see `settings::MAX_STEP_MS` for why). A failure prints
//! the seed, the schedule, what the nemesis did and the command that replays it.
//!
//! Needs root and iproute2 (network namespaces; `SNOWMINT_REQUIRE_NETNS=1` makes their lack a
//! failure), redis-server, etcd and etcdctl (`SNOWMINT_REQUIRE_REDIS`, `SNOWMINT_REQUIRE_ETCD`),
//! PostgreSQL's initdb, pg_ctl, pg_basebackup and psql (`SNOWMINT_REQUIRE_POSTGRES`), and
//! Debian's `faketime` (libfaketime; `SNOWMINT_REQUIRE_FAKETIME=1`).
//!
//! Files (`nemesis/`): `settings` (timings, bounds, the environment), `rng` (the seeded
//! PRNG), `schedule` (the faults a seed gives), `net` (the store's address, the namespaces,
//! cut and heal), `store` (what a store driver does) with `store_redis`, `store_etcd` and
//! `store_postgres`,
//! `fleet` (the server slots and processes), `http` (the client's GET), `clients` (the
//! history), `runner` (the nemesis playing a schedule), `checker` (the checks).

// Each server's helper brings its own copy of `common/server.rs`.
#![allow(clippy::duplicate_mod)]

#[path = "../../lease/tests/common/etcd.rs"]
mod etcd_cluster;
#[path = "../../lease/tests/common/netns.rs"]
mod netns;
#[path = "../../lease/tests/common/pg_cluster.rs"]
mod pg_cluster;
#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;

#[path = "nemesis/checker.rs"]
mod checker;
#[path = "nemesis/clients.rs"]
mod clients;
#[path = "nemesis/fleet.rs"]
mod fleet;
#[path = "nemesis/http.rs"]
mod http;
#[path = "nemesis/net.rs"]
mod net;
#[path = "nemesis/rng.rs"]
mod rng;
#[path = "nemesis/runner.rs"]
mod runner;
#[path = "nemesis/schedule.rs"]
mod schedule;
#[path = "nemesis/settings.rs"]
mod settings;
#[path = "nemesis/store.rs"]
mod store;
#[path = "nemesis/store_etcd.rs"]
mod store_etcd;
#[path = "nemesis/store_postgres.rs"]
mod store_postgres;
#[path = "nemesis/store_redis.rs"]
mod store_redis;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use fleet::Fleet;
use net::{Cell, StoreAddr};
use schedule::{Fault, Schedule};
use settings::*;
use store::StoreDriver;

/// The faults of `cargo test`'s short schedule, in seconds.
const SHORT_SECONDS: u64 = 25;

#[test]
fn redis_nemesis() {
    nemesis("redis", |addr| {
        store_redis::Redis::start(addr).map(|s| Box::new(s) as Box<dyn StoreDriver>)
    });
}

#[test]
fn etcd_nemesis() {
    nemesis("etcd", |addr| {
        store_etcd::Etcd::start(addr).map(|s| Box::new(s) as Box<dyn StoreDriver>)
    });
}

#[test]
fn postgres_nemesis() {
    nemesis("postgres", |addr| {
        store_postgres::Pg::start(addr).map(|s| Box::new(s) as Box<dyn StoreDriver>)
    });
}

/// The store's tests one at a time: each fleet has the machine to itself.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the supervisor (servers that exited started again) until dropped.
struct Supervisor {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Supervisor {
    fn start(fleet: &Arc<Fleet>) -> Supervisor {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (fleet, stop) = (Arc::clone(fleet), Arc::clone(&stop));
            // Relaxed: a flag polled by the loop.
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    fleet.supervise();
                    std::thread::sleep(Duration::from_millis(100));
                }
            })
        };
        Supervisor {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        // Relaxed: see `start`.
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn nemesis(name: &str, start: impl FnOnce(&str) -> Option<Box<dyn StoreDriver>>) {
    if !Run::wants(name) {
        say(&format!("{name}: not in NEMESIS_STORE, skipped"));
        return;
    }
    let _one = one_at_a_time();
    if !std::path::Path::new(fleet::LIBFAKETIME).exists() {
        let msg = format!(
            "SKIPPED {name}_nemesis: no {} (apt-get install faketime); set \
             SNOWMINT_REQUIRE_FAKETIME=1 to make this a failure",
            fleet::LIBFAKETIME
        );
        assert!(
            std::env::var("SNOWMINT_REQUIRE_FAKETIME").as_deref() != Ok("1"),
            "{msg}"
        );
        say(&msg);
        return;
    }
    let run = Run::from_env(SHORT_SECONDS);
    let store_addr = match StoreAddr::create() {
        Ok(a) => a,
        Err(e) => {
            let msg =
                format!("SKIPPED {name}_nemesis: no store address ({e}; needs root and iproute2)");
            assert!(
                std::env::var("SNOWMINT_REQUIRE_NETNS").as_deref() != Ok("1"),
                "{msg}"
            );
            say(&msg);
            return;
        }
    };
    let Some(store) = start(&store_addr.addr) else {
        return;
    };
    let cells: Vec<Cell> = (0..run.servers)
        .map(|_| Cell::create("nemesis", &store_addr).expect("a namespace for a server"))
        .collect();
    let dir = std::env::temp_dir().join(format!(
        "snowmint-nemesis-{name}-{}-{}",
        std::process::id(),
        run.seed
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let fleet = Arc::new(Fleet::new(
        cells,
        store.url_on(&store_addr.addr),
        dir.clone(),
    ));
    for slot in 0..run.servers {
        fleet.spawn(slot, None);
    }
    let ready = fleet
        .wait_all_ready(Duration::from_secs(90))
        .unwrap_or_else(|e| panic!("{e}; see {}", dir.display()));
    let schedule = Schedule::from_seed(
        run.seed,
        run.seconds,
        run.servers,
        run.max_step_ms,
        store.abilities(),
    );
    let spread = schedule
        .steps
        .iter()
        .filter_map(|s| match s.fault {
            Fault::ClockStep { ms, .. } => Some(ms.unsigned_abs()),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    // A server may have been ahead by up to `spread` and its successor behind as much.
    let bound = serve_again_bound(Duration::from_millis(2 * spread));
    let faults = schedule.steps.len();
    say(&format!(
        "store={name} seed={} servers={} seconds={} faults={faults} (fleet ready in {:.1} s)\n{}",
        run.seed,
        run.servers,
        run.seconds,
        ready.as_secs_f64(),
        schedule
    ));
    let clients = clients::Clients::start(&fleet);
    let supervisor = Supervisor::start(&fleet);
    std::thread::sleep(Duration::from_millis(500));
    let t0 = wall_nanos();
    let operator_url = store.url_on("127.0.0.1");
    let (record, store) = runner::play(&schedule, &fleet, store, operator_url);
    // A quiet tail, long enough to see every slot serve again.
    std::thread::sleep(bound + run.slack + Duration::from_secs(1));
    let end_ns = wall_nanos();
    drop(supervisor);
    let history = clients.stop();
    fleet.kill_all();
    let v = checker::check(&history, &record, run.servers, bound, run.slack, t0, end_ns);
    let processes = fleet
        .processes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    say(&format!(
        "store={name} seed={} faults={faults} {:?} processes={} answers={} ids={} duplicates={} \
         order_violations={} fence_violations={} slow_recoveries={} tenures={} take_backs={} \
         in_flight={} quiet_spells={} longest_recovery={:.2}s (bound {:.1} s + slack {:.1} s) \
         outages={} stamps_ahead_ms={}..={} refused={:?}",
        run.seed,
        schedule.tally(),
        processes.len(),
        v.answers,
        v.ids,
        v.duplicates,
        v.order_violations.len(),
        v.fence_violations.len(),
        v.slow_recoveries.len(),
        v.tenures,
        v.take_backs,
        v.in_flight,
        v.quiet_spells,
        v.longest_recovery.as_secs_f64(),
        bound.as_secs_f64(),
        run.slack.as_secs_f64(),
        record.outages.len(),
        v.skew_ms.values().map(|s| s.0).min().unwrap_or(0),
        v.skew_ms.values().map(|s| s.1).max().unwrap_or(0),
        history.refused
    ));
    if !v.clean() {
        let rel = |ns: u64| (ns as f64 - t0 as f64) / 1e9;
        let mut text = format!(
            "the nemesis found a violation: store={name} seed={}\n\nschedule (ms from the start \
             of the faults):\n{schedule}\nwhat the nemesis did (s):\n",
            run.seed
        );
        for (at, what) in &record.log {
            text.push_str(&format!("  {:>8.3}  {what}\n", rel(*at)));
        }
        text.push_str("\nprocesses (s):\n");
        for p in &processes {
            let skew = v.skew_ms.get(&p.id).copied().unwrap_or_default();
            text.push_str(&format!(
                "  p{} s{} nodes {} clock {:+} ms (IDs stamped {}..={} ms from their send), {:.3} .. {} {}\n",
                p.id,
                p.slot,
                p.nodes,
                p.clock_ms,
                skew.0,
                skew.1,
                rel(p.started_ns),
                p.ended_ns
                    .map_or("end".into(), |e| format!("{:.3}", rel(e))),
                p.end
            ));
        }
        for (what, count, list) in [
            ("duplicates", v.duplicates, &v.duplicate_examples),
            (
                "order violations",
                v.order_violations.len(),
                &v.order_violations,
            ),
            (
                "fence violations",
                v.fence_violations.len(),
                &v.fence_violations,
            ),
            (
                "slow recoveries",
                v.slow_recoveries.len(),
                &v.slow_recoveries,
            ),
        ] {
            if !list.is_empty() {
                text.push_str(&format!(
                    "\n{what} ({count}; the first {}):\n",
                    list.len().min(20)
                ));
                for line in list.iter().take(20) {
                    text.push_str(&format!("  {line}\n"));
                }
            }
        }
        text.push_str(&format!(
            "\nservers' logs: {}\nreplay: NEMESIS_SEED={} NEMESIS_STORE={name} NEMESIS_SECONDS={} \
             NEMESIS_SERVERS={} NEMESIS_MAX_STEP_MS={} cargo test -p snowmint-cli --test nemesis {name}_nemesis -- \
             --nocapture\n",
            dir.display(),
            run.seed,
            run.seconds,
            run.servers,
            run.max_step_ms
        ));
        drop(store);
        panic!("{text}");
    }
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
