//! The operator's calls on PostgreSQL: listing a namespace and raising its floor, each one
//! statement or transaction on the session (no store state needed, so the store calls them
//! and they import nothing of it).

use std::time::Duration;

use tokio_postgres::{Client, IsolationLevel};

use super::connection::Conn;
use crate::{FloorRaised, FloorReset, LeaseError, NamespaceState, NodeState, RecordState};

/// The namespace's record and every node row (a live holder, a mark, or both), read in one
/// snapshot (REPEATABLE READ, read only).
async fn read(
    c: &mut Client,
    ns: &str,
) -> Result<(Option<RecordState>, Vec<NodeState>), tokio_postgres::Error> {
    let tx = c
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await?;
    let record = tx
        .query_opt(
            "SELECT incarnation, ttl_ms, layout, settled_on, floor_ms \
             FROM snowmint_lease_namespace WHERE namespace = $1",
            &[&ns],
        )
        .await?
        .map(|r| {
            let settled_on: Option<String> = r.get(3);
            RecordState {
                incarnation: r.get(0),
                ttl: Duration::from_millis(u64::try_from(r.get::<_, i64>(1)).unwrap_or(0)),
                layout: r.get(2),
                settled: settled_on.is_some(),
                stamped_by: settled_on,
                floor_unix_millis: r
                    .get::<_, Option<i64>>(4)
                    .and_then(|f| u64::try_from(f).ok()),
            }
        });
    let rows = tx
        .query(
            "SELECT node, \
               CASE WHEN expires_at > clock_timestamp() THEN holder END, \
               CASE WHEN expires_at > clock_timestamp() THEN token END, \
               CASE WHEN expires_at > clock_timestamp() \
                 THEN floor(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint END, \
               mark_ms, mark_owner \
             FROM snowmint_lease_node WHERE namespace = $1 ORDER BY node",
            &[&ns],
        )
        .await?;
    tx.commit().await?;
    let unsigned = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok());
    let nodes = rows
        .iter()
        .map(|r| NodeState {
            node: unsigned(r.get(0)).unwrap_or(0),
            holder: r.get(1),
            token: unsigned(r.get(2)),
            lease_left: unsigned(r.get(3)).map(Duration::from_millis),
            mark_unix_millis: unsigned(r.get(4)),
            mark_owner: r.get(5),
        })
        .filter(|n| n.holder.is_some() || n.mark_unix_millis.is_some())
        .collect();
    Ok((record, nodes))
}

pub(super) fn list(conn: &mut Conn, ns: &str) -> Result<NamespaceState, LeaseError> {
    let (record, nodes) = conn.run("list the namespace", async |c| read(c, ns).await)?;
    Ok(NamespaceState { record, nodes })
}

