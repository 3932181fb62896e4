//! Tight-loop throughput: every path snowmint offers against its best peer, measured
//! the way users who compare crates measure: `N` calls in a plain loop, no harness between
//! them. See `benches/README.md` for why this differs from criterion's figures, the command
//! and the numbers.
//!
//! ```sh
//! cargo bench -p snowmint-benches --bench tight      # 10 M IDs per case, median of 5 runs
//! cargo bench -p snowmint-benches --bench tight -- --ids 1000000 --runs 1 1t-owned
//! TIGHT_IDS=1000000 TIGHT_RUNS=5 cargo bench -p snowmint-benches --bench tight
//! ```
//!
//! Arguments (or environment variables): `--ids N` (`TIGHT_IDS`, default 10,000,000) IDs per
//! run and case, split evenly between the threads of two-thread cases (the slice-fill case
//! runs them in stretches of 1 M, [`WITHIN_TICK`], so that it never waits for a tick); `--runs R`
//! (`TIGHT_RUNS`, default 5) timed runs per entry, the table giving their median; any other
//! word (`TIGHT_FILTER`) keeps only the entries whose `case/entry` name contains it.
//!
//! Entries named `baseline: ...` mint nothing (a plain store loop, a bare RNG draw): the
//! table never takes one for the best peer, nor snowmint's own extra rows (the 128-bit
//! shards), and the entry table gives snowmint's paired ratio over every entry.
//!
//! The 128-bit cases (`1t-uuid7`, `2t-uuid7`, `1t-ulid`, in [`id128`]) run through the same
//! driver and checks, each ID as its `u128`; they have no layout, so no cap column.
//!
//! How an entry is measured:
//! 1. a warm-up pass of `N / 10` IDs (thread-locals, page faults, the clocks' ticker threads);
//! 2. `R` timed rounds, the entries interleaved (round 1 of every entry, then round 2, ...)
//!    so that a change of machine load spreads over all of them; within a case the entries
//!    run one after the other, in reverse order every other round, so that snowmint and each
//!    peer are measured side by side and neither always runs first. In a timed pass each
//!    thread starts at a barrier, reads `Instant::now()`, mints its share passing each ID
//!    through [`black_box`] (one store to the stack; the `floor` line of the output measures
//!    the loop and `black_box` alone), and reads the clock again. Nothing is checked or
//!    stored inside the timed loop: only the first and last ID are kept, to compute how much
//!    of the layout's cap the run used;
//! 3. after the timed rounds, one check pass of `N` IDs the same way but storing every ID;
//!    then each thread's IDs must strictly increase and no ID may appear twice across
//!    threads (each thread's list is sorted, so a merge finds duplicates), and every timed
//!    pass must have ended above where it started.
//!
//! The cap: a layout allows `2^sequence_bits` IDs per node and tick (1 ms here). A generator
//! that exhausts a tick waits for the next, so a fast loop on a small sequence field
//! measures the cap, not the generator. The layouts are chosen to be far from it where the
//! issue allows: 41/0/22 (4.19 M IDs per ms) for shared generators; shards need node bits,
//! so 41/2/20 (1.05 M IDs per ms per node: about 1 ns per ID, which a fast owned generator
//! does reach). The table's `cap` column gives, for each case, the entry that came closest:
//! the largest share of its capacity any timed run used (IDs minted over the IDs its node(s)
//! could mint in the ticks its first and last IDs span), and how many ticks the check pass
//! used up completely (a wait, or a borrowed tick, happened there). `CAPPED` marks a case
//! where some entry used ≥ 90% in a timed run: its figure is the cap's, not the code's.

// The harness-free loops, the entries they time, the cases and the report, one file each.
mod cases;
#[path = "../common/mod.rs"]
mod common;
mod entries;
mod id128;
mod loops;
mod report;

use std::time::Duration;

use crate::cases::cases;
use crate::entries::Entry;
use crate::loops::timed_floor;
use crate::report::{load_average, median, options, report};

/// The batch size of the batch cases, as in the issue.
pub(crate) const BATCH: u64 = 4_096;

/// IDs per stretch of the slice-fill case: a quarter of a 41/0/22 tick (4.19 M IDs). A fill at
/// the speed of memory (about 7 G IDs/s, above the layout's 4.19 G/s) would use a tick up and
/// wait, so a fill pass runs in stretches of this many IDs, each timed on its own after an
/// untimed pause of [`TICK_PAUSE`]: no tick ever holds more than one stretch, and the figure
/// is the fill's, not the cap's.
pub(crate) const WITHIN_TICK: u64 = 1_000_000;

/// The pause before each stretch of a fill pass: one 41/0/22 tick, so that each stretch starts
/// in a tick no earlier stretch reached.
pub(crate) const TICK_PAUSE: Duration = Duration::from_millis(1);

/// A run at or above this share of the layout's cap measured the cap.
pub(crate) const CAPPED: f64 = 0.90;

fn main() {
    let o = options();
    let load_start = load_average();
    let mut cases = cases();
    cases.extend(id128::cases());
    // Every one-ID case again in the plain accumulate loop (fresh generators).
    let plain: Vec<_> = crate::cases::cases()
        .into_iter()
        .chain(id128::cases())
        .filter(|c| c.one_id())
        .map(|c| c.plain())
        .collect();
    cases.extend(plain);
    // Keep the entries the filters select.
    for c in &mut cases {
        let keep = |e: &Entry| {
            o.filters.is_empty()
                || o.filters
                    .iter()
                    .any(|f| format!("{}/{}", c.name, e.name).contains(f.as_str()))
        };
        if c.snowmint.as_ref().is_some_and(|e| !keep(e)) {
            c.snowmint = None;
        }
        c.peers.retain(|e| keep(e));
    }
    cases.retain(|c| c.snowmint.is_some() || !c.peers.is_empty());

    let floor = median(
        (0..o.runs)
            .map(|_| timed_floor(o.ids).as_secs_f64() * 1e9 / o.ids as f64)
            .collect(),
    );
    let mut failures = Vec::new();
    for c in &mut cases {
        let n = o.ids;
        for e in c.snowmint.iter_mut().chain(&mut c.peers) {
            e.warm_up(n, c.pass);
        }
    }
    for round in 1..=o.runs {
        for c in &mut cases {
            let n = o.ids;
            let mut entries: Vec<&mut Entry> = c.snowmint.iter_mut().chain(&mut c.peers).collect();
            if round % 2 == 0 {
                entries.reverse();
            }
            for e in entries {
                if let Err(why) = e.timed(n, c.pass) {
                    failures.push(format!("{}/{}: {why}", c.name, e.name));
                }
                let last = e.ns_per_id().last().copied().unwrap_or(0.0);
                eprintln!(
                    "round {round}/{}: {}/{}: {:.2} {}",
                    o.runs,
                    c.name,
                    e.name,
                    c.unit.show(last),
                    c.unit.suffix()
                );
            }
        }
    }
    // The check pass, after every timed run.
    for c in &mut cases {
        let n = o.ids;
        for e in c.snowmint.iter_mut().chain(&mut c.peers) {
            e.check(n);
            if let Some(Err(why)) = &e.check {
                failures.push(format!("{}/{} check pass: {why}", c.name, e.name));
            }
        }
    }
    let load_end = load_average();
    report(&cases, &o, floor, &load_start, &load_end);
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("FAILED: {f}");
        }
        std::process::exit(1);
    }
}
