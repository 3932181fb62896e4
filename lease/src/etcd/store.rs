//! [`EtcdStore`]: a lease's keys in etcd v3, through its gRPC API.
//!
//! Per namespace `NS` and node `N`:
//! - `snowmint/NS/holder/N`: the owner's token, attached to an etcd lease with the TTL. Its
//!   `create_revision` is the fencing token.
//! - `snowmint/NS/mark/N`: `"MS OWNER TERM"`, the node's high-water mark (Unix
//!   milliseconds), who wrote it, and the raft term of the answer before it (a sign of a
//!   restore, when a later claim's answer carries a lower one). No lease: it outlives every holder.
//! - `snowmint/NS/record`: the namespace's record, JSON `{"incarnation", "ttl_ms", "layout",
//!   "settled", "floor_ms"}`, written by the first claim and never expiring; `settled` once that
//!   claim's forgetting wait is over; `floor_ms` once `Lease::raise_floor` kept a floor (every
//!   claim starts after it).

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{json, Value};

use super::client::EtcdClient;
use super::error::etcd_error;
use super::proto::{
    KeyValue, LeaseGrantRequest, LeaseKeepAliveRequest, LeaseRevokeRequest, RangeRequest,
    RangeResponse, TxnRequest, TxnResponse,
};
use super::txn::{
    created_at, delete, found, get, modified_at, prefixed, put, revision, text, txn, unsigned,
};
use crate::store::{Claim, Store};
use crate::{LeaseError, StoreErrorKind};

/// A claim this owner holds: its fencing token, the node's mark (milliseconds, and whether
/// this owner wrote it), if one is stored, and whether the record vouched for the claim.
type Claimed = (u64, Option<(u64, bool)>, bool);

/// One owner's lease in etcd.
pub struct EtcdStore {
    pub(super) client: EtcdClient,
    /// `snowmint/NS/`.
    pub(super) prefix: String,
    pub(super) owner: String,
    pub(super) ttl: Duration,
    /// The etcd lease the holder key is attached to.
    lease: Option<i64>,
    /// The node claimed last, and its fencing token.
    held: Option<(u64, u64)>,
    /// The highest mark this owner knows stored for that node.
    mark: u64,
    /// The mark key's `mod_revision` when this owner last read or wrote it (0: absent): a
    /// renewal writes the mark only if it is unchanged since, so that it never lowers a mark
    /// raised by another writer ([`Lease::raise_floor`](crate::Lease::raise_floor)).
    mark_rev: u64,
    /// The raft term of the last answer, recorded with each mark written.
    raft_term: u64,
    /// The last claim's sign of a restore: the raft term recorded with the node's mark, above
    /// the term of the claim's answer (a cluster restored from a backup starts its terms anew).
    restore_sign: Option<(u64, u64)>,
    /// The namespace, for messages.
    namespace: String,
    /// This holder's layout, as the record holds it.
    layout: String,
    /// The incarnation this holder writes if it creates the record.
    incarnation: u64,
    /// What the last unvouched claim read of the record: its `mod_revision` and value, for
    /// [`settle`](Store::settle) (which writes only over that very version, so that it never
    /// undoes a floor raised meanwhile).
    to_settle: Option<(u64, Value)>,
}

/// A namespace's record, read from etcd.
pub(super) struct RecordKv {
    pub(super) mod_revision: u64,
    pub(super) value: Value,
}

impl EtcdStore {
    pub(super) fn new(
        client: EtcdClient,
        (namespace, owner): (&str, String),
        ttl: Duration,
        layout: &str,
    ) -> Self {
        EtcdStore {
            client,
            prefix: format!("snowmint/{namespace}/"),
            incarnation: crate::owner::incarnation(&owner),
            owner,
            ttl,
            lease: None,
            held: None,
            mark: 0,
            mark_rev: 0,
            raft_term: 0,
            restore_sign: None,
            namespace: namespace.to_string(),
            layout: layout.to_string(),
            to_settle: None,
        }
    }

    pub(super) fn record_key(&self) -> String {
        format!("{}record", self.prefix)
    }

