//! [`EtcdStore`]: a lease's keys in etcd v3, through its JSON gateway.
//!
//! Per namespace `NS` and node `N`:
//! - `snowmint/NS/holder/N`: the owner's token, attached to an etcd lease with the TTL. Its
//!   `create_revision` is the fencing token.
//! - `snowmint/NS/mark/N`: `"MS OWNER"`, the node's high-water mark (Unix milliseconds) and
//!   who wrote it. No lease: it outlives every holder.
//! - `snowmint/NS/record`: the namespace's record, JSON `{"incarnation", "ttl_ms", "layout",
//!   "settled"}`, written by the first claim and never expiring; `settled` once that claim's
//!   forgetting wait is over.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::gateway::{base64, Answer, Gateway};
use crate::fleet::fence::Note;
use crate::fleet::lease::store::{Claim, Store};
use crate::fleet::lease::LeaseError;

/// A claim this owner holds: its fencing token, the node's mark (milliseconds, and whether
/// this owner wrote it), if one is stored, and whether the record vouched for the claim.
type Claimed = (u64, Option<(u64, bool)>, bool);

/// One owner's lease in etcd.
pub struct EtcdStore {
    pub(super) gateway: Gateway,
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
    /// The namespace, for messages.
    namespace: String,
    /// This holder's layout, as the record holds it.
    layout: String,
    /// The incarnation this holder writes if it creates the record.
    incarnation: u64,
    /// What the last unvouched claim read of the record: its `create_revision` and value,
    /// for [`settle`](Store::settle).
    to_settle: Option<(u64, Value)>,
}

/// A namespace's record, read from etcd.
struct RecordKv {
    create_revision: u64,
    value: Value,
}

impl EtcdStore {
    pub(super) fn new(
        gateway: Gateway,
        (namespace, owner): (&str, String),
        ttl: Duration,
        layout: &str,
    ) -> Self {
        EtcdStore {
            gateway,
            prefix: format!("snowmint/{namespace}/"),
            incarnation: crate::lease::owner::incarnation(&owner),
            owner,
            ttl,
            lease: None,
            held: None,
            mark: 0,
            namespace: namespace.to_string(),
            layout: layout.to_string(),
            to_settle: None,
        }
    }

    fn record_key(&self) -> String {
        format!("{}record", self.prefix)
    }

    /// Creates the namespace's record, unsettled, if etcd has none; refuses a record made
    /// with another TTL or layout.
    fn ensure_record(&mut self) -> Result<(), LeaseError> {
        let key = self.record_key();
        let value = json!({
            "incarnation": self.incarnation.to_string(),
            "ttl_ms": crate::lease::keeper::millis(self.ttl),
            "layout": self.layout,
            "settled": false,
        });
        let body = json!({
            "compare": [created_at(&key, 0)],
            "success": [{ "request_put": {
                "key": base64::encode(key.as_bytes()),
                "value": base64::encode(value.to_string().as_bytes()),
            } }],
            "failure": [{ "request_range": { "key": base64::encode(key.as_bytes()) } }],
        });
        let answer = self.call("create the namespace's record", "/v3/kv/txn", body)?;
        if answer["succeeded"].as_bool() == Some(true) {
            return Ok(());
        }
        let found = answer["responses"][0]["response_range"]["kvs"][0].clone();
        match record_kv(&found) {
            Some(record) => self.check_record(&record),
            // Deleted in between: the claim reads it again, and finds none (unvouched).
            None => Ok(()),
        }
    }

