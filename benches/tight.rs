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
//! Entries named `baseline: ...` mint nothing (a plain store loop): the table never takes one
//! for the best peer, and the entry table gives snowmint's paired ratio over every entry.
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

mod common;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::{peers, sharded_layout, Mint, Shape, Visit};
use snowmint::{FillError, Generator, Id, IdBatch, Layout, MintError, ShardedGenerator};

/// The batch size of the batch cases, as in the issue.
const BATCH: u64 = 4_096;

/// IDs per stretch of the slice-fill case: a quarter of a 41/0/22 tick (4.19 M IDs). A fill at
/// the speed of memory (about 7 G IDs/s, above the layout's 4.19 G/s) would use a tick up and
/// wait, so a fill pass runs in stretches of this many IDs, each timed on its own after an
/// untimed pause of [`TICK_PAUSE`]: no tick ever holds more than one stretch, and the figure
/// is the fill's, not the cap's.
const WITHIN_TICK: u64 = 1_000_000;

/// The pause before each stretch of a fill pass: one 41/0/22 tick, so that each stretch starts
/// in a tick no earlier stretch reached.
const TICK_PAUSE: Duration = Duration::from_millis(1);

/// A run at or above this share of the layout's cap measured the cap.
const CAPPED: f64 = 0.90;

// ---------------------------------------------------------------------------------------
// The loops

/// One thread's part of a pass.
struct Strand {
    elapsed: Duration,
    count: u64,
    first: u64,
    last: u64,
    /// Every ID, in order, in a check pass; empty in a timed pass.
    ids: Vec<u64>,
}

/// The timed loop for one-ID calls. `inline(never)` keeps one copy per generator type (and
/// a symbol for `objdump`/callgrind: `tight::timed_ids::<...>`), with `mint` inlined into it.
#[inline(never)]
fn timed_ids<M: Mint + ?Sized>(gen: &M, n: u64) -> Strand {
    // The optimiser must not specialise the loop on which generator it is given.
    let gen = black_box(gen);
    let start = Instant::now();
    let first = black_box(gen.mint());
    let mut last = first;
    for _ in 1..n {
        // The ID escapes, as a user's would, so computing it cannot be skipped.
        last = black_box(gen.mint());
    }
    let elapsed = start.elapsed();
    Strand {
        elapsed,
        count: n,
        first,
        last,
        ids: Vec::new(),
    }
}

/// The check loop: the same calls, every ID stored (untimed).
#[inline(never)]
fn stored_ids<M: Mint + ?Sized>(gen: &M, n: u64) -> Strand {
    let mut ids = Vec::with_capacity(usize::try_from(n).expect("fits memory"));
    let start = Instant::now();
    for _ in 0..n {
        ids.push(gen.mint());
    }
    strand_of(start.elapsed(), ids)
}

fn strand_of(elapsed: Duration, ids: Vec<u64>) -> Strand {
    Strand {
        elapsed,
        count: ids.len() as u64,
        first: ids.first().copied().unwrap_or(0),
        last: ids.last().copied().unwrap_or(0),
        ids,
    }
}

/// A source of batches: reserves up to `max` IDs and hands each to `sink` in order,
/// returning how many it handed.
trait MintBatch {
    fn mint_batch(&mut self, max: u64, sink: &mut impl FnMut(u64)) -> u64;
}

/// A snowmint batch call (`Generator::next_ids`, `OwnedShard::next_ids`, ...), iterated.
struct SnowmintBatch<F>(F);

impl<F: Fn(u64) -> Result<IdBatch, MintError>> MintBatch for SnowmintBatch<F> {
    #[inline]
    fn mint_batch(&mut self, max: u64, sink: &mut impl FnMut(u64)) -> u64 {
        let batch = match (self.0)(max) {
            Ok(batch) => batch,
            Err(e) => panic!("snowmint failed to mint a batch: {e}"),
        };
        let n = batch.len() as u64;
        for id in batch {
            sink(id.to_u64());
        }
        n
    }
}

/// snowflake_me's batch call into a reused buffer (its fastest form), iterated.
struct SnowflakeMeBatch {
    gen: snowflake_me::Snowflake,
    buf: Vec<snowflake_me::SnowflakeId>,
}

impl MintBatch for SnowflakeMeBatch {
    #[inline]
    fn mint_batch(&mut self, max: u64, sink: &mut impl FnMut(u64)) -> u64 {
        self.buf.clear();
        let n = usize::try_from(max).expect("batch fits memory");
        if let Err(e) = self.gen.next_ids_into(n, &mut self.buf) {
            panic!("snowflake_me failed to mint a batch: {e}");
        }
        for id in &self.buf {
            sink(id.as_u64());
        }
        self.buf.len() as u64
    }
}

