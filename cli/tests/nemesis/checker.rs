//! The checks over the whole history of a run.
//!
//! - **Duplicates**: no ID handed out twice, over every answer of every process.
//! - **Owners in order**: per node, the answers in the order they were received form
//!   tenures, each a run of one process's answers; every tenure's IDs lie above every ID of
//!   the tenures before it. A process answering with a node after another process's first
//!   answer with it starts no tenure: its answer must lie wholly below the new owner's first
//!   ID (an answer in flight across a pause), unless it is a take-back: the process was
//!   silent on the node for a TTL (its lease lapsed, and a take-back waits the forgetting
//!   rule) and the answer lies above every earlier one, as a new tenure.
//! - **The fence's bound**: a server cut off from its store (a partition, the store down, the
//!   operator's restore) mints nothing after its last renewal's send time + TTL − margin
//!   (`docs::fleets`): no answer to a request sent later than the cut + TTL − margin (and
//!   the clocks' slop) may be received before the store was reachable again.
//! - **Serving again**: after every fault healed, each slot's server answers again within
//!   the documented bound (`settings::serve_again_bound`) plus the run's slack, wherever the
//!   quiet lasted long enough to tell.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use snowmint::{Id, Layout};

use crate::clients::{Answer, History};
use crate::runner::Record;
use crate::settings::*;

/// What the checks found.
#[derive(Default, Debug)]
pub struct Verdict {
    pub answers: usize,
    pub ids: usize,
    pub duplicates: usize,
    pub tenures: usize,
    pub take_backs: usize,
    /// Answers of an earlier owner received after the new owner's first, wholly below it.
    pub in_flight: usize,
    pub order_violations: Vec<String>,
    pub fence_violations: Vec<String>,
    pub slow_recoveries: Vec<String>,
    /// The longest time a slot took to answer again after the faults healed, over the
    /// quiet spells checked, and how many were checked.
    pub longest_recovery: Duration,
    pub quiet_spells: usize,
    pub duplicate_examples: Vec<String>,
    /// Per process, the lowest and highest difference between an answer's first ID's time
    /// and the time its request was sent, in milliseconds: a clock stepped ahead shows.
    pub skew_ms: BTreeMap<u32, (i64, i64)>,
}

impl Verdict {
    pub fn clean(&self) -> bool {
        self.duplicates == 0
            && self.order_violations.is_empty()
            && self.fence_violations.is_empty()
            && self.slow_recoveries.is_empty()
    }
}

/// The leased node of an ID (the node field above the shard bits).
pub fn node_of(id: u64) -> u64 {
    Layout::TWITTER.decode(Id::from_u64(id)).node() >> SHARD_BITS
}

fn secs(ns: u64, from: u64) -> f64 {
    (ns as f64 - from as f64) / 1e9
}

/// Checks `history` against what the nemesis did (`record`); `t0` (Unix nanoseconds) is
/// where times in messages count from, `end_ns` when the clients stopped.
pub fn check(
    history: &History,
    record: &Record,
    slots: usize,
    bound: Duration,
    slack: Duration,
    t0: u64,
    end_ns: u64,
) -> Verdict {
    let mut v = Verdict {
        answers: history.answers.len(),
        ..Verdict::default()
    };
    duplicates(&history.answers, &mut v, t0);
    for a in &history.answers {
        let stamp = Layout::TWITTER.decode(Id::from_u64(a.ids[0])).unix_millis() as i64;
        let skew = stamp - (a.sent_ns / 1_000_000) as i64;
        let e = v.skew_ms.entry(a.process).or_insert((skew, skew));
        *e = (e.0.min(skew), e.1.max(skew));
    }
    owners(&history.answers, &mut v, t0);
    fence(&history.answers, record, &mut v, t0);
    serving_again(
        &history.answers,
        record,
        slots,
        bound + slack,
        end_ns,
        &mut v,
        t0,
    );
    v
}

fn duplicates(answers: &[Answer], v: &mut Verdict, t0: u64) {
    let mut all: Vec<(u64, usize)> = answers
        .iter()
        .enumerate()
        .flat_map(|(i, a)| a.ids.iter().map(move |&id| (id, i)))
        .collect();
    v.ids = all.len();
    all.sort_unstable();
    for w in all.windows(2) {
        if w[0].0 == w[1].0 {
            v.duplicates += 1;
            if v.duplicate_examples.len() < 5 {
                let (a, b) = (&answers[w[0].1], &answers[w[1].1]);
                v.duplicate_examples.push(format!(
                    "ID {} (node {}) from p{} (received at {:.3} s) and p{} (at {:.3} s)",
                    w[0].0,
                    node_of(w[0].0),
                    a.process,
                    secs(a.received_ns, t0),
                    b.process,
                    secs(b.received_ns, t0)
                ));
            }
        }
    }
}

struct Tenure {
    process: u32,
    lo: u64,
    hi: u64,
    first_ns: u64,
}

