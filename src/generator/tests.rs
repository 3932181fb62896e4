//! The generator in every build, `no_std` and `portable-atomic` included: threads sharing
//! one generator never repeat an ID.

use super::Generator;
use crate::clock::Clock;
use crate::id::Id;
use crate::layout::Layout;
use crate::sync::{AtomicU64, Ordering};

/// A clock that moves 1 µs on at every reading, from 2024-01-01 (a timer register's stand-in):
/// the threads' readings interleave, and a tick of Twitter's layout lasts 1,000 of them.
struct Counter(AtomicU64);

impl Clock for Counter {
    fn now_unix_nanos(&self) -> u64 {
        // Relaxed: only the counter's own order matters; the generator orders its state.
        self.0.fetch_add(1_000, Ordering::Relaxed)
    }
}

#[test]
fn threads_sharing_a_generator_never_repeat_an_id() {
    // Few under miri, which runs threads one instruction at a time.
    let per_thread = if cfg!(miri) { 300 } else { 200_000 };
    let clock = Counter(AtomicU64::new(1_704_067_200_000_000_000));
    let gen = Generator::with_clock(Layout::TWITTER, clock)
        .node(7)
        .build()
        .expect("a valid generator");
    // All three start together, so that their minting overlaps.
    let start = std::sync::Barrier::new(3);
    let minted: [Vec<Id>; 3] = std::thread::scope(|s| {
        let (gen, start) = (&gen, &start);
        let threads = [(); 3].map(|()| {
            s.spawn(move || {
                start.wait();
                (0..per_thread)
                    .map(|_| gen.next_id().expect("the clock moves on"))
                    .collect::<Vec<Id>>()
            })
        });
        threads.map(|t| t.join().expect("a minting thread panicked"))
    });
    for ids in &minted {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "one thread's IDs increase"
        );
        assert!(ids.iter().all(|&id| Layout::TWITTER.decode(id).node() == 7));
    }
    let mut all: Vec<Id> = minted.concat();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 3 * per_thread, "an ID was minted twice");
}