    /// Creates the namespace's record, unsettled, if etcd has none; refuses a record made
    /// with another TTL or layout.
    fn ensure_record(&mut self) -> Result<(), LeaseError> {
        let key = self.record_key();
        let value = json!({
            "incarnation": self.incarnation.to_string(),
            "ttl_ms": crate::keeper::millis(self.ttl),
            "layout": self.layout,
            "settled": false,
        });
        let request = txn(
            vec![created_at(&key, 0)],
            vec![put(&key, &value.to_string(), 0)],
            vec![get(&key)],
        );
        let answer = self.txn("create the namespace's record", request)?;
        if answer.succeeded {
            return Ok(());
        }
        match found(&answer, 0).and_then(record_kv) {
            Some(record) => self.check_record(&record),
            // Deleted in between: the claim reads it again, and finds none (unvouched).
            None => Ok(()),
        }
    }

    /// Refuses a record made with another TTL or layout than this holder's.
    fn check_record(&self, record: &RecordKv) -> Result<(), LeaseError> {
        let ttl_ms = number(&record.value["ttl_ms"]).unwrap_or(0);
        let layout = record.value["layout"].as_str().unwrap_or("");
        if ttl_ms == crate::keeper::millis(self.ttl) && layout == self.layout {
            return Ok(());
        }
        Err(LeaseError::Mismatch {
            namespace: self.namespace.clone(),
            record_ttl: Duration::from_millis(ttl_ms),
            record_layout: layout.to_string(),
            ttl: self.ttl,
            layout: self.layout.clone(),
        })
    }

    fn holder_key(&self, node: u64) -> String {
        format!("{}holder/{node}", self.prefix)
    }

    pub(super) fn mark_key(&self, node: u64) -> String {
        format!("{}mark/{node}", self.prefix)
    }

    /// `KV.Txn`; a failure is `LeaseError::Store` naming `action`.
    pub(super) fn txn(
        &mut self,
        action: &'static str,
        request: TxnRequest,
    ) -> Result<TxnResponse, LeaseError> {
        let answer = self.client.txn(request).map_err(|e| failed(action, e))?;
        self.saw_term(answer.header.as_ref());
        Ok(answer)
    }

    /// `KV.Range`; a failure is `LeaseError::Store` naming `action`.
    pub(super) fn range(
        &mut self,
        action: &'static str,
        request: RangeRequest,
    ) -> Result<RangeResponse, LeaseError> {
        let answer = self.client.range(request).map_err(|e| failed(action, e))?;
        self.saw_term(answer.header.as_ref());
        Ok(answer)
    }

    /// Keeps the raft term of an answer's header (0: none given).
    pub(super) fn saw_term(&mut self, header: Option<&super::proto::ResponseHeader>) {
        if let Some(term) = header.map(|h| h.raft_term).filter(|&t| t > 0) {
            self.raft_term = term;
        }
    }

    /// A live etcd lease: the one held if a keep-alive finds it alive, else a new grant.
    fn live_lease(&mut self) -> Result<i64, LeaseError> {
        if let Some(id) = self.lease {
            if self.keep_alive(id)? {
                return Ok(id);
            }
        }
        // etcd counts TTLs in whole seconds: round up, so the key lives at least the TTL.
        let secs = self.ttl.as_secs() + u64::from(self.ttl.subsec_nanos() > 0);
        let request = LeaseGrantRequest {
            ttl: i64::try_from(secs).unwrap_or(i64::MAX),
            id: 0,
        };
        let granted = self
            .client
            .lease_grant(request)
            .map_err(|e| failed("grant a lease", e))?;
        self.saw_term(granted.header.as_ref());
        if !granted.error.is_empty() || granted.id == 0 {
            return Err(etcd_error(
                "grant a lease",
                StoreErrorKind::Refused,
                format!("etcd granted no lease: {:?}", granted.error),
            ));
        }
        self.lease = Some(granted.id);
        Ok(granted.id)
    }

    /// Refreshes lease `id`: `false` if etcd no longer has it (it expired, or was lost).
    fn keep_alive(&mut self, id: i64) -> Result<bool, LeaseError> {
        match self.client.lease_keep_alive(LeaseKeepAliveRequest { id }) {
            Ok(answer) => {
                self.saw_term(answer.header.as_ref());
                Ok(answer.ttl > 0)
            }
            Err(e) if e.reason.contains("not found") => Ok(false),
            Err(e) => Err(failed("keep the lease alive", e)),
        }
    }

    /// The nodes of the namespace whose holder key exists now with another owner's token.
    /// A key of this owner's is left to [`try_claim`](Self::try_claim), which takes it back
    /// if it is on our lease: a claim that etcd applied but whose reply was lost.
    fn held_nodes(&mut self) -> Result<HashSet<u64>, LeaseError> {
        let prefix = format!("{}holder/", self.prefix);
        let listed = self.range("list the held nodes", prefixed(&prefix))?;
        Ok(listed
            .kvs
            .iter()
            .filter(|kv| text(&kv.value) != Some(self.owner.as_str()))
            .filter_map(|kv| text(&kv.key))
            .filter_map(|k| k.strip_prefix(&prefix).and_then(|n| n.parse().ok()))
            .collect())
    }

