//! The fleet: one slot per server, each in its namespace (`net::Cell`) with a clock file of
//! its own (libfaketime), holding the `snowmint serve` process running there now. A server
//! that exits (its node lost, its claim failed) is started again in its slot, as a
//! supervisor would; every process the run started is listed with its times.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::http;
use crate::net::Cell;
use crate::settings::*;

/// Debian's libfaketime: it changes only the wall clock of the process it is preloaded in.
/// The least time between two starts of a slot's server by the supervisor.
const RESTART_DELAY: Duration = Duration::from_millis(500);

pub const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// A server process: `id` is unique in the run (and its port, so that a client never
/// takes a new process for an old one).
pub struct Process {
    pub id: u32,
    pub port: u16,
    child: Child,
}

/// What the run knows of a process after the fact.
#[derive(Clone, Debug)]
pub struct ProcessInfo {
    pub id: u32,
    pub slot: usize,
    pub started_ns: u64,
    pub ended_ns: Option<u64>,
    pub end: String,
    pub nodes: String,
    pub clock_ms: i64,
}

pub struct Slot {
    pub index: usize,
    pub cell: Cell,
    clock_file: PathBuf,
    clock_ms: Mutex<i64>,
    pub now: Mutex<Option<Process>>,
}

pub struct Fleet {
    pub slots: Vec<Slot>,
    url: String,
    pub dir: PathBuf,
    next: AtomicU32,
    pub processes: Mutex<Vec<ProcessInfo>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Fleet {
    /// Slots in `cells`, the servers reaching the store at `url`; none started yet.
    pub fn new(cells: Vec<Cell>, url: String, dir: PathBuf) -> Fleet {
        let slots = cells
            .into_iter()
            .enumerate()
            .map(|(index, cell)| {
                let clock_file = dir.join(format!("s{index}.faketime"));
                std::fs::write(&clock_file, "+0").expect("clock file");
                Slot {
                    index,
                    cell,
                    clock_file,
                    clock_ms: Mutex::new(0),
                    now: Mutex::new(None),
                }
            })
            .collect();
        Fleet {
            slots,
            url,
            dir,
            next: AtomicU32::new(1),
            processes: Mutex::new(Vec::new()),
        }
    }

    /// Starts a server in `slot` (which must hold none running) on `node`, else on any.
    pub fn spawn(&self, slot: usize, node: Option<u64>) {
        let s = &self.slots[slot];
        // Relaxed: a counter for unique ids only.
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let port = 20_000 + (id % 40_000) as u16;
        // One node more than servers: a server started again finds a free node, or takes
        // one whose holder lapsed (paused, cut off), which makes takeovers.
        let nodes = match node {
            Some(n) => format!("{n}-{n}"),
            None => format!("0-{}", self.slots.len()),
        };
        let log = std::fs::File::create(self.dir.join(format!("p{id}.log"))).expect("log");
        let clock_ms = *lock(&s.clock_ms);
        let child = s
            .cell
            .net
            .command(env!("CARGO_BIN_EXE_snowmint"))
            .args([
                "serve",
                "--listen",
                &format!("{}:{port}", s.cell.net.ns_addr()),
            ])
            .args(["--workers", "2", "--shard-bits", &SHARD_BITS.to_string()])
            .args([
                "--lease",
                &self.url,
                "--namespace",
                NAMESPACE,
                "--nodes",
                &nodes,
            ])
            .args(["--ttl", &format!("{}ms", TTL.as_millis())])
            .args(["--margin", &format!("{}ms", MARGIN.as_millis())])
            .args(["--lease-timeout", LEASE_TIMEOUT])
            .args(["--max-batch", "1000", "--grace", "1s"])
            .env("LD_PRELOAD", LIBFAKETIME)
            .env("FAKETIME_TIMESTAMP_FILE", &s.clock_file)
            .env("FAKETIME_CACHE_DURATION", "1")
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn snowmint serve in its namespace");
        lock(&self.processes).push(ProcessInfo {
            id,
            slot,
            started_ns: wall_nanos(),
            ended_ns: None,
            end: String::new(),
            nodes,
            clock_ms,
        });
        *lock(&s.now) = Some(Process { id, port, child });
    }

    fn ended(&self, id: u32, how: String) {
        if let Some(p) = lock(&self.processes).iter_mut().find(|p| p.id == id) {
            p.ended_ns = Some(wall_nanos());
            p.end = how;
        }
    }

    /// The process serving `slot` now: its id and where it listens.
    pub fn target(&self, slot: usize) -> Option<(u32, String, u16)> {
        let s = &self.slots[slot];
        let now = lock(&s.now);
        now.as_ref()
            .map(|p| (p.id, s.cell.net.ns_addr().to_string(), p.port))
    }

    /// The node the slot's server mints on, if it answers `/readyz` as ready.
    pub fn node_of(&self, slot: usize) -> Option<u64> {
        let (_, addr, port) = self.target(slot)?;
        let (status, body) = http::get(&addr, port, "/readyz", Duration::from_millis(500))?;
        if status != 200 {
            return None;
        }
        let v: serde_json::Value = serde_json::from_str(&body).ok()?;
        v["node"].as_u64()
    }

    /// kill -9 the slot's server (a crash: nothing released): its id.
    pub fn kill9(&self, slot: usize) -> Option<u32> {
        let mut now = lock(&self.slots[slot].now);
        let mut p = now.take()?;
        let _ = p.child.kill();
        let _ = p.child.wait();
        drop(now);
        self.ended(p.id, "killed -9".into());
        Some(p.id)
    }

    /// Sends `sig` (`STOP`, `CONT`) to process `id` if it still serves `slot`.
    pub fn signal(&self, slot: usize, id: u32, sig: &str) -> bool {
        let now = lock(&self.slots[slot].now);
        let Some(p) = now.as_ref().filter(|p| p.id == id) else {
            return false;
        };
        Command::new("kill")
            .args([&format!("-{sig}"), &p.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Sets the slot's clock `ms` from the real one: at once for its server (libfaketime
    /// reads the file every second; the TSC clock follows a step forward at its next
    /// re-anchor and slews back at 500 µs/s), and for every server started in it later.
    pub fn set_clock(&self, slot: usize, ms: i64) {
        let s = &self.slots[slot];
        *lock(&s.clock_ms) = ms;
        // libfaketime's relative form: signed seconds, fractions allowed.
        let text = format!("{:+.3}", ms as f64 / 1000.0);
        std::fs::write(&s.clock_file, text).expect("clock file");
    }

    /// Starts again, on any node, every slot's server that exited by itself: the ids.
    pub fn supervise(&self) -> Vec<u32> {
        let mut restarted = Vec::new();
        for s in &self.slots {
            // As a supervisor's restart delay: a server that cannot reach its store exits
            // at once, and would otherwise be started again every turn.
            let last_start = lock(&self.processes)
                .iter()
                .rev()
                .find(|p| p.slot == s.index)
                .map_or(0, |p| p.started_ns);
            if wall_nanos().saturating_sub(last_start) < RESTART_DELAY.as_nanos() as u64 {
                continue;
            }
            let exited = {
                let mut now = lock(&s.now);
                match now.as_mut().map(|p| p.child.try_wait()) {
                    Some(Ok(Some(status))) => now.take().map(|p| (p.id, status)),
                    _ => None,
                }
            };
            if let Some((id, status)) = exited {
                self.ended(id, format!("exited: {status}"));
                self.spawn(s.index, None);
                restarted.push(id);
            }
        }
        restarted
    }

    /// Waits until every slot's server answers `/readyz` 200 (at most `within`).
    pub fn wait_all_ready(&self, within: Duration) -> Result<Duration, String> {
        let started = Instant::now();
        loop {
            self.supervise();
            let ready = (0..self.slots.len()).all(|i| self.node_of(i).is_some());
            if ready {
                return Ok(started.elapsed());
            }
            if started.elapsed() > within {
                return Err(format!("not every server ready within {within:?}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops every server (SIGKILL: the run is over; nothing is checked after this).
    pub fn kill_all(&self) {
        for s in 0..self.slots.len() {
            // A paused one dies as well.
            self.kill9(s);
        }
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.kill_all();
    }
}