/// The timed loop for batches: each ID of each batch passes through `black_box`.
#[inline(never)]
fn timed_batches<B: MintBatch>(b: &mut B, n: u64) -> Strand {
    let b = black_box(b);
    let start = Instant::now();
    let mut first = None;
    let mut last = 0;
    // The first batch also notes its first ID; the others only pass theirs on.
    let mut count = b.mint_batch(BATCH.min(n), &mut |id| {
        first.get_or_insert(id);
        last = black_box(id);
    });
    while count < n {
        count += b.mint_batch(BATCH.min(n - count), &mut |id| last = black_box(id));
    }
    let elapsed = start.elapsed();
    Strand {
        elapsed,
        count,
        first: first.unwrap_or(0),
        last,
        ids: Vec::new(),
    }
}

#[inline(never)]
fn stored_batches<B: MintBatch>(b: &mut B, n: u64) -> Strand {
    let mut ids = Vec::with_capacity(usize::try_from(n).expect("fits memory"));
    let start = Instant::now();
    while (ids.len() as u64) < n {
        let left = n - ids.len() as u64;
        b.mint_batch(BATCH.min(left), &mut |id| ids.push(id));
    }
    strand_of(start.elapsed(), ids)
}

/// A source that fills a buffer it owns, up to `max` IDs per call (the slice-fill cases).
/// Each call ends with the buffer passed to `black_box`, so its stores cannot be skipped.
trait FillBuf {
    /// Fills the buffer's first `max` slots (at most the batch size); returns how many.
    fn fill_buf(&mut self, max: usize) -> usize;
    /// ID `i` of the last fill.
    fn id_at(&self, i: usize) -> u64;
}

/// snowmint's `fill` (of any source) into a reused `[Id]` buffer.
struct SnowmintFill<F> {
    fill: F,
    buf: Vec<Id>,
}

impl<F: FnMut(&mut [Id]) -> Result<(), FillError<MintError>>> FillBuf for SnowmintFill<F> {
    #[inline]
    fn fill_buf(&mut self, max: usize) -> usize {
        if let Err(e) = (self.fill)(&mut self.buf[..max]) {
            panic!("snowmint failed to fill: {e}");
        }
        black_box(&mut self.buf);
        max
    }

    fn id_at(&self, i: usize) -> u64 {
        self.buf[i].to_u64()
    }
}

/// snowflake_me's `next_ids_into(4096, &mut buf)` into a reused buffer, nothing else.
struct SnowflakeMeFill {
    gen: snowflake_me::Snowflake,
    buf: Vec<snowflake_me::SnowflakeId>,
}

impl FillBuf for SnowflakeMeFill {
    #[inline]
    fn fill_buf(&mut self, max: usize) -> usize {
        self.buf.clear();
        if let Err(e) = self.gen.next_ids_into(max, &mut self.buf) {
            panic!("snowflake_me failed to mint a batch: {e}");
        }
        black_box(&mut self.buf);
        self.buf.len()
    }

    fn id_at(&self, i: usize) -> u64 {
        self.buf[i].as_u64()
    }
}

/// The baseline: a plain `out[i] = base + i` store loop over the same buffer length, the
/// memory's limit for a slice fill, in two spellings the compiler vectorises differently:
/// `base + i` from the index (`running: false`), or a value counted up by one per slot.
struct StoreLoop {
    base: u64,
    running: bool,
    buf: Vec<u64>,
}

impl FillBuf for StoreLoop {
    #[inline]
    fn fill_buf(&mut self, max: usize) -> usize {
        let out = &mut self.buf[..max];
        if self.running {
            store_running(out, self.base);
        } else {
            store_from_index(out, self.base);
        }
        self.base += max as u64;
        black_box(&mut self.buf);
        max
    }

    fn id_at(&self, i: usize) -> u64 {
        self.buf[i]
    }
}

/// `out[i] = base + i`, a value counted up by one per slot. Out of line, as snowmint's run
/// writer is, so that where the loop falls in the code (which changed its speed by up to 1.8×
/// on this machine kind) is a function's start, not wherever the caller's code ends.
// The running value is the spelling measured: clippy's `zip` form is another loop.
#[allow(clippy::explicit_counter_loop)]
#[inline(never)]
fn store_running(out: &mut [u64], base: u64) {
    let mut value = base;
    for slot in out {
        *slot = value;
        value += 1;
    }
}

/// `out[i] = base + i` from the index, out of line as [`store_running`].
#[inline(never)]
fn store_from_index(out: &mut [u64], base: u64) {
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = base + i as u64;
    }
}

