//! rayon support (feature `rayon`): IDs for parallel iterators, one shard per worker thread.
//!
//! Each rayon worker mints through its own shard of a [`ShardedGenerator`], taken on the
//! worker's first ID and kept in a thread-local, so parallel minting never contends. Two rayon
//! habits would break that and are avoided here:
//! - `map_init`'s init closure runs once per *split job* (125 to 153 times for 10^6 items on 4
//!   threads, measured), not once per thread: leasing a shard there would leak shards;
//! - `rayon::current_thread_index()` is per pool and reused across pools: it is no node ID.

use std::sync::Arc;

use rayon::prelude::*;

use crate::clock::Clock;
use crate::id::Id;
use crate::mint::MintError;
use crate::shard::ShardedGenerator;
use crate::source::FillError;

/// IDs for the items of a parallel iterator.
///
/// ```
/// use rayon::prelude::*;
/// use snowmint::{Layout, ShardedGenerator};
/// use snowmint::integrations::rayon::ParallelIdExt;
///
/// let gen = ShardedGenerator::builder(Layout::TWITTER).build()?;
/// let rows: Vec<(snowmint::Id, u32)> = (0..10_000_u32)
///     .into_par_iter()
///     .map_with_id(&gen, |n, id| (id, n))
///     .collect::<Result<_, _>>()?;
/// let mut ids: Vec<_> = rows.iter().map(|r| r.0).collect();
/// ids.sort();
/// ids.dedup();
/// assert_eq!(ids.len(), 10_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait ParallelIdExt: ParallelIterator {
    /// Maps every item with a fresh ID from the worker's shard; an item whose ID could not be
    /// minted yields the error instead.
    fn map_with_id<'g, C, R, F>(
        self,
        gen: &'g ShardedGenerator<C>,
        f: F,
    ) -> impl ParallelIterator<Item = Result<R, MintError>> + 'g
    where
        Self: 'g,
        C: Clock + 'static,
        R: Send,
        F: Fn(Self::Item, Id) -> R + Sync + Send + 'g,
    {
        self.map(move |item| gen.next_id().map(|id| f(item, id)))
    }
}

impl<I: ParallelIterator> ParallelIdExt for I {}

impl<C: Clock + 'static> ShardedGenerator<C> {
    /// Fills `out` with unique IDs in parallel on the current rayon pool, each worker
    /// filling runs of up to 4,096 IDs from its shard as [`ShardedGenerator::fill`] does
    /// (one reservation per tick). On error some runs may be filled and others not.
    ///
    /// # Errors
    ///
    /// The first [`MintError`] a worker's shard returned (as
    /// [`ShardedGenerator::next_id`](crate::ShardedGenerator::next_id)'s); the slice is then partly
    /// filled.
    ///
    /// ```
    /// use snowmint::{Id, Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).build()?;
    /// let mut ids = vec![Id::MIN; 50_000];
    /// gen.par_fill(&mut ids)?;
    /// ids.sort();
    /// ids.dedup();
    /// assert_eq!(ids.len(), 50_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn par_fill(&self, out: &mut [Id]) -> Result<(), MintError> {
        const RUN: usize = 4_096;
        out.par_chunks_mut(RUN)
            .try_for_each(|chunk| self.fill(chunk).map_err(FillError::into_error))
    }

    /// `n` unique IDs minted in parallel, as [`par_fill`](Self::par_fill). They are not in
    /// order: each worker's run comes from its own shard.
    ///
    /// # Errors
    ///
    /// As [`par_fill`](Self::par_fill): the first [`MintError`] a worker's shard returned.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert_eq!(gen.par_ids(1_000)?.len(), 1_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn par_ids(&self, n: usize) -> Result<Vec<Id>, MintError> {
        let mut ids = vec![Id::MIN; n];
        self.par_fill(&mut ids)?;
        Ok(ids)
    }
}

/// Wires a sharded generator into a custom rayon pool: every worker takes its shard when it
/// starts and hands it back when it exits, so a pool that is torn down frees its shards for
/// the next one at once.
///
/// ```
/// use std::sync::Arc;
/// use snowmint::{Layout, ShardedGenerator};
///
/// let gen = Arc::new(ShardedGenerator::builder(Layout::TWITTER).build()?);
/// let pool = snowmint::integrations::rayon::with_shards(rayon::ThreadPoolBuilder::new().num_threads(3), &gen)
///     .build()?;
/// let shards: Vec<Option<u64>> = pool.broadcast(|_| gen.local_shard());
/// assert!(shards.iter().all(Option::is_some), "each worker took a shard when it started");
/// drop(pool);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn with_shards<S, C>(
    builder: rayon::ThreadPoolBuilder<S>,
    gen: &Arc<ShardedGenerator<C>>,
) -> rayon::ThreadPoolBuilder<S>
where
    C: Clock + 'static,
{
    let (start, exit) = (Arc::clone(gen), Arc::clone(gen));
    builder
        .start_handler(move |_| {
            start.claim_local_shard();
        })
        .exit_handler(move |_| exit.release_local_shard())
}
