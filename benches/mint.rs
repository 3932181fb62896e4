//! Minting throughput: snowmint against mutex baselines and the peer crates, side by side in
//! one run. See `benches/README.md` for the machine, the command and the numbers.
//!
//! Groups (`Throughput::Elements`: one element is one ID):
//! - `1t-uncapped`, `1t-twitter`: one thread, one generator;
//! - `2t-shared-uncapped`, `2t-shared-twitter`: two threads minting from ONE generator;
//! - `2t-own-uncapped-4node`, `2t-own-twitter`: two threads, each with its own generator
//!   (nodes 0 and 1), or both sharing one `ShardedGenerator` that gives each a shard.
//!
//! Multi-thread cases use `iter_custom`: the threads start together at a barrier, each mints
//! half the IDs, and the time is the slowest thread's. Before its timed samples every
//! multi-thread case mints `VERIFY_IDS` IDs the same way, keeping them, and panics if any
//! two are equal (`tests/bench_cases.rs` runs the same check as a test).

mod common;

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};

use common::{
    assert_unique, mint_each, mint_shared, sharded_layout, visit_cases, Mint, Shape, Visit,
    VERIFY_IDS,
};
use snowmint::{Layout, ShardedGenerator};

const THREADS: usize = 2;

fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(1));
    g
}

fn not_measured(group: &str, name: &str, why: &str) {
    eprintln!("{group}/{name}: not measured: {why}");
}

fn note(group: &str, name: &str, note: Option<&str>) {
    if let Some(note) = note {
        eprintln!("{group}/{name}: note: {note}");
    }
}

/// Two threads minting from one generator they share, the IDs checked before timing.
fn bench_shared<M: Mint + Sync>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    group: &str,
    name: &str,
    gen: M,
) {
    let check = mint_shared(&gen, THREADS, VERIFY_IDS, true);
    assert_unique(&check, VERIFY_IDS, &format!("{group}/{name}"));
    drop(check);
    g.bench_function(name, |b| {
        b.iter_custom(|iters| mint_shared(&gen, THREADS, iters, false).elapsed)
    });
}

/// One thread minting from one generator.
struct Single<'a, 'c> {
    g: &'a mut BenchmarkGroup<'c, WallTime>,
    group: String,
}

impl Single<'_, '_> {
    fn bench<M: Mint>(&mut self, name: &str, gen: M) {
        self.g.bench_function(name, |b| b.iter(|| gen.mint()));
    }
}

impl Visit for Single<'_, '_> {
    fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.bench(name, make(0));
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.bench(name, make(0));
    }

    fn sharded<M: Mint + Send + Sync, F: Fn() -> M>(
        &mut self,
        name: &str,
        _layout: Layout,
        n: Option<&str>,
        make: F,
    ) {
        note(&self.group, name, n);
        self.bench(name, make());
    }

    fn unsupported(&mut self, name: &str, why: &str) {
        not_measured(&self.group, name, why);
    }
}

/// Two threads minting from one shared generator.
struct Shared<'a, 'c> {
    g: &'a mut BenchmarkGroup<'c, WallTime>,
    group: String,
}

impl Visit for Shared<'_, '_> {
    fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        bench_shared(self.g, &self.group, name, make(0));
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, _make: F) {
        not_measured(&self.group, name, "not Sync: one thread at a time only");
    }

    /// Shared like the others; it gives each thread a shard (a node) of its own.
    fn sharded<M: Mint + Send + Sync, F: Fn() -> M>(
        &mut self,
        name: &str,
        _layout: Layout,
        n: Option<&str>,
        make: F,
    ) {
        note(&self.group, name, n);
        bench_shared(self.g, &self.group, name, make());
    }

    fn unsupported(&mut self, name: &str, why: &str) {
        not_measured(&self.group, name, why);
    }
}

/// Two threads, each minting from a generator of its own (nodes 0 and 1).
struct Own<'a, 'c> {
    g: &'a mut BenchmarkGroup<'c, WallTime>,
    group: String,
}

impl Own<'_, '_> {
    fn bench<M: Mint + Send>(&mut self, name: &str, make: impl Fn(u64) -> M) {
        let mut gens: Vec<M> = (0..THREADS as u64).map(make).collect();
        let check = mint_each(&mut gens, VERIFY_IDS, true);
        assert_unique(&check, VERIFY_IDS, &format!("{}/{name}", self.group));
        drop(check);
        self.g.bench_function(name, |b| {
            b.iter_custom(|iters| mint_each(&mut gens, iters, false).elapsed)
        });
    }
}

impl Visit for Own<'_, '_> {
    fn shared<M: Mint + Send + Sync, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.bench(name, make);
    }

    fn local<M: Mint + Send, F: Fn(u64) -> M>(&mut self, name: &str, make: F) {
        self.bench(name, make);
    }

    /// The other way to give each thread a node of its own: both threads share ONE sharded
    /// generator and each mints on a shard of its own.
    fn sharded<M: Mint + Send + Sync, F: Fn() -> M>(
        &mut self,
        name: &str,
        _layout: Layout,
        n: Option<&str>,
        make: F,
    ) {
        note(&self.group, name, n);
        bench_shared(self.g, &self.group, name, make());
    }

    fn unsupported(&mut self, name: &str, why: &str) {
        not_measured(&self.group, name, why);
    }
}

fn one_thread(c: &mut Criterion) {
    for shape in [Shape::Uncapped, Shape::Twitter] {
        let name = format!("1t-{}", shape.name());
        let mut g = group(c, &name);
        let mut single = Single {
            g: &mut g,
            group: name.clone(),
        };
        visit_cases(shape, &mut single);
        // An owned lease of one shard (not Sync, so only here): the sharded case's layout.
        let (layout, shard_bits, lease_note) = sharded_layout(shape);
        let sharded = ShardedGenerator::builder(layout)
            .shard_bits(shard_bits)
            .build()
            .expect("shard bits fit the layout");
        note(&name, "snowmint-lease", lease_note);
        single.bench("snowmint-lease", sharded.own_shard().expect("a free shard"));
        g.finish();
    }
}

fn two_threads_shared(c: &mut Criterion) {
    for shape in [Shape::Uncapped, Shape::Twitter] {
        let name = format!("2t-shared-{}", shape.name());
        let mut g = group(c, &name);
        visit_cases(
            shape,
            &mut Shared {
                g: &mut g,
                group: name,
            },
        );
        g.finish();
    }
}

fn two_threads_own(c: &mut Criterion) {
    // Uncapped has no node bits, so two generators need the 2-node-bit variant.
    for shape in [Shape::Uncapped4Node, Shape::Twitter] {
        let name = format!("2t-own-{}", shape.name());
        let mut g = group(c, &name);
        // `snowmint-sharded` (visited with the others) is ONE generator both threads share,
        // each minting on a shard of its own: the alternative to one generator per thread.
        visit_cases(
            shape,
            &mut Own {
                g: &mut g,
                group: name,
            },
        );
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = mint;
    config = config();
    targets = one_thread, two_threads_shared, two_threads_own
}
criterion_main!(mint);
