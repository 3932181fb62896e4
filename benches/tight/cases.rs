//! Cases: what is measured (a path, its unit), and the peers each case races.

use snowmint::{Generator, Id, Layout, ShardedGenerator};

use crate::common::{peers, sharded_layout, Mint, Shape, Visit};

use crate::entries::{batches, fills, one_thread, two_own, two_shared, Entry};
use crate::loops::{
    Pass, SnowflakeMeBatch, SnowflakeMeFill, SnowmintBatch, SnowmintFill, StoreLoop,
};
use crate::BATCH;

/// How a case's figures are shown.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Unit {
    /// One thread: nanoseconds per ID, lower is better.
    NsPerId,
    /// Two threads: million IDs per second over both, higher is better.
    MIdsPerSec,
}

impl Case {
    /// Whether each of its calls mints one ID (not a batch or a fill): these also run in
    /// the plain loop.
    pub(crate) fn one_id(&self) -> bool {
        !self.name.contains("batch") && !self.name.contains("fill")
    }

    /// This case in the plain accumulate loop, named `<name>-plain`.
    pub(crate) fn plain(mut self) -> Case {
        self.name = Box::leak(format!("{}-plain", self.name).into_boxed_str());
        self.pass = Pass::Plain;
        self
    }
}

impl Unit {
    pub(crate) fn show(self, ns_per_id: f64) -> f64 {
        match self {
            Unit::NsPerId => ns_per_id,
            Unit::MIdsPerSec => 1e3 / ns_per_id,
        }
    }

    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Unit::NsPerId => "ns/ID",
            Unit::MIdsPerSec => "M IDs/s",
        }
    }
}

pub(crate) struct Case {
    pub(crate) name: &'static str,
    /// The loop its timed passes run: the harness's (`Pass::Timed`) or the plain
    /// accumulate loop (`Pass::Plain`, the `-plain` copy of a one-ID case).
    pub(crate) pass: Pass,
    pub(crate) what: &'static str,
    pub(crate) unit: Unit,
    /// The 64-bit layout of the case's IDs (`None`: 128-bit IDs).
    pub(crate) layout: Option<Layout>,
    pub(crate) snowmint: Option<Entry>,
    pub(crate) peers: Vec<Entry>,
}

/// How the peers of a case run.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    OneThread,
    /// Two threads, one generator they share.
    TwoShared,
    /// Two threads, one generator each (nodes 0 and 1).
    TwoOwn,
}

/// Picks the named peers out of `peers::visit`, so that each is set up exactly as in the
/// criterion bench (same layouts, clocks and back-off; see `benches/common/peers.rs`).
pub(crate) struct PeerPicker {
    pub(crate) shape: Shape,
    pub(crate) mode: Mode,
    pub(crate) wanted: &'static [&'static str],
    pub(crate) out: Vec<Entry>,
}

