//! The cases of the mint benchmark, shared by `benches/mint.rs` (which times them) and
//! `tests/bench_cases.rs` (which checks that every one of them mints unique IDs).
//!
//! Every generator in the comparison, ours, the mutex baselines written here and the peer
//! crates, is wrapped in [`Mint`] and offered through [`visit_cases`], so that the bench and
//! the test walk exactly the same list, built the same way for the same [`Shape`].
#![allow(dead_code)] // Each includer uses a different part.

pub mod baseline;
pub mod peers;

use std::collections::HashSet;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use snowmint::clock::{Clock, TscClock};
use snowmint::{Generator, Layout, ShardedGenerator};

/// Anything that mints one 64-bit ID per call, waiting if it must. Every implementation is
/// `#[inline(always)]`: a user's loop calls the crate's method directly, and the compiler
/// inlines it there; this trait must not add a call the user's code does not have.
pub trait Mint {
    /// The next ID. Panics if the generator fails: a bench has no way to go on.
    fn mint(&self) -> u64;
}

impl<C: Clock + 'static> Mint for ShardedGenerator<C> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        // `expect`, as a user would write: the failure is one cold call, not inlined
        // formatting.
        self.next_id()
            .expect("snowmint (sharded) failed to mint")
            .to_u64()
    }
}

impl<C: Clock> Mint for snowmint::shard::OwnedShard<C> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        // `expect`, as a user would write: the failure is one cold call, not inlined
        // formatting.
        self.next_id()
            .expect("snowmint (owned) failed to mint")
            .to_u64()
    }
}

impl<C: Clock> Mint for Generator<C> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        // `expect`, as a user would write: the failure is one cold call, not inlined
        // formatting.
        self.next_id().expect("snowmint failed to mint").to_u64()
    }
}

/// The ID layouts compared: the time field is always 41 bits of milliseconds since Twitter's
/// epoch, so the peers, which all start from Twitter's layout, can be set to each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// 41 time / 0 node / 22 sequence bits: 4.2 G IDs/s, which no single core reaches.
    Uncapped,
    /// 41 time / 2 node / 20 sequence bits: four nodes (one generator per thread, or a
    /// sharded generator's three exclusive shards and its overflow shard), each still
    /// effectively uncapped at 1 G IDs/s.
    Uncapped4Node,
    /// Twitter's 41 time / 10 node / 12 sequence bits: 4,096 IDs per ms per node.
    Twitter,
}

/// Twitter's epoch, 2010-11-04T01:42:54.657Z, the epoch of every shape.
pub const TWITTER_EPOCH_MS: u64 = 1_288_834_974_657;

impl Shape {
    /// The snowmint layout of this shape.
    pub const fn layout(self) -> Layout {
        match self {
            Shape::Uncapped => Layout::builder()
                .node_bits(0)
                .sequence_bits(22)
                .build_const(),
            Shape::Uncapped4Node => Layout::builder()
                .node_bits(2)
                .sequence_bits(20)
                .build_const(),
            Shape::Twitter => Layout::TWITTER,
        }
    }

    /// The short name used in benchmark ids.
    pub const fn name(self) -> &'static str {
        match self {
            Shape::Uncapped => "uncapped",
            Shape::Uncapped4Node => "uncapped-4node",
            Shape::Twitter => "twitter",
        }
    }

    pub const fn node_bits(self) -> u8 {
        self.layout().node_bits()
    }

    pub const fn sequence_bits(self) -> u8 {
        self.layout().sequence_bits()
    }
}

/// Receives the cases of one shape. A case is a name and a function building a generator
/// for a node; the two methods differ only in whether the generator may be shared. The
/// generators own their state (`'static`), so a receiver may keep them (`benches/tight/`
/// boxes them to interleave its runs).
pub trait Visit {
    /// A generator that threads may share (`Sync`).
    fn shared<M, F>(&mut self, name: &str, make: F)
    where
        M: Mint + Send + Sync + 'static,
        F: Fn(u64) -> M;

    /// A generator for one thread at a time (`Send` but not `Sync`).
    fn local<M, F>(&mut self, name: &str, make: F)
    where
        M: Mint + Send + 'static,
        F: Fn(u64) -> M;

    /// ONE generator that gives every thread sharing it a node of its own (snowmint's
    /// `ShardedGenerator`), minting in `layout`: the shape's, or, when the shape has too few
    /// node bits for shards, the closest layout that has them, said in `note`.
    fn sharded<M, F>(&mut self, name: &str, layout: Layout, note: Option<&str>, make: F)
    where
        M: Mint + Send + Sync + 'static,
        F: Fn() -> M;

    /// A case that cannot be set to this shape, and why.
    fn unsupported(&mut self, name: &str, why: &str);
}

/// The layout, shard bits and note of the sharded case in `shape`.
pub fn sharded_layout(shape: Shape) -> (Layout, u8, Option<&'static str>) {
    match shape {
        // Shards live in the node field, which this shape does not have: the per-ID work does
        // not depend on the field widths, so two node bits are borrowed from the sequence.
        Shape::Uncapped => (
            Shape::Uncapped4Node.layout(),
            2,
            Some("layout 41/2/20: shards need node bits"),
        ),
        Shape::Uncapped4Node => (shape.layout(), 2, None),
        Shape::Twitter => (shape.layout(), 6, None),
    }
}

