//! Async minting that never blocks the executor.
//!
//! Part 1: on a current-thread runtime, 1,000 tasks mint Sonyflake IDs (256 per 10 ms tick,
//! so the generator is used up all the time) for 2 seconds while a heartbeat task asks to
//! wake every 1 ms. A minting loop that spun or slept the thread would starve the heartbeat;
//! here the waiting tasks are parked on tokio's timer, so the heartbeat's worst lateness
//! stays near the timer's 1 ms resolution. Each task yields after each ID, as one serving a
//! request per ID would; a task that never yields takes a whole tick's IDs in one poll, and
//! the others, losing tick after tick, give up after `max_wait` (1 s) with `Exhausted`.
//!
//! Lateness is measured against the deadline asked for (1 ms after the previous wake);
//! tokio's timer fires on its 1 ms grid at or after a deadline, so about 1 ms of every wake's
//! lateness (and a period of about 2 ms) is the timer's resolution.
//!
//! As a control, a second heartbeat runs the same loop alone on its own thread and runtime
//! for the same 2 seconds: its lateness is the machine's (the scheduler, the timer, other
//! processes), which the minting heartbeat suffers too. What the minting heartbeat shows
//! beyond the control is what minting on its thread costs it.
//!
//! Part 2: on a 2-worker runtime, tasks that yield between calls (so they move between
//! workers) mint from a shared `Generator` and from a `ShardedGenerator`: duplicates (none
//! for either) and how many times one task's next ID was smaller than its previous one.
//!
//! `cargo run --release --example async_tokio --features tokio`

use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use snowmint::integrations::asynchronous::IdSourceAsync;
use snowmint::{Generator, Id, IdSource, Layout, ShardedGenerator};

const TASKS: usize = 1_000;
const RUN: Duration = Duration::from_secs(2);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let gen = Generator::new(Layout::SONYFLAKE, 1)?;
    let start = Instant::now();
    let end = start + RUN;
    let control = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("control runtime");
        rt.block_on(heartbeat(end))
    });
    let report = rt.block_on(exhaustion(gen, start, end));
    let control = control.join().expect("control heartbeat");
    println!(
        "current-thread, {TASKS} tasks, Sonyflake, {:?}: heartbeat woke {} times, worst \
         lateness {:.2} ms",
        report.elapsed,
        report.heartbeat.len(),
        worst(&report.heartbeat)
    );
    println!(
        "  lateness ms p50/p99/max: minting thread {}; control thread (no minting) {} ({} wakes)",
        spread(&report.heartbeat),
        spread(&control),
        control.len()
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
    let sharded = Arc::new(ShardedGenerator::builder(Layout::TWITTER).node(1).build()?);
    let (dups, inversions, n) = rt.block_on(migrating(sharded));
    println!(
        "2 workers, ShardedGenerator: {n} IDs, duplicates {dups}, per-task decreases {inversions}"
    );
    Ok(())
}

/// What [`exhaustion`] saw.
struct Report {
    elapsed: Duration,
    /// The heartbeat's lateness at each wake.
    heartbeat: Vec<Duration>,
    minted: usize,
    cap: u64,
    gave_up: u64,
    duplicates: usize,
}

/// Asks to wake every millisecond until `end`: how late each wake was.
async fn heartbeat(end: Instant) -> Vec<Duration> {
    let mut late = Vec::with_capacity(2_048);
    loop {
        let due = Instant::now() + Duration::from_millis(1);
        if due > end {
            return late;
        }
        tokio::time::sleep_until(due.into()).await;
        late.push(Instant::now().saturating_duration_since(due));
    }
}

fn worst(late: &[Duration]) -> f64 {
    late.iter().max().map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

/// `p50/p99/max` in milliseconds.
fn spread(late: &[Duration]) -> String {
    let mut ms: Vec<f64> = late.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms.get(((ms.len() as f64 - 1.0) * q) as usize).copied();
    match (at(0.5), at(0.99), ms.last()) {
        (Some(p50), Some(p99), Some(max)) => format!("{p50:.2}/{p99:.2}/{max:.2}"),
        _ => "-".to_string(),
    }
}

/// Part 1, on the current thread's runtime, from `start` to `end`.
async fn exhaustion(gen: Generator, start: Instant, end: Instant) -> Report {
    let gen = Rc::new(gen);
    let local = tokio::task::LocalSet::new();
    let heartbeat = local.spawn_local(heartbeat(end));
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
    let (heartbeat, all, gave_up) = local
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
        heartbeat,
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
