//! `Id` as a `BIGINT` through sqlx against a real PostgreSQL (see `common/postgres.rs`):
//! round trips at the extremes in the binary and the text format, `ORDER BY id` against mint
//! order across threads, a time window from `first_id_at`/`last_id_at` answered by the
//! primary key's index, and the encode and decode errors.
#![cfg(feature = "sqlx")]

#[path = "common/postgres.rs"]
mod pg;

use std::sync::{Arc, Barrier};

use snowmint::{BigintError, Generator, Id, Layout};
use sqlx::{Connection, PgConnection, Row};

async fn connect(test: &str) -> Option<PgConnection> {
    let url = pg::url(test)?;
    Some(
        PgConnection::connect(&url)
            .await
            .expect("connect to PostgreSQL"),
    )
}

/// A fresh table `snowmint_sqlx_NAME_PID (id BIGINT PRIMARY KEY)`: unique per test and
/// process, so tests may share a server (`DATABASE_URL`) and run in parallel.
async fn table(db: &mut PgConnection, name: &str) -> String {
    let t = format!("snowmint_sqlx_{name}_{}", std::process::id());
    sqlx::raw_sql(&format!(
        "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id BIGINT PRIMARY KEY)"
    ))
    .execute(&mut *db)
    .await
    .expect("create table");
    t
}

async fn drop_table(db: &mut PgConnection, t: &str) {
    sqlx::raw_sql(&format!("DROP TABLE {t}"))
        .execute(db)
        .await
        .expect("drop table");
}

async fn ids_in(db: &mut PgConnection, t: &str) -> Vec<Id> {
    sqlx::query_scalar(&format!("SELECT id FROM {t} ORDER BY id"))
        .fetch_all(db)
        .await
        .unwrap()
}

/// The message of a failed bind. sqlx 0.8 keeps an encode error as text (`Query::bind`
/// formats it into "Encoding argument $N failed: ..."), so the type is checked in the
/// `Encode` impl's own tests and the message here.
fn encode_error(err: sqlx::Error) -> String {
    match err {
        sqlx::Error::Encode(e) => e.to_string(),
        other => panic!("not an encode error: {other:?}"),
    }
}

/// The `BigintError` inside a failed column decode.
fn decode_error(err: sqlx::Error) -> BigintError {
    match err {
        sqlx::Error::ColumnDecode { source, .. } => {
            *source.downcast_ref::<BigintError>().expect("a BigintError")
        }
        other => panic!("not a column decode error: {other:?}"),
    }
}

const EXTREMES: [u64; 6] = [0, 1, (1 << 62) - 1, 1 << 62, (1 << 63) - 2, (1 << 63) - 1];

#[tokio::test]
async fn round_trips_at_the_extremes() {
    let Some(mut db) = connect("sqlx round_trips_at_the_extremes").await else {
        return;
    };
    let t = table(&mut db, "round_trip").await;
    let ids: Vec<Id> = EXTREMES.iter().map(|&v| Id::from_u64(v)).collect();
    for &id in &ids {
        // As a parameter and back (binary format).
        let back: Id = sqlx::query_scalar("SELECT $1::BIGINT")
            .bind(id)
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(back, id);
        sqlx::query(&format!("INSERT INTO {t} (id) VALUES ($1)"))
            .bind(id)
            .execute(&mut db)
            .await
            .unwrap();
        let row = sqlx::query(&format!("SELECT id, id, id::TEXT FROM {t} WHERE id = $1"))
            .bind(id)
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(row.get::<Id, _>(0), id);
        assert_eq!(row.get::<i64, _>(1) as u64, id.to_u64());
        assert_eq!(row.get::<String, _>(2), id.to_string());
        // The simple query protocol returns text: read that too.
        let row = sqlx::raw_sql(&format!("SELECT id FROM {t} WHERE id = {id}"))
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(row.get::<Id, _>(0), id);
    }
    assert_eq!(ids_in(&mut db, &t).await, ids);
    // Arrays, slices and NULL.
    let back: Vec<Id> = sqlx::query_scalar("SELECT $1::BIGINT[]")
        .bind(&ids)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(back, ids);
    let n: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM {t} WHERE id = ANY($1)"))
        .bind(&ids[..3])
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(n, 3);
    let none: Option<Id> = sqlx::query_scalar("SELECT $1::BIGINT")
        .bind(None::<Id>)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(none, None);
    drop_table(&mut db, &t).await;
}

#[tokio::test]
async fn an_id_past_bigint_is_an_encode_error_and_nothing_is_written() {
    let Some(mut db) =
        connect("sqlx an_id_past_bigint_is_an_encode_error_and_nothing_is_written").await
    else {
        return;
    };
    let t = table(&mut db, "encode_error").await;
    for raw in [1_u64 << 63, (1 << 63) + 1, u64::MAX] {
        let id = Id::from_u64(raw);
        let err = sqlx::query(&format!("INSERT INTO {t} (id) VALUES ($1)"))
            .bind(id)
            .execute(&mut db)
            .await
            .unwrap_err();
        let msg = format!("ID {raw} does not fit in BIGINT: allowed 0 to 9223372036854775807");
        assert_eq!(
            encode_error(err),
            format!("Encoding argument $1 failed: {msg}")
        );
        // The typed error, as the `Encode` impl returns it.
        let mut buf = sqlx::postgres::PgArgumentBuffer::default();
        let err = <Id as sqlx::Encode<sqlx::Postgres>>::encode_by_ref(&id, &mut buf).err();
        let err = err.expect("an encode error");
        assert_eq!(err.downcast_ref(), Some(&BigintError::IdTooLarge { id }));
        assert!(buf.is_empty(), "nothing is written for a refused ID");
        let err = sqlx::query(&format!("INSERT INTO {t} (id) SELECT unnest($1::BIGINT[])"))
            .bind(vec![Id::from_u64(1), id])
            .execute(&mut db)
            .await
            .unwrap_err();
        assert_eq!(
            encode_error(err),
            format!("Encoding argument $1 failed: {msg}")
        );
    }
    // Nothing was written, not even as a wrapped negative number, and the connection works.
    assert_eq!(ids_in(&mut db, &t).await, []);
    drop_table(&mut db, &t).await;
}