    /// Refuses a record made with another TTL or layout than this holder's.
    fn check_record(&self, record: &RecordKv) -> Result<(), LeaseError> {
        let ttl_ms = number(&record.value["ttl_ms"]).unwrap_or(0);
        let layout = record.value["layout"].as_str().unwrap_or("");
        if ttl_ms == crate::lease::keeper::millis(self.ttl) && layout == self.layout {
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

    fn mark_key(&self, node: u64) -> String {
        format!("{}mark/{node}", self.prefix)
    }

    /// POSTs and returns a 200's JSON; any other outcome is `LeaseError::Etcd`.
    fn call(&mut self, action: &'static str, path: &str, body: Value) -> Result<Value, LeaseError> {
        match self.gateway.post(path, &body.to_string()) {
            Ok(Answer::Ok(json)) => Ok(json),
            Ok(Answer::Refused(e)) | Err(e) => Err(LeaseError::Etcd {
                action,
                cause: Arc::new(e),
            }),
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
        let granted = self.call("grant a lease", "/v3/lease/grant", json!({ "TTL": secs }))?;
        let id = number(&granted["ID"])
            .and_then(|id| i64::try_from(id).ok())
            .ok_or_else(|| malformed("grant a lease", &granted))?;
        self.lease = Some(id);
        Ok(id)
    }

    /// Refreshes lease `id`: `false` if etcd no longer has it (it expired, or was lost).
    fn keep_alive(&mut self, id: i64) -> Result<bool, LeaseError> {
        let body = json!({ "ID": id.to_string() }).to_string();
        match self.gateway.post("/v3/lease/keepalive", &body) {
            Ok(Answer::Ok(json)) => Ok(number(&json["result"]["TTL"]).is_some_and(|t| t > 0)),
            Ok(Answer::Refused(e)) if e.reason.contains("not found") => Ok(false),
            Ok(Answer::Refused(e)) | Err(e) => Err(LeaseError::Etcd {
                action: "keep the lease alive",
                cause: Arc::new(e),
            }),
        }
    }

    /// The nodes of the namespace whose holder key exists now with another owner's token.
    /// A key of this owner's is left to [`try_claim`](Self::try_claim), which takes it back
    /// if it is on our lease: a claim that etcd applied but whose reply was lost.
    fn held_nodes(&mut self) -> Result<HashSet<u64>, LeaseError> {
        let prefix = format!("{}holder/", self.prefix);
        let body = json!({
            "key": base64::encode(prefix.as_bytes()),
            "range_end": base64::encode(&prefix_end(prefix.as_bytes())),
        });
        let listed = self.call("list the held nodes", "/v3/kv/range", body)?;
        Ok(kvs(&listed)
            .iter()
            .filter(|kv| text(&kv["value"]).as_deref() != Some(self.owner.as_str()))
            .filter_map(|kv| text(&kv["key"]))
            .filter_map(|k| k.strip_prefix(&prefix).and_then(|n| n.parse().ok()))
            .collect())
    }

    /// Tries to create `node`'s holder key on lease `id`: `Some((token, mark))` if this owner
    /// holds it now (also when an earlier, timed-out attempt of ours created it).
    fn try_claim(&mut self, node: u64, id: i64) -> Result<Option<Claimed>, LeaseError> {
        let (holder, mark) = (self.holder_key(node), self.mark_key(node));
        let record = self.record_key();
        let body = json!({
            "compare": [created_at(&holder, 0)],
            "success": [
                { "request_put": {
                    "key": base64::encode(holder.as_bytes()),
                    "value": base64::encode(self.owner.as_bytes()),
                    "lease": id.to_string(),
                } },
                { "request_range": { "key": base64::encode(mark.as_bytes()) } },
                { "request_range": { "key": base64::encode(record.as_bytes()) } },
            ],
            "failure": [
                { "request_range": { "key": base64::encode(holder.as_bytes()) } },
                { "request_range": { "key": base64::encode(mark.as_bytes()) } },
                { "request_range": { "key": base64::encode(record.as_bytes()) } },
            ],
        });
        let answer = self.call("claim a node", "/v3/kv/txn", body)?;
        let responses = answer["responses"].as_array().cloned().unwrap_or_default();
        let range = |i: usize| {
            responses
                .get(i)
                .map(|r| kvs(&r["response_range"]))
                .unwrap_or_default()
        };
        let stored_mark = range(1).first().and_then(|kv| self.parse_mark(kv));
        let record = range(2).first().and_then(record_kv);
        if let Some(record) = &record {
            self.check_record(record)?;
        }
        // Read in the claim's own transaction: present and settled, the record vouches that
        // etcd lost nothing since (it is linearizable; only a restore brings back an older state).
        let vouched = record
            .as_ref()
            .is_some_and(|r| r.value["settled"].as_bool() == Some(true));
        self.to_settle = match record {
            Some(r) if !vouched => Some((r.create_revision, r.value)),
            _ => None,
        };
        if answer["succeeded"].as_bool() == Some(true) {
            let token = number(&answer["header"]["revision"])
                .ok_or_else(|| malformed("claim a node", &answer))?;
            return Ok(Some((token, stored_mark, vouched)));
        }
        // Held: by us only if an earlier attempt's reply was lost after etcd applied it.
        let holder_kv = range(0);
        let Some(kv) = holder_kv.first() else {
            return Ok(None);
        };
        let ours = text(&kv["value"]).as_deref() == Some(self.owner.as_str())
            && number(&kv["lease"]).and_then(|l| i64::try_from(l).ok()) == Some(id);
        match (ours, number(&kv["create_revision"])) {
            (true, Some(token)) => Ok(Some((token, stored_mark, vouched))),
            _ => Ok(None),
        }
    }

    /// A mark value: its milliseconds and whether this owner wrote it.
    fn parse_mark(&self, kv: &Value) -> Option<(u64, bool)> {
        let value = text(&kv["value"])?;
        let (ms, owner) = value.split_once(' ').unwrap_or((value.as_str(), ""));
        Some((ms.parse().ok()?, owner == self.owner))
    }
}

impl Store for EtcdStore {
    fn claim(&mut self, first: u64, last: u64) -> Result<Option<Claim>, LeaseError> {
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
                }));
            }
        }
        Ok(None)
    }

    fn settle(&mut self) -> Result<bool, LeaseError> {
        let Some((revision, mut value)) = self.to_settle.clone() else {
            return Ok(false);
        };
        value["settled"] = Value::Bool(true);
        let key = self.record_key();
        let body = json!({
            "compare": [created_at(&key, revision)],
            "success": [{ "request_put": {
                "key": base64::encode(key.as_bytes()),
                "value": base64::encode(value.to_string().as_bytes()),
            } }],
            "failure": [],
        });
        let answer = self.call("settle the namespace's record", "/v3/kv/txn", body)?;
        self.to_settle = None;
        Ok(answer["succeeded"].as_bool() == Some(true))
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
        let raise = want_unix_millis > self.mark;
        let (holder, mark) = (self.holder_key(node), self.mark_key(node));
        let put = json!({ "request_put": {
            "key": base64::encode(mark.as_bytes()),
            "value": base64::encode(format!("{want_unix_millis} {}", self.owner).as_bytes()),
        } });
        let body = json!({
            "compare": [created_at(&holder, token)],
            "success": if raise { vec![put] } else { Vec::new() },
            "failure": [],
        });
        let answer = self.call("renew the lease", "/v3/kv/txn", body)?;
        if answer["succeeded"].as_bool() != Some(true) {
            return Ok(None);
        }
        if raise {
            self.mark = want_unix_millis;
        }
        Ok(Some(self.mark))
    }

    fn release(&mut self, mark_unix_millis: Option<u64>) -> Result<(), LeaseError> {
        let Some((node, token)) = self.held.take() else {
            return Ok(());
        };
        let (holder, mark) = (self.holder_key(node), self.mark_key(node));
        let leave = match mark_unix_millis {
            Some(ms) => json!({ "request_put": {
                "key": base64::encode(mark.as_bytes()),
                "value": base64::encode(format!("{ms} {}", self.owner).as_bytes()),
            } }),
            None => json!({ "request_delete_range": { "key": base64::encode(mark.as_bytes()) } }),
        };
        let body = json!({
            "compare": [created_at(&holder, token)],
            "success": [
                leave,
                { "request_delete_range": { "key": base64::encode(holder.as_bytes()) } },
            ],
            "failure": [],
        });
        self.call("release the node", "/v3/kv/txn", body)?;
        if let Some(id) = self.lease.take() {
            self.call(
                "revoke the lease",
                "/v3/lease/revoke",
                json!({ "ID": id.to_string() }),
            )?;
        }
        Ok(())
    }

    fn token(&self) -> Option<u64> {
        self.held.map(|(_, token)| token)
    }
}