/// The timed loop for slice fills: `n` IDs in fills of up to [`BATCH`], in stretches of
/// [`WITHIN_TICK`] IDs, each after an untimed [`TICK_PAUSE`]; the time is the stretches' sum.
/// No ID is looked at but the first and the last.
#[inline(never)]
fn timed_fills<F: FillBuf>(f: &mut F, n: u64) -> Strand {
    let f = black_box(f);
    let batch = BATCH as usize;
    let mut elapsed = Duration::ZERO;
    let (mut count, mut first, mut last) = (0, None, 0);
    while count < n {
        pause_a_tick();
        let stretch_end = (count + WITHIN_TICK).min(n);
        let start = Instant::now();
        let mut filled = f.fill_buf(batch.min((stretch_end - count) as usize));
        count += filled as u64;
        first = first.or(Some(f.id_at(0)));
        while count < stretch_end {
            filled = f.fill_buf(batch.min((stretch_end - count) as usize));
            count += filled as u64;
        }
        last = f.id_at(filled - 1);
        elapsed += start.elapsed();
    }
    Strand {
        elapsed,
        count,
        first: first.unwrap_or(0),
        last,
        ids: Vec::new(),
    }
}

/// Spins for [`TICK_PAUSE`] (a sleep could oversleep by far more, and would let the core idle
/// down). Out of line, so that an instruction count can leave it out by its name.
#[inline(never)]
fn pause_a_tick() {
    let start = Instant::now();
    while start.elapsed() < TICK_PAUSE {
        std::hint::spin_loop();
    }
}

#[inline(never)]
fn stored_fills<F: FillBuf>(f: &mut F, n: u64) -> Strand {
    let mut ids = Vec::with_capacity(usize::try_from(n).expect("fits memory"));
    let start = Instant::now();
    while (ids.len() as u64) < n {
        if (ids.len() as u64).is_multiple_of(WITHIN_TICK) {
            pause_a_tick();
        }
        let left = (n - ids.len() as u64).min(WITHIN_TICK - ids.len() as u64 % WITHIN_TICK);
        let filled = f.fill_buf((BATCH as usize).min(left as usize));
        ids.extend((0..filled).map(|i| f.id_at(i)));
    }
    strand_of(start.elapsed(), ids)
}

/// The floor: the loop and `black_box` with no minting.
#[inline(never)]
fn timed_floor(n: u64) -> Duration {
    let start = Instant::now();
    for i in 0..n {
        black_box(i);
    }
    start.elapsed()
}

/// How many of `total` IDs thread `i` of two mints.
fn share_of(total: u64, i: usize) -> u64 {
    total / 2 + u64::from(i == 0 && total % 2 == 1)
}

/// Runs `work(i)` on two threads started together at a barrier.
fn on_two_threads<W: Fn(usize) -> Strand + Sync>(work: W) -> Vec<Strand> {
    let barrier = Barrier::new(2);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let (barrier, work) = (&barrier, &work);
                s.spawn(move || {
                    barrier.wait();
                    work(i)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("minting thread panicked"))
            .collect()
    })
}

// ---------------------------------------------------------------------------------------
// Entries: one generator set up one way, with the passes it ran

/// Runs one pass of `n` IDs: timed (`false`) or storing every ID (`true`).
type Runner = Box<dyn FnMut(u64, bool) -> Vec<Strand>>;

fn one_thread<M: Mint + 'static>(gen: M) -> Runner {
    Box::new(move |n, store| {
        vec![if store {
            stored_ids(&gen, n)
        } else {
            timed_ids(&gen, n)
        }]
    })
}

/// Two threads minting from ONE generator (for a `ShardedGenerator`: each on its
/// thread-local shard; the threads are new in every pass and take a shard on first use).
fn two_shared<M: Mint + Sync + 'static>(gen: M) -> Runner {
    Box::new(move |n, store| {
        let gen = &gen;
        on_two_threads(|i| {
            if store {
                stored_ids(gen, share_of(n, i))
            } else {
                timed_ids(gen, share_of(n, i))
            }
        })
    })
}

/// Two threads, each minting from a generator of its own.
fn two_own<M: Mint + Send + 'static>(mut gens: [M; 2]) -> Runner {
    Box::new(move |n, store| {
        let barrier = Barrier::new(2);
        std::thread::scope(|s| {
            let handles: Vec<_> = gens
                .iter_mut()
                .enumerate()
                .map(|(i, gen)| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        let gen: &M = gen;
                        barrier.wait();
                        if store {
                            stored_ids(gen, share_of(n, i))
                        } else {
                            timed_ids(gen, share_of(n, i))
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("minting thread panicked"))
                .collect()
        })
    })
}