    /// Tries to create `node`'s holder key on lease `id`: `Some((token, mark))` if this owner
    /// holds it now (also when an earlier, timed-out attempt of ours created it).
    fn try_claim(&mut self, node: u64, id: i64) -> Result<Option<Claimed>, LeaseError> {
        let (holder, mark) = (self.holder_key(node), self.mark_key(node));
        let record = self.record_key();
        let request = txn(
            vec![created_at(&holder, 0)],
            vec![put(&holder, &self.owner, id), get(&mark), get(&record)],
            vec![get(&holder), get(&mark), get(&record)],
        );
        let answer = self.txn("claim a node", request)?;
        let mark_kv = found(&answer, 1).cloned();
        self.mark_rev = mark_kv.as_ref().map_or(0, |kv| unsigned(kv.mod_revision));
        let record = found(&answer, 2).and_then(record_kv);
        // The record's floor, where higher than the node's mark, is the mark (not ours).
        let floor = record.as_ref().and_then(|r| number(&r.value["floor_ms"]));
        let stored_mark = match (mark_kv.as_ref().and_then(|kv| self.parse_mark(kv)), floor) {
            (Some((ms, ours)), Some(f)) if ms >= f => Some((ms, ours)),
            (None, None) => None,
            (Some(m), None) => Some(m),
            (_, Some(f)) => Some((f, false)),
        };
        if let Some(record) = &record {
            self.check_record(record)?;
        }
        // Read in the claim's own transaction: present and settled, the record vouches that
        // etcd lost nothing since (it is linearizable; only a restore brings back an older state).
        let settled = record
            .as_ref()
            .is_some_and(|r| r.value["settled"].as_bool() == Some(true));
        // A mark written under a later raft term than this answer's: the cluster was made
        // anew from a backup (its terms start again), and the settled record may be older
        // than writes it lost. Wait, as for an unsettled record.
        let answer_term = answer.header.as_ref().map_or(0, |h| h.raft_term);
        let mark_term = mark_kv.as_ref().and_then(mark_term).unwrap_or(0);
        self.restore_sign =
            (settled && mark_term > answer_term).then_some((mark_term, answer_term));
        let vouched = settled && self.restore_sign.is_none();
        self.to_settle = match record {
            Some(r) if !vouched => Some((r.mod_revision, r.value)),
            _ => None,
        };
        if answer.succeeded {
            let token = revision(&answer);
            if token == 0 {
                return Err(malformed("claim a node"));
            }
            return Ok(Some((token, stored_mark, vouched)));
        }
        // Held: by us only if an earlier attempt's reply was lost after etcd applied it.
        let Some(kv) = found(&answer, 0) else {
            return Ok(None);
        };
        let ours = text(&kv.value) == Some(self.owner.as_str()) && kv.lease == id;
        match (ours, unsigned(kv.create_revision)) {
            (true, token) if token > 0 => Ok(Some((token, stored_mark, vouched))),
            _ => Ok(None),
        }
    }

    /// One renewal transaction: if the holder key is still this claim's and the mark is
    /// unchanged since this owner last saw it, raises the mark to `want` (if above). On a
    /// changed mark, reads it (the higher one is kept).
    fn renew_mark(&mut self, node: u64, token: u64, want: u64) -> Result<Renewed, LeaseError> {
        let raise = want > self.mark;
        let (holder, mark) = (self.holder_key(node), self.mark_key(node));
        let value = format!("{want} {} {}", self.owner, self.raft_term);
        let request = txn(
            vec![
                created_at(&holder, token),
                modified_at(&mark, self.mark_rev),
            ],
            if raise {
                vec![put(&mark, &value, 0)]
            } else {
                Vec::new()
            },
            vec![get(&holder), get(&mark)],
        );
        let answer = self.txn("renew the lease", request)?;
        if answer.succeeded {
            if raise {
                self.mark = want;
                self.mark_rev = revision(&answer);
                if self.mark_rev == 0 {
                    return Err(malformed("renew the lease"));
                }
            }
            return Ok(Renewed::Done);
        }
        let still_ours = found(&answer, 0).is_some_and(|kv| unsigned(kv.create_revision) == token);
        if !still_ours {
            return Ok(Renewed::NotHeld);
        }
        let seen = found(&answer, 1).cloned();
        self.mark_rev = seen.as_ref().map_or(0, |kv| unsigned(kv.mod_revision));
        if let Some((ms, _)) = seen.and_then(|kv| self.parse_mark(&kv)) {
            self.mark = self.mark.max(ms);
        }
        Ok(Renewed::MarkChanged)
    }

