//! The fleet deployment: a node number leased from Redis, a shard per thread under it.
//!
//! ```text
//! cargo run --release --features redis --example leased_shards -- \
//!     [--redis URL] [--layout NAME] [--threads N] [--seconds S] [--out FILE]
//! ```
//!
//! Leases a node from Redis (default `redis://127.0.0.1:6379`) for a sharded generator of
//! the layout (default `sonyflake`: its 16 machine bits split into 10 leased node bits and 6
//! shard bits), mints on `--threads` threads (default 2) for `--seconds` (default 2), writes
//! every ID to `--out` (one decimal per line) if given, and checks that none repeats. The
//! last line says how many IDs, which node, and how many duplicates (0). Two processes
//! started together lease different nodes and share no ID.

use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use snowmint::{Id, Layout, ShardedGenerator};
use snowmint_lease::redis::RedisLease;

/// The command line.
struct Args {
    redis: String,
    layout: Layout,
    threads: usize,
    seconds: f64,
    out: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        redis: "redis://127.0.0.1:6379".to_string(),
        layout: Layout::SONYFLAKE,
        threads: 2,
        seconds: 2.0,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--redis" => args.redis = value()?,
            "--layout" => {
                let name = value()?;
                args.layout = Layout::preset(&name).ok_or_else(|| {
                    let names: Vec<_> = Layout::PRESETS.iter().map(|(n, _)| *n).collect();
                    format!("unknown layout {name:?}: allowed {}", names.join(", "))
                })?;
            }
            "--threads" => {
                args.threads = value()?
                    .parse()
                    .ok()
                    .filter(|n| (1..=1024).contains(n))
                    .ok_or("--threads must be a whole number from 1 to 1024")?;
            }
            "--seconds" => {
                args.seconds = value()?
                    .parse()
                    .ok()
                    .filter(|s: &f64| (0.0..=3600.0).contains(s))
                    .ok_or("--seconds must be a number from 0 to 3600")?;
            }
            "--out" => args.out = Some(value()?),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("leased_shards: {e}");
            std::process::exit(2);
        }
    };
    let builder = ShardedGenerator::builder(args.layout).shard_bits(6.min(args.layout.node_bits()));
    let gen = Arc::new(
        RedisLease::builder(&args.redis)?
            .namespace("leased-shards")
            .build()?
            .acquire(builder)?,
    );
    let node = gen.node();
    let until = Instant::now() + Duration::from_secs_f64(args.seconds);
    let workers: Vec<_> = (0..args.threads)
        .map(|_| {
            let gen = Arc::clone(&gen);
            std::thread::spawn(move || -> Result<Vec<Id>, snowmint::fence::FenceError> {
                let mut ids = Vec::new();
                while Instant::now() < until {
                    let id = gen.next_id()?;
                    if let Some(&last) = ids.last() {
                        assert!(id > last, "a thread's IDs must increase");
                    }
                    ids.push(id);
                }
                Ok(ids)
            })
        })
        .collect();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.join().expect("minting thread")?);
    }
    if let Some(path) = &args.out {
        let mut out = BufWriter::new(std::fs::File::create(path)?);
        for id in &all {
            writeln!(out, "{id}")?;
        }
        out.flush()?;
    }
    let distinct: HashSet<Id> = all.iter().copied().collect();
    let duplicates = all.len() - distinct.len();
    println!("{} IDs, node {node}, {duplicates} duplicates", all.len());
    if duplicates > 0 {
        std::process::exit(1);
    }
    Ok(())
}
