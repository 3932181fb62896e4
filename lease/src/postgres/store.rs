//! [`PostgresStore`]: the lease's statements (claim, renew, release, settle), each one
//! transaction, and the [`Store`] built on them.

use std::time::Duration;

use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, IsolationLevel};

use super::connection::Conn;
use super::schema::{DURABLE, IDENTITY};
use crate::keeper::millis;
use crate::LeaseError;
use crate::{Claim, Store};

/// One owner's lease in PostgreSQL.
pub struct PostgresStore {
    pub(super) conn: Conn,
    pub(super) namespace: String,
    pub(super) owner: String,
    pub(super) ttl: Duration,
    /// This holder's layout, as the record must hold it (empty for an operator's call).
    pub(super) layout: String,
    /// The incarnation a record made by this holder gets.
    pub(super) incarnation: String,
    /// The node claimed last and its fencing token.
    pub(super) held: Option<(u64, u64)>,
    /// What the last unvouched claim saw: the record's incarnation and the server's
    /// identity, which a settle must find again.
    pub(super) to_settle: Option<(String, String)>,
    /// Why the last claim was not vouched for (`None` after a vouched one).
    pub(super) unvouched_why: Option<String>,
}

/// What a claim found.
enum Claimed {
    Taken {
        node: u64,
        token: u64,
        mark: Option<u64>,
        mark_owner: Option<String>,
        vouched: bool,
        /// Why it is not vouched.
        why: Option<String>,
        /// The record's incarnation and this server's identity.
        seen: (String, String),
    },
    AllHeld,
    Mismatch {
        ttl_ms: u64,
        layout: String,
    },
}