fn batches<B: MintBatch + 'static>(mut b: B) -> Runner {
    Box::new(move |n, store| {
        vec![if store {
            stored_batches(&mut b, n)
        } else {
            timed_batches(&mut b, n)
        }]
    })
}

fn fills<F: FillBuf + 'static>(mut f: F) -> Runner {
    Box::new(move |n, store| {
        vec![if store {
            stored_fills(&mut f, n)
        } else {
            timed_fills(&mut f, n)
        }]
    })
}

/// One timed pass, summarised.
struct Sample {
    /// The slowest thread's time.
    elapsed: Duration,
    count: u64,
    /// The largest share of the cap any node used (see the module docs).
    cap_use: f64,
}

struct Entry {
    name: String,
    layout: Layout,
    runner: Runner,
    samples: Vec<Sample>,
    /// The check pass's verdict: `Ok(ticks used up)` or what was wrong.
    check: Option<Result<u64, String>>,
    /// A baseline (no generator): never the best peer, no cap.
    baseline: bool,
}

impl Entry {
    fn new(name: impl Into<String>, layout: Layout, runner: Runner) -> Entry {
        Entry {
            name: name.into(),
            layout,
            runner,
            samples: Vec::new(),
            check: None,
            baseline: false,
        }
    }

    /// A baseline entry: shown and paired with snowmint, never the best peer.
    fn baseline(mut self) -> Entry {
        self.baseline = true;
        self
    }

    fn warm_up(&mut self, n: u64) {
        drop((self.runner)((n / 10).max(2), false));
    }

    fn timed(&mut self, n: u64) -> Result<(), String> {
        let strands = (self.runner)(n, false);
        let elapsed = strands.iter().map(|s| s.elapsed).max().unwrap_or_default();
        let count = strands.iter().map(|s| s.count).sum();
        for (i, s) in strands.iter().enumerate() {
            if s.count > 1 && s.last <= s.first {
                return Err(format!(
                    "thread {i}: last ID {} not above first {}",
                    s.last, s.first
                ));
            }
        }
        self.samples.push(Sample {
            elapsed,
            count,
            cap_use: cap_use(&self.layout, &strands),
        });
        Ok(())
    }

    fn check(&mut self, n: u64) {
        let strands = (self.runner)(n, true);
        self.check = Some(verify(&self.layout, &strands, n));
    }

    /// Nanoseconds per ID of each timed pass (for two threads: the pass's wall time over
    /// all IDs, i.e. the inverse of the throughput).
    fn ns_per_id(&self) -> Vec<f64> {
        self.samples
            .iter()
            .map(|s| s.elapsed.as_secs_f64() * 1e9 / s.count as f64)
            .collect()
    }

    fn max_cap_use(&self) -> f64 {
        self.samples.iter().map(|s| s.cap_use).fold(0.0, f64::max)
    }
}

/// The largest share of its capacity any node used in a pass: IDs minted on the node over
/// `ids_per_tick` times the ticks from its first ID's to its last ID's.
fn cap_use(layout: &Layout, strands: &[Strand]) -> f64 {
    // node -> (first tick, last tick, IDs)
    let mut nodes: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for s in strands.iter().filter(|s| s.count > 0) {
        let (a, b) = (
            layout.decode(Id::from_u64(s.first)),
            layout.decode(Id::from_u64(s.last)),
        );
        let e = nodes.entry(a.node()).or_insert((a.ticks(), b.ticks(), 0));
        e.0 = e.0.min(a.ticks());
        e.1 = e.1.max(b.ticks());
        e.2 += s.count;
    }
    nodes
        .values()
        .map(|&(t0, t1, ids)| ids as f64 / ((t1 - t0 + 1) * layout.ids_per_tick()) as f64)
        .fold(0.0, f64::max)
}

/// The check pass: every thread's IDs strictly increase, no ID appears twice across
/// threads, the count is right. Returns how many (node, tick) pairs were used up.
fn verify(layout: &Layout, strands: &[Strand], n: u64) -> Result<u64, String> {
    let minted: u64 = strands.iter().map(|s| s.ids.len() as u64).sum();
    if minted != n {
        return Err(format!("minted {minted} IDs, expected {n}"));
    }
    for (i, s) in strands.iter().enumerate() {
        if let Some(w) = s.ids.windows(2).find(|w| w[0] >= w[1]) {
            return Err(format!("thread {i}: ID {} followed by {}", w[0], w[1]));
        }
    }
    // Each list is sorted: merging them finds any ID two threads share.
    if let [a, b] = strands {
        let (mut i, mut j) = (0, 0);
        while i < a.ids.len() && j < b.ids.len() {
            match a.ids[i].cmp(&b.ids[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    return Err(format!("ID {} minted on both threads", a.ids[i]))
                }
            }
        }
    }
    let max_seq = layout.max_sequence();
    Ok(strands
        .iter()
        .flat_map(|s| &s.ids)
        .filter(|&&id| layout.decode(Id::from_u64(id)).sequence() == max_seq)
        .count() as u64)
}

