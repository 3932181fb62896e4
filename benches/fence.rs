//! What the fence costs on the hot path: `Fenced::next_id` (a deadline load and
//! compare before minting, a limit compare after) against a plain `Generator::next_id`.
//!
//! The layout has 20 sequence bits (a million IDs per millisecond), so that one thread never
//! exhausts a tick and the figures are the calls' own cost, not waits.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use snowmint::fence::FileGuard;
use snowmint::{Generator, Layout};

const WIDE: Layout = Layout::builder()
    .time_bits(41)
    .node_bits(2)
    .sequence_bits(20)
    .build_const();

fn fence(c: &mut Criterion) {
    let mut group = c.benchmark_group("fence");
    group.throughput(Throughput::Elements(1));

    let plain = Generator::builder(WIDE).node(1).build().expect("generator");
    group.bench_function("generator_next_id", |b| {
        b.iter(|| plain.next_id().expect("mint"))
    });

    let path = std::env::temp_dir().join(format!("snowmint-bench-{}.hwm", std::process::id()));
    let fenced = FileGuard::new(&path)
        .window(Duration::from_secs(60))
        .start(Generator::builder(WIDE).node(2))
        .expect("guard");
    group.bench_function("fenced_next_id", |b| {
        b.iter(|| fenced.next_id().expect("mint"))
    });
    group.finish();
    drop(fenced);
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, fence);
criterion_main!(benches);
