//! The schedule of faults a seed gives: what happens to which server or to the store, when
//! (milliseconds from the start of the faults) and for how long. Server faults overlap each
//! other and the store's; the store's own faults come one at a time.

use std::fmt;

use crate::rng::Rng;
use crate::settings::TTL;

/// One fault.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// SIGSTOP, then SIGCONT after `ms` (short: within the hold; long: past the TTL).
    Pause { slot: usize, ms: u64 },
    /// kill -9, then a new server in the same slot at once: on the dead one's node
    /// (`--nodes N-N`) or on any.
    Kill9 { slot: usize, same_node: bool },
    /// The server's routes to the store blackholed for `ms`.
    Partition { slot: usize, ms: u64 },
    /// The server's wall clock set to `ms` from the real one (libfaketime), for this server
    /// and the ones started in its slot after it.
    ClockStep { slot: usize, ms: i64 },
    /// The store down for `ms` and back: Redis started again empty (no persistence); etcd
    /// every member killed and restarted in turn (a rolling restart that keeps its data).
    StoreRestart { ms: u64 },
    /// Every key of the store deleted (`FLUSHALL`; `etcdctl del --prefix`).
    Wipe,
    /// A backup taken now (`SAVE` and a copy of the RDB file; `etcdctl snapshot save`).
    Snapshot,
    /// The operator's restore: every server cut off from the store until fenced, the store
    /// restored from the last backup, `snowmint lease raise-floor`, the servers let back.
    Restore,
    /// The etcd leader killed -9 for `ms`, then restarted from its data.
    LeaderLoss { ms: u64 },
    /// The PostgreSQL primary killed -9 and its streaming standby promoted (a new
    /// timeline), the fleet's renewals in flight; a new standby made of it.
    Promote,
}

impl Fault {
    /// Whether it acts on the store (one at a time) rather than a server.
    pub fn on_store(&self) -> bool {
        matches!(
            self,
            Fault::StoreRestart { .. }
                | Fault::Wipe
                | Fault::Snapshot
                | Fault::Restore
                | Fault::LeaderLoss { .. }
                | Fault::Promote
        )
    }

    /// Its kind's name, for the run's tally.
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Pause { .. } => "pause",
            Fault::Kill9 { .. } => "kill9",
            Fault::Partition { .. } => "partition",
            Fault::ClockStep { .. } => "clock",
            Fault::StoreRestart { .. } => "store-restart",
            Fault::Wipe => "wipe",
            Fault::Snapshot => "backup",
            Fault::Restore => "restore",
            Fault::LeaderLoss { .. } => "leader",
            Fault::Promote => "promote",
        }
    }

    /// How long it keeps the fleet disturbed after it began, as planned (a store's restart
    /// or restore takes longer on a loaded machine; the runner records the real times).
    pub fn planned_ms(&self) -> u64 {
        let ttl = TTL.as_millis() as u64;
        match self {
            Fault::Pause { ms, .. } | Fault::Partition { ms, .. } => *ms,
            Fault::StoreRestart { ms } | Fault::LeaderLoss { ms } => *ms + 1_000,
            Fault::Restore | Fault::Promote => ttl + 3_000,
            Fault::Kill9 { .. } | Fault::ClockStep { .. } | Fault::Wipe | Fault::Snapshot => 0,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Pause { slot, ms } => write!(f, "pause s{slot} {ms} ms"),
            Fault::Kill9 { slot, same_node } => write!(
                f,
                "kill -9 s{slot}, restart on {}",
                if *same_node { "its node" } else { "any node" }
            ),
            Fault::Partition { slot, ms } => write!(f, "partition s{slot} from the store {ms} ms"),
            Fault::ClockStep { slot, ms } => write!(f, "clock of s{slot} set to {ms:+} ms"),
            Fault::StoreRestart { ms } => write!(f, "store restart, down {ms} ms"),
            Fault::Wipe => write!(f, "store wiped"),
            Fault::Snapshot => write!(f, "backup taken"),
            Fault::Restore => write!(f, "restore from the last backup, then raise-floor"),
            Fault::LeaderLoss { ms } => write!(f, "etcd leader killed for {ms} ms"),
            Fault::Promote => write!(f, "primary killed -9, its standby promoted"),
        }
    }
}

