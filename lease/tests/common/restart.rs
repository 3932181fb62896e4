//! What the restart tests of both stores share: the lease's timings, a timed acquire of one
//! node, and minting a run of IDs.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use snowmint::clock::WallClock;
use snowmint::fence::Fenced;
use snowmint::{Generator, Id, Layout};
use snowmint_lease::{Backend, LeaseBuilder};

/// Long enough that "at once" (under half of it) is far from the rule's wait (TTL + margin)
/// however loaded the machine.
pub const TTL: Duration = Duration::from_secs(6);
pub const MARGIN: Duration = Duration::from_secs(1);

/// Acquires node `node` and returns it with how long `acquire` took.
pub fn timed<B: Backend>(
    lease: LeaseBuilder<B>,
    node: u64,
) -> (Fenced<Generator<WallClock>>, Duration) {
    let started = Instant::now();
    let gen = lease
        .nodes(node..=node)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("acquire");
    (gen, started.elapsed())
}

/// `n` IDs from `gen`.
pub fn mint(gen: &Fenced<Generator<WallClock>>, n: usize) -> Vec<Id> {
    (0..n).map(|_| gen.next_id().expect("mint")).collect()
}
