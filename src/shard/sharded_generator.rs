//! [`ShardedGenerator`]: minting that scales with threads, each thread on a shard of its own.

use std::sync::Arc;
use std::time::Duration;

use super::builder::ShardedGeneratorBuilder;
use super::error::ShardError;
use super::local::{self, Owner, Shard};
use super::owned_shard::OwnedShard;
use super::shared::Shared;
use super::slots::Slots;
use crate::clock::{Clock, TscClock};
use crate::generator::Generator;
use crate::id::Id;
use crate::layout::Layout;
use crate::mint::minter::Minter;
use crate::mint::rule::last_of_tick;
use crate::mint::MintError;
use crate::source::id_source_by_inherent;
use crate::source::IdBatch;
use crate::source::{fill_with, FillError};

/// A generator whose node field is split into a node part and a shard part, so that every
/// thread mints on a shard of its own: no shared cache line, no atomic read-modify-write on
/// the hot path, and the layout's cap multiplied by the number of shards.
///
/// - [`next_id`](Self::next_id) (`&self`, for a `static` or an `Arc`): the calling thread
///   takes a free shard on first use and keeps it in a thread-local; each generator has its
///   own entry, so several sharded generators never share a shard by accident.
/// - [`own_shard`](Self::own_shard): an owned, `!Sync` [`OwnedShard`] of one shard for a worker loop,
///   without the thread-local lookup.
///
/// A shard goes back to the pool when its thread exits (or its owned shard is dropped) *with its
/// last time and sequence*, and whoever takes it next continues after them: a reused shard
/// never repeats an ID. The highest shard number is the **overflow shard**: when every other
/// shard is held, `next_id` mints on it, shared by CAS like a plain [`Generator`](crate::Generator),
/// and tries again for a shard of its own every 1,024 IDs. Nothing ever blocks for a shard,
/// and [`own_shard`](Self::own_shard) returns [`MintError::NoFreeShard`] instead. A thread-local
/// destructor that mints after its thread handed its shards back mints on the overflow shard.
///
/// Two sharded generators (in one process or many) must have different nodes, as two plain
/// generators must have different nodes.
///
/// Each thread that minted through a sharded generator keeps a handle on its shared state
/// (the minter and its clock) until the thread exits, or until it next registers another
/// generator after this one was dropped: the hot path tells its own shard by that state's
/// address, which must not be reused meanwhile. So the clock is `'static` (a value or an
/// `Arc`, not a borrow).
///
/// ```
/// use std::sync::Arc;
/// use snowmint::{Layout, ShardedGenerator};
///
/// // Sonyflake's 16 machine bits: 10 for the node, 6 for 63 shards plus the overflow.
/// let gen = Arc::new(ShardedGenerator::builder(Layout::SONYFLAKE).shard_bits(6).node(513).build()?);
/// let handles: Vec<_> = (0..4)
///     .map(|_| {
///         let gen = Arc::clone(&gen);
///         std::thread::spawn(move || (0..100).map(|_| gen.next_id()).collect::<Result<Vec<_>, _>>())
///     })
///     .collect();
/// let mut all = Vec::new();
/// for h in handles {
///     all.extend(h.join().unwrap()?);
/// }
/// all.sort();
/// all.dedup();
/// assert_eq!(all.len(), 400);
/// assert!(all.iter().all(|&id| Layout::SONYFLAKE.decode(id).node() >> 6 == 513));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ShardedGenerator<C = TscClock> {
    pub(super) shared: Arc<Shared<C>>,
}

impl ShardedGenerator {
    /// Settings for a sharded generator on the shared [`TscClock`]: node 0 and 6 shard bits
    /// (or all node bits, if the layout has fewer).
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).build()?;
    /// assert_eq!((gen.node(), gen.shard_bits(), gen.shards()), (0, 6, 63));
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn builder(layout: Layout) -> ShardedGeneratorBuilder<TscClock> {
        ShardedGeneratorBuilder::new(Generator::builder(layout))
    }
}

