//! [`OwnedShard`]: one shard owned by one worker.

use std::sync::Arc;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use super::shared::Shared;
use super::slots::Hold;
use crate::clock::{Clock, TscClock};
use crate::id::Id;
use crate::layout::Layout;
use crate::mint::MintError;
use crate::source::id_source_by_inherent;
use crate::source::IdBatch;
use crate::source::{fill_with, FillError};

/// One shard of a [`ShardedGenerator`](crate::ShardedGenerator), owned by one worker: minting
/// reads the clock and updates a plain cell, with no thread-local lookup and no atomic
/// read-modify-write. `Send` but not `Sync`: its methods take `&self`, and the compiler keeps
/// it on one thread at a time. Dropping it hands the shard back with its last
/// time and sequence, so its next holder continues after them.
///
/// ```
/// use snowmint::{Layout, ShardedGenerator};
///
/// let gen = ShardedGenerator::builder(Layout::TWITTER).build()?;
/// std::thread::scope(|s| {
///     for _ in 0..2 {
///         let owned = gen.own_shard().expect("63 shards");
///         s.spawn(move || {
///             let mut last = owned.next_id().unwrap();
///             for _ in 0..1_000 {
///                 let id = owned.next_id().unwrap();
///                 assert!(id > last);
///                 last = id;
///             }
///         });
///     }
/// });
/// # Ok::<(), snowmint::ShardError>(())
/// ```
pub struct OwnedShard<C = TscClock> {
    shared: Arc<Shared<C>>,
    /// The state written on every ID, on cache lines of its own: owned shards kept side by
    /// side (an array, a `Vec`, one struct) by threads on other cores never share a line,
    /// nor the pair of lines the CPU fetches together.
    hold: CachePadded<Hold>,
}

impl<C: Clock> OwnedShard<C> {
    pub(crate) fn new(shared: Arc<Shared<C>>, hold: Hold) -> OwnedShard<C> {
        OwnedShard {
            shared,
            hold: CachePadded::new(hold),
        }
    }

