//! Async minting that never blocks the executor (issue #12).
//!
//! Part 1: on a current-thread runtime, 1,000 tasks mint Sonyflake IDs (256 per 10 ms tick,
//! so the generator is used up all the time) for 2 seconds while a heartbeat task asks to
//! wake every 1 ms. A minting loop that spun or slept the thread would starve the heartbeat;
//! here the waiting tasks are parked on tokio's timer, so the heartbeat's worst lateness
//! stays near the timer's 1 ms resolution. Each task yields after each ID, as one serving a
//! request per ID would; a task that never yields takes a whole tick's IDs in one poll, and
//! the others, losing tick after tick, give up after `max_wait` (1 s) with `Exhausted`.
//!
//! Part 2: on a 2-worker runtime, tasks that yield between calls (so they move between
//! workers) mint from a shared `Generator` and from a `ShardedGenerator`: duplicates (none
//! for either) and how many times one task's next ID was smaller than its previous one.
//!
//! `cargo run --release --example async_tokio --features tokio`

use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use snowmint::asynchronous::IdSourceAsync;
use snowmint::{Generator, Id, IdSource, Layout, ShardedGenerator};

const TASKS: usize = 1_000;
const RUN: Duration = Duration::from_secs(2);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let report = rt.block_on(exhaustion(Generator::new(Layout::SONYFLAKE, 1)?, RUN));
    println!(
        "current-thread, {TASKS} tasks, Sonyflake, {:?}: heartbeat {} ticks of {} expected, \
         worst lateness {:.2} ms",
        report.elapsed,
        report.heartbeats,
        report.elapsed.as_millis(),
        report.worst_lateness.as_secs_f64() * 1e3
    );
    println!(
        "  minted {} IDs of a cap of {} ({:.1}%), gave up {} times, duplicates {}",
        report.minted,
        report.cap,
        100.0 * report.minted as f64 / report.cap as f64,
        report.gave_up,
        report.duplicates
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()?;
    let shared = Arc::new(Generator::new(Layout::TWITTER, 1)?);
    let (dups, inversions, n) = rt.block_on(migrating(shared));
    println!(
        "2 workers, shared Generator: {n} IDs, duplicates {dups}, per-task decreases {inversions}"
    );
    let sharded = Arc::new(ShardedGenerator::builder(Layout::TWITTER).host(1).build()?);
    let (dups, inversions, n) = rt.block_on(migrating(sharded));
    println!(
        "2 workers, ShardedGenerator: {n} IDs, duplicates {dups}, per-task decreases {inversions}"
    );
    Ok(())
}

/// What [`exhaustion`] saw.
struct Report {
    elapsed: Duration,
    heartbeats: u64,
    worst_lateness: Duration,
    minted: usize,
    cap: u64,
    gave_up: u64,
    duplicates: usize,
}

/// Part 1, on the current thread's runtime.
async fn exhaustion(gen: Generator, run: Duration) -> Report {
    let gen = Rc::new(gen);
    let start = Instant::now();
    let end = start + run;
    let local = tokio::task::LocalSet::new();
    let heartbeat = local.spawn_local(async move {
        let (mut ticks, mut worst) = (0_u64, Duration::ZERO);
        loop {
            let due = Instant::now() + Duration::from_millis(1);
            if due > end {
                return (ticks, worst);
            }
            tokio::time::sleep_until(due.into()).await;
            worst = worst.max(Instant::now().saturating_duration_since(due));
            ticks += 1;
        }
    });
    let tasks: Vec<_> = (0..TASKS)
        .map(|_| {
            let gen = Rc::clone(&gen);
            local.spawn_local(async move {
                let (mut ids, mut gave_up) = (Vec::new(), 0_u64);
                while Instant::now() < end {
                    match gen.next_id_async().await {
                        Ok(id) => ids.push(id),
                        Err(_) => gave_up += 1,
                    }
                    // One ID per request: let the other tasks run, as a server would.
                    tokio::task::yield_now().await;
                }
                (ids, gave_up)
            })
        })
        .collect();
    let ((heartbeats, worst_lateness), all, gave_up) = local
        .run_until(async move {
            let mut all: Vec<Id> = Vec::new();
            let mut gave_up = 0;
            for t in tasks {
                let (ids, g) = t.await.expect("minting task");
                assert!(
                    ids.windows(2).all(|w| w[0] < w[1]),
                    "one task's IDs increase"
                );
                all.extend(ids);
                gave_up += g;
            }
            (heartbeat.await.expect("heartbeat"), all, gave_up)
        })
        .await;
    let elapsed = start.elapsed();
    let minted = all.len();
    let mut sorted = all;
    sorted.sort_unstable();
    sorted.dedup();
    let unit = Layout::SONYFLAKE.unit().as_nanos();
    // Every tick the run touched, first and last included.
    let ticks = (elapsed.as_nanos() / unit + 1) as u64;
    Report {
        elapsed,
        heartbeats,
        worst_lateness,
        minted,
        cap: ticks << Layout::SONYFLAKE.sequence_bits(),
        gave_up,
        duplicates: minted - sorted.len(),
    }
}

/// Part 2: 200 tasks × 500 IDs, yielding between calls. Duplicates, per-task decreases, IDs.
async fn migrating<S: IdSource + Send + Sync + 'static>(source: Arc<S>) -> (usize, usize, usize)
where
    S::Error: std::fmt::Debug,
{
    let tasks: Vec<_> = (0..200)
        .map(|_| {
            let source = Arc::clone(&source);
            tokio::spawn(async move {
                let mut ids = Vec::with_capacity(500);
                for _ in 0..500 {
                    ids.push(source.next_id_async().await.expect("mint"));
                    tokio::task::yield_now().await;
                }
                ids
            })
        })
        .collect();
    let (mut all, mut inversions) = (Vec::new(), 0);
    for t in tasks {
        let ids = t.await.expect("task");
        inversions += ids.windows(2).filter(|w| w[1] < w[0]).count();
        all.extend(ids);
    }
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    (n - all.len(), inversions, n)
}