    /// [`Store::claim`] on the live etcd lease (granted if none).
    fn claim_on_a_lease(&mut self, first: u64, last: u64) -> Result<Option<Claim>, LeaseError> {
        let id = self.live_lease()?;
        self.ensure_record()?;
        let held = self.held_nodes()?;
        for node in (first..=last).filter(|n| !held.contains(n)) {
            if let Some((token, mark, vouched)) = self.try_claim(node, id)? {
                self.held = Some((node, token));
                self.mark = mark.map_or(0, |(ms, _)| ms);
                return Ok(Some(Claim {
                    node,
                    mark: mark.map(|(ms, _)| ms),
                    mark_is_ours: mark.is_some_and(|(_, ours)| ours),
                    vouched,
                    restore_sign: self.restore_sign,
                }));
            }
        }
        Ok(None)
    }

    /// One release transaction: reads the node's mark and the record's floor, then (if
    /// both are unchanged and the holder key is still this claim's) leaves the highest of
    /// `mine`, the floor, and the stored mark unless this owner wrote it, and deletes the
    /// holder key. `Ok(false)` if the mark or the record changed in between (read again);
    /// `Ok(true)` once done, or if the node is not this claim's any more.
    fn release_once(
        &mut self,
        node: u64,
        token: u64,
        mine: Option<u64>,
    ) -> Result<bool, LeaseError> {
        let (holder, mark, record) = (
            self.holder_key(node),
            self.mark_key(node),
            self.record_key(),
        );
        let read = self.txn(
            "release the node",
            txn(Vec::new(), vec![get(&mark), get(&record)], Vec::new()),
        )?;
        let seen_mark = found(&read, 0).cloned();
        let seen_record = found(&read, 1).cloned();
        let mark_rev = seen_mark.as_ref().map_or(0, |kv| unsigned(kv.mod_revision));
        let record_rev = seen_record
            .as_ref()
            .map_or(0, |kv| unsigned(kv.mod_revision));
        let mut leave = mine.map(|ms| (ms, self.owner.clone()));
        if let Some((ms, ours)) = seen_mark.as_ref().and_then(|kv| self.parse_mark(kv)) {
            if !ours && leave.as_ref().is_none_or(|(l, _)| ms > *l) {
                let by = seen_mark
                    .as_ref()
                    .and_then(|kv| text(&kv.value))
                    .and_then(|v| v.split(' ').nth(1))
                    .unwrap_or("")
                    .to_string();
                leave = Some((ms, by));
            }
        }
        let floor = seen_record
            .as_ref()
            .and_then(record_kv)
            .and_then(|r| number(&r.value["floor_ms"]));
        if let Some(f) = floor {
            if leave.as_ref().is_none_or(|(l, _)| f > *l) {
                leave = Some((f, "raise-floor".to_string()));
            }
        }
        let write = match leave {
            Some((ms, by)) => put(&mark, &format!("{ms} {by}"), 0),
            None => delete(&mark),
        };
        let request = txn(
            vec![
                created_at(&holder, token),
                modified_at(&mark, mark_rev),
                modified_at(&record, record_rev),
            ],
            vec![write, delete(&holder)],
            vec![get(&holder)],
        );
        let answer = self.txn("release the node", request)?;
        if answer.succeeded {
            return Ok(true);
        }
        let still_ours = found(&answer, 0).is_some_and(|kv| unsigned(kv.create_revision) == token);
        Ok(!still_ours)
    }

    /// A mark value: its milliseconds and whether this owner wrote it.
    fn parse_mark(&self, kv: &KeyValue) -> Option<(u64, bool)> {
        let value = text(&kv.value)?;
        let mut parts = value.split(' ');
        let ms = parts.next()?.parse().ok()?;
        Some((ms, parts.next() == Some(self.owner.as_str())))
    }
}

