//! `Uuid7` as a PostgreSQL `uuid` column against a real PostgreSQL (see
//! `common/postgres.rs`), through the `postgres` crate and sqlx: 100,000 IDs inserted in
//! reverse, `ORDER BY` the column, read back in minting order; a UUID of another version in
//! the column is refused on reading, with the error that says so.
#![cfg(all(feature = "postgres", feature = "sqlx"))]

#[path = "common/postgres.rs"]
mod pg;

use snowmint::{Id128Error, Uuid7, Uuid7Generator};

const ROWS: usize = 100_000;

/// `ROWS` UUIDs in minting order: single calls, then a batch, then a shard's.
fn minted() -> Vec<Uuid7> {
    let gen = Uuid7Generator::new();
    let mut ids: Vec<Uuid7> = (0..ROWS / 2).map(|_| gen.next_uuid()).collect();
    ids.extend(gen.next_uuids(ROWS / 4));
    let mut shard = gen.shard();
    ids.extend((0..ROWS / 4).map(|_| shard.next_uuid()));
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "minted in order");
    ids
}

#[test]
fn postgres_sorts_100_000_uuids_in_minting_order() {
    let Some(url) = pg::url("postgres_sorts_100_000_uuids_in_minting_order") else {
        return;
    };
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let t = format!("snowmint_uuid7_{}", std::process::id());
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id uuid PRIMARY KEY)"
    ))
    .unwrap();
    let ids = minted();
    let reversed: Vec<Uuid7> = ids.iter().rev().copied().collect();
    db.execute(
        &format!("INSERT INTO {t} SELECT unnest($1::uuid[])"),
        &[&reversed],
    )
    .unwrap();
    let back: Vec<Uuid7> = db
        .query(&format!("SELECT id FROM {t} ORDER BY id"), &[])
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(back.len(), ROWS);
    assert!(back == ids, "ORDER BY the uuid column is the minting order");
    // PostgreSQL reads the same version and text.
    let row = db
        .query_one(
            &format!("SELECT id::text FROM {t} ORDER BY id LIMIT 1"),
            &[],
        )
        .unwrap();
    assert_eq!(row.get::<_, String>(0), ids[0].to_string());
    // A version 4 UUID in the column: reading it as a Uuid7 is refused.
    let err = db
        .query_one("SELECT '6ba7b810-9dad-41d1-80b4-00c04fd430c8'::uuid", &[])
        .unwrap()
        .try_get::<_, Uuid7>(0)
        .unwrap_err();
    let source = std::error::Error::source(&err).expect("a source");
    assert_eq!(
        source.downcast_ref::<Id128Error>(),
        Some(&Id128Error::NotVersion7 { version: 4 })
    );
    db.batch_execute(&format!("DROP TABLE {t}")).unwrap();
}

#[tokio::test]
async fn sqlx_sorts_100_000_uuids_in_minting_order() {
    use sqlx::Connection;
    let Some(url) = pg::url("sqlx_sorts_100_000_uuids_in_minting_order") else {
        return;
    };
    let mut db = sqlx::PgConnection::connect(&url).await.expect("connect");
    let t = format!("snowmint_sqlx_uuid7_{}", std::process::id());
    sqlx::raw_sql(&format!(
        "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id uuid PRIMARY KEY)"
    ))
    .execute(&mut db)
    .await
    .unwrap();
    let ids = minted();
    let reversed: Vec<Uuid7> = ids.iter().rev().copied().collect();
    sqlx::query(&format!("INSERT INTO {t} SELECT unnest($1::uuid[])"))
        .bind(&reversed)
        .execute(&mut db)
        .await
        .unwrap();
    let back: Vec<Uuid7> = sqlx::query_scalar(&format!("SELECT id FROM {t} ORDER BY id"))
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(back.len(), ROWS);
    assert!(back == ids, "ORDER BY the uuid column is the minting order");
    let err = sqlx::query_scalar::<_, Uuid7>("SELECT '6ba7b810-9dad-41d1-80b4-00c04fd430c8'::uuid")
        .fetch_one(&mut db)
        .await
        .unwrap_err();
    let sqlx::Error::ColumnDecode { source, .. } = err else {
        panic!("{err}")
    };
    assert_eq!(
        source.downcast_ref::<Id128Error>(),
        Some(&Id128Error::NotVersion7 { version: 4 })
    );
    sqlx::raw_sql(&format!("DROP TABLE {t}"))
        .execute(&mut db)
        .await
        .unwrap();
}