/// Offers every case for `shape` to `v`, in the order of the report's table.
pub fn visit_cases<V: Visit>(shape: Shape, v: &mut V) {
    let layout = shape.layout();
    // The default clock: the process-wide TscClock, its ticker publishing a cheap reading.
    v.shared("snowmint-ticker", |node| {
        Generator::builder(layout)
            .node(node)
            .build()
            .expect("node fits the shape")
    });
    // Every reading exact (an rdtsc per ID), no ticker thread.
    let exact = TscClock::builder()
        .ticker(None)
        .build()
        .expect("no ticker is a valid setting");
    v.shared("snowmint-exact", |node| {
        Generator::builder(layout)
            .clock(exact.clone())
            .node(node)
            .build()
            .expect("node fits the shape")
    });
    // One generator for all threads, each thread minting on a shard of its own: no shared
    // cache line, no atomic read-modify-write on the hot path.
    let (sharded, shard_bits, note) = sharded_layout(shape);
    v.sharded("snowmint-sharded", sharded, note, || {
        ShardedGenerator::builder(sharded)
            .shard_bits(shard_bits)
            .build()
            .expect("shard bits fit the layout")
    });
    baseline::visit(shape, v);
    peers::visit(shape, v);
}

/// What a multi-thread run measured, and the IDs if it kept them.
#[derive(Debug)]
pub struct Run {
    /// The slowest thread's time from the common start (a barrier) to its last ID.
    pub elapsed: Duration,
    /// The IDs each thread minted, in its order; empty unless asked for.
    pub ids: Vec<Vec<u64>>,
}

/// How many of `total` IDs thread `i` of `threads` mints: the split differs by at most one,
/// and the parts add up to `total`.
fn share_of(total: u64, threads: usize, i: usize) -> u64 {
    let threads = threads as u64;
    total / threads + u64::from((i as u64) < total % threads)
}

fn mint_loop<M: Mint + ?Sized>(gen: &M, count: u64, record: bool) -> (Duration, Vec<u64>) {
    if record {
        let mut ids = Vec::with_capacity(usize::try_from(count).expect("fits memory"));
        let start = Instant::now();
        for _ in 0..count {
            ids.push(gen.mint());
        }
        (start.elapsed(), ids)
    } else {
        let start = Instant::now();
        for _ in 0..count {
            black_box(gen.mint());
        }
        (start.elapsed(), Vec::new())
    }
}

/// `threads` threads mint `total` IDs between them from ONE shared generator, starting
/// together at a barrier and ending together at another. With `record`, each thread keeps
/// its IDs (storing them costs a memory write per ID, so the timed bench runs without).
pub fn mint_shared<M: Mint + Sync>(gen: &M, threads: usize, total: u64, record: bool) -> Run {
    let barrier = Barrier::new(threads);
    let results: Vec<(Duration, Vec<u64>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let run = mint_loop(gen, share_of(total, threads, i), record);
                    // No thread ends (handing back a thread-local shard) before every thread
                    // has minted: a thread that ran its whole share before another was
                    // scheduled would otherwise pass its shard on to it.
                    barrier.wait();
                    run
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("minting thread panicked"))
            .collect()
    });
    collect(results)
}

/// One thread per generator, each minting from its own, `total` IDs between them, starting
/// together at a barrier.
pub fn mint_each<M: Mint + Send>(gens: &mut [M], total: u64, record: bool) -> Run {
    let threads = gens.len();
    let barrier = Barrier::new(threads);
    let results: Vec<(Duration, Vec<u64>)> = std::thread::scope(|s| {
        let handles: Vec<_> = gens
            .iter_mut()
            .enumerate()
            .map(|(i, gen)| {
                let barrier = &barrier;
                s.spawn(move || {
                    let gen: &M = gen;
                    barrier.wait();
                    mint_loop(gen, share_of(total, threads, i), record)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("minting thread panicked"))
            .collect()
    });
    collect(results)
}

fn collect(results: Vec<(Duration, Vec<u64>)>) -> Run {
    let elapsed = results.iter().map(|r| r.0).max().unwrap_or_default();
    Run {
        elapsed,
        ids: results.into_iter().map(|r| r.1).collect(),
    }
}

/// The first ID minted twice in a run, if any.
pub fn first_duplicate(run: &Run) -> Option<u64> {
    let mut seen = HashSet::with_capacity(run.ids.iter().map(Vec::len).sum());
    run.ids
        .iter()
        .flatten()
        .copied()
        .find(|&id| !seen.insert(id))
}

/// Panics, naming the case, if the run minted an ID twice or fewer IDs than asked.
pub fn assert_unique(run: &Run, total: u64, case: &str) {
    let minted: u64 = run.ids.iter().map(|t| t.len() as u64).sum();
    assert_eq!(
        minted, total,
        "{case}: minted {minted} IDs, expected {total}"
    );
    if let Some(dup) = first_duplicate(run) {
        panic!("{case}: ID {dup} ({dup:#x}) minted twice");
    }
}

/// How many IDs each multi-thread case mints, kept, just before its timed samples, to check
/// that they are unique: at Twitter's cap that is 100 ms.
pub const VERIFY_IDS: u64 = 400_000;
