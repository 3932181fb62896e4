//! The operator's calls on etcd: listing a namespace (one range read, at one revision, plus
//! each holder's lease's time to live) and raising its floor (transactions that write a key
//! only if it is unchanged since it was read).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use super::proto::{KeyValue, LeaseTimeToLiveRequest};
use super::store::{failed, number, record_kv, EtcdStore};
use super::txn::{modified_at, prefixed, put, text, txn, unsigned};
use crate::{FloorRaised, FloorReset, LeaseError, NamespaceState, NodeState, RecordState};

/// Marks per transaction: two operations each (a compare, a put), below etcd's default
/// `--max-txn-ops` of 128.
const MARKS_PER_TXN: usize = 50;
/// How often a raise reads again after another writer changed a key it read.
const ROUNDS: usize = 16;

/// Every key of the namespace (`snowmint/NS/...`), read at one revision.
fn read_all(store: &mut EtcdStore) -> Result<Vec<KeyValue>, LeaseError> {
    let prefix = store.prefix.clone();
    Ok(store.range("read the namespace", prefixed(&prefix))?.kvs)
}

/// `"MS OWNER TERM"`: the milliseconds and the owner.
fn mark_of(kv: &KeyValue) -> Option<(u64, String)> {
    let value = text(&kv.value)?;
    let mut parts = value.split(' ');
    let ms = parts.next()?.parse().ok()?;
    Some((ms, parts.next().unwrap_or("").to_string()))
}

fn blank(node: u64) -> NodeState {
    NodeState {
        node,
        holder: None,
        token: None,
        lease_left: None,
        mark_unix_millis: None,
        mark_owner: None,
    }
}

pub(super) fn list(store: &mut EtcdStore) -> Result<NamespaceState, LeaseError> {
    let prefix = store.prefix.clone();
    let mut nodes: BTreeMap<u64, NodeState> = BTreeMap::new();
    let mut record = None;
    let mut leases = Vec::new();
    for kv in read_all(store)? {
        let Some(key) = text(&kv.key) else {
            continue;
        };
        let Some(rest) = key.strip_prefix(prefix.as_str()) else {
            continue;
        };
        if rest == "record" {
            record = record_kv(&kv).map(|r| record_state(&r.value));
        } else if let Some(node) = rest.strip_prefix("holder/").and_then(|n| n.parse().ok()) {
            let n = nodes.entry(node).or_insert_with(|| blank(node));
            n.holder = text(&kv.value).map(str::to_string);
            n.token = Some(unsigned(kv.create_revision)).filter(|&t| t > 0);
            if kv.lease != 0 {
                leases.push((node, kv.lease));
            }
        } else if let Some(node) = rest.strip_prefix("mark/").and_then(|n| n.parse().ok()) {
            let n = nodes.entry(node).or_insert_with(|| blank(node));
            if let Some((ms, owner)) = mark_of(&kv) {
                n.mark_unix_millis = Some(ms);
                n.mark_owner = Some(owner);
            }
        }
    }
    for (node, id) in leases {
        let request = LeaseTimeToLiveRequest { id, keys: false };
        let left = store
            .client
            .lease_time_to_live(request)
            .map_err(|e| failed("read a lease's time to live", e))?;
        store.saw_term(left.header.as_ref());
        // -1: the lease expired since the read.
        if let Some(n) = nodes.get_mut(&node) {
            n.lease_left = Some(Duration::from_secs(unsigned(left.ttl)));
        }
    }
    Ok(NamespaceState {
        record,
        nodes: nodes.into_values().collect(),
    })
}

/// The record's JSON as reported.
fn record_state(value: &Value) -> RecordState {
    let settled = value["settled"].as_bool() == Some(true);
    RecordState {
        incarnation: value["incarnation"].as_str().unwrap_or("").to_string(),
        ttl: Duration::from_millis(number(&value["ttl_ms"]).unwrap_or(0)),
        layout: value["layout"].as_str().unwrap_or("").to_string(),
        settled,
        stamped_by: number(&value["raft_term"])
            .filter(|_| settled)
            .map(|t| format!("raft term {t}")),
        floor_unix_millis: number(&value["floor_ms"]),
    }
}

pub(super) fn raise_floor(store: &mut EtcdStore, to: u64) -> Result<FloorRaised, LeaseError> {
    let prefix = store.prefix.clone();
    let record_key = store.record_key();
    let mut floor = None;
    let mut raised = Vec::new();
    for _ in 0..ROUNDS {
        let all = read_all(store)?;
        // The record first: once it holds the floor, every later claim starts above it.
        let record = all
            .iter()
            .find(|kv| text(&kv.key) == Some(record_key.as_str()))
            .and_then(record_kv);
        let record_done = match record {
            None => true,
            Some(r) => {
                let was = number(&r.value["floor_ms"]).unwrap_or(0);
                if was >= to {
                    floor = Some(was);
                    true
                } else {
                    let mut value = r.value.clone();
                    value["floor_ms"] = Value::String(to.to_string());
                    let write = vec![put(&record_key, &value.to_string(), 0)];
                    let done = apply(store, vec![modified_at(&record_key, r.mod_revision)], write)?;
                    if done {
                        floor = Some(to);
                    }
                    done
                }
            }
        };
        if !record_done {
            continue;
        }
        let mut kept = 0;
        let mut below = Vec::new();
        for (node, kv) in marks_in(&prefix, &all) {
            match mark_of(kv) {
                Some((ms, _)) if ms >= to => kept += usize::from(!raised.contains(&node)),
                _ => below.push((node, kv)),
            }
        }
        if write_marks(store, &below, &format!("{to} raise-floor"), &mut raised)? {
            return Ok(FloorRaised {
                floor_unix_millis: floor,
                raised,
                kept,
            });
        }
    }
    Err(super::error::etcd_error(
        "raise the namespace's floor",
        crate::StoreErrorKind::Refused,
        format!("the namespace's keys kept changing under {ROUNDS} rounds of reads and writes"),
    ))
}

