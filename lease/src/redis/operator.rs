//! The operator's calls on Redis: listing a namespace and raising its floor, each one
//! script (Redis runs a script alone: atomic with every claim, renewal and release).

use std::time::Duration;

use ::redis::Script;

use super::store::{redis_error, RedisStore, GREATER};
use crate::{FloorRaised, FloorReset, LeaseError, NamespaceState, NodeState, RecordState};

/// Returns the record `KEYS[1]` (`HGETALL`, flat) and, for every key matching `ARGV[1]`
/// (the node keys' prefix, glob-escaped, then `*`), flat quintuples `key, holder, pttl_ms,
/// mark_ms, mark_owner` (empty where absent; a holder key and its `:last` mark each give
/// one, joined by the caller).
const LIST: &str = r"
local out = {}
for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
  if string.sub(key, -5) == ':last' then
    local m = redis.call('HMGET', key, 'ms', 'owner')
    table.insert(out, string.sub(key, 1, -6))
    table.insert(out, '')
    table.insert(out, '')
    table.insert(out, m[1] or '')
    table.insert(out, m[2] or '')
  else
    table.insert(out, key)
    table.insert(out, redis.call('GET', key) or '')
    table.insert(out, tostring(redis.call('PTTL', key)))
    table.insert(out, '')
    table.insert(out, '')
  end
end
return {redis.call('HGETALL', KEYS[1]), out}
";

/// Raises every mark matching `ARGV[1]` (the glob-escaped prefix, then `*:last`) below
/// `ARGV[2]` ms to it (owner `raise-floor`), and the record `KEYS[1]`'s `floor_ms` likewise
/// if the record exists, comparing marks as decimal text (exact at any size: see
/// [`GREATER`]). Returns `{record_floor_ms or '', kept, raised keys...}`.
const RAISE: &str = r"
local to = ARGV[2]
local raised, kept = {}, 0
for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
  if greater(to, redis.call('HGET', key, 'ms') or '0') then
    redis.call('HSET', key, 'ms', to, 'owner', 'raise-floor')
    table.insert(raised, key)
  else
    kept = kept + 1
  end
end
local floor = ''
if redis.call('EXISTS', KEYS[1]) == 1 then
  floor = redis.call('HGET', KEYS[1], 'floor_ms') or '0'
  if greater(to, floor) then
    redis.call('HSET', KEYS[1], 'floor_ms', to)
    floor = to
  end
end
local reply = {floor, tostring(kept)}
for _, key in ipairs(raised) do table.insert(reply, key) end
return reply
";

/// Sets every mark matching `ARGV[1]` (the glob-escaped prefix, then `*:last`) that an
/// operator wrote (owner `raise-floor…` or `reset-floor…`) to `ARGV[3]` ms, and raises every
/// other below it to it, each with owner `ARGV[4]` (the audit line); then sets the record
/// `KEYS[1]`'s `floor_ms` to `ARGV[2]` and its `floor_reset` to the audit line, if the
/// record exists. Returns `{the floor before or '', 1 if a record, kept, reset keys...}`.
const RESET: &str = r"
local raised, kept = {}, 0
for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
  local m = redis.call('HMGET', key, 'ms', 'owner')
  local ms, by = m[1] or '0', m[2] or ''
  local operator = string.sub(by, 1, 11) == 'raise-floor' or string.sub(by, 1, 11) == 'reset-floor'
  if (operator and ms ~= ARGV[3]) or greater(ARGV[3], ms) then
    redis.call('HSET', key, 'ms', ARGV[3], 'owner', ARGV[4])
    table.insert(raised, key)
  else
    kept = kept + 1
  end
end
local was, has = '', '0'
if redis.call('EXISTS', KEYS[1]) == 1 then
  was = redis.call('HGET', KEYS[1], 'floor_ms') or ''
  has = '1'
  redis.call('HSET', KEYS[1], 'floor_ms', ARGV[2], 'floor_reset', ARGV[4])
end
local reply = {was, has, tostring(kept)}
for _, key in ipairs(raised) do table.insert(reply, key) end
return reply
";

