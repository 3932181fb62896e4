//! The lease's Redis side: its three scripts, the connection that runs them, and
//! [`RedisStore`], the [`Store`] built on them.

use std::time::Duration;

use ::redis::{Client, Connection, RedisResult, Script};

use crate::keeper::millis;
use crate::store::{Claim, Store};
use crate::{LeaseError, StoreError, StoreErrorKind};

/// The identity of the server that runs a script: its `run_id` (new at every start) and its
/// `master_replid` (new at every promotion, and taken from the master while a replica), so
/// that a server that loaded an older snapshot, or was given another server's data, never
/// passes for the one that settled the record. `INFO` may be called from a script (checked
/// on Redis 7.0).
const SERVER_ID: &str = r"
local function server_id()
  local s = redis.call('INFO', 'server')
  local r = redis.call('INFO', 'replication')
  return (string.match(s, 'run_id:(%x+)') or '?') .. '/' .. (string.match(r, 'master_replid:(%x+)') or '?')
end
";

/// Checks the namespace's record `ARGV[7]` (created, unsettled, if absent; a record with
/// another TTL or layout returns `{-2, its ttl_ms, its layout}`), then takes the first free
/// node of `ARGV[2]..=ARGV[3]` with `SET owner_key owner NX PX ttl`, scanning from `ARGV[4]`
/// and wrapping, and returns `{node, mark_ms, mark_owner, vouched, server, incarnation}`
/// (`-1` when every node is held). `vouched` is 1 when the record was settled by this very
/// server. Atomic: Redis runs a script alone, so two acquirers never both see a node free,
/// and the record is read with the claim. Keys are built inside the script, so it needs a
/// single Redis (or one cluster slot: put the namespace in braces).
///
/// ARGV: prefix, first, last, start, owner, ttl_ms, record key, layout, incarnation.
const ACQUIRE: &str = r"
local prefix, owner, ttl = ARGV[1], ARGV[5], ARGV[6]
local first, last, start = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local here = server_id()
local rec = redis.call('HMGET', ARGV[7], 'ttl_ms', 'layout', 'server', 'incarnation', 'floor_ms')
local settled = false
if not rec[1] then
  redis.call('HSET', ARGV[7], 'incarnation', ARGV[9], 'ttl_ms', ttl, 'layout', ARGV[8], 'server', '')
  rec[4] = ARGV[9]
elseif rec[1] ~= ttl or rec[2] ~= ARGV[8] then
  return {-2, rec[1], rec[2] or '', 0, '', ''}
else
  settled = rec[3] == here
end
local n = last - first + 1
for i = 0, n - 1 do
  local node = first + (start - first + i) % n
  local key = prefix .. node
  if redis.call('SET', key, owner, 'NX', 'PX', ttl) then
    local mark = redis.call('HMGET', key .. ':last', 'ms', 'owner')
    if rec[5] and greater(rec[5], mark[1] or '0') then
      mark = {rec[5], 'raise-floor'}
    end
    return {node, mark[1] or '', mark[2] or '', settled and 1 or 0, here, rec[4]}
  end
end
return {-1, '', '', 0, '', ''}
";

/// Settles the record `KEYS[1]` (its `server` set to this server's identity) if it is still
/// incarnation `ARGV[1]` and this server is still `ARGV[2]`, the one the claim was made on:
/// 1, else 0.
const SETTLE: &str = r"
if redis.call('HGET', KEYS[1], 'incarnation') ~= ARGV[1] then return 0 end
if server_id() ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'server', ARGV[2])
return 1
";

/// `a > b` for two marks in decimal (as the lease writes them: digits, no leading zero),
/// exactly: Lua's numbers are doubles, which round marks past 2^53 and overflow Redis's
/// integer replies past 2^63, so marks are compared and returned as text.
pub(super) const GREATER: &str = r"
local function greater(a, b)
  if #a ~= #b then return #a > #b end
  return a > b
end
";

/// If `KEYS[1]` is still held by `ARGV[1]`: extends it by `ARGV[2]` ms, raises the mark in
/// `KEYS[2]` to `ARGV[3]` (never lowers it) and returns the mark now stored (decimal text,
/// whatever its size: a floor raised far ahead is a mark like any other); else `''`.
const RENEW: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return '' end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local stored = redis.call('HGET', KEYS[2], 'ms') or '0'
if greater(ARGV[3], stored) then
  redis.call('HSET', KEYS[2], 'ms', ARGV[3], 'owner', ARGV[1])
  stored = ARGV[3]