// ---------------------------------------------------------------------------------------
// Cases

/// How a case's figures are shown.
#[derive(Clone, Copy, PartialEq)]
enum Unit {
    /// One thread: nanoseconds per ID, lower is better.
    NsPerId,
    /// Two threads: million IDs per second over both, higher is better.
    MIdsPerSec,
}

impl Unit {
    fn show(self, ns_per_id: f64) -> f64 {
        match self {
            Unit::NsPerId => ns_per_id,
            Unit::MIdsPerSec => 1e3 / ns_per_id,
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Unit::NsPerId => "ns/ID",
            Unit::MIdsPerSec => "M IDs/s",
        }
    }
}

struct Case {
    name: &'static str,
    what: &'static str,
    unit: Unit,
    layout: Layout,
    snowmint: Option<Entry>,
    peers: Vec<Entry>,
}

/// How the peers of a case run.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    OneThread,
    /// Two threads, one generator they share.
    TwoShared,
    /// Two threads, one generator each (nodes 0 and 1).
    TwoOwn,
}

/// Picks the named peers out of `peers::visit`, so that each is set up exactly as in the
/// criterion bench (same layouts, clocks and back-off; see `benches/common/peers.rs`).
struct PeerPicker {
    shape: Shape,
    mode: Mode,
    wanted: &'static [&'static str],
    out: Vec<Entry>,
}

impl PeerPicker {
    fn wants(&self, name: &str) -> bool {
        self.wanted.contains(&name)
    }
}

impl Visit for PeerPicker {
    fn shared<M: Mint + Send + Sync + 'static, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        if !self.wants(name) {
            return;
        }
        let runner = match self.mode {
            Mode::OneThread => one_thread(make(0)),
            Mode::TwoShared => two_shared(make(0)),
            Mode::TwoOwn => two_own([make(0), make(1)]),
        };
        let label = match self.mode {
            Mode::TwoOwn => format!("{name} (one per thread)"),
            _ => name.to_owned(),
        };
        self.out
            .push(Entry::new(label, self.shape.layout(), runner));
    }

    fn local<M: Mint + Send + 'static, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        if !self.wants(name) {
            return;
        }
        let runner = match self.mode {
            Mode::OneThread => one_thread(make(0)),
            Mode::TwoOwn => two_own([make(0), make(1)]),
            Mode::TwoShared => return, // not Sync
        };
        let label = match self.mode {
            Mode::TwoOwn => format!("{name} (one per thread)"),
            _ => name.to_owned(),
        };
        self.out
            .push(Entry::new(label, self.shape.layout(), runner));
    }

    fn sharded<M: Mint + Send + Sync + 'static, F: Fn() -> M>(
        &mut self,
        _name: &str,
        _layout: Layout,
        _note: Option<&str>,
        _make: F,
    ) {
        // Not a peer.
    }

    fn unsupported(&mut self, _name: &str, _why: &str) {}
}

fn peers_of(shape: Shape, mode: Mode, wanted: &'static [&'static str]) -> Vec<Entry> {
    let mut picker = PeerPicker {
        shape,
        mode,
        wanted,
        out: Vec::new(),
    };
    peers::visit(shape, &mut picker);
    picker.out
}

/// Peers that one generator shared by threads can be compared with: the `Sync` ones,
/// all CAS or lock based. In 41/0/22: ferroid's ID type `FerroidUncapped` (`reserved: 1,
/// timestamp: 41, machine_id: 0, sequence: 22`, by `define_snowflake_id!`), its
/// `MonotonicClock` from Twitter's epoch (1 ms ticks, an atomic a ticker thread updates);
/// snowflake_me with `bit_len_time(41)`, `bit_len_sequence(22)` and no data-center or
/// machine bits, `start_time` Twitter's epoch, its `jiff` clock; snowdon with a `Layout`
/// impl putting the timestamp above 22 sequence bits (`SnowdonLayout<0, 22>`), Twitter's
/// epoch, `SystemTime`.
const SHARED_PEERS: &[&str] = &["ferroid-atomic", "ferroid-lock", "snowflake_me", "snowdon"];

/// Peers for one owner per generator: ferroid's `BasicSnowflakeGenerator` (a `Cell`, not
/// `Sync`: the nearest to an owned shard or a thread-local shard) and its atomic one, each on node
/// 0 (and 1 for the second thread) of 41/2/20 (`FerroidUncapped4Node`: `machine_id: 2,
/// sequence: 20`), same clock as above.
const OWNED_PEERS: &[&str] = &["ferroid-basic", "ferroid-atomic"];