/// In one transaction, with the namespace's record locked (claims wait for it): raises every
/// mark below `to` to it (owner `raise-floor`), counts those at or above it, and raises the
/// record's floor (if the namespace has a record).
async fn raise(
    c: &mut Client,
    ns: &str,
    to: i64,
) -> Result<(Option<i64>, Vec<i64>, i64), tokio_postgres::Error> {
    let tx = c
        .build_transaction()
        .isolation_level(IsolationLevel::ReadCommitted)
        .start()
        .await?;
    let floor: Option<i64> = tx
        .query_opt(
            "UPDATE snowmint_lease_namespace SET floor_ms = GREATEST(coalesce(floor_ms, 0), $2) \
             WHERE namespace = $1 RETURNING floor_ms",
            &[&ns, &to],
        )
        .await?
        .map(|r| r.get(0));
    let raised: Vec<i64> = tx
        .query(
            "UPDATE snowmint_lease_node SET mark_ms = $2, mark_owner = 'raise-floor' \
             WHERE namespace = $1 AND mark_ms < $2 RETURNING node",
            &[&ns, &to],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    // Every mark is at or above `to` now: those not raised were kept.
    let marks: i64 = tx
        .query_one(
            "SELECT count(*) FROM snowmint_lease_node WHERE namespace = $1 AND mark_ms IS NOT NULL",
            &[&ns],
        )
        .await?
        .get(0);
    let kept = marks - i64::try_from(raised.len()).unwrap_or(i64::MAX);
    tx.commit().await?;
    Ok((floor, raised, kept))
}

pub(super) fn raise_floor(conn: &mut Conn, ns: &str, to: u64) -> Result<FloorRaised, LeaseError> {
    let to = i64::try_from(to).unwrap_or(i64::MAX);
    let (floor, raised, kept) = conn.run("raise the namespace's floor", async |c| {
        raise(c, ns, to).await
    })?;
    let mut raised: Vec<u64> = raised
        .into_iter()
        .filter_map(|n| u64::try_from(n).ok())
        .collect();
    raised.sort_unstable();
    Ok(FloorRaised {
        floor_unix_millis: floor.and_then(|f| u64::try_from(f).ok()),
        raised,
        kept: usize::try_from(kept).unwrap_or(usize::MAX),
    })
}

/// In one transaction, with the namespace's record locked (claims wait for it): sets every
/// mark an operator wrote to `marks` and raises every holder's mark below it to it (owner
/// `audit`), then sets the record's floor to `to`. Returns the floor before, whether the
/// namespace has a record, the nodes set and the marks kept.
async fn reset(
    c: &mut Client,
    ns: &str,
    (to, marks): (i64, i64),
    audit: &str,
) -> Result<(Option<i64>, bool, Vec<i64>, i64), tokio_postgres::Error> {
    let tx = c
        .build_transaction()
        .isolation_level(IsolationLevel::ReadCommitted)
        .start()
        .await?;
    let record: Option<Option<i64>> = tx
        .query_opt(
            "SELECT floor_ms FROM snowmint_lease_namespace WHERE namespace = $1 FOR UPDATE",
            &[&ns],
        )
        .await?
        .map(|r| r.get(0));
    let reset: Vec<i64> = tx
        .query(
            "UPDATE snowmint_lease_node SET mark_ms = $2, mark_owner = $3 \
             WHERE namespace = $1 AND mark_ms IS NOT NULL AND ( \
               (mark_owner LIKE 'raise-floor%' OR mark_owner LIKE 'reset-floor%') AND mark_ms <> $2 \
               OR mark_ms < $2) \
             RETURNING node",
            &[&ns, &marks, &audit],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let all: i64 = tx
        .query_one(
            "SELECT count(*) FROM snowmint_lease_node WHERE namespace = $1 AND mark_ms IS NOT NULL",
            &[&ns],
        )
        .await?
        .get(0);
    tx.execute(
        "UPDATE snowmint_lease_namespace SET floor_ms = $2 WHERE namespace = $1",
        &[&ns, &to],
    )
    .await?;
    tx.commit().await?;
    let kept = all - i64::try_from(reset.len()).unwrap_or(i64::MAX);
    Ok((record.flatten(), record.is_some(), reset, kept))
}

pub(super) fn reset_floor(
    conn: &mut Conn,
    ns: &str,
    (to, marks): (u64, u64),
    audit: &str,
) -> Result<FloorReset, LeaseError> {
    let big = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    let (was, has_record, reset, kept) = conn.run("reset the namespace's floor", async |c| {
        self::reset(c, ns, (big(to), big(marks)), audit).await
    })?;
    let mut reset: Vec<u64> = reset
        .into_iter()
        .filter_map(|n| u64::try_from(n).ok())
        .collect();
    reset.sort_unstable();
    Ok(FloorReset {
        floor_was: was.and_then(|f| u64::try_from(f).ok()),
        floor_unix_millis: has_record.then_some(big(to).unsigned_abs()),
        marks_unix_millis: big(marks).unsigned_abs(),
        reset,
        kept: usize::try_from(kept).unwrap_or(usize::MAX),
    })
}

impl crate::Admin for super::store::PostgresStore {
    fn clock_unix_millis(&mut self) -> Result<Option<u64>, LeaseError> {
        let ms: i64 = self.conn.run("read the server's clock", async |c| {
            Ok(c.query_one(
                "SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                &[],
            )
            .await?
            .get(0))
        })?;
        Ok(u64::try_from(ms).ok())
    }

    fn reset_floor(
        &mut self,
        to_unix_millis: u64,
        marks_unix_millis: u64,
        audit: &str,
    ) -> Result<FloorReset, LeaseError> {
        reset_floor(
            &mut self.conn,
            &self.namespace,
            (to_unix_millis, marks_unix_millis),
            audit,
        )
    }

    fn list(&mut self) -> Result<NamespaceState, LeaseError> {
        list(&mut self.conn, &self.namespace)
    }

    fn raise_floor(&mut self, to_unix_millis: u64) -> Result<FloorRaised, LeaseError> {
        raise_floor(&mut self.conn, &self.namespace, to_unix_millis)
    }
}
