//! The round-trip time of a PostgreSQL lease renewal (the one guarded `UPDATE` that extends
//! the hold on the server's clock and raises the mark, committed with `synchronous_commit =
//! on` and `fsync` on) on a throw-away cluster over loopback, sent as the lease sends it.
//! Ignored: a measurement, not a check; run it with
//! `cargo test --release -p snowmint-lease --features postgres --test postgres_rtt -- --ignored
//! --nocapture`.
#![cfg(feature = "postgres")]

#[path = "common/pg_cluster.rs"]
mod pg_cluster;

use std::time::{Duration, Instant};

use pg_cluster::Cluster;
use postgres::types::Type;
use postgres::{Client, NoTls};
use snowmint_lease::postgres::PostgresLease;

const ROUNDS: usize = 1000;

#[test]
#[ignore]
fn renewal_round_trip() {
    let Some(pg) = Cluster::start("rtt", &[], "host all all 127.0.0.1/32 trust") else {
        return;
    };
    // The lease makes its tables.
    PostgresLease::builder(&pg.url("postgres"))
        .expect("url")
        .build()
        .expect("settings")
        .list()
        .expect("tables made");
    pg.psql(
        "INSERT INTO snowmint_lease_namespace (namespace, incarnation, ttl_ms, layout) \
         VALUES ('rtt', '1', 10000, 'x'); \
         INSERT INTO snowmint_lease_node (namespace, node, holder, token, expires_at) \
         VALUES ('rtt', 1, 'me', 1, clock_timestamp() + interval '1 hour')",
    );
    let mut db = Client::connect(&pg.url("postgres"), NoTls).expect("connect");
    db.batch_execute("SET synchronous_commit = on")
        .expect("set");
    // As the lease sends it: typed parameters, parse, bind and execute in one round trip.
    let renew = "UPDATE snowmint_lease_node SET \
               expires_at = clock_timestamp() + ($5::bigint)::float8 * interval '1 millisecond', \
               mark_owner = CASE WHEN $6 > coalesce(mark_ms, 0) THEN $3 ELSE mark_owner END, \
               mark_ms = CASE WHEN $6 > coalesce(mark_ms, 0) THEN $6 ELSE mark_ms END \
             WHERE namespace = $1 AND node = $2 AND holder = $3 AND token = $4 \
               AND expires_at > clock_timestamp() \
             RETURNING coalesce(mark_ms, 0)";
    let (text, int8) = (Type::TEXT, Type::INT8);
    let mut times: Vec<Duration> = Vec::with_capacity(ROUNDS);
    for i in 0..ROUNDS as i64 {
        let start = Instant::now();
        let row = db
            .query_typed(
                renew,
                &[
                    (&"rtt", text.clone()),
                    (&1_i64, int8.clone()),
                    (&"me", text.clone()),
                    (&1_i64, int8.clone()),
                    (&10_000_i64, int8.clone()),
                    (&(1_000 + i), int8.clone()),
                ],
            )
            .expect("renewed");
        times.push(start.elapsed());
        assert_eq!(row[0].get::<_, i64>(0), 1_000 + i);
    }
    times.sort();
    let fsync = pg.psql("SHOW fsync");
    println!(
        "PostgreSQL renewal round trip over loopback (fsync {fsync}, synchronous_commit on), {ROUNDS} rounds: median {:?}, p99 {:?}",
        times[ROUNDS / 2],
        times[ROUNDS * 99 / 100]
    );
}