end
return stored
";

/// If `KEYS[1]` is still held by `ARGV[1]`: leaves `ARGV[2]` (the last time issued; empty if
/// nothing was issued and nothing found) as the mark in `KEYS[2]` and frees the node.
/// Never lowers a mark below the floor of the record `KEYS[3]`, nor one another writer
/// raised (`raise-floor`): the mark left is the highest of `ARGV[2]`, that floor, and the
/// stored mark unless this owner wrote it (its own reservation may come down to what it
/// issued). Returns 1, or 0 if the node was not held.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local leave, by = ARGV[2], ARGV[1]
local mark = redis.call('HMGET', KEYS[2], 'ms', 'owner')
if mark[1] and mark[2] ~= ARGV[1] and (leave == '' or greater(mark[1], leave)) then
  leave, by = mark[1], mark[2] or ''
end
local floor = redis.call('HGET', KEYS[3], 'floor_ms')
if floor and (leave == '' or greater(floor, leave)) then
  leave, by = floor, 'raise-floor'
end
if leave == '' then
  redis.call('DEL', KEYS[2])
else
  redis.call('HSET', KEYS[2], 'ms', leave, 'owner', by)
end
redis.call('DEL', KEYS[1])
return 1
";

/// A node taken by [`Scripts::acquire`]: its number, and the mark its last owner left.
pub(super) struct Taken {
    pub(super) node: u64,
    /// The stored mark, Unix milliseconds (none if never set).
    pub(super) mark: Option<u64>,
    /// Who wrote the mark.
    pub(super) mark_owner: String,
    /// Whether the record was settled by the server that answered.
    pub(super) vouched: bool,
    /// That server's identity, and the record's incarnation: what a settle must find again.
    pub(super) settle: (String, String),
}

/// What [`Conn::acquire`] found.
pub(super) enum Acquired {
    Taken(Taken),
    /// Every node of the range is held.
    AllHeld,
    /// The record holds another TTL (ms) and layout.
    Mismatch {
        ttl_ms: u64,
        layout: String,
    },
}

/// A connection to Redis with the lease's scripts, reconnecting after errors.
pub(super) struct Conn {
    client: Client,
    conn: Option<Connection>,
    timeout: Duration,
    acquire: Script,
    renew: Script,
    release: Script,
    settle: Script,
}

impl Conn {
    pub(super) fn new(client: Client, timeout: Duration) -> Conn {
        Conn {
            client,
            conn: None,
            timeout,
            acquire: Script::new(&format!("{SERVER_ID}{GREATER}{ACQUIRE}")),
            renew: Script::new(&format!("{GREATER}{RENEW}")),
            release: Script::new(&format!("{GREATER}{RELEASE}")),
            settle: Script::new(&format!("{SERVER_ID}{SETTLE}")),
        }
    }

