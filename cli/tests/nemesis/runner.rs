//! The nemesis itself: plays a schedule against the fleet and the store, two threads (the
//! servers' faults, the store's), and records what it did and when, in the clients' time:
//! the windows in which servers could not reach the store (for the fence's bound), and the
//! windows in which any fault was active (for the time to serve again).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::fleet::Fleet;
use crate::schedule::{Fault, Schedule};
use crate::settings::*;
use crate::store::StoreDriver;

/// Slots that could not reach the store from `from_ns` to `to_ns`.
#[derive(Clone, Debug)]
pub struct Outage {
    pub slots: Vec<usize>,
    pub from_ns: u64,
    pub to_ns: u64,
    pub why: String,
}

/// What the nemesis did.
#[derive(Default)]
pub struct Record {
    pub outages: Vec<Outage>,
    /// From the start of each fault until it healed.
    pub active: Vec<(u64, u64)>,
    /// What was done, when (Unix nanoseconds), as printed on a failure.
    pub log: Vec<(u64, String)>,
}

impl Record {
    fn note(&mut self, text: String) {
        self.log.push((wall_nanos(), text));
    }
}

type Shared = Arc<Mutex<Record>>;

fn rec(r: &Shared) -> std::sync::MutexGuard<'_, Record> {
    r.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Plays `schedule` from now; returns once every fault has healed, with the store.