impl<C: Clock + 'static> ShardedGenerator<C> {
    /// What a thread's registry needs of this generator.
    fn owner(&self) -> Owner<'_, Shared<C>> {
        Owner {
            shared: &self.shared,
            slots: &self.shared.slots,
            packing: self.shared.minter.packing(),
        }
    }

    pub(crate) fn from_parts(
        mut minter: Minter<C>,
        node: u64,
        shard_bits: u8,
        start_after: Option<u64>,
    ) -> Result<Self, ShardError> {
        let layout = minter.layout;
        let max_shard_bits = layout.node_bits().min(16);
        if shard_bits == 0 || shard_bits > max_shard_bits {
            return Err(ShardError::ShardBitsOutOfRange {
                shard_bits,
                max: max_shard_bits,
            });
        }
        let max_node = layout.max_node() >> shard_bits;
        if node > max_node {
            return Err(ShardError::NodeOutOfRange {
                node,
                max: max_node,
            });
        }
        // A restart resumes past the whole tick of the saved state: other shards of the same
        // node may have reached a higher sequence in that tick than the saved ID shows.
        let start = start_after.map_or(0, |state| last_of_tick(state, layout.sequence_bits()));
        let base = node << shard_bits;
        let overflow = (1_u64 << shard_bits) - 1;
        let slots = Slots::new(
            (0..overflow).map(|shard| layout.node_in_place(base | shard)),
            layout.node_in_place(base | overflow),
            start,
            layout.sequence_bits(),
        );
        minter.whose.node = Some(node);
        Ok(ShardedGenerator {
            shared: Arc::new(Shared {
                minter,
                slots: Arc::new(slots),
                node,
                shard_bits,
            }),
        })
    }

    /// The next ID from this thread's shard, waiting (at most `max_wait`) if the shard's
    /// sequence for this tick is used up.
    ///
    /// # Errors
    ///
    /// [`MintError::Exhausted`] if the tick's sequence and the lead stay used up, or
    /// [`MintError::ClockBehind`] if the clock stays behind the last issued time, for longer than
    /// [`max_wait`](Self::max_wait); [`MintError::Expired`] once the layout's time field is full;
    /// [`MintError::Layout`] if the clock reads a time before the layout's epoch.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).node(3).build()?;
    /// let a = gen.next_id()?;
    /// let b = gen.next_id()?;
    /// assert!(b > a);
    /// assert_eq!(Layout::TWITTER.decode(a).node() >> 6, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn next_id(&self) -> Result<Id, MintError> {
        let m = &self.shared.minter;
        match local::with_own(local::key(&self.shared), |hot| m.take_one_hot(hot)) {
            Some(id) => Ok(Id::from_u64(id)),
            None => self.next_id_general(m.max_wait),
        }
    }

    /// The next ID from this thread's shard, waiting at most `timeout` for it.
    ///
    /// # Errors
    ///
    /// [`MintError::Exhausted`] if the tick's sequence and the lead stay used up, or
    /// [`MintError::ClockBehind`] if the clock stays behind the last issued time, for longer than
    /// `timeout`; [`MintError::Expired`] once the layout's time field is full;
    /// [`MintError::Layout`] if the clock reads a time before the layout's epoch.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert!(gen.next_id_timeout(std::time::Duration::from_millis(5)).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id_timeout(&self, timeout: Duration) -> Result<Id, MintError> {
        let m = &self.shared.minter;
        match local::with_own(local::key(&self.shared), |hot| m.take_one_hot(hot)) {
            Some(id) => Ok(Id::from_u64(id)),
            None => self.next_id_general(timeout),
        }
    }

    /// [`next_id`](Self::next_id) when the cached tick does not serve: takes a shard if the
    /// thread has none, refills the cache, waits, or mints on the overflow shard.
    #[inline(never)]
    fn next_id_general(&self, timeout: Duration) -> Result<Id, MintError> {
        let m = &self.shared.minter;
        local::with(self.owner(), |shard| match shard {
            Shard::Own(h) => {
                m.take_one_cached(&h.state, &h.cache, h.node_in_place, timeout, |s| h.note(s))
            }
            Shard::Overflow(last) => self.next_overflow_id(last, timeout),
        })
    }

    /// [`next_id`](Self::next_id) on the overflow shard, kept out of line so the common
    /// path stays small enough to inline.
    #[cold]
    #[inline(never)]
    fn next_overflow_id(
        &self,
        last: &core::cell::Cell<u64>,
        timeout: Duration,
    ) -> Result<Id, MintError> {
        let m = &self.shared.minter;
        let slots = &self.shared.slots;
        let (state, _) = m.take(&*slots.overflow, 1, timeout)?;
        crate::events::overflow_shard(&m.layout, m.whose);
        last.set(state);
        Ok(m.id_of(state, slots.overflow_node_in_place))
    }

    /// The next ID from this thread's shard, or at once an error saying why not.
    ///
    /// # Errors
    ///
    /// At once, without waiting: [`MintError::Exhausted`] (with how long to wait) when the tick's
    /// sequence and the lead are used up, [`MintError::ClockBehind`] when the clock is behind the
    /// last issued time by more than the lead, [`MintError::Expired`] once the layout's time field
    /// is full, [`MintError::Layout`] if the clock reads a time before the layout's epoch.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert!(gen.try_next_id().is_ok());
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<Id, MintError> {
        Ok(self.batch(1, Duration::ZERO)?.next().unwrap_or(Id::MIN))
    }

    /// Reserves up to `n` consecutive IDs on this thread's shard, as
    /// [`Generator::next_ids`](crate::Generator::next_ids).
    ///
    /// # Errors
    ///
    /// As [`next_id`](Self::next_id), for the whole batch: none of it is minted on an error.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let batch = gen.next_ids(4_096)?;
    /// assert!(!batch.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        self.batch(n, self.shared.minter.max_wait)
    }

    /// Reserves up to `n` consecutive IDs on this thread's shard without waiting.
    ///
    /// # Errors
    ///
    /// As [`try_next_id`](Self::try_next_id), for the whole batch: none of it is minted on an
    /// error.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert!(gen.try_next_ids(10)?.len() >= 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        // A zero timeout never starts a wait: the non-blocking form.
        self.batch(n, Duration::ZERO)
    }

    /// Fills `out` with unique, increasing IDs from this thread's shard, one reservation per
    /// tick, as [`IdSource::fill`](crate::IdSource::fill). For a large slice over several threads, see `par_fill`
    /// (feature `rayon`), which runs this on each worker's part.
    ///
    /// # Errors
    ///
    /// [`FillError`](crate::source::FillError) with the error that stopped the fill (as
    /// [`next_id`](Self::next_id)'s) and how many IDs were written before it.
    ///
    /// ```
    /// use snowmint::{Id, Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).build()?;
    /// let mut ids = vec![Id::MIN; 10_000];
    /// gen.fill(&mut ids)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill(&self, out: &mut [Id]) -> Result<(), FillError<MintError>> {
        fill_with(out, |n| self.next_ids(n))
    }

    fn batch(&self, n: u64, timeout: Duration) -> Result<IdBatch, MintError> {
        let m = &self.shared.minter;
        let slots = &self.shared.slots;
        local::with(self.owner(), |shard| match shard {
            Shard::Own(hold) => {
                let (first, last) = m.take(&hold.state, n, timeout)?;
                hold.note(last);
                Ok(IdBatch::new(m.layout, hold.node_in_place, first, last))
            }
            Shard::Overflow(overflow_last) => {
                let (first, last) = m.take(&*slots.overflow, n, timeout)?;
                overflow_last.set(last);
                Ok(IdBatch::new(
                    m.layout,
                    slots.overflow_node_in_place,
                    first,
                    last,
                ))
            }
        })
    }

    /// An owned shard of a free shard for a worker loop, or [`MintError::NoFreeShard`].
    ///
    /// # Errors
    ///
    /// [`MintError::NoFreeShard`] when every exclusive shard is owned.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).shard_bits(1).build()?;
    /// let owned = gen.own_shard()?;          // the one exclusive shard
    /// assert!(gen.own_shard().is_err());         // none left
    /// let id = owned.next_id()?;
    /// drop(owned);                           // handed back with its state
    /// let again = gen.own_shard()?;
    /// assert!(again.next_id()? > id);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn own_shard(&self) -> Result<OwnedShard<C>, MintError> {
        match self.shared.slots.acquire() {
            Some(hold) => Ok(OwnedShard::new(Arc::clone(&self.shared), hold)),
            None => Err(MintError::NoFreeShard {
                shards: self.shared.slots.len() as u64,
            }),
        }
    }

    /// Takes a shard for the calling thread now (as its first `next_id` would) and returns
    /// its number, or `None` if every exclusive shard is held and the thread will mint on
    /// the overflow shard. For thread-pool start handlers.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert_eq!(gen.claim_local_shard(), Some(0));
    /// assert_eq!(gen.local_shard(), Some(0));
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn claim_local_shard(&self) -> Option<u64> {
        local::with(self.owner(), |shard| match shard {
            Shard::Own(hold) => Some(hold.index() as u64),
            Shard::Overflow(_) => None,
        })
    }

    /// The calling thread's exclusive shard number, if it holds one (it takes one on its
    /// first `next_id`, or with [`claim_local_shard`](Self::claim_local_shard)).
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert_eq!(gen.local_shard(), None);
    /// gen.next_id()?;
    /// assert_eq!(gen.local_shard(), Some(0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn local_shard(&self) -> Option<u64> {
        local::shard_index(&self.shared.slots).map(|i| i as u64)
    }

    /// Hands back the calling thread's shard now rather than when the thread exits (for
    /// thread pools whose threads outlive their use of the generator). If the thread mints
    /// again it takes a shard again, starting past the tick it last minted in, so its IDs
    /// keep increasing.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).shard_bits(1).build()?;
    /// let id = gen.next_id()?;             // takes the one exclusive shard
    /// assert!(gen.own_shard().is_err());
    /// gen.release_local_shard();
    /// assert_eq!(gen.local_shard(), None);
    /// let owned = gen.own_shard()?;            // free again, with its state
    /// assert!(owned.next_id()? > id);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn release_local_shard(&self) {
        local::release(&self.shared.slots);
    }

    /// Where to resume after a restart: an ID at least as late as every ID issued so far by
    /// any shard (the end of the latest tick any shard reached, on the node's highest node),
    /// or `None` before the first. Build the next run with
    /// [`start_after`](ShardedGeneratorBuilder::start_after) of it and every shard starts in a later
    /// tick.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).node(1).build()?;
    /// assert_eq!(gen.last_id(), None);
    /// let id = gen.next_id()?;
    /// let resume = gen.last_id().unwrap();
    /// assert!(resume >= id);
    /// let next = ShardedGenerator::builder(Layout::TWITTER).node(1).start_after(resume).build()?;
    /// assert!(next.next_id()? > resume);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_id(&self) -> Option<Id> {
        let slots = &self.shared.slots;
        let reached = slots.reached();
        let end = last_of_tick(reached, slots.sequence_bits);
        (reached != 0).then(|| self.shared.minter.id_of(end, slots.overflow_node_in_place))
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// use snowmint::clock::{Clock, ManualClock};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).clock(ManualClock::at_unix_nanos(5)).build()?;
    /// assert_eq!(gen.clock().now_unix_nanos(), 5);
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn clock(&self) -> &C {
        &self.shared.minter.clock
    }

    /// The longest a blocking call waits.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert_eq!(gen.max_wait(), std::time::Duration::from_secs(1));
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn max_wait(&self) -> Duration {
        self.shared.minter.max_wait
    }

    /// The layout of the IDs.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::SONYFLAKE).build()?;
    /// assert_eq!(*gen.layout(), snowmint::Layout::SONYFLAKE);
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.shared.minter.layout
    }

    /// The node part of the node field (above the shard bits).
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::SONYFLAKE).node(9).build()?;
    /// assert_eq!(gen.node(), 9);
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn node(&self) -> u64 {
        self.shared.node()
    }

    /// Bits of the node field that number shards.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::SONYFLAKE).shard_bits(4).build()?;
    /// assert_eq!(gen.shard_bits(), 4);
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn shard_bits(&self) -> u8 {
        self.shared.shard_bits()
    }

    /// How many exclusive shards there are: `2^shard_bits - 1` (the last is the overflow).
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::SONYFLAKE).shard_bits(4).build()?;
    /// assert_eq!(gen.shards(), 15);
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn shards(&self) -> u64 {
        self.shared.slots.len() as u64
    }
}

impl<C> Drop for ShardedGenerator<C> {
    fn drop(&mut self) {
        // Threads' registry entries for this generator are pruned when they next register
        // another one; owned shards keep working (they hold the shared state themselves).
        self.shared.slots.close();
    }
}

impl<C> core::fmt::Debug for ShardedGenerator<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ShardedGenerator")
            .field("layout", &self.shared.minter.layout)
            .field("node", &self.shared.node())
            .field("shard_bits", &self.shared.shard_bits())
            .finish_non_exhaustive()
    }
}

id_source_by_inherent!(impl[C: Clock + 'static] ShardedGenerator<C> { clock: C, error: MintError });