    /// The next ID, waiting (at most `max_wait`) if this shard's tick is used up.
    ///
    /// # Errors
    ///
    /// [`MintError::Exhausted`] if the tick's sequence and the lead stay used up, or
    /// [`MintError::ClockBehind`] if the clock stays behind the last issued time, for longer than
    /// [`max_wait`](Self::max_wait); [`MintError::Expired`] once the layout's time field is full;
    /// [`MintError::Layout`] if the clock reads a time before the layout's epoch.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let owned = gen.own_shard()?;
    /// assert!(owned.next_id()? < owned.next_id()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id(&self) -> Result<Id, MintError> {
        let h = &self.hold;
        match self.shared.minter.take_one_from_cache(&h.state, &h.cache) {
            Some(id) => Ok(Id::from_u64(id)),
            None => self.next_id_general(),
        }
    }

    /// [`next_id`](Self::next_id) past its fast path, out of line so that the fast path
    /// stays small enough to inline and loads nothing it does not use (`max_wait`).
    #[cold]
    #[inline(never)]
    fn next_id_general(&self) -> Result<Id, MintError> {
        self.next_id_timeout(self.shared.minter.max_wait)
    }

    /// The next ID, waiting at most `timeout` for it.
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
    /// let owned = gen.own_shard()?;
    /// assert!(owned.next_id_timeout(std::time::Duration::ZERO).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id_timeout(&self, timeout: Duration) -> Result<Id, MintError> {
        let m = &self.shared.minter;
        let h = &self.hold;
        m.take_one_cached(&h.state, &h.cache, h.node_in_place, timeout, |s| h.note(s))
    }

    /// The next ID, or at once an error saying why not.
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
    /// assert!(gen.own_shard()?.try_next_id().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<Id, MintError> {
        let m = &self.shared.minter;
        let (state, _) = m.try_take(&self.hold.state, 1)?;
        self.hold.note(state);
        Ok(m.id_of(state, self.hold.node_in_place))
    }

    /// Reserves up to `n` consecutive IDs on this shard, as
    /// [`Generator::next_ids`](crate::Generator::next_ids).
    ///
    /// # Errors
    ///
    /// As [`next_id`](Self::next_id), for the whole batch: none of it is minted on an error.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let owned = gen.own_shard()?;
    /// let ids: Vec<_> = owned.next_ids(64)?.collect();
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        let m = &self.shared.minter;
        let (first, last) = m.take(&self.hold.state, n, m.max_wait)?;
        self.hold.note(last);
        Ok(IdBatch::new(m.layout, self.hold.node_in_place, first, last))
    }

    /// Reserves up to `n` consecutive IDs on this shard without waiting.
    ///
    /// # Errors
    ///
    /// As [`try_next_id`](Self::try_next_id), for the whole batch: none of it is minted on an
    /// error.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert!(!gen.own_shard()?.try_next_ids(8)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        let m = &self.shared.minter;
        let (first, last) = m.try_take(&self.hold.state, n)?;
        self.hold.note(last);
        Ok(IdBatch::new(m.layout, self.hold.node_in_place, first, last))
    }

    /// Fills `out` with unique, increasing IDs from this shard, one reservation per tick, as
    /// [`IdSource::fill`](crate::IdSource::fill).
    ///
    /// # Errors
    ///
    /// [`FillError`](crate::source::FillError) with the error that stopped the fill (as
    /// [`next_id`](Self::next_id)'s) and how many IDs were written before it.
    ///
    /// ```
    /// use snowmint::{Id, Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).build()?;
    /// let owned = gen.own_shard()?;
    /// let mut ids = [Id::MIN; 100];
    /// owned.fill(&mut ids)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill(&self, out: &mut [Id]) -> Result<(), FillError<MintError>> {
        fill_with(out, |n| self.next_ids(n))
    }

    /// The node this shard belongs to: its generator's node, the node bits above the shards.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).node(2).build()?;
    /// assert_eq!(gen.own_shard()?.node(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node(&self) -> u64 {
        self.shared.node()
    }

    /// The shard's number under its node (the low bits of the node field).
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).build()?;
    /// let (a, b) = (gen.own_shard()?, gen.own_shard()?);
    /// assert_ne!(a.shard(), b.shard());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shard(&self) -> u64 {
        self.hold.index() as u64
    }

    /// The value of the node field in this shard's IDs: the node above the shard bits, the
    /// shard below them (what [`Parts::node`](crate::Parts::node) decodes).
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).node(2).build()?;
    /// let owned = gen.own_shard()?;
    /// assert_eq!(owned.node_field(), 2 << 6 | owned.shard());
    /// assert_eq!(Layout::TWITTER.decode(owned.next_id()?).node(), owned.node_field());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node_field(&self) -> u64 {
        self.shared.node() << self.shared.shard_bits | self.shard()
    }

    /// The layout of the IDs.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::SONYFLAKE).build()?;
    /// assert_eq!(*gen.own_shard()?.layout(), snowmint::Layout::SONYFLAKE);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.shared.minter.layout
    }

    /// The last ID this shard issued (under this owned shard or an earlier holder), or `None`
    /// before the first.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let owned = gen.own_shard()?;
    /// let id = owned.next_id()?;
    /// assert_eq!(owned.last_id(), Some(id));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_id(&self) -> Option<Id> {
        let state = self.hold.state.get();
        (state != 0).then(|| self.shared.minter.id_of(state, self.hold.node_in_place))
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// use snowmint::clock::{Clock, ManualClock};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).clock(ManualClock::at_unix_nanos(5)).build()?;
    /// assert_eq!(gen.own_shard()?.clock().now_unix_nanos(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(&self) -> &C {
        &self.shared.minter.clock
    }

    /// The longest a blocking call waits.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert_eq!(gen.own_shard()?.max_wait(), std::time::Duration::from_secs(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_wait(&self) -> Duration {
        self.shared.minter.max_wait
    }
}

id_source_by_inherent!(impl[C: Clock] OwnedShard<C> { clock: C, error: MintError });

impl<C> core::fmt::Debug for OwnedShard<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OwnedShard")
            .field("shard", &self.hold.index())
            .finish_non_exhaustive()
    }
}