fn snowflake_me_batch(shape: Shape) -> Entry {
    Entry::new(
        "snowflake_me next_ids_into",
        shape.layout(),
        batches(SnowflakeMeBatch {
            gen: peers::snowflake_me(shape, 0),
            buf: Vec::with_capacity(BATCH as usize),
        }),
    )
}

/// snowflake_me's `next_ids_into(4096, &mut buf)`, the buffer reused, nothing iterated.
fn snowflake_me_fill(shape: Shape) -> Entry {
    Entry::new(
        "snowflake_me next_ids_into(4096, &mut buf)",
        shape.layout(),
        fills(SnowflakeMeFill {
            gen: peers::snowflake_me(shape, 0),
            buf: Vec::with_capacity(BATCH as usize),
        }),
    )
}

/// The store-loop baseline (see [`StoreLoop`]), its values counting up from an ID of now in
/// `layout`.
fn store_loop(layout: Layout, running: bool) -> Entry {
    let base = Generator::builder(layout)
        .build()
        .ok()
        .and_then(|g| g.next_id().ok())
        .map_or(1, Id::to_u64);
    let name = if running {
        "baseline: store loop out[i] = base + i (running value)"
    } else {
        "baseline: store loop out[i] = base + i (from the index)"
    };
    Entry::new(
        name,
        layout,
        fills(StoreLoop {
            base,
            running,
            buf: vec![0; BATCH as usize],
        }),
    )
    .baseline()
}

fn sharded(layout: Layout, shard_bits: u8) -> ShardedGenerator {
    ShardedGenerator::builder(layout)
        .shard_bits(shard_bits)
        .build()
        .expect("shard bits fit the layout")
}

fn cases() -> Vec<Case> {
    // Shared generators: 41/0/22, node 0.
    let shared_shape = Shape::Uncapped;
    let shared_layout = shared_shape.layout();
    let generator = || {
        Generator::builder(shared_layout)
            .build()
            .expect("node 0 fits")
    };
    // Shards: 41/2/20, shard bits 2 (three exclusive shards and the overflow one).
    let shard_shape = Shape::Uncapped4Node;
    let (shard_layout, shard_bits, _) = sharded_layout(shard_shape);

    let one_lease = {
        let gen = sharded(shard_layout, shard_bits);
        gen.own_shard().expect("a free shard")
    };
    let two_leases = {
        let gen = sharded(shard_layout, shard_bits);
        [
            gen.own_shard().expect("a free shard"),
            gen.own_shard().expect("a free shard"),
        ]
    };
    let batch_lease = sharded(shard_layout, shard_bits)
        .own_shard()
        .expect("a free shard");
    let batch_gen = generator();
    let fill_gen = generator();

    vec![
        Case {
            name: "1t-shared",
            what: "Generator::next_id, one thread",
            unit: Unit::NsPerId,
            layout: shared_layout,
            snowmint: Some(Entry::new(
                "Generator::next_id",
                shared_layout,
                one_thread(generator()),
            )),
            peers: peers_of(shared_shape, Mode::OneThread, SHARED_PEERS),
        },
        Case {
            name: "1t-owned",
            what: "OwnedShard::next_id (owned shard), one thread",
            unit: Unit::NsPerId,
            layout: shard_layout,
            snowmint: Some(Entry::new(
                "OwnedShard::next_id",
                shard_layout,
                one_thread(one_lease),
            )),
            peers: peers_of(shard_shape, Mode::OneThread, OWNED_PEERS),
        },
        Case {
            name: "1t-local",
            what: "ShardedGenerator::next_id (thread-local shard), one thread",
            unit: Unit::NsPerId,
            layout: shard_layout,
            snowmint: Some(Entry::new(
                "ShardedGenerator::next_id",
                shard_layout,
                one_thread(sharded(shard_layout, shard_bits)),
            )),
            peers: peers_of(shard_shape, Mode::OneThread, OWNED_PEERS),
        },
        Case {
            name: "1t-batch-shared",
            what: "Generator::next_ids(4096), iterated, one thread",
            unit: Unit::NsPerId,
            layout: shared_layout,
            snowmint: Some(Entry::new(
                "Generator::next_ids",
                shared_layout,
                batches(SnowmintBatch(move |n| batch_gen.next_ids(n))),
            )),
            peers: vec![snowflake_me_batch(shared_shape)],
        },
        Case {
            name: "1t-fill",
            what: "Generator::fill(&mut [Id; 4096]), reused buffer, one thread, within a tick",
            unit: Unit::NsPerId,
            layout: shared_layout,
            snowmint: Some(Entry::new(
                "Generator::fill",
                shared_layout,
                fills(SnowmintFill {
                    fill: move |out: &mut [Id]| fill_gen.fill(out),
                    buf: vec![Id::MIN; BATCH as usize],
                }),
            )),
            peers: vec![
                snowflake_me_fill(shared_shape),
                store_loop(shared_layout, false),
                store_loop(shared_layout, true),
            ],
        },
        Case {
            name: "1t-batch-owned",
            what: "OwnedShard::next_ids(4096), iterated, one thread",
            unit: Unit::NsPerId,
            layout: shard_layout,
            snowmint: Some(Entry::new(
                "OwnedShard::next_ids",
                shard_layout,
                batches(SnowmintBatch(move |n| batch_lease.next_ids(n))),
            )),
            peers: vec![snowflake_me_batch(shard_shape)],
        },
        Case {
            name: "2t-shared",
            what: "one Generator, two threads",
            unit: Unit::MIdsPerSec,
            layout: shared_layout,
            snowmint: Some(Entry::new(
                "Generator::next_id",
                shared_layout,
                two_shared(generator()),
            )),
            peers: peers_of(shared_shape, Mode::TwoShared, SHARED_PEERS),
        },
        Case {
            name: "2t-owned",
            what: "two threads, an OwnedShard each",
            unit: Unit::MIdsPerSec,
            layout: shard_layout,
            snowmint: Some(Entry::new(
                "OwnedShard::next_id",
                shard_layout,
                two_own(two_leases),
            )),
            peers: peers_of(shard_shape, Mode::TwoOwn, OWNED_PEERS),
        },
        Case {
            name: "2t-local",
            what: "one ShardedGenerator, two threads (thread-local shards)",
            unit: Unit::MIdsPerSec,
            layout: shard_layout,
            snowmint: Some(Entry::new(
                "ShardedGenerator::next_id",
                shard_layout,
                two_shared(sharded(shard_layout, shard_bits)),
            )),
            peers: peers_of(shard_shape, Mode::TwoOwn, OWNED_PEERS),
        },
    ]
}