impl PeerPicker {
    pub(crate) fn wants(&self, name: &str) -> bool {
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

pub(crate) fn peers_of(shape: Shape, mode: Mode, wanted: &'static [&'static str]) -> Vec<Entry> {
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
pub(crate) const SHARED_PEERS: &[&str] =
    &["ferroid-atomic", "ferroid-lock", "snowflake_me", "snowdon"];

/// Peers for one owner per generator: ferroid's `BasicSnowflakeGenerator` (a `Cell`, not
/// `Sync`: the nearest to an owned shard or a thread-local shard) and its atomic one, each on node
/// 0 (and 1 for the second thread) of 41/2/20 (`FerroidUncapped4Node`: `machine_id: 2,
/// sequence: 20`), same clock as above.
pub(crate) const OWNED_PEERS: &[&str] = &["ferroid-basic", "ferroid-atomic"];

pub(crate) fn snowflake_me_batch(shape: Shape) -> Entry {
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
pub(crate) fn snowflake_me_fill(shape: Shape) -> Entry {
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
pub(crate) fn store_loop(layout: Layout, running: bool) -> Entry {
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

pub(crate) fn sharded(layout: Layout, shard_bits: u8) -> ShardedGenerator {
    ShardedGenerator::builder(layout)
        .shard_bits(shard_bits)
        .build()
        .expect("shard bits fit the layout")
}

pub(crate) fn cases() -> Vec<Case> {
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
            pass: Pass::Timed,
            what: "Generator::next_id, one thread",
            unit: Unit::NsPerId,
            layout: Some(shared_layout),
            snowmint: Some(Entry::new(
                "Generator::next_id",
                shared_layout,
                one_thread(generator()),
            )),
            peers: peers_of(shared_shape, Mode::OneThread, SHARED_PEERS),
        },
        Case {
            name: "1t-owned",
            pass: Pass::Timed,
            what: "OwnedShard::next_id (owned shard), one thread",
            unit: Unit::NsPerId,
            layout: Some(shard_layout),
            snowmint: Some(Entry::new(
                "OwnedShard::next_id",
                shard_layout,
                one_thread(one_lease),
            )),
            peers: peers_of(shard_shape, Mode::OneThread, OWNED_PEERS),
        },
        Case {
            name: "1t-local",
            pass: Pass::Timed,
            what: "ShardedGenerator::next_id (thread-local shard), one thread",
            unit: Unit::NsPerId,
            layout: Some(shard_layout),
            snowmint: Some(Entry::new(
                "ShardedGenerator::next_id",
                shard_layout,
                one_thread(sharded(shard_layout, shard_bits)),
            )),
            peers: peers_of(shard_shape, Mode::OneThread, OWNED_PEERS),
        },
        Case {
            name: "1t-batch-shared",
            pass: Pass::Timed,
            what: "Generator::next_ids(4096), iterated, one thread",
            unit: Unit::NsPerId,
            layout: Some(shared_layout),
            snowmint: Some(Entry::new(
                "Generator::next_ids",
                shared_layout,
                batches(SnowmintBatch(move |n| batch_gen.next_ids(n))),
            )),
            peers: vec![snowflake_me_batch(shared_shape)],
        },
        Case {
            name: "1t-fill",
            pass: Pass::Timed,
            what: "Generator::fill(&mut [Id; 4096]), reused buffer, one thread, within a tick",
            unit: Unit::NsPerId,
            layout: Some(shared_layout),
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
            pass: Pass::Timed,
            what: "OwnedShard::next_ids(4096), iterated, one thread",
            unit: Unit::NsPerId,
            layout: Some(shard_layout),
            snowmint: Some(Entry::new(
                "OwnedShard::next_ids",
                shard_layout,
                batches(SnowmintBatch(move |n| batch_lease.next_ids(n))),
            )),
            peers: vec![snowflake_me_batch(shard_shape)],
        },
        Case {
            name: "2t-shared",
            pass: Pass::Timed,
            what: "one Generator, two threads",
            unit: Unit::MIdsPerSec,
            layout: Some(shared_layout),
            snowmint: Some(Entry::new(
                "Generator::next_id",
                shared_layout,
                two_shared(generator()),
            )),
            peers: peers_of(shared_shape, Mode::TwoShared, SHARED_PEERS),
        },
        Case {
            name: "2t-owned",
            pass: Pass::Timed,
            what: "two threads, an OwnedShard each",
            unit: Unit::MIdsPerSec,
            layout: Some(shard_layout),
            snowmint: Some(Entry::new(
                "OwnedShard::next_id",
                shard_layout,
                two_own(two_leases),
            )),
            peers: peers_of(shard_shape, Mode::TwoOwn, OWNED_PEERS),
        },
        Case {
            name: "2t-local",
            pass: Pass::Timed,
            what: "one ShardedGenerator, two threads (thread-local shards)",
            unit: Unit::MIdsPerSec,
            layout: Some(shard_layout),
            snowmint: Some(Entry::new(
                "ShardedGenerator::next_id",
                shard_layout,
                two_shared(sharded(shard_layout, shard_bits)),
            )),
            peers: peers_of(shard_shape, Mode::TwoOwn, OWNED_PEERS),
        },
    ]
}