    /// Runs `f` on the connection, connecting first if needed; drops the connection on any
    /// error, so that the next call reconnects rather than read a late reply to this one.
    /// The connection and its handshake together take at most the I/O timeout, and each
    /// reply waits at most as long; a timeout's error says which and how long.
    pub(super) fn with<T>(
        &mut self,
        f: impl FnOnce(&Scripts<'_>, &mut Connection) -> RedisResult<T>,
    ) -> RedisResult<T> {
        if self.conn.is_none() {
            let c = self
                .connect()
                .map_err(|e| timed_out(e, self.timeout, "connecting"))?;
            self.conn = Some(c);
        }
        let scripts = Scripts {
            acquire: &self.acquire,
            renew: &self.renew,
            release: &self.release,
            settle: &self.settle,
        };
        let result = match self.conn.as_mut() {
            Some(c) => f(&scripts, c),
            None => Err(std::io::Error::other("not connected").into()),
        };
        if result.is_err() {
            self.conn = None;
        }
        result.map_err(|e| timed_out(e, self.timeout, "waiting for a reply"))
    }

    /// Connects within the I/O timeout. The client waits up to the time left for each reply
    /// of its handshake (`AUTH`, `SELECT`), so it is given the timeout shared among them.
    fn connect(&self) -> RedisResult<Connection> {
        let settings = self.client.get_connection_info().redis_settings();
        let replies = u32::from(settings.password().is_some())
            + u32::from(settings.db() != 0)
            + if settings.skip_set_lib_name() { 0 } else { 2 };
        let c = self
            .client
            .get_connection_with_timeout(self.timeout / replies.max(1))?;
        c.set_read_timeout(Some(self.timeout))?;
        c.set_write_timeout(Some(self.timeout))?;
        Ok(c)
    }

    /// Takes a free node of `first..=last`, trying `start` first, checking the namespace's
    /// record (`record`: its key, this holder's layout and a new incarnation).
    pub(super) fn acquire(
        &mut self,
        prefix: &str,
        (first, last, start): (u64, u64, u64),
        owner: &str,
        ttl: Duration,
        record: &Record,
    ) -> RedisResult<Acquired> {
        let ttl_ms = millis(ttl);
        type Reply = (i64, String, String, i64, String, String);
        let (node, mark, mark_owner, vouched, server, incarnation): Reply = self.with(|s, c| {
            s.acquire
                .prepare_invoke()
                .arg(prefix)
                .arg(first)
                .arg(last)
                .arg(start)
                .arg(owner)
                .arg(ttl_ms)
                .arg(&record.key)
                .arg(&record.layout)
                .arg(record.incarnation)
                .invoke(c)
        })?;
        Ok(match node {
            -2 => Acquired::Mismatch {
                ttl_ms: mark.parse().unwrap_or(0),
                layout: mark_owner,
            },
            _ => match u64::try_from(node) {
                Ok(node) => Acquired::Taken(Taken {
                    node,
                    mark: mark.parse().ok(),
                    mark_owner,
                    vouched: vouched == 1,
                    settle: (server, incarnation),
                }),
                Err(_) => Acquired::AllHeld,
            },
        })
    }

    /// Settles the record if it is still `incarnation` on the server `server`.
    pub(super) fn settle(
        &mut self,
        key: &str,
        (server, incarnation): &(String, String),
    ) -> RedisResult<bool> {
        let done: i64 =
            self.with(|s, c| s.settle.key(key).arg(incarnation).arg(server).invoke(c))?;
        Ok(done == 1)
    }

    /// Extends the lease and raises the mark to `want_ms`: the mark now stored, or `None` if
    /// the node is not held by `owner`.
    pub(super) fn renew(
        &mut self,
        keys: &Keys,
        owner: &str,
        ttl: Duration,
        want_ms: u64,
    ) -> RedisResult<Option<u64>> {
        let ttl_ms = millis(ttl);
        let stored: String = self.with(|s, c| {
            s.renew
                .key(&keys.owner)
                .key(&keys.mark)
                .arg(owner)
                .arg(ttl_ms)
                .arg(want_ms)
                .invoke(c)
        })?;
        if stored.is_empty() {
            return Ok(None);
        }
        stored.parse().map(Some).map_err(|_| {
            ::redis::RedisError::from((
                ::redis::ErrorKind::Parse,
                "the renewal's mark is not a number",
                stored,
            ))
        })
    }

    /// Frees the node, leaving `mark` (or no mark) for the next owner, but never less than
    /// the floor of the record `record_key` or a mark another writer raised.
    pub(super) fn release(
        &mut self,
        keys: &Keys,
        record_key: &str,
        owner: &str,
        mark: Option<u64>,
    ) -> RedisResult<bool> {
        let mark = mark.map(|m| m.to_string()).unwrap_or_default();
        let freed: i64 = self.with(|s, c| {
            s.release
                .key(&keys.owner)
                .key(&keys.mark)
                .key(record_key)
                .arg(owner)
                .arg(mark)
                .invoke(c)
        })?;
        Ok(freed == 1)
    }
}

pub(super) struct Scripts<'a> {
    acquire: &'a Script,
    renew: &'a Script,
    release: &'a Script,
    settle: &'a Script,
}

/// The namespace's record, as this holder would write it: a hash at `key` with
/// `incarnation`, `ttl_ms`, `layout` and `server` (empty until settled).
pub(super) struct Record {
    pub(super) key: String,
    pub(super) layout: String,
    pub(super) incarnation: u64,
}

/// The two keys of one node.
pub(super) struct Keys {
    /// Holds the owner's token, with the TTL.
    pub(super) owner: String,
    /// A hash: `ms`, the high-water mark of issued time; `owner`, who wrote it.
    pub(super) mark: String,
}

