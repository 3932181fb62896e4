//! Assigns IDs to 10 million records in parallel with rayon, one shard per worker, and checks
//! that every ID is unique.
//!
//! `cargo run --release --features rayon --example parallel_ingest [RECORDS]`

use std::time::Instant;

use rayon::prelude::*;
use snowmint::integrations::rayon::ParallelIdExt;
use snowmint::{Id, Layout, ShardedGenerator};

/// An incoming record to be stored under a fresh ID.
struct Record {
    payload: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg.parse()?,
        None => 10_000_000,
    };
    let records: Vec<Record> = (0..n as u64).map(|payload| Record { payload }).collect();
    // Twitter's layout, node 3 of 16, 63 shards: each worker has 4,096 IDs per ms of its own.
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(6)
        .node(3)
        .build()?;

    let started = Instant::now();
    let stored: Vec<(Id, u64)> = records
        .par_iter()
        .map_with_id(&gen, |record, id| (id, record.payload))
        .collect::<Result<_, _>>()?;
    let elapsed = started.elapsed();

    let mut ids: Vec<Id> = stored.iter().map(|&(id, _)| id).collect();
    ids.par_sort_unstable();
    let unique = ids.windows(2).all(|w| w[0] < w[1]);
    let shards: std::collections::BTreeSet<u64> = ids
        .iter()
        .map(|&id| Layout::TWITTER.decode(id).node())
        .collect();
    println!(
        "{n} records, {} rayon threads: {:.2?} ({:.1} M IDs/s), {} shards used, all unique: {unique}",
        rayon::current_num_threads(),
        elapsed,
        n as f64 / elapsed.as_secs_f64() / 1e6,
        shards.len(),
    );
    if !unique {
        return Err("duplicate IDs".into());
    }
    Ok(())
}