impl Store for EtcdStore {
    fn claim(&mut self, first: u64, last: u64) -> Result<Option<Claim>, LeaseError> {
        match self.claim_on_a_lease(first, last) {
            // The lease granted expired before the claim's transaction (a slow round of
            // calls, longer than the TTL): grant another and claim again, once.
            Err(LeaseError::Store { cause, .. }) if cause.message().contains("lease not found") => {
                self.lease = None;
                self.claim_on_a_lease(first, last)
            }
            other => other,
        }
    }
    fn settle(&mut self) -> Result<bool, LeaseError> {
        let Some((revision, mut value)) = self.to_settle.clone() else {
            return Ok(false);
        };
        value["settled"] = Value::Bool(true);
        value["raft_term"] = Value::String(self.raft_term.to_string());
        let key = self.record_key();
        let request = txn(
            vec![modified_at(&key, revision)],
            vec![put(&key, &value.to_string(), 0)],
            Vec::new(),
        );
        let answer = self.txn("settle the namespace's record", request)?;
        self.to_settle = None;
        Ok(answer.succeeded)
    }

    fn renew(&mut self, want_unix_millis: u64) -> Result<Option<u64>, LeaseError> {
        let (Some((node, token)), Some(id)) = (self.held, self.lease) else {
            return Ok(None);
        };
        if !self.keep_alive(id)? {
            // The lease is gone, and its keys with it.
            self.lease = None;
            return Ok(None);
        }
        // A mark changed by another writer since this owner read it (a raised floor) is
        // read again, and the raise tried anew over it: a few rounds at most.
        for _ in 0..4 {
            match self.renew_mark(node, token, want_unix_millis)? {
                Renewed::Done => return Ok(Some(self.mark)),
                Renewed::NotHeld => return Ok(None),
                Renewed::MarkChanged => {}
            }
        }
        Err(etcd_error(
            "renew the lease",
            StoreErrorKind::Refused,
            "the node's mark kept changing under the renewal (another writer raised it)",
        ))
    }

    fn release(&mut self, mark_unix_millis: Option<u64>) -> Result<(), LeaseError> {
        let Some((node, token)) = self.held.take() else {
            return Ok(());
        };
        // The mark left never lowers the record's floor or a mark another writer raised:
        // both read first, and the write applied only over what was read (else read again).
        let mut done = false;
        for _ in 0..4 {
            if self.release_once(node, token, mark_unix_millis)? {
                done = true;
                break;
            }
        }
        if !done {
            return Err(etcd_error(
                "release the node",
                StoreErrorKind::Refused,
                "the node's mark or the namespace's record kept changing under the release \
                 (another writer raised them); the node lapses after its TTL",
            ));
        }
        if let Some(id) = self.lease.take() {
            let revoked = self
                .client
                .lease_revoke(LeaseRevokeRequest { id })
                .map_err(|e| failed("revoke the lease", e))?;
            self.saw_term(revoked.header.as_ref());
        }
        Ok(())
    }

    fn token(&self) -> Option<u64> {
        self.held.map(|(_, token)| token)
    }
}

/// The raft term recorded with a mark (`"MS OWNER TERM"`; none in older marks).
pub(super) fn mark_term(kv: &KeyValue) -> Option<u64> {
    text(&kv.value)?.split(' ').nth(2)?.parse().ok()
}

/// What one renewal transaction found.
enum Renewed {
    /// Extended (and the mark raised, if it was below).
    Done,
    /// The holder key is gone or another claim's.
    NotHeld,
    /// The mark was written by another since this owner saw it: read again.
    MarkChanged,
}

/// A record's key-value, if it is one (its value JSON).
pub(super) fn record_kv(kv: &KeyValue) -> Option<RecordKv> {
    Some(RecordKv {
        mod_revision: unsigned(kv.mod_revision),
        value: serde_json::from_str(text(&kv.value)?).ok()?,
    })
}

/// A number of the record's JSON: written as a string (older records: a number).
pub(super) fn number(v: &Value) -> Option<u64> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

/// A failed call as the lease's error: what it was doing, and etcd's answer or the step
/// that failed.
pub(super) fn failed(action: &'static str, e: super::client::CallError) -> LeaseError {
    // etcd's own answer (a status every member would give) is a refusal; anything else (no
    // answer, TLS, the timeout) means the cluster was not reached.
    let kind = if e.reason.starts_with("etcd answered") {
        StoreErrorKind::Refused
    } else {
        StoreErrorKind::Unreachable
    };
    etcd_error(action, kind, e)
}

/// An answer without the header every etcd answer carries.
pub(super) fn malformed(action: &'static str) -> LeaseError {
    etcd_error(
        action,
        StoreErrorKind::Unexpected,
        "etcd's answer has no revision in its header",
    )
}