pub(super) fn reset_floor(
    store: &mut EtcdStore,
    (to, marks): (u64, u64),
    audit: &str,
) -> Result<FloorReset, LeaseError> {
    let prefix = store.prefix.clone();
    let record_key = store.record_key();
    let mut reset = Vec::new();
    for _ in 0..ROUNDS {
        let all = read_all(store)?;
        // The marks first: once the floor is lowered, every mark is already up.
        let mut kept = 0;
        let mut to_set = Vec::new();
        for (node, kv) in marks_in(&prefix, &all) {
            let set = match mark_of(kv) {
                Some((ms, by)) if crate::state::operator_mark(&by) => ms != marks,
                Some((ms, _)) => ms < marks,
                None => true,
            };
            if set {
                to_set.push((node, kv));
            } else if !reset.contains(&node) {
                kept += 1;
            }
        }
        if !write_marks(store, &to_set, &format!("{marks} {audit}"), &mut reset)? {
            continue;
        }
        let record = all
            .iter()
            .find(|kv| text(&kv.key) == Some(record_key.as_str()))
            .and_then(record_kv);
        let Some(r) = record else {
            return Ok(FloorReset {
                floor_was: None,
                floor_unix_millis: None,
                marks_unix_millis: marks,
                reset,
                kept,
            });
        };
        let mut value = r.value.clone();
        value["floor_ms"] = Value::String(to.to_string());
        value["floor_reset"] = Value::String(audit.to_string());
        let write = vec![put(&record_key, &value.to_string(), 0)];
        if apply(store, vec![modified_at(&record_key, r.mod_revision)], write)? {
            reset.sort_unstable();
            return Ok(FloorReset {
                floor_was: number(&r.value["floor_ms"]),
                floor_unix_millis: Some(to),
                marks_unix_millis: marks,
                reset,
                kept,
            });
        }
    }
    Err(super::error::etcd_error(
        "reset the namespace's floor",
        crate::StoreErrorKind::Refused,
        format!("the namespace's keys kept changing under {ROUNDS} rounds of reads and writes"),
    ))
}

/// The marks among `all` (the keys `PREFIX/mark/NODE`), with their nodes.
fn marks_in<'a>(
    prefix: &'a str,
    all: &'a [KeyValue],
) -> impl Iterator<Item = (u64, &'a KeyValue)> + 'a {
    all.iter().filter_map(move |kv| {
        let node = text(&kv.key)?
            .strip_prefix(prefix)?
            .strip_prefix("mark/")?
            .parse()
            .ok()?;
        Some((node, kv))
    })
}

/// Writes `value` to each of `marks` that is unchanged since it was read (its revision
/// compared in the same transaction), [`MARKS_PER_TXN`] to a transaction; the nodes of the
/// transactions that applied join `written`. False when some mark had changed meanwhile
/// (its transaction wrote nothing): the caller reads again.
fn write_marks(
    store: &mut EtcdStore,
    marks: &[(u64, &KeyValue)],
    value: &str,
    written: &mut Vec<u64>,
) -> Result<bool, LeaseError> {
    let mut all_applied = true;
    for chunk in marks.chunks(MARKS_PER_TXN) {
        let keys = chunk
            .iter()
            .filter_map(|(_, kv)| Some((text(&kv.key)?, kv)));
        let compares = keys
            .clone()
            .map(|(k, kv)| modified_at(k, unsigned(kv.mod_revision)))
            .collect();
        let puts = keys.map(|(k, _)| put(k, value, 0)).collect();
        if apply(store, compares, puts)? {
            written.extend(chunk.iter().map(|(n, _)| *n));
        } else {
            all_applied = false;
        }
    }
    Ok(all_applied)
}

/// A transaction of `compares` and `puts`: whether it applied.
fn apply(
    store: &mut EtcdStore,
    compares: Vec<super::proto::Compare>,
    puts: Vec<super::proto::RequestOp>,
) -> Result<bool, LeaseError> {
    let request = txn(compares, puts, Vec::new());
    Ok(store.txn("raise the namespace's floor", request)?.succeeded)
}

impl crate::Admin for EtcdStore {
    fn reset_floor(
        &mut self,
        to_unix_millis: u64,
        marks_unix_millis: u64,
        audit: &str,
    ) -> Result<FloorReset, LeaseError> {
        reset_floor(self, (to_unix_millis, marks_unix_millis), audit)
    }

    fn list(&mut self) -> Result<NamespaceState, LeaseError> {
        list(self)
    }

    fn raise_floor(&mut self, to_unix_millis: u64) -> Result<FloorRaised, LeaseError> {
        raise_floor(self, to_unix_millis)
    }
}
