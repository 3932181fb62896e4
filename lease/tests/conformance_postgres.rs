//! The conformance suite (`snowmint_lease::conformance`) against a real throw-away PostgreSQL
//! cluster, started on a free loopback port by `common/pg_cluster.rs` with `fsync` on
//! (`SNOWMINT_REQUIRE_POSTGRES=1` makes missing binaries a failure). The store forgets a
//! namespace by deleting its rows, as a restore from before its first claim would.
#![cfg(all(feature = "postgres", feature = "conformance"))]

#[path = "common/pg_cluster.rs"]
mod pg_cluster;

use pg_cluster::Cluster;
use snowmint_lease::conformance;
use snowmint_lease::postgres::PostgresLease;

#[test]
fn the_postgres_store_has_every_property_of_a_store() {
    let Some(pg) = Cluster::start(
        "conformance_postgres",
        &[],
        "host all all 127.0.0.1/32 trust",
    ) else {
        return;
    };
    let backend = PostgresLease::builder(&pg.url("postgres"))
        .unwrap()
        .build()
        .unwrap()
        .backend()
        .clone();
    let forget = |namespace: &str| {
        let ns = namespace.replace('\'', "''");
        pg.psql(&format!(
            "DELETE FROM snowmint_lease_node WHERE namespace = '{ns}'; \
             DELETE FROM snowmint_lease_namespace WHERE namespace = '{ns}'"
        ));
    };
    if let Err(failure) = conformance::run_all(&backend, forget) {
        panic!("{failure}");
    }
}
