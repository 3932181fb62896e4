//! [`Spares`]: the shards no worker thread holds, lent to a request whose worker's shard has
//! used its tick up, so that the request is answered now instead of after a timer's wait.
//!
//! Each worker thread mints on a shard of its own (the library's thread-local shard), which
//! caps one thread at the layout's IDs per tick (4,096 per ms for Twitter's). On a shared
//! machine the scheduler often runs one worker while the others sleep, and that worker's
//! requests then waited for the next millisecond on tokio's timer (1 ms at least) while the
//! other shards lay unused: with `wrk -t2 -c16` on `/ids?n=1000`, four in ten requests waited.
//! The spares are the node's other exclusive shards, taken at the start (one left per
//! worker), each behind a mutex that is only tried, never waited on.
//!
//! Only for a fixed node: a leased node's IDs go through its fence, which holds the shards.

use std::sync::Mutex;

use snowmint::{Clock, IdBatch, MintError, OwnedShard, ShardedGenerator};

/// The spare shards of one sharded generator.
pub struct Spares<C: Clock>(Vec<Mutex<OwnedShard<C>>>);

impl<C: Clock> Spares<C> {
    /// Takes every exclusive shard of `gen` beyond one for each of `workers` threads.
    pub fn take(gen: &ShardedGenerator<C>, workers: usize) -> Spares<C> {
        let spare = usize::try_from(gen.shards())
            .unwrap_or(usize::MAX)
            .saturating_sub(workers);
        Spares(
            (0..spare)
                .map_while(|_| gen.own_shard().ok())
                .map(Mutex::new)
                .collect(),
        )
    }

    /// No spares.
    #[cfg(test)]
    pub fn none() -> Spares<C> {
        Spares(Vec::new())
    }

    /// How many shards are spare.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// A batch of at most `n` IDs from the first spare that is free and has IDs left in its
    /// tick, or `None` (the caller waits as before).
    pub fn try_batch(&self, n: u64) -> Option<IdBatch> {
        self.0.iter().find_map(|spare| {
            let shard = spare.try_lock().ok()?;
            match shard.try_next_ids(n) {
                Ok(batch) => Some(batch),
                Err(MintError::Exhausted { .. }) => None,
                // Any other refusal (the clock, the layout's end) is the worker shard's too,
                // and reported from there.
                Err(_) => None,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::time::Duration;

    use snowmint::{Layout, ManualClock};

    use super::*;

    #[test]
    fn spares_lend_their_ticks_and_never_repeat_an_id() {
        // A clock that stands still: every shard has one tick of 4,096 IDs (and no lead).
        let clock = ManualClock::at_unix_millis(1_700_000_000_000);
        let gen = ShardedGenerator::builder(Layout::TWITTER)
            .clock(clock.clone())
            .shard_bits(2)
            .lead_ticks(0)
            .max_wait(Duration::ZERO)
            .build()
            .unwrap();
        // Three exclusive shards, one left for this thread's worker.
        let spares = Spares::take(&gen, 1);
        assert_eq!(spares.len(), 2);
        let mut ids: Vec<u64> = gen
            .try_next_ids(4_096)
            .unwrap()
            .map(|id| id.to_u64())
            .collect();
        assert!(gen.try_next_ids(1).is_err(), "the worker's tick is used up");
        while let Some(batch) = spares.try_batch(1_000) {
            ids.extend(batch.map(|id| id.to_u64()));
        }
        assert_eq!(ids.len(), 3 * 4_096, "every spare's tick, then none");
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
        clock.advance(Duration::from_millis(1));
        assert!(spares.try_batch(1).is_some(), "the next tick");
    }

    #[test]
    fn a_held_spare_is_skipped_not_waited_for() {
        let gen = ShardedGenerator::builder(Layout::TWITTER)
            .shard_bits(2)
            .build()
            .unwrap();
        let spares = Spares::take(&gen, 2);
        assert_eq!(spares.len(), 1);
        let held = spares.0[0].lock().unwrap();
        assert!(spares.try_batch(1).is_none());
        drop(held);
        assert!(spares.try_batch(1).is_some());
        assert_eq!(Spares::<snowmint::TscClock>::none().len(), 0);
    }
}