#[tokio::test]
async fn a_negative_bigint_is_a_decode_error() {
    let Some(mut db) = connect("sqlx a_negative_bigint_is_a_decode_error").await else {
        return;
    };
    for value in [-1_i64, -(1 << 62), i64::MIN] {
        let err = sqlx::query_scalar::<_, Id>("SELECT $1::BIGINT")
            .bind(value)
            .fetch_one(&mut db)
            .await
            .unwrap_err();
        let err = decode_error(err);
        assert_eq!(err, BigintError::Negative { value });
        assert_eq!(
            err.to_string(),
            format!("BIGINT {value} is not an ID: allowed 0 to 9223372036854775807")
        );
        // In the text format ...
        let row = sqlx::raw_sql(&format!("SELECT ({value})::BIGINT"))
            .fetch_one(&mut db)
            .await
            .unwrap();
        let err = row.try_get::<Id, _>(0).unwrap_err();
        assert_eq!(decode_error(err), BigintError::Negative { value });
        // ... and inside an array.
        let err = sqlx::query_scalar::<_, Vec<Id>>("SELECT ARRAY[1, $1]::BIGINT[]")
            .bind(value)
            .fetch_one(&mut db)
            .await
            .unwrap_err();
        assert_eq!(decode_error(err), BigintError::Negative { value });
    }
    // Other column types are refused, not converted.
    let row = sqlx::query("SELECT 1::INTEGER, 1::NUMERIC")
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert!(row.try_get::<Id, _>(0).is_err());
    assert!(row.try_get::<Id, _>(1).is_err());
}

#[tokio::test]
async fn order_by_id_is_mint_order_across_threads_and_a_window_uses_the_index() {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 5_000;
    let Some(mut db) =
        connect("sqlx order_by_id_is_mint_order_across_threads_and_a_window_uses_the_index").await
    else {
        return;
    };
    let t = table(&mut db, "order").await;
    let layout = Layout::TWITTER;
    let gen = Arc::new(Generator::new(layout, 3).unwrap());
    let start = Arc::new(Barrier::new(THREADS));
    let minted: Vec<Vec<Id>> = (0..THREADS)
        .map(|_| {
            let (gen, start) = (gen.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                (0..PER_THREAD)
                    .map(|i| {
                        // A pause now and then spreads the IDs over 100+ ticks, so that one
                        // tick's window is a small part of the table (at most 4 × 50 rows,
                        // 1 %, however the threads are scheduled).
                        if i % 50 == 49 {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                        gen.next_id().unwrap()
                    })
                    .collect::<Vec<Id>>()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    // Inserted round-robin across the threads' lists, so the table's physical order is not
    // the IDs' order.
    let interleaved: Vec<Id> = (0..PER_THREAD)
        .flat_map(|i| minted.iter().map(move |ids| ids[i]))
        .collect();
    sqlx::query(&format!("INSERT INTO {t} (id) SELECT unnest($1::BIGINT[])"))
        .bind(&interleaved)
        .execute(&mut db)
        .await
        .unwrap();
    let back = ids_in(&mut db, &t).await;
    let mut all = minted.concat();
    all.sort_unstable();
    assert_eq!(back, all);
    for ids in &minted {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "one thread's mint order"
        );
    }

    // A window of time from the middle of the run.
    sqlx::raw_sql(&format!("VACUUM ANALYZE {t}"))
        .execute(&mut db)
        .await
        .unwrap();
    let mid = layout.decode(back[back.len() / 2]).time();
    let (from, to) = (
        layout.first_id_at(mid).unwrap(),
        layout.last_id_at(mid).unwrap(),
    );
    let query = format!("SELECT id FROM {t} WHERE id BETWEEN $1 AND $2 ORDER BY id");
    let plan: Vec<String> = sqlx::query_scalar(&format!("EXPLAIN {query}"))
        .bind(from)
        .bind(to)
        .fetch_all(&mut db)
        .await
        .unwrap();
    let plan = plan.join("\n");
    assert!(
        plan.contains(&format!("{t}_pkey")) && !plan.contains("Seq Scan"),
        "the window query does not use the primary key's index:\n{plan}"
    );
    let got: Vec<Id> = sqlx::query_scalar(&query)
        .bind(from)
        .bind(to)
        .fetch_all(&mut db)
        .await
        .unwrap();
    let expected: Vec<Id> = back
        .iter()
        .copied()
        .filter(|&id| layout.decode(id).time() == mid)
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(got, expected);
    drop_table(&mut db, &t).await;
}