impl Keys {
    pub(super) fn new(prefix: &str, node: u64) -> Keys {
        Keys {
            owner: format!("{prefix}{node}"),
            mark: format!("{prefix}{node}:last"),
        }
    }
}

/// One owner's lease in Redis.
pub struct RedisStore {
    pub(super) conn: Conn,
    pub(super) prefix: String,
    pub(super) owner: String,
    pub(super) ttl: Duration,
    /// The keys of the node claimed last.
    pub(super) keys: Option<Keys>,
    /// The namespace's record, as this holder would write it.
    pub(super) record: Record,
    /// The namespace, for messages.
    pub(super) namespace: String,
    /// What the last unvouched claim saw: the server and the record's incarnation.
    pub(super) to_settle: Option<(String, String)>,
}

impl Store for RedisStore {
    fn claim(&mut self, first: u64, last: u64) -> Result<Option<Claim>, LeaseError> {
        let acquired = self
            .conn
            .acquire(
                &self.prefix,
                (first, last, first),
                &self.owner,
                self.ttl,
                &self.record,
            )
            .map_err(|e| redis_error("acquire a node", e))?;
        let t = match acquired {
            Acquired::Taken(t) => t,
            Acquired::AllHeld => return Ok(None),
            Acquired::Mismatch { ttl_ms, layout } => {
                return Err(LeaseError::Mismatch {
                    namespace: self.namespace.clone(),
                    record_ttl: Duration::from_millis(ttl_ms),
                    record_layout: layout,
                    ttl: self.ttl,
                    layout: self.record.layout.clone(),
                })
            }
        };
        self.keys = Some(Keys::new(&self.prefix, t.node));
        self.to_settle = (!t.vouched).then_some(t.settle);
        Ok(Some(Claim {
            node: t.node,
            mark: t.mark,
            mark_is_ours: t.mark_owner == self.owner,
            vouched: t.vouched,
            restore_sign: None,
        }))
    }

    fn settle(&mut self) -> Result<bool, LeaseError> {
        let Some(seen) = &self.to_settle else {
            return Ok(false);
        };
        let done = self
            .conn
            .settle(&self.record.key, seen)
            .map_err(|e| redis_error("settle the namespace's record", e))?;
        self.to_settle = None;
        Ok(done)
    }

    fn renew(&mut self, want_unix_millis: u64) -> Result<Option<u64>, LeaseError> {
        let Some(keys) = &self.keys else {
            return Ok(None);
        };
        self.conn
            .renew(keys, &self.owner, self.ttl, want_unix_millis)
            .map_err(|e| redis_error("renew the lease", e))
    }

    fn release(&mut self, mark_unix_millis: Option<u64>) -> Result<(), LeaseError> {
        let Some(keys) = &self.keys else {
            return Ok(());
        };
        self.conn
            .release(keys, &self.record.key, &self.owner, mark_unix_millis)
            .map(drop)
            .map_err(|e| redis_error("release the lease", e))
    }

    fn token(&self) -> Option<u64> {
        None
    }
}

/// `e` in words if it is a timeout (the client says "Resource temporarily unavailable"):
/// which wait, and the I/O timeout's value; any other error as it is.
fn timed_out(e: ::redis::RedisError, timeout: Duration, during: &str) -> ::redis::RedisError {
    if !e.is_timeout() {
        return e;
    }
    std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!(
            "no answer within the I/O timeout ({timeout:?}) while {during}: check that the \
             Redis server runs, is reachable from here and is not overloaded"
        ),
    )
    .into()
}

/// A Redis error while `action`, in this crate's terms: its kind and the client's message.
pub(super) fn redis_error(action: &'static str, e: ::redis::RedisError) -> LeaseError {
    let kind = if e.is_io_error()
        || e.is_timeout()
        || e.is_connection_refusal()
        || e.is_connection_dropped()
    {
        StoreErrorKind::Unreachable
    } else {
        match e.kind() {
            ::redis::ErrorKind::InvalidClientConfig => StoreErrorKind::Settings,
            ::redis::ErrorKind::Parse | ::redis::ErrorKind::UnexpectedReturnType => {
                StoreErrorKind::Unexpected
            }
            _ => StoreErrorKind::Refused,
        }
    };
    LeaseError::Store {
        store: "redis",
        action,
        cause: StoreError::new(kind, e.to_string()),
    }
}
