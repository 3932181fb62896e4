//! `Id` as a `BIGINT` through the `postgres` crate against a real PostgreSQL (see
//! `common/postgres.rs`): round trips at the extremes, `ORDER BY id` against the IDs' order,
//! a time window from `first_id_at`/`last_id_at` answered by the primary key's index, and the
//! encode and decode errors.
#![cfg(feature = "postgres")]

#[path = "common/postgres.rs"]
mod pg;

use std::error::Error as _;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use postgres::{Client, NoTls};
use snowmint::{BigintError, Generator, Id, Layout};

/// A client of the shared server, or `None` when the test is skipped.
fn client(test: &str) -> Option<Client> {
    let url = pg::url(test)?;
    Some(Client::connect(&url, NoTls).expect("connect to PostgreSQL"))
}

/// A fresh table `snowmint_NAME_PID (id BIGINT PRIMARY KEY ...)`: unique per test and
/// process, so tests may share a server (`DATABASE_URL`) and run in parallel.
fn table(db: &mut Client, name: &str, columns: &str) -> String {
    let t = format!("snowmint_{name}_{}", std::process::id());
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id BIGINT PRIMARY KEY{columns})"
    ))
    .expect("create table");
    t
}

fn drop_table(db: &mut Client, t: &str) {
    db.batch_execute(&format!("DROP TABLE {t}"))
        .expect("drop table");
}

/// The `BigintError` a failed call carries as its source.
fn bigint_error(err: &postgres::Error) -> BigintError {
    *err.source()
        .and_then(|s| s.downcast_ref::<BigintError>())
        .unwrap_or_else(|| panic!("not a BigintError: {err:?}"))
}

const EXTREMES: [u64; 6] = [0, 1, (1 << 62) - 1, 1 << 62, (1 << 63) - 2, (1 << 63) - 1];

#[test]
fn round_trips_at_the_extremes() {
    let Some(mut db) = client("round_trips_at_the_extremes") else {
        return;
    };
    let t = table(&mut db, "round_trip", "");
    // The largest IDs the 63-bit presets mint, beside the raw extremes.
    let mut ids: Vec<Id> = EXTREMES.iter().map(|&v| Id::from_u64(v)).collect();
    for (_, l) in Layout::PRESETS.iter().filter(|(_, l)| l.max_bits() <= 63) {
        ids.push(
            l.compose(
                l.max_ticks(),
                snowmint::Parts {
                    node: l.max_node(),
                    sequence: l.max_sequence(),
                },
            )
            .unwrap(),
        );
    }
    ids.sort_unstable();
    ids.dedup();
    for &id in &ids {
        // As a parameter and back.
        let back: Id = db.query_one("SELECT $1::BIGINT", &[&id]).unwrap().get(0);
        assert_eq!(back, id);
        // Stored, then read as an ID, as a plain BIGINT and as text: the same number.
        db.execute(&format!("INSERT INTO {t} (id) VALUES ($1)"), &[&id])
            .unwrap();
        let row = db
            .query_one(
                &format!("SELECT id, id, id::TEXT FROM {t} WHERE id = $1"),
                &[&id],
            )
            .unwrap();
        assert_eq!(row.get::<_, Id>(0), id);
        assert_eq!(row.get::<_, i64>(1) as u64, id.to_u64());
        assert_eq!(row.get::<_, String>(2), id.to_string());
    }
    // Arrays and NULL.
    let back: Vec<Id> = db.query_one("SELECT $1::BIGINT[]", &[&ids]).unwrap().get(0);
    assert_eq!(back, ids);
    let none: Option<Id> = db
        .query_one("SELECT $1::BIGINT", &[&None::<Id>])
        .unwrap()
        .get(0);
    assert_eq!(none, None);
    let n: i64 = db
        .query_one(
            &format!("SELECT count(*) FROM {t} WHERE id = ANY($1)"),
            &[&ids],
        )
        .unwrap()
        .get(0);
    assert_eq!(n as usize, ids.len());
    drop_table(&mut db, &t);
}