// ---------------------------------------------------------------------------------------
// Options, output

struct Options {
    ids: u64,
    runs: usize,
    filters: Vec<String>,
}

fn options() -> Options {
    let env_num = |key: &str, default: u64| -> u64 {
        std::env::var(key)
            .ok()
            .map(|v| {
                v.replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| panic!("{key}={v}: expected a whole number"))
            })
            .unwrap_or(default)
    };
    let mut o = Options {
        ids: env_num("TIGHT_IDS", 10_000_000),
        runs: env_num("TIGHT_RUNS", 5) as usize,
        filters: std::env::var("TIGHT_FILTER")
            .map(|f| f.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> u64 {
            let v = args
                .next()
                .unwrap_or_else(|| panic!("{what} needs a value"));
            v.replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("{what} {v}: expected a whole number"))
        };
        match arg.as_str() {
            "--ids" => o.ids = number("--ids"),
            "--runs" => o.runs = number("--runs") as usize,
            // cargo bench passes --bench; other harness flags mean nothing here.
            a if a.starts_with("--") => {}
            _ => o.filters.push(arg),
        }
    }
    assert!(o.ids >= 2, "--ids must be at least 2 (one per thread)");
    assert!(o.runs >= 1, "--runs must be at least 1");
    o
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// `median (min–max)` of an entry in the case's unit, or `—` if it did not run.
fn figure(unit: Unit, e: &Entry) -> Option<(f64, String)> {
    let ns = e.ns_per_id();
    if ns.is_empty() {
        return None;
    }
    let shown: Vec<f64> = ns.iter().map(|&x| unit.show(x)).collect();
    let (lo, hi) = shown
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let m = unit.show(median(ns));
    // Three decimals below 1 ns: a slice fill's figures are around 0.1.
    let digits = |x: f64| match x {
        x if x >= 100.0 => 0,
        x if x < 1.0 => 3,
        _ => 2,
    };
    let text = if shown.len() == 1 {
        format!("{m:.*} {}", digits(m), unit.suffix())
    } else {
        format!(
            "{m:.*} {} ({lo:.*}–{hi:.*})",
            digits(m),
            unit.suffix(),
            digits(lo),
            digits(hi)
        )
    };
    Some((m, text))
}