pub fn play(
    schedule: &Schedule,
    fleet: &Arc<Fleet>,
    store: Box<dyn StoreDriver>,
    operator_url: String,
) -> (Record, Box<dyn StoreDriver>) {
    let record: Shared = Arc::new(Mutex::new(Record::default()));
    let start = Instant::now();
    let max_ahead = schedule
        .steps
        .iter()
        .filter_map(|s| match s.fault {
            Fault::ClockStep { ms, .. } => Some(ms.max(0) as u64),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let store_steps: Vec<_> = schedule
        .steps
        .iter()
        .filter(|s| s.fault.on_store())
        .cloned()
        .collect();
    let server_steps: Vec<_> = schedule
        .steps
        .iter()
        .filter(|s| !s.fault.on_store())
        .cloned()
        .collect();
    let store_thread = {
        let (fleet, record) = (Arc::clone(fleet), Arc::clone(&record));
        std::thread::spawn(move || {
            let mut store = store;
            let mut backup: Option<PathBuf> = None;
            for step in store_steps {
                sleep_until(start, step.at_ms);
                store_fault(
                    &step.fault,
                    &fleet,
                    store.as_mut(),
                    &mut backup,
                    &operator_url,
                    max_ahead,
                    &record,
                );
            }
            store
        })
    };
    // The servers' faults: each begins, and those with a duration end, on one timeline.
    let mut timeline: Vec<(u64, usize, bool)> = Vec::new();
    for (i, s) in server_steps.iter().enumerate() {
        timeline.push((s.at_ms, i, true));
        if let Fault::Pause { ms, .. } | Fault::Partition { ms, .. } = s.fault {
            timeline.push((s.at_ms + ms, i, false));
        }
    }
    timeline.sort();
    let mut paused: HashMap<usize, (usize, Option<u32>, u64)> = HashMap::new();
    let mut cut_at: HashMap<usize, u64> = HashMap::new();
    for (at, i, begin) in timeline {
        sleep_until(start, at);
        let now = wall_nanos();
        match (&server_steps[i].fault, begin) {
            (&Fault::Pause { slot, .. }, true) => {
                let id = fleet.target(slot).map(|t| t.0);
                let stopped = id.is_some_and(|id| fleet.signal(slot, id, "STOP"));
                rec(&record).note(format!("SIGSTOP s{slot} p{id:?}: {stopped}"));
                paused.insert(i, (slot, id.filter(|_| stopped), now));
            }
            (Fault::Pause { .. }, false) => {
                let (slot, id, from) = paused.remove(&i).expect("paused");
                if let Some(id) = id {
                    let resumed = fleet.signal(slot, id, "CONT");
                    rec(&record).note(format!("SIGCONT s{slot} p{id}: {resumed}"));
                }
                rec(&record).active.push((from, wall_nanos()));
            }
            (&Fault::Kill9 { slot, same_node }, _) => {
                let node = if same_node { fleet.node_of(slot) } else { None };
                let killed = fleet.kill9(slot);
                fleet.spawn(slot, node);
                let new = fleet.target(slot).map(|t| t.0);
                let mut r = rec(&record);
                r.note(format!(
                    "kill -9 s{slot} p{killed:?}, started p{new:?} on {}",
                    node.map_or("any node".to_string(), |n| format!("node {n}"))
                ));
                r.active.push((now, wall_nanos()));
            }
            (&Fault::Partition { slot, .. }, true) => {
                fleet.slots[slot].cell.cut();
                // The outage counts from when the route was gone, until the heal began.
                cut_at.insert(i, wall_nanos());
                rec(&record).note(format!("cut s{slot} off the store"));
            }
            (&Fault::Partition { slot, .. }, false) => {
                let to = wall_nanos();
                fleet.slots[slot].cell.heal();
                let from = cut_at.remove(&i).expect("cut");
                let mut r = rec(&record);
                r.note(format!("healed s{slot}"));
                r.outages.push(Outage {
                    slots: vec![slot],
                    from_ns: from,
                    to_ns: to,
                    why: format!("partition of s{slot}"),
                });
                r.active.push((from, to));
            }
            (&Fault::ClockStep { slot, ms }, _) => {
                fleet.set_clock(slot, ms);
                let mut r = rec(&record);
                r.note(format!("clock of s{slot} set to {ms:+} ms"));
                r.active.push((now, now));
            }
            (f, _) => unreachable!("a store fault on the servers' timeline: {f}"),
        }
    }
    let store = match store_thread.join() {
        Ok(store) => store,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    let record = std::mem::take(&mut *rec(&record));
    (record, store)
}

fn sleep_until(start: Instant, at_ms: u64) {
    let at = start + Duration::from_millis(at_ms);
    let now = Instant::now();
    if at > now {
        std::thread::sleep(at - now);
    }
}

fn store_fault(
    fault: &Fault,
    fleet: &Fleet,
    store: &mut dyn StoreDriver,
    backup: &mut Option<PathBuf>,
    operator_url: &str,
    max_ahead_ms: u64,
    record: &Shared,
) {
    let from = wall_nanos();
    match *fault {
        Fault::StoreRestart { ms } => {
            let outage = store.restart(Duration::from_millis(ms));
            let mut r = rec(record);
            r.note(format!("store restarted ({ms} ms down a process)"));
            if let Some((a, b)) = outage {
                r.outages.push(Outage {
                    slots: (0..fleet.slots.len()).collect(),
                    from_ns: a,
                    to_ns: b,
                    why: "store restart".into(),
                });
            }
        }
        Fault::Wipe => {
            store.wipe();
            rec(record).note("store wiped".into());
        }
        Fault::Snapshot => {
            *backup = Some(store.snapshot());
            rec(record).note("backup taken".into());
        }
        Fault::Restore => {
            let Some(from_backup) = backup.clone() else {
                return;
            };
            // 1. Fence the old holders: cut every server off, and wait until every hold
            //    taken before the cut has passed its deadline.
            for s in &fleet.slots {
                s.cell.cut();
            }
            let cut = wall_nanos();
            std::thread::sleep(TTL + Duration::from_millis(300));
            // 2. Restore.
            store.restore(&from_backup);
            // 3. Raise the floor to the time of the loss on the fastest clock of the fleet
            //    (a server stepped ahead stamped its IDs ahead), and a little more.
            let floor_ms = wall_nanos() / 1_000_000 + max_ahead_ms + 100;
            let raised = raise_floor(operator_url, floor_ms);
            // 4. Let the servers back, each one's outage ending as its heal begins.
            let mut healed = Vec::new();
            for s in &fleet.slots {
                healed.push((s.index, wall_nanos()));
                s.cell.heal();
            }
            let mut r = rec(record);
            r.note(format!(
                "restored from the backup, raise-floor --to {floor_ms}: {raised}"
            ));
            for (slot, to) in healed {
                r.outages.push(Outage {
                    slots: vec![slot],
                    from_ns: cut,
                    to_ns: to,
                    why: "restore".into(),
                });
            }
        }
        Fault::Promote => {
            let outage = store.promote();
            let mut r = rec(record);
            r.note("primary killed -9, standby promoted, a new standby made".into());
            if let Some((a, b)) = outage {
                r.outages.push(Outage {
                    slots: (0..fleet.slots.len()).collect(),
                    from_ns: a,
                    to_ns: b,
                    why: "fail-over to the standby".into(),
                });
            }
        }
        Fault::LeaderLoss { ms } => {
            let leader = store.kill_leader();
            std::thread::sleep(Duration::from_millis(ms));
            if let Some(i) = leader {
                store.restart_member(i);
            }
            rec(record).note(format!("etcd leader m{leader:?} killed {ms} ms, restarted"));
        }
        _ => unreachable!("a server fault on the store's timeline: {fault}"),
    }
    rec(record).active.push((from, wall_nanos()));
}

/// `snowmint lease raise-floor`, tried again while the store just restored refuses: its
/// output.
fn raise_floor(url: &str, floor_ms: u64) -> String {
    let mut last = String::new();
    for _ in 0..40 {
        let out = Command::new(env!("CARGO_BIN_EXE_snowmint"))
            .args([
                "lease",
                "raise-floor",
                "--lease",
                url,
                "--namespace",
                NAMESPACE,
            ])
            .args(["--to", &floor_ms.to_string(), "--yes"])
            .output()
            .expect("run snowmint lease raise-floor");
        last = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
        if out.status.success() {
            return last.replace('\n', "; ");
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("snowmint lease raise-floor failed: {last}");
}