/// `text` with Redis's glob characters escaped.
fn glob_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub(super) fn list(store: &mut RedisStore) -> Result<NamespaceState, LeaseError> {
    let script = Script::new(LIST);
    let pattern = format!("{}*", glob_escape(&store.prefix));
    let record_key = store.record.key.clone();
    let (record, keys): (Vec<String>, Vec<String>) = store
        .conn
        .with(|_, c| script.key(&record_key).arg(&pattern).invoke(c))
        .map_err(|e| redis_error("list the namespace", e))?;
    let mut nodes: Vec<NodeState> = Vec::new();
    for q in keys.chunks_exact(5) {
        let Some(node) = q[0]
            .strip_prefix(store.prefix.as_str())
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let at = match nodes.iter().position(|n| n.node == node) {
            Some(at) => at,
            None => {
                nodes.push(NodeState {
                    node,
                    holder: None,
                    token: None,
                    lease_left: None,
                    mark_unix_millis: None,
                    mark_owner: None,
                });
                nodes.len() - 1
            }
        };
        let n = &mut nodes[at];
        if !q[1].is_empty() {
            n.holder = Some(q[1].clone());
            n.lease_left = q[2].parse().ok().map(Duration::from_millis);
        }
        if !q[3].is_empty() {
            n.mark_unix_millis = q[3].parse().ok();
            n.mark_owner = Some(q[4].clone());
        }
    }
    Ok(NamespaceState {
        record: record_of(&record),
        nodes,
    })
}

/// A record's `HGETALL`, if it has one.
fn record_of(flat: &[String]) -> Option<RecordState> {
    let field = |name: &str| {
        flat.chunks_exact(2)
            .find(|kv| kv[0] == name)
            .map(|kv| kv[1].clone())
    };
    let server = field("server").unwrap_or_default();
    Some(RecordState {
        incarnation: field("incarnation")?,
        ttl: Duration::from_millis(field("ttl_ms")?.parse().ok()?),
        layout: field("layout").unwrap_or_default(),
        settled: !server.is_empty(),
        stamped_by: (!server.is_empty()).then_some(server),
        floor_unix_millis: field("floor_ms").and_then(|f| f.parse().ok()),
    })
}

pub(super) fn raise_floor(store: &mut RedisStore, to: u64) -> Result<FloorRaised, LeaseError> {
    let script = Script::new(&format!("{GREATER}{RAISE}"));
    let pattern = format!("{}*:last", glob_escape(&store.prefix));
    let record_key = store.record.key.clone();
    let reply: Vec<String> = store
        .conn
        .with(|_, c| script.key(&record_key).arg(&pattern).arg(to).invoke(c))
        .map_err(|e| redis_error("raise the namespace's floor", e))?;
    let raised = reply
        .iter()
        .skip(2)
        .filter_map(|k| k.strip_prefix(store.prefix.as_str()))
        .filter_map(|k| k.strip_suffix(":last"))
        .filter_map(|n| n.parse().ok())
        .collect();
    Ok(FloorRaised {
        floor_unix_millis: reply.first().and_then(|f| f.parse().ok()),
        raised,
        kept: reply.get(1).and_then(|k| k.parse().ok()).unwrap_or(0),
    })
}

pub(super) fn reset_floor(
    store: &mut RedisStore,
    (to, marks): (u64, u64),
    audit: &str,
) -> Result<FloorReset, LeaseError> {
    let script = Script::new(&format!("{GREATER}{RESET}"));
    let pattern = format!("{}*:last", glob_escape(&store.prefix));
    let record_key = store.record.key.clone();
    let reply: Vec<String> = store
        .conn
        .with(|_, c| {
            script
                .key(&record_key)
                .arg(&pattern)
                .arg(to)
                .arg(marks)
                .arg(audit)
                .invoke(c)
        })
        .map_err(|e| redis_error("reset the namespace's floor", e))?;
    let reset = reply
        .iter()
        .skip(3)
        .filter_map(|k| k.strip_prefix(store.prefix.as_str()))
        .filter_map(|k| k.strip_suffix(":last"))
        .filter_map(|n| n.parse().ok())
        .collect();
    Ok(FloorReset {
        floor_was: reply.first().and_then(|f| f.parse().ok()),
        floor_unix_millis: (reply.get(1).map(String::as_str) == Some("1")).then_some(to),
        marks_unix_millis: marks,
        reset,
        kept: reply.get(2).and_then(|k| k.parse().ok()).unwrap_or(0),
    })
}

impl crate::Admin for RedisStore {
    fn clock_unix_millis(&mut self) -> Result<Option<u64>, LeaseError> {
        let (secs, micros): (u64, u64) = self
            .conn
            .with(|_, c| ::redis::cmd("TIME").query(c))
            .map_err(|e| redis_error("read the server's clock", e))?;
        Ok(Some(
            secs.saturating_mul(1_000).saturating_add(micros / 1_000),
        ))
    }

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

#[cfg(test)]
mod tests {
    use super::glob_escape;

    #[test]
    fn a_namespace_s_glob_characters_are_escaped() {
        assert_eq!(
            glob_escape("snowmint:{a*b}?[c]\\:node:"),
            "snowmint:{a\\*b}\\?\\[c\\]\\\\:node:"
        );
    }
}