/// A transaction's condition: `key` was created at `revision` (0: it does not exist).
fn created_at(key: &str, revision: u64) -> Value {
    json!({
        "key": base64::encode(key.as_bytes()),
        "result": "EQUAL",
        "target": "CREATE",
        "create_revision": revision.to_string(),
    })
}

/// A record's key-value, if it is one (its value JSON).
fn record_kv(kv: &Value) -> Option<RecordKv> {
    Some(RecordKv {
        create_revision: number(&kv["create_revision"])?,
        value: serde_json::from_str(&text(&kv["value"])?).ok()?,
    })
}

/// The key after every key with `prefix` (etcd's `range_end` for a prefix).
fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

/// The `kvs` of a range answer (none when etcd omits the empty list).
fn kvs(range: &Value) -> Vec<Value> {
    range["kvs"].as_array().cloned().unwrap_or_default()
}

/// A base64 field as text.
fn text(v: &Value) -> Option<String> {
    base64::decode(v.as_str()?).and_then(|b| String::from_utf8(b).ok())
}

/// An int64 field: the gateway writes them as strings; 0 is omitted.
fn number(v: &Value) -> Option<u64> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

fn malformed(action: &'static str, answer: &Value) -> LeaseError {
    LeaseError::Etcd {
        action,
        cause: Arc::new(Note::new(format!(
            "an answer without the expected fields: {answer}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::prefix_end;

    #[test]
    fn a_prefix_ends_after_its_last_byte_is_raised() {
        assert_eq!(prefix_end(b"a/b/"), b"a/b0".to_vec());
        assert_eq!(prefix_end(b"a\xff"), b"b".to_vec());
        assert_eq!(prefix_end(b"\xff"), vec![0]);
    }
}
