//! What users choose these IDs for, measured: 1 M rows keyed by snowmint IDs (`BIGINT`),
//! UUIDv4 and UUIDv7 (`UUID`, the `uuid` crate) inserted into a real PostgreSQL, with the
//! insert time and the primary key's index and table sizes side by side.
//!
//! ```sh
//! nice cargo bench -p snowmint-benches --bench pg_insert -- --out benches/pg_insert.csv
//! python3 benches/pg_chart.py benches/pg_insert.csv benches/pg_insert.svg
//! ```
//!
//! Options (after `--`): `--rows N` (default 1,000,000), `--batch N` rows per `COPY`
//! (default 10,000), `--rounds N` (default 3), `--out PATH` (default
//! `$CARGO_TARGET_DIR/pg_insert.csv`). The server is `$DATABASE_URL`, else a throw-away
//! cluster (`tests/common/postgres.rs`) with PostgreSQL's default settings (fsync on).
//!
//! Each key type gets the same table, `(id KEY PRIMARY KEY, n INTEGER NOT NULL)`, and the same
//! method: the keys are made first (their cost is reported apart), then inserted with binary
//! `COPY`, one `COPY` (one transaction) per batch, on one connection. Before each run the
//! table is created anew and a `CHECKPOINT` written; the run's time is the wall time of all
//! its batches, the WAL it wrote the move of `pg_current_wal_insert_lsn()`. Then
//! `pg_relation_size` of the index and the table, and the index's leaf density
//! (`pgstatindex`, when the `pgstattuple` extension is installed). The key types take turns
//! in a rotating order, `--rounds` times; the table reports the median round.

#[path = "../tests/common/postgres.rs"]
mod cluster;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};
use postgres::{Client, NoTls};
use snowmint::{Generator, Id, Layout};
use uuid::Uuid;

#[derive(Clone, Copy, PartialEq)]
enum Key {
    Snowmint,
    UuidV4,
    UuidV7,
}

impl Key {
    const ALL: [Key; 3] = [Key::Snowmint, Key::UuidV4, Key::UuidV7];

    fn name(self) -> &'static str {
        match self {
            Key::Snowmint => "snowmint BIGINT",
            Key::UuidV4 => "UUIDv4",
            Key::UuidV7 => "UUIDv7",
        }
    }

    fn sql_type(self) -> (&'static str, Type) {
        match self {
            Key::Snowmint => ("BIGINT", Type::INT8),
            Key::UuidV4 | Key::UuidV7 => ("UUID", Type::UUID),
        }
    }
}

enum Keys {
    Ids(Vec<Id>),
    Uuids(Vec<Uuid>),
}

/// The keys, made the way an application makes them: in order, one call per key.
fn make_keys(key: Key, rows: usize) -> (Keys, Duration) {
    let start = Instant::now();
    let keys = match key {
        Key::Snowmint => {
            let gen = Generator::new(Layout::TWITTER, 1).expect("generator");
            Keys::Ids((0..rows).map(|_| gen.next_id().expect("mint")).collect())
        }
        Key::UuidV4 => Keys::Uuids((0..rows).map(|_| Uuid::new_v4()).collect()),
        Key::UuidV7 => Keys::Uuids((0..rows).map(|_| Uuid::now_v7()).collect()),
    };
    (keys, start.elapsed())
}

struct Run {
    key: Key,
    round: usize,
    insert: Duration,
    make: Duration,
    index_bytes: i64,
    table_bytes: i64,
    wal_bytes: i64,
    leaf_density: Option<f64>,
}