/// The peer's time over snowmint's in each round (both units: ns per ID is the inverse of
/// the throughput), as `median× (min–max)`: a slow phase of the machine that hits both
/// entries of a round cancels out, where the ratio of two medians keeps it.
fn paired_ratios(ours: &Entry, peer: &Entry) -> String {
    let ratios: Vec<f64> = ours
        .ns_per_id()
        .iter()
        .zip(peer.ns_per_id())
        .map(|(o, p)| p / o)
        .collect();
    if ratios.is_empty() {
        return "—".to_owned();
    }
    let (lo, hi) = ratios
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let m = median(ratios);
    format!("{m:.2}× ({lo:.2}–{hi:.2})")
}

fn layout_name(l: &Layout) -> String {
    format!("{}/{}/{}", l.time_bits(), l.node_bits(), l.sequence_bits())
}

fn check_text(e: &Entry) -> String {
    match &e.check {
        None => "not checked".to_owned(),
        Some(Ok(_)) if e.baseline => "ok".to_owned(),
        Some(Ok(0)) => "ok".to_owned(),
        Some(Ok(t)) => format!("ok; {t} ticks used up"),
        Some(Err(e)) => format!("FAILED: {e}"),
    }
}

fn report(cases: &[Case], o: &Options, floor_ns: f64, load_start: &str, load_end: &str) {
    println!();
    println!(
        "tight loop: {} IDs per run and case (two threads: half each), median of {} run(s) (min–max); \
         ratio > 1: snowmint ahead (`ratio`: of the medians; `paired`: the median, min–max, of \
         the ratios within each round, where the two ran side by side)",
        o.ids, o.runs
    );
    println!("load average (1, 5, 15 min): at start {load_start}; at end {load_end}");
    println!("floor (loop + black_box, no minting): {floor_ns:.2} ns/ID");
    println!();
    println!(
        "| case | layout | snowmint | best peer | peer | ratio | paired | cap (closest entry) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for c in cases {
        let ours = c.snowmint.as_ref().and_then(|e| figure(c.unit, e));
        let best = c
            .peers
            .iter()
            .filter(|e| !e.baseline)
            .filter_map(|e| figure(c.unit, e).map(|f| (e, f)))
            .reduce(|a, b| {
                let better = match c.unit {
                    Unit::NsPerId => b.1 .0 < a.1 .0,
                    Unit::MIdsPerSec => b.1 .0 > a.1 .0,
                };
                if better {
                    b
                } else {
                    a
                }
            });
        let ratio = match (&ours, &best) {
            (Some((o, _)), Some((_, (p, _)))) => match c.unit {
                Unit::NsPerId => format!("{:.2}×", p / o),
                Unit::MIdsPerSec => format!("{:.2}×", o / p),
            },
            _ => "—".to_owned(),
        };
        let paired = match (&c.snowmint, &best) {
            (Some(o), Some((p, _))) => paired_ratios(o, p),
            _ => "—".to_owned(),
        };
        let closest = c
            .snowmint
            .iter()
            .chain(&c.peers)
            .filter(|e| !e.samples.is_empty() && !e.baseline)
            .max_by(|a, b| a.max_cap_use().total_cmp(&b.max_cap_use()));
        let cap = match closest {
            Some(e) => {
                let used = e.max_cap_use();
                let up = match e.check {
                    Some(Ok(t)) => t,
                    _ => 0,
                };
                format!(
                    "{}{} {:.0}%, {} ticks used up",
                    if used >= CAPPED { "CAPPED: " } else { "" },
                    e.name,
                    used * 100.0,
                    up
                )
            }
            None => "—".to_owned(),
        };
        println!(
            "| {} ({}) | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            c.what,
            layout_name(&c.layout),
            ours.map_or("—".to_owned(), |o| o.1),
            best.as_ref().map_or("—", |b| b.0.name.as_str()),
            best.as_ref().map_or("—".to_owned(), |b| b.1 .1.clone()),
            ratio,
            paired,
            cap
        );
    }
    println!();
    println!("every entry:");
    println!();
    println!("| case | entry | figure | paired (snowmint over it) | max cap use | check pass |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for c in cases {
        for e in c.snowmint.iter().chain(&c.peers) {
            let Some((_, text)) = figure(c.unit, e) else {
                continue;
            };
            let paired = match &c.snowmint {
                Some(ours) if !std::ptr::eq(ours, e) => paired_ratios(ours, e),
                _ => "—".to_owned(),
            };
            // A baseline's values are not IDs of a tick: it has no cap.
            let cap = if e.baseline {
                "—".to_owned()
            } else {
                format!("{:.1}%", e.max_cap_use() * 100.0)
            };
            println!(
                "| {} | {} | {} | {} | {cap} | {} |",
                c.name,
                e.name,
                text,
                paired,
                check_text(e)
            );
        }
    }
}

fn main() {
    let o = options();
    let load_start = load_average();
    let mut cases = cases();
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
            e.warm_up(n);
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
                if let Err(why) = e.timed(n) {
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