#[test]
fn an_id_past_bigint_is_an_encode_error_and_nothing_is_written() {
    let Some(mut db) = client("an_id_past_bigint_is_an_encode_error_and_nothing_is_written") else {
        return;
    };
    let t = table(&mut db, "encode_error", "");
    for raw in [1_u64 << 63, (1 << 63) + 1, u64::MAX] {
        let id = Id::from_u64(raw);
        let err = db
            .execute(&format!("INSERT INTO {t} (id) VALUES ($1)"), &[&id])
            .unwrap_err();
        assert_eq!(bigint_error(&err), BigintError::IdTooLarge { id });
        assert_eq!(
            err.source().unwrap().to_string(),
            format!("ID {raw} does not fit in BIGINT: allowed 0 to 9223372036854775807")
        );
        // Inside an array too.
        let err = db
            .execute(
                &format!("INSERT INTO {t} (id) SELECT unnest($1::BIGINT[])"),
                &[&vec![Id::from_u64(1), id]],
            )
            .unwrap_err();
        assert_eq!(bigint_error(&err), BigintError::IdTooLarge { id });
    }
    // Nothing was written, not even as a wrapped negative number, and the connection works.
    let n: i64 = db
        .query_one(&format!("SELECT count(*) FROM {t}"), &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
    drop_table(&mut db, &t);
}

#[test]
fn a_negative_bigint_is_a_decode_error() {
    let Some(mut db) = client("a_negative_bigint_is_a_decode_error") else {
        return;
    };
    for value in [-1_i64, -(1 << 62), i64::MIN] {
        let row = db.query_one("SELECT $1::BIGINT", &[&value]).unwrap();
        let err = row.try_get::<_, Id>(0).unwrap_err();
        assert_eq!(bigint_error(&err), BigintError::Negative { value });
        assert_eq!(
            err.source().unwrap().to_string(),
            format!("BIGINT {value} is not an ID: allowed 0 to 9223372036854775807")
        );
        let row = db
            .query_one("SELECT ARRAY[1, $1]::BIGINT[]", &[&value])
            .unwrap();
        let err = row.try_get::<_, Vec<Id>>(0).unwrap_err();
        assert_eq!(bigint_error(&err), BigintError::Negative { value });
    }
    // Other column types are refused, not converted.
    let row = db.query_one("SELECT 1::INTEGER, 1::NUMERIC", &[]).unwrap();
    assert!(row.try_get::<_, Id>(0).is_err());
    assert!(row.try_get::<_, Id>(1).is_err());
}

#[test]
fn order_by_id_is_the_ids_order_over_the_whole_bigint_range() {
    let Some(mut db) = client("order_by_id_is_the_ids_order_over_the_whole_bigint_range") else {
        return;
    };
    let t = table(&mut db, "order_range", "");
    // Every power of two below 2^63 and its neighbours, inserted largest first.
    let mut ids: Vec<Id> = (0..63)
        .flat_map(|k| {
            let p = 1_u64 << k;
            [p - 1, p, p + 1]
        })
        .chain([(1 << 63) - 1])
        .map(Id::from_u64)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.reverse();
    db.execute(
        &format!("INSERT INTO {t} (id) SELECT unnest($1::BIGINT[])"),
        &[&ids],
    )
    .unwrap();
    let back: Vec<Id> = db
        .query(&format!("SELECT id FROM {t} ORDER BY id"), &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    ids.reverse();
    assert_eq!(back, ids);
    drop_table(&mut db, &t);
}

#[test]
fn order_by_id_is_mint_order_across_threads() {
    const THREADS: usize = 4;
    const PER_THREAD: usize = 400;
    let Some(url) = pg::url("order_by_id_is_mint_order_across_threads") else {
        return;
    };
    let mut db = Client::connect(&url, NoTls).unwrap();
    let t = table(
        &mut db,
        "order_threads",
        ", thread INTEGER NOT NULL, n INTEGER NOT NULL",
    );
    let gen = Arc::new(Generator::new(Layout::TWITTER, 7).unwrap());
    let start = Arc::new(Barrier::new(THREADS));
    // Each thread mints and inserts one row at a time on its own connection, so rows from
    // the threads land in the table interleaved.
    let minted: Vec<Vec<Id>> = (0..THREADS)
        .map(|thread| {
            let (gen, start, url, t) = (gen.clone(), start.clone(), url.clone(), t.clone());
            std::thread::spawn(move || {
                let mut db = Client::connect(&url, NoTls).unwrap();
                let insert = db
                    .prepare(&format!(
                        "INSERT INTO {t} (id, thread, n) VALUES ($1, $2, $3)"
                    ))
                    .unwrap();
                start.wait();
                (0..PER_THREAD)
                    .map(|n| {
                        let id = gen.next_id().unwrap();
                        db.execute(&insert, &[&id, &(thread as i32), &(n as i32)])
                            .unwrap();
                        id
                    })
                    .collect::<Vec<Id>>()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();

    let rows = db
        .query(&format!("SELECT id, thread, n FROM {t} ORDER BY id"), &[])
        .unwrap();
    let back: Vec<Id> = rows.iter().map(|r| r.get(0)).collect();
    // The database's order is the IDs' order, which is the one generator's mint order ...
    let mut all: Vec<Id> = minted.concat();
    all.sort_unstable();
    assert_eq!(back, all);
    // ... so each thread's IDs come back in the order that thread minted them ...
    for (thread, ids) in minted.iter().enumerate() {
        let seen: Vec<(Id, i32)> = rows
            .iter()
            .filter(|r| r.get::<_, i32>(1) == thread as i32)
            .map(|r| (r.get(0), r.get(2)))
            .collect();
        let expected: Vec<(Id, i32)> = ids.iter().copied().zip(0..).collect();
        assert_eq!(seen, expected, "thread {thread}");
    }
    // ... and by time.
    let times: Vec<u64> = back
        .iter()
        .map(|&id| Layout::TWITTER.decode(id).unix_millis())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    drop_table(&mut db, &t);
}

#[test]
fn a_time_window_from_first_and_last_id_uses_the_primary_key_index() {
    let Some(mut db) = client("a_time_window_from_first_and_last_id_uses_the_primary_key_index")
    else {
        return;
    };
    for layout in [Layout::TWITTER, Layout::SONYFLAKE] {
        let t = table(&mut db, "window", "");
        // 20,000 rows, one every 5 ticks, on varying nodes and sequences.
        let base = layout.ticks_at(std::time::SystemTime::now()).unwrap() - 200_000;
        let mut ids: Vec<Id> = (0..20_000_u64)
            .map(|i| {
                let node = (i * 7) % (layout.max_node() + 1);
                let seq = (i * 13) % (layout.max_sequence() + 1);
                layout
                    .compose(
                        base + 5 * i,
                        snowmint::Parts {
                            node,
                            sequence: seq,
                        },
                    )
                    .unwrap()
            })
            .collect();
        // A window of 100 rows' ticks, in time.
        let (t0, t1) = (base + 5 * 10_000, base + 5 * 10_099);
        let at = |tick: u64| layout.epoch() + Duration::from_nanos(layout.unit_nanos() * tick);
        // The window's very first and last IDs are in it; the IDs right outside are not.
        let (first, last) = (
            layout
                .compose(
                    t0,
                    snowmint::Parts {
                        node: 0,
                        sequence: 0,
                    },
                )
                .unwrap(),
            layout
                .compose(
                    t1,
                    snowmint::Parts {
                        node: layout.max_node(),
                        sequence: layout.max_sequence(),
                    },
                )
                .unwrap(),
        );
        ids.extend([
            first,
            last,
            layout
                .compose(
                    t0 - 1,
                    snowmint::Parts {
                        node: layout.max_node(),
                        sequence: layout.max_sequence(),
                    },
                )
                .unwrap(),
            layout
                .compose(
                    t1 + 1,
                    snowmint::Parts {
                        node: 0,
                        sequence: 0,
                    },
                )
                .unwrap(),
        ]);
        ids.sort_unstable();
        ids.dedup();
        db.execute(
            &format!("INSERT INTO {t} (id) SELECT unnest($1::BIGINT[])"),
            &[&ids],
        )
        .unwrap();
        db.batch_execute(&format!("ANALYZE {t}")).unwrap();

        let from = layout.first_id_at(at(t0)).unwrap();
        // Any time inside the last tick gives its last ID.
        let to = layout.last_id_at(at(t1) + layout.unit() / 2).unwrap();
        assert_eq!((from, to), (first, last));
        let query = format!("SELECT id FROM {t} WHERE id BETWEEN $1 AND $2 ORDER BY id");
        let plan: Vec<String> = db
            .query(&format!("EXPLAIN {query}"), &[&from, &to])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let plan = plan.join("\n");
        assert!(
            plan.contains(&format!("{t}_pkey")) && !plan.contains("Seq Scan"),
            "the window query does not use the primary key's index:\n{plan}"
        );
        let got: Vec<Id> = db
            .query(&query, &[&from, &to])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let expected: Vec<Id> = ids
            .iter()
            .copied()
            .filter(|&id| (t0..=t1).contains(&layout.decode(id).ticks()))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(got.len(), 100 + 2);
        drop_table(&mut db, &t);
    }
}