/// A fault and when it begins, in milliseconds from the start of the faults.
#[derive(Clone, Debug)]
pub struct Step {
    pub at_ms: u64,
    pub fault: Fault,
}

/// What a store can suffer beyond what every store can.
#[derive(Clone, Copy, Debug)]
pub struct Abilities {
    /// A leader to lose (etcd).
    pub leader: bool,
    /// A standby to promote (PostgreSQL).
    pub standby: bool,
}

/// The seed's faults over `seconds`, on `servers` servers.
pub struct Schedule {
    pub steps: Vec<Step>,
}

impl Schedule {
    /// `max_step_ms` bounds the clock steps either way.
    pub fn from_seed(
        seed: u64,
        seconds: u64,
        servers: usize,
        max_step_ms: u64,
        can: Abilities,
    ) -> Schedule {
        let mut rng = Rng::new(seed);
        let ttl = TTL.as_millis() as u64;
        let end = seconds * 1_000;
        let mut steps = Vec::new();
        // A backup to restore from, first of all.
        steps.push(Step {
            at_ms: 0,
            fault: Fault::Snapshot,
        });
        let mut store_free_at = 0;
        let mut at = rng.range(200, 1_500);
        while at < end {
            let slot = rng.below(servers);
            let store_turn = at >= store_free_at && rng.chance(35);
            let fault = if store_turn {
                // Redis's and etcd's seeds give the schedules they gave before PostgreSQL.
                match rng.below(if can.leader || can.standby { 9 } else { 7 }) {
                    0 | 1 => Fault::StoreRestart {
                        ms: rng.range(200, 1_500),
                    },
                    2 | 3 => Fault::Wipe,
                    4 => Fault::Snapshot,
                    5 | 6 => Fault::Restore,
                    _ if can.standby => Fault::Promote,
                    _ => Fault::LeaderLoss {
                        ms: rng.range(300, 2_500),
                    },
                }
            } else {
                match rng.below(9) {
                    0 | 1 => Fault::Pause {
                        slot,
                        ms: rng.range(100, ttl / 2),
                    },
                    2 | 3 => Fault::Pause {
                        slot,
                        ms: rng.range(ttl + 200, ttl + 2_000),
                    },
                    4 | 5 => Fault::Kill9 {
                        slot,
                        same_node: rng.chance(50),
                    },
                    6 | 7 => Fault::Partition {
                        slot,
                        ms: rng.range(300, ttl + 2_500),
                    },
                    _ => Fault::ClockStep {
                        slot,
                        ms: if rng.chance(25) {
                            0
                        } else {
                            rng.range(0, 2 * max_step_ms) as i64 - max_step_ms as i64
                        },
                    },
                }
            };
            let losing = matches!(
                fault,
                Fault::StoreRestart { .. } | Fault::Wipe | Fault::Restore | Fault::Promote
            );
            if fault.on_store() {
                store_free_at = at + fault.planned_ms() + 500;
            }
            steps.push(Step { at_ms: at, fault });
            // Faults come together: a store that lost its keys is often met by a server
            // starting on it (a crash, a deploy) while the old holders still run.
            if losing && rng.chance(70) {
                let slot = rng.below(servers);
                steps.push(Step {
                    at_ms: at + rng.range(0, 600),
                    fault: Fault::Kill9 {
                        slot,
                        same_node: rng.chance(30),
                    },
                });
            }
            at += rng.range(200, 2_500);
        }
        steps.sort_by_key(|s| s.at_ms);
        Schedule { steps }
    }
}

impl Schedule {
    /// How many faults of each kind.
    pub fn tally(&self) -> std::collections::BTreeMap<&'static str, usize> {
        let mut t = std::collections::BTreeMap::new();
        for s in &self.steps {
            *t.entry(s.fault.kind()).or_default() += 1;
        }
        t
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.steps {
            writeln!(f, "  {:>6} ms  {}", s.at_ms, s.fault)?;
        }
        Ok(())
    }
}
