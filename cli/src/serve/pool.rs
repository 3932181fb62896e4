//! [`Pool`]: a fixed node's exclusive shards, any of which any worker thread may mint on, so
//! that the node's whole rate is there for whichever workers the scheduler runs.
//!
//! A shard mints at most the layout's IDs per tick (4,096 per ms for Twitter's). Each worker
//! thread has a home shard it tries first, and when that one is held or has used its tick up
//! it borrows the others, from the last on (the shards beyond one per worker, then the other
//! workers' homes), each behind a mutex that is only tried, never waited on. On a shared
//! machine the scheduler often runs one or two workers while the others sleep: a shard of
//! its own for each worker alone would leave the sleeping workers' ticks unused while the
//! running ones wait for the next tick on tokio's timer (1 ms at least).
//!
//! Only for a fixed node: a leased node's IDs go through its fence, which holds the shards.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use snowmint::clock::Clock;
use snowmint::shard::OwnedShard;
use snowmint::source::IdBatch;
use snowmint::{Id, ShardedGenerator};

/// The shards of one sharded generator taken into the pool.
pub struct Pool<C: Clock>(Vec<Mutex<OwnedShard<C>>>);

/// Numbers threads in the order they first mint: a thread's home shard is its number modulo
/// the pool's size.
static THREADS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's number, once it has minted from a pool.
    static NUMBER: Cell<Option<usize>> = const { Cell::new(None) };
}

/// This thread's number, taken on its first call.
fn thread_number() -> usize {
    NUMBER.with(|number| {
        number.get().unwrap_or_else(|| {
            // Relaxed: only the count's own uniqueness matters; nothing is published with it.
            let taken = THREADS.fetch_add(1, Ordering::Relaxed);
            number.set(Some(taken));
            taken
        })
    })
}

impl<C: Clock + 'static> Pool<C> {
    /// Takes every exclusive shard of `gen` (all but the overflow shard, which stays with
    /// `gen` for a thread that finds every pooled shard held or used up).
    pub fn take(gen: &ShardedGenerator<C>) -> Pool<C> {
        // `shards()` counts the exclusive ones.
        let exclusive = usize::try_from(gen.shards()).unwrap_or(usize::MAX);
        Pool(
            (0..exclusive)
                .map_while(|_| gen.own_shard().ok())
                .map(Mutex::new)
                .collect(),
        )
    }

    /// An empty pool: every ID comes from the generator's own shards.
    #[cfg(test)]
    pub fn none() -> Pool<C> {
        Pool(Vec::new())
    }

    /// How many shards are pooled.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The result of `mint` on the first shard, from this thread's home on, that is free and
    /// mints; `None` when every shard is held or refuses (the caller goes to the generator,
    /// which reports why).
    fn first<T>(&self, mint: impl Fn(&OwnedShard<C>) -> Option<T>) -> Option<T> {
        let len = self.0.len();
        if len == 0 {
            return None;
        }
        let home = thread_number() % len;
        // Home, then the others from the last down: the shards beyond one per worker are
        // borrowed before another worker's home.
        std::iter::once(home)
            .chain((0..len).rev().filter(|&i| i != home))
            .find_map(|i| mint(&*self.0[i].try_lock().ok()?))
    }

    /// A batch of at most `n` IDs from the first free shard with IDs left in its tick.
    pub fn try_batch(&self, n: u64) -> Option<IdBatch> {
        // Any refusal (the tick used up, the clock, the layout's end) moves on; the
        // generator's own shard reports it if every shard refuses.
        self.first(|shard| shard.try_next_ids(n).ok())
    }

    /// One ID, as [`try_batch`](Self::try_batch).
    pub fn try_one(&self) -> Option<Id> {
        self.first(|shard| shard.try_next_id().ok())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::time::Duration;

    use snowmint::clock::ManualClock;
    use snowmint::Layout;

    use super::*;

    #[test]
    fn every_exclusive_shard_lends_its_tick_and_no_id_repeats() {
        // A clock that stands still: every shard has one tick of 4,096 IDs (and no lead).
        let clock = ManualClock::at_unix_millis(1_700_000_000_000);
        let gen = ShardedGenerator::builder(Layout::TWITTER)
            .clock(clock.clone())
            .shard_bits(2)
            .lead_ticks(0)
            .max_wait(Duration::ZERO)
            .build()
            .unwrap();
        // Three exclusive shards; the overflow shard stays with the generator.
        let pool = Pool::take(&gen);
        assert_eq!(pool.len(), 3);
        let mut ids: Vec<u64> = Vec::new();
        while let Some(batch) = pool.try_batch(1_000) {
            ids.extend(batch.map(|id| id.to_u64()));
        }
        assert_eq!(ids.len(), 3 * 4_096, "every shard's tick, then none");
        assert!(pool.try_one().is_none());
        ids.extend(gen.try_next_ids(4_096).unwrap().map(|id| id.to_u64()));
        assert!(
            gen.try_next_ids(1).is_err(),
            "the overflow shard's tick too"
        );
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
        clock.advance(Duration::from_millis(1));
        assert!(pool.try_batch(1).is_some(), "the next tick");
        assert!(pool.try_one().is_some());
    }

    #[test]
    fn a_held_shard_is_skipped_not_waited_for() {
        let gen = ShardedGenerator::builder(Layout::TWITTER)
            .shard_bits(2)
            .build()
            .unwrap();
        let pool = Pool::take(&gen);
        let held: Vec<_> = pool.0.iter().skip(1).map(|m| m.lock().unwrap()).collect();
        let first = pool.0[0].lock().unwrap();
        assert!(pool.try_batch(1).is_none());
        assert!(pool.try_one().is_none());
        drop(first);
        assert!(pool.try_batch(1).is_some());
        drop(held);
        assert_eq!(Pool::<snowmint::clock::TscClock>::none().len(), 0);
        assert!(Pool::<snowmint::clock::TscClock>::none()
            .try_one()
            .is_none());
    }

    #[test]
    fn threads_start_from_homes_of_their_own() {
        let numbers: HashSet<usize> = (0..4)
            .map(|_| std::thread::spawn(thread_number).join().unwrap())
            .collect();
        assert_eq!(numbers.len(), 4);
        assert_eq!(thread_number(), thread_number());
    }
}
