//! What every model shares: small layouts, the clock, the model runner and the checks.
#![allow(dead_code)] // Each test file uses its own part of this module.

// Without the flag snowmint uses std atomics, invisible to loom: it could not interleave the
// generator's steps and the models would pass having checked nothing. Refuse to build.
#[cfg(not(loom))]
compile_error!("the loom models need RUSTFLAGS=\"--cfg loom\" (and their own CARGO_TARGET_DIR)");

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc as StdArc;
use std::time::{Duration, Instant};

use snowmint::clock::ManualClock;
use snowmint::{Id, Layout};

/// One tick of every model layout.
pub const UNIT: Duration = Duration::from_millis(1);

/// Where every model's clock starts, in Unix milliseconds: tick 1_000_000 of the layouts.
pub const START_MS: u64 = 1_000_000;

/// The tick the clock starts at (epoch 0, unit 1 ms).
pub const START_TICK: u64 = START_MS;

/// The node every model generator runs as (1 node bit, so a node of 1 shows in every ID).
pub const NODE: u64 = 1;

/// A small layout: epoch 0, 1 ms ticks, 1 node bit and `sequence_bits` of sequence, so that a
/// model exhausts a tick with a handful of IDs when it wants to.
pub const fn layout(sequence_bits: u8) -> Layout {
    Layout::builder()
        .time_bits(40)
        .node_bits(1)
        .sequence_bits(sequence_bits)
        .unit(UNIT)
        .epoch_unix_millis(0)
        .build_const()
}

/// A manual clock at [`START_MS`]; created inside each model, as its atomic is loom's.
pub fn clock() -> ManualClock {
    ManualClock::at_unix_millis(START_MS)
}

/// A model builder that explores up to `bound` preemptions (every interleaving for `None`),
/// whatever `LOOM_MAX_PREEMPTIONS` says. Every model that asserts which outcomes it reaches,
/// or (a control) that it catches a planted bug, is built with it: a smaller bound from the
/// environment would leave outcomes unexplored and fail the model for nothing (at 2
/// preemptions the overflow model reaches 4 of its 6 splits).
pub fn builder(bound: Option<usize>) -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = bound;
    builder
}

/// Runs `f` under `builder`, counting the interleavings explored, and prints the count and
/// the time taken (seen with `cargo test -- --nocapture`). Returns the count.
pub fn explore<F>(name: &str, builder: loom::model::Builder, f: F) -> usize
where
    F: Fn() + Sync + Send + 'static,
{
    let count = StdArc::new(AtomicUsize::new(0));
    let counter = StdArc::clone(&count);
    let start = Instant::now();
    builder.check(move || {
        // Relaxed: a plain tally read after `check` returns on this same thread.
        counter.fetch_add(1, Ordering::Relaxed);
        f();
    });
    // Relaxed: as above.
    let n = count.load(Ordering::Relaxed);
    println!("{name}: {n} interleavings in {:.2?}", start.elapsed());
    n
}

/// Panics (with "duplicate ID") if two of `ids` are equal.
pub fn assert_unique(ids: &[Id]) {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    for pair in sorted.windows(2) {
        assert_ne!(pair[0], pair[1], "duplicate ID among {ids:?}");
    }
}

/// Panics if one thread's `ids`, in the order it got them, do not strictly increase.
pub fn assert_increasing(ids: &[Id]) {
    for pair in ids.windows(2) {
        assert!(pair[0] < pair[1], "IDs of one thread went down: {ids:?}");
    }
}

/// The tick of the model layouts at a clock reading (epoch 0, 1 ms unit).
pub fn tick_of(unix_nanos: u64) -> u64 {
    unix_nanos / UNIT.as_nanos() as u64
}

/// A sharded generator on the model layouts with 1 shard bit: shard 0, the one exclusive
/// shard, and shard 1, the overflow shard. `max_wait` is zero, so `next_id` (the cached hot
/// path) never starts a wait: it fails at once where a wait would be needed, as `try_next_id`.
pub fn sharded(
    layout: Layout,
    clock: ManualClock,
    rollback: snowmint::clock::Rollback,
) -> snowmint::ShardedGenerator<ManualClock> {
    snowmint::ShardedGenerator::builder(layout)
        .shard_bits(1)
        .max_wait(Duration::ZERO)
        .on_rollback(rollback)
        .clock(clock)
        .build()
        .unwrap()
}

/// How many times a thread asks for a busy shard before the model gives up: far more than the
/// steps any model's holder takes, since a yield lets the others run first.
pub const LEASE_TRIES: usize = 64;

/// Leases a shard of `gen`, yielding to the other threads while none is free.
pub fn lease_retrying(
    gen: &snowmint::ShardedGenerator<ManualClock>,
) -> snowmint::shard::OwnedShard<ManualClock> {
    for _ in 0..LEASE_TRIES {
        match gen.own_shard() {
            Ok(owned) => return owned,
            Err(e) => assert_eq!(e, snowmint::MintError::NoFreeShard { shards: 1 }),
        }
        loom::thread::yield_now();
    }
    panic!("no shard came free in {LEASE_TRIES} tries");
}

/// Panics unless every ID of `earlier` is below every ID of `later`: the second holder of a
/// shard continues after the first.
pub fn assert_after(earlier: &[Id], later: &[Id]) {
    if let (Some(last), Some(first)) = (earlier.iter().max(), later.iter().min()) {
        assert!(
            last < first,
            "the next holder went back: {earlier:?} then {later:?}"
        );
    }
}

/// The outcomes a model's interleavings reached, counted by name across all of them, so a
/// test can insist that loom really explored each case it claims to cover.
#[derive(Clone, Default)]
pub struct Seen(StdArc<std::sync::Mutex<std::collections::BTreeMap<&'static str, usize>>>);

impl Seen {
    /// Counts one interleaving that ended in `outcome`.
    pub fn record(&self, outcome: &'static str) {
        *self.0.lock().unwrap().entry(outcome).or_default() += 1;
    }

    /// Prints the tally and panics unless each of `expected`, and nothing else, was reached.
    pub fn assert_exactly(&self, name: &str, expected: &[&'static str]) {
        let seen = self.0.lock().unwrap();
        println!("{name}: outcomes {seen:?}");
        let mut names: Vec<&str> = seen.keys().copied().collect();
        let mut want = expected.to_vec();
        names.sort_unstable();
        want.sort_unstable();
        assert_eq!(names, want, "the interleavings reached other outcomes");
    }
}