/// A `u64` as a `bigint` (every value the lease stores is below 2^63).
fn big(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// A `bigint` read back as a `u64` (negative values are none the lease wrote).
fn unbig(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// The claim's transaction, under READ COMMITTED: makes the namespace's record if absent and
/// locks it (claims of one namespace queue there), checks its TTL and layout, takes the
/// first free node of `first..=last` (an existing row whose hold expired on the server's
/// clock, locked with `SKIP LOCKED`, or a node with no row yet: the lower of the two; both
/// looked for again once if neither was found, as a row a renewal held locked is skipped),
/// raises the namespace's fencing counter and gives the node to `owner` until
/// `clock_timestamp() + ttl`. A claim the store does not vouch for raises the counter to at
/// least the server's Unix milliseconds times 1,024, so that a token given before a restore
/// to an earlier point is not given again.
async fn claim(
    c: &mut Client,
    s: (&str, &str, &str, &str),
    ttl_ms: i64,
    (first, last): (i64, i64),
) -> Result<Claimed, tokio_postgres::Error> {
    let (ns, owner, layout, incarnation) = s;
    let tx = c
        .build_transaction()
        .isolation_level(IsolationLevel::ReadCommitted)
        .start()
        .await?;
    // Every statement with typed parameters: parse, bind and execute in one round trip, where
    // an untyped one prepares first and waits for that answer (a claim is seven statements:
    // on a loaded server the extra round trips alone outlasted the I/O timeout).
    tx.execute_typed(
        "INSERT INTO snowmint_lease_namespace (namespace, incarnation, ttl_ms, layout) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (namespace) DO NOTHING",
        &[
            (&ns, Type::TEXT),
            (&incarnation, Type::TEXT),
            (&ttl_ms, Type::INT8),
            (&layout, Type::TEXT),
        ],
    )
    .await?;
    let rec = tx
        .query_typed_one(
            &format!(
                "SELECT incarnation, ttl_ms, layout, settled_on, floor_ms, {IDENTITY}, {DURABLE} \
                 FROM snowmint_lease_namespace WHERE namespace = $1 FOR UPDATE"
            ),
            &[(&ns, Type::TEXT)],
        )
        .await?;
    let rec_incarnation: String = rec.get(0);
    let (rec_ttl, rec_layout): (i64, String) = (rec.get(1), rec.get(2));
    if rec_ttl != ttl_ms || rec_layout != layout {
        tx.rollback().await?;
        return Ok(Claimed::Mismatch {
            ttl_ms: unbig(rec_ttl),
            layout: rec_layout,
        });
    }
    let settled_on: Option<String> = rec.get(3);
    let floor: Option<i64> = rec.get(4);
    let here: String = rec.get(5);
    let durable: bool = rec.get(6);
    let why = match settled_on.as_deref() {
        _ if !durable => Some("fsync is off on the server: a crash may lose commits".to_string()),
        None => None,
        Some(s) if s == here => None,
        Some(s) => Some(format!(
            "the record was settled on system/timeline {s}, the server is now {here}: a \
             promoted standby, a point-in-time recovery or a copy"
        )),
    };
    let vouched = durable && settled_on.as_deref() == Some(here.as_str());
    let mut pick: Option<(i64, Option<i64>, Option<String>)> = None;
    for _ in 0..2 {
        let range: [(&(dyn ToSql + Sync), Type); 3] =
            [(&ns, Type::TEXT), (&first, Type::INT8), (&last, Type::INT8)];
        let free = tx
            .query_typed_opt(
                "SELECT node, mark_ms, mark_owner FROM snowmint_lease_node \
                 WHERE namespace = $1 AND node BETWEEN $2 AND $3 \
                   AND (holder IS NULL OR expires_at <= clock_timestamp()) \
                 ORDER BY node LIMIT 1 FOR UPDATE SKIP LOCKED",
                &range,
            )
            .await?
            .map(|r| (r.get::<_, i64>(0), r.get(1), r.get(2)));
        let fresh: Option<i64> = tx
            .query_typed_opt(
                "SELECT g.n FROM generate_series($2::bigint, $3::bigint) AS g(n) \
                 WHERE NOT EXISTS (SELECT 1 FROM snowmint_lease_node \
                                   WHERE namespace = $1 AND node = g.n) \
                 ORDER BY g.n LIMIT 1",
                &range,
            )
            .await?
            .map(|r| r.get(0));
        pick = match (free, fresh) {
            (Some(f), Some(n)) if f.0 < n => Some(f),
            (_, Some(n)) => {
                let made = tx
                    .execute_typed(
                        "INSERT INTO snowmint_lease_node (namespace, node) VALUES ($1, $2) \
                         ON CONFLICT DO NOTHING",
                        &[(&ns, Type::TEXT), (&n, Type::INT8)],
                    )
                    .await?;
                (made == 1).then_some((n, None, None))
            }
            (free, None) => free,
        };
        if pick.is_some() {
            break;
        }
    }
    let Some((node, mark, mark_owner)) = pick else {
        tx.rollback().await?;
        return Ok(Claimed::AllHeld);
    };
    let token: i64 = tx
        .query_typed_one(
            "UPDATE snowmint_lease_namespace SET token = CASE WHEN $2 THEN token + 1 \
               ELSE GREATEST(token + 1, \
                 floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint * 1024) END \
             WHERE namespace = $1 RETURNING token",
            &[(&ns, Type::TEXT), (&vouched, Type::BOOL)],
        )
        .await?
        .get(0);
    tx.execute_typed(
        "UPDATE snowmint_lease_node SET holder = $3, token = $4, \
           expires_at = clock_timestamp() + ($5::bigint)::float8 * interval '1 millisecond' \
         WHERE namespace = $1 AND node = $2",
        &[
            (&ns, Type::TEXT),
            (&node, Type::INT8),
            (&owner, Type::TEXT),
            (&token, Type::INT8),
            (&ttl_ms, Type::INT8),
        ],
    )
    .await?;
    tx.commit().await?;
    let (mark, mark_owner) = match (floor, mark) {
        (Some(f), m) if m.is_none_or(|m| f > m) => (Some(f), Some("raise-floor".to_string())),
        (_, m) => (m, mark_owner),
    };
    Ok(Claimed::Taken {
        node: unbig(node),
        token: unbig(token),
        mark: mark.map(unbig),
        mark_owner,
        vouched,
        why,
        seen: (rec_incarnation, here),
    })
}

impl Store for PostgresStore {
    fn claim(&mut self, first: u64, last: u64) -> Result<Option<Claim>, LeaseError> {
        let s = (
            self.namespace.as_str(),
            self.owner.as_str(),
            self.layout.as_str(),
            self.incarnation.as_str(),
        );
        let ttl_ms = big(millis(self.ttl));
        let claimed = self.conn.run("acquire a node", async |c| {
            claim(c, s, ttl_ms, (big(first), big(last))).await
        })?;
        match claimed {
            Claimed::AllHeld => Ok(None),
            Claimed::Mismatch { ttl_ms, layout } => Err(LeaseError::Mismatch {
                namespace: self.namespace.clone(),
                record_ttl: Duration::from_millis(ttl_ms),
                record_layout: layout,
                ttl: self.ttl,
                layout: self.layout.clone(),
            }),
            Claimed::Taken {
                node,
                token,
                mark,
                mark_owner,
                vouched,
                why,
                seen,
            } => {
                self.held = Some((node, token));
                self.to_settle = (!vouched).then_some(seen);
                self.unvouched_why = (!vouched).then(|| {
                    why.clone().unwrap_or_else(|| {
                        "the namespace's record is not settled yet (a new namespace, or its rows \
                         deleted): no claim on this server has outlasted the forgetting rule"
                            .to_string()
                    })
                });
                if let Some(why) = why {
                    snowmint::fence::events::lease_unvouched(node, &why);
                }
                Ok(Some(Claim {
                    node,
                    mark,
                    mark_is_ours: mark_owner.as_deref() == Some(self.owner.as_str()),
                    vouched,
                    restore_sign: None,
                }))
            }
        }
    }

    fn renew(&mut self, want_unix_millis: u64) -> Result<Option<u64>, LeaseError> {
        let Some((node, token)) = self.held else {
            return Ok(None);
        };
        let (ns, owner) = (self.namespace.as_str(), self.owner.as_str());
        let (node, token, want) = (big(node), big(token), big(want_unix_millis));
        let ttl_ms = big(millis(self.ttl));
        // Typed parameters: one round trip (parse, bind and execute sent together), where an
        // untyped query prepares first and waits for that answer, a second round trip that a
        // loaded server can delay past the hold's window.
        let row = self.conn.run("renew the lease", async |c| {
            c.query_typed_opt(
                "UPDATE snowmint_lease_node SET \
                   expires_at = clock_timestamp() + ($5::bigint)::float8 * interval '1 millisecond', \
                   mark_owner = CASE WHEN $6 > coalesce(mark_ms, 0) THEN $3 ELSE mark_owner END, \
                   mark_ms = CASE WHEN $6 > coalesce(mark_ms, 0) THEN $6 ELSE mark_ms END \
                 WHERE namespace = $1 AND node = $2 AND holder = $3 AND token = $4 \
                   AND expires_at > clock_timestamp() \
                 RETURNING coalesce(mark_ms, 0)",
                &[
                    (&ns, Type::TEXT),
                    (&node, Type::INT8),
                    (&owner, Type::TEXT),
                    (&token, Type::INT8),
                    (&ttl_ms, Type::INT8),
                    (&want, Type::INT8),
                ],
            )
            .await
        })?;
        Ok(row.map(|r| unbig(r.get(0))))
    }

    fn release(&mut self, mark_unix_millis: Option<u64>) -> Result<(), LeaseError> {
        let Some((node, token)) = self.held else {
            return Ok(());
        };
        let (ns, owner) = (self.namespace.as_str(), self.owner.as_str());
        let (node, token, mark) = (big(node), big(token), mark_unix_millis.map(big));
        // The mark left is the highest of this owner's last time, the namespace's floor, and
        // the stored mark unless this owner wrote it (a mark raised by another writer); a
        // node left with none of them has no row (deleted first, else updated). Typed
        // parameters, as the claim's: one round trip per statement.
        self.conn.run("release the lease", async |c| {
            let params: [(&(dyn ToSql + Sync), Type); 5] = [
                (&ns, Type::TEXT),
                (&node, Type::INT8),
                (&owner, Type::TEXT),
                (&token, Type::INT8),
                (&mark, Type::INT8),
            ];
            c.execute_typed(
                "DELETE FROM snowmint_lease_node AS n \
                 WHERE n.namespace = $1 AND n.node = $2 AND n.holder = $3 AND n.token = $4 \
                   AND $5::bigint IS NULL \
                   AND (n.mark_ms IS NULL OR n.mark_owner IS NOT DISTINCT FROM $3) \
                   AND NOT EXISTS (SELECT 1 FROM snowmint_lease_namespace \
                                   WHERE namespace = $1 AND floor_ms IS NOT NULL)",
                &params,
            )
            .await?;
            let leave = "GREATEST($5::bigint, f.floor_ms, \
                 CASE WHEN n.mark_owner IS DISTINCT FROM $3 THEN n.mark_ms END)";
            c.execute_typed(
                &format!(
                    "UPDATE snowmint_lease_node AS n SET holder = NULL, token = NULL, \
                       expires_at = NULL, mark_ms = {leave}, \
                       mark_owner = CASE {leave} WHEN $5::bigint THEN $3 \
                         WHEN f.floor_ms THEN 'raise-floor' ELSE n.mark_owner END \
                     FROM (SELECT max(floor_ms) AS floor_ms FROM snowmint_lease_namespace \
                           WHERE namespace = $1) AS f \
                     WHERE n.namespace = $1 AND n.node = $2 AND n.holder = $3 AND n.token = $4"
                ),
                &params,
            )
            .await
        })?;
        Ok(())
    }

    fn settle(&mut self) -> Result<bool, LeaseError> {
        let Some((incarnation, here)) = self.to_settle.clone() else {
            return Ok(false);
        };
        let ns = self.namespace.as_str();
        let done = self
            .conn
            .run("settle the namespace's record", async |c| {
                c.execute_typed(
                    &format!(
                        "UPDATE snowmint_lease_namespace SET settled_on = $3 \
                         WHERE namespace = $1 AND incarnation = $2 AND {IDENTITY} = $3 AND {DURABLE}"
                    ),
                    &[
                        (&ns, Type::TEXT),
                        (&incarnation, Type::TEXT),
                        (&here, Type::TEXT),
                    ],
                )
                .await
            })?;
        self.to_settle = None;
        Ok(done == 1)
    }

    fn unvouched_why(&self) -> Option<String> {
        self.unvouched_why.clone()
    }

    fn token(&self) -> Option<u64> {
        self.held.map(|(_, token)| token)
    }
}