fn run(db: &mut Client, key: Key, round: usize, rows: usize, batch: usize, stats: bool) -> Run {
    let (sql_type, ty) = key.sql_type();
    let t = "snowmint_bench_keys";
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS {t}; CREATE TABLE {t} (id {sql_type} PRIMARY KEY, n INTEGER NOT NULL); CHECKPOINT"
    ))
    .expect("create table");
    let (keys, make) = make_keys(key, rows);
    let copy = format!("COPY {t} (id, n) FROM STDIN BINARY");
    let wal_start: String = db
        .query_one("SELECT pg_current_wal_insert_lsn()::TEXT", &[])
        .expect("wal position")
        .get(0);
    let start = Instant::now();
    for first in (0..rows).step_by(batch) {
        let last = (first + batch).min(rows);
        let mut w =
            BinaryCopyInWriter::new(db.copy_in(&copy).expect("copy"), &[ty.clone(), Type::INT4]);
        for i in first..last {
            let n = i as i32;
            let id: &(dyn ToSql + Sync) = match &keys {
                Keys::Ids(ids) => &ids[i],
                Keys::Uuids(uuids) => &uuids[i],
            };
            w.write(&[id, &n]).expect("write row");
        }
        w.finish().expect("finish copy");
    }
    let insert = start.elapsed();
    let wal_bytes: i64 = db
        .query_one(
            "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::TEXT::PG_LSN)::BIGINT",
            &[&wal_start],
        )
        .expect("wal written")
        .get(0);
    let row = db
        .query_one(
            &format!(
                "SELECT pg_relation_size('{t}_pkey'), pg_relation_size('{t}'), count(*) FROM {t}"
            ),
            &[],
        )
        .expect("sizes");
    assert_eq!(row.get::<_, i64>(2) as usize, rows, "every row is in");
    let leaf_density = stats.then(|| {
        db.query_one(
            &format!("SELECT avg_leaf_density FROM pgstatindex('{t}_pkey')"),
            &[],
        )
        .expect("pgstatindex")
        .get::<_, f64>(0)
    });
    db.batch_execute(&format!("DROP TABLE {t}")).expect("drop");
    Run {
        key,
        round,
        insert,
        make,
        index_bytes: row.get(0),
        table_bytes: row.get(1),
        wal_bytes,
        leaf_density,
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let num = |name: &str, default: usize| {
        arg(&args, name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} {v}: not a number"))
        })
    };
    let rows = num("--rows", 1_000_000);
    let batch = num("--batch", 10_000).max(1);
    let rounds = num("--rounds", 3).max(1);
    let out = arg(&args, "--out").unwrap_or_else(|| {
        let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
        format!("{target}/pg_insert.csv")
    });

    let Some(pg) = cluster::start(&[]) else {
        eprintln!("pg_insert: no PostgreSQL (set DATABASE_URL or install Debian's postgresql)");
        std::process::exit(1);
    };
    let mut db = Client::connect(pg.url(), NoTls).expect("connect");
    let stats = db
        .batch_execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        .is_ok();
    let version: String = db.query_one("SHOW server_version", &[]).unwrap().get(0);
    let settings: Vec<String> = [
        "shared_buffers",
        "fsync",
        "synchronous_commit",
        "max_wal_size",
    ]
    .iter()
    .map(|s| {
        let v: String = db.query_one(&format!("SHOW {s}"), &[]).unwrap().get(0);
        format!("{s}={v}")
    })
    .collect();
    println!(
        "PostgreSQL {version} ({}); {rows} rows per key type, binary COPY of {batch} rows per transaction, {rounds} rounds",
        settings.join(", ")
    );

    let mut runs = Vec::new();
    for round in 0..rounds {
        for k in 0..Key::ALL.len() {
            let key = Key::ALL[(k + round) % Key::ALL.len()];
            let r = run(&mut db, key, round, rows, batch, stats);
            println!(
                "round {round} {:<16} {:>7.2} s  index {:>6.1} MiB  table {:>6.1} MiB  WAL {:>6.1} MiB",
                key.name(),
                r.insert.as_secs_f64(),
                mib(r.index_bytes),
                mib(r.table_bytes),
                mib(r.wal_bytes)
            );
            runs.push(r);
        }
    }

    println!();
    println!("| key | insert, s (median; min–max) | rows/s | index, MiB | table, MiB | WAL written, MiB | index leaf density | making the keys, ns/key |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut csv = String::from(
        "key,round,rows,batch,insert_seconds,make_ns_per_key,index_bytes,table_bytes,wal_bytes,leaf_density\n",
    );
    for key in Key::ALL {
        let mut mine: Vec<&Run> = runs.iter().filter(|r| r.key == key).collect();
        mine.sort_by_key(|r| r.insert);
        let med = mine[mine.len() / 2];
        let (lo, hi) = (mine[0].insert, mine[mine.len() - 1].insert);
        println!(
            "| {} | {:.2} ({:.2}–{:.2}) | {:.0} | {:.1} | {:.1} | {:.0} | {} | {:.0} |",
            key.name(),
            med.insert.as_secs_f64(),
            lo.as_secs_f64(),
            hi.as_secs_f64(),
            rows as f64 / med.insert.as_secs_f64(),
            mib(med.index_bytes),
            mib(med.table_bytes),
            mib(med.wal_bytes),
            med.leaf_density
                .map_or("n/a".into(), |d| format!("{d:.0} %")),
            med.make.as_nanos() as f64 / rows as f64,
        );
    }
    for r in &runs {
        let _ = writeln!(
            csv,
            "{},{},{rows},{batch},{:.4},{:.1},{},{},{},{}",
            r.key.name(),
            r.round,
            r.insert.as_secs_f64(),
            r.make.as_nanos() as f64 / rows as f64,
            r.index_bytes,
            r.table_bytes,
            r.wal_bytes,
            r.leaf_density.map_or(String::new(), |d| format!("{d:.2}")),
        );
    }
    if let Some(dir) = std::path::Path::new(&out).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(&out, csv).expect("write the CSV");
    println!("\nwrote {out}");
}

fn mib(bytes: i64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