fn owners(answers: &[Answer], v: &mut Verdict, t0: u64) {
    let mut by_node: BTreeMap<u64, Vec<&Answer>> = BTreeMap::new();
    for a in answers.iter().filter(|a| !a.ids.is_empty()) {
        let node = node_of(a.ids[0]);
        if a.ids.iter().any(|&id| node_of(id) != node) {
            v.order_violations
                .push(format!("p{} answered with IDs of two nodes", a.process));
        }
        by_node.entry(node).or_default().push(a);
    }
    for (node, mut list) in by_node {
        list.sort_by_key(|a| a.received_ns);
        let mut tenures: Vec<Tenure> = Vec::new();
        let mut late: Vec<(&Answer, usize)> = Vec::new();
        let mut last_seen: HashMap<u32, u64> = HashMap::new();
        let mut owned: HashSet<u32> = HashSet::new();
        for a in list {
            let (lo, hi) = (
                *a.ids.iter().min().expect("non-empty"),
                *a.ids.iter().max().expect("non-empty"),
            );
            let new_tenure = match tenures.last_mut() {
                Some(t) if t.process == a.process => {
                    t.lo = t.lo.min(lo);
                    t.hi = t.hi.max(hi);
                    false
                }
                Some(t) if owned.contains(&a.process) => {
                    let silent = a.sent_ns.saturating_sub(last_seen[&a.process]);
                    if hi < t.lo || silent < TTL.as_nanos() as u64 {
                        late.push((a, tenures.len() - 1));
                        false
                    } else {
                        v.take_backs += 1;
                        true
                    }
                }
                _ => true,
            };
            if new_tenure {
                tenures.push(Tenure {
                    process: a.process,
                    lo,
                    hi,
                    first_ns: a.received_ns,
                });
            }
            owned.insert(a.process);
            last_seen.insert(a.process, a.received_ns);
        }
        v.tenures += tenures.len();
        let mut below = 0_u64;
        let mut below_of = 0_u32;
        for (k, t) in tenures.iter().enumerate() {
            if k > 0 && t.lo <= below {
                v.order_violations.push(format!(
                    "node {node}: p{} (first answer at {:.3} s) handed out {} , not above p{}'s \
                     {below} handed out before",
                    t.process,
                    secs(t.first_ns, t0),
                    t.lo,
                    below_of
                ));
            }
            if t.hi >= below {
                below = t.hi;
                below_of = t.process;
            }
        }
        for (a, k) in late {
            let t = &tenures[k];
            let hi = *a.ids.iter().max().expect("non-empty");
            if hi < t.lo {
                v.in_flight += 1;
            } else {
                v.order_violations.push(format!(
                    "node {node}: p{} answered (sent at {:.3} s, received at {:.3} s) after p{}'s \
                     first answer (at {:.3} s) with IDs up to {hi}, not below p{}'s first {}",
                    a.process,
                    secs(a.sent_ns, t0),
                    secs(a.received_ns, t0),
                    t.process,
                    secs(t.first_ns, t0),
                    t.process,
                    t.lo
                ));
            }
        }
    }
}

fn fence(answers: &[Answer], record: &Record, v: &mut Verdict, t0: u64) {
    let window = (TTL - MARGIN + CLOCK_SLOP).as_nanos() as u64;
    for o in &record.outages {
        let fenced_from = o.from_ns + window;
        for a in answers {
            if o.slots.contains(&a.slot) && a.sent_ns >= fenced_from && a.received_ns <= o.to_ns {
                v.fence_violations.push(format!(
                    "p{} (s{}) answered a request sent at {:.3} s, {:.3} s into the {} \
                     ({:.3} s to {:.3} s), past TTL − margin",
                    a.process,
                    a.slot,
                    secs(a.sent_ns, t0),
                    (a.sent_ns - o.from_ns) as f64 / 1e9,
                    o.why,
                    secs(o.from_ns, t0),
                    secs(o.to_ns, t0)
                ));
            }
        }
    }
}

fn serving_again(
    answers: &[Answer],
    record: &Record,
    slots: usize,
    limit: Duration,
    end_ns: u64,
    v: &mut Verdict,
    t0: u64,
) {
    // The spells in which no fault was active, long enough to tell.
    let mut active = record.active.clone();
    active.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (a, b) in active {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let limit_ns = limit.as_nanos() as u64;
    let mut quiet = Vec::new();
    for (i, &(_, healed)) in merged.iter().enumerate() {
        let next = merged.get(i + 1).map_or(end_ns, |n| n.0);
        if next.saturating_sub(healed) > limit_ns {
            quiet.push(healed);
        }
    }
    v.quiet_spells = quiet.len();
    for q in quiet {
        for slot in 0..slots {
            let first = answers
                .iter()
                .filter(|a| a.slot == slot && a.sent_ns >= q)
                .map(|a| a.received_ns)
                .min();
            match first {
                Some(r) if r - q <= limit_ns => {
                    v.longest_recovery = v.longest_recovery.max(Duration::from_nanos(r - q));
                }
                _ => v.slow_recoveries.push(format!(
                    "s{slot} did not answer within {limit:?} of the faults healing at {:.3} s \
                     (first answer: {})",
                    secs(q, t0),
                    first.map_or("none".into(), |r| format!("{:.3} s", secs(r, t0)))
                )),
            }
        }
    }
}
