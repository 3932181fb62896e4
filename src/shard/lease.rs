//! [`Lease`]: one shard owned by one worker.

use std::sync::Arc;
use std::time::Duration;

use super::slots::Hold;
use super::Shared;
use crate::batch::IdBatch;
use crate::clock::{Clock, TscClock};
use crate::error::MintError;
use crate::id::Id;
use crate::layout::Layout;
use crate::source::IdSource;

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
///         let lease = gen.lease().expect("63 shards");
///         s.spawn(move || {
///             let mut last = lease.next_id().unwrap();
///             for _ in 0..1_000 {
///                 let id = lease.next_id().unwrap();
///                 assert!(id > last);
///                 last = id;
///             }
///         });
///     }
/// });
/// # Ok::<(), snowmint::ShardError>(())
/// ```
pub struct Lease<C = TscClock> {
    shared: Arc<Shared<C>>,
    hold: Hold,
}

impl<C: Clock> Lease<C> {
    pub(crate) fn new(shared: Arc<Shared<C>>, hold: Hold) -> Lease<C> {
        Lease { shared, hold }
    }

    /// The next ID, waiting (at most `max_wait`) if this shard's tick is used up.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let lease = gen.lease()?;
    /// assert!(lease.next_id()? < lease.next_id()?);
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
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let lease = gen.lease()?;
    /// assert!(lease.next_id_timeout(std::time::Duration::ZERO).is_ok());
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
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert!(gen.lease()?.try_next_id().is_ok());
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
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let lease = gen.lease()?;
    /// let ids: Vec<_> = lease.next_ids(64)?.collect();
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
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert!(!gen.lease()?.try_next_ids(8)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        let m = &self.shared.minter;
        let (first, last) = m.try_take(&self.hold.state, n)?;
        self.hold.note(last);
        Ok(IdBatch::new(m.layout, self.hold.node_in_place, first, last))
    }

    /// The shard's full node number (host and shard bits).
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).host(2).build()?;
    /// let lease = gen.lease()?;
    /// assert_eq!(lease.node(), 2 << 6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node(&self) -> u64 {
        self.shared.host() << self.shared.shard_bits | self.hold.index() as u64
    }

    /// The layout of the IDs.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::SONYFLAKE).build()?;
    /// assert_eq!(*gen.lease()?.layout(), snowmint::Layout::SONYFLAKE);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.shared.minter.layout
    }

    /// The last ID this shard issued (under this lease or an earlier holder), or `None`
    /// before the first.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// let lease = gen.lease()?;
    /// let id = lease.next_id()?;
    /// assert_eq!(lease.last_id(), Some(id));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_id(&self) -> Option<Id> {
        let state = self.hold.state.get();
        (state != 0).then(|| self.shared.minter.id_of(state, self.hold.node_in_place))
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::{Clock, Layout, ManualClock, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::TWITTER).clock(ManualClock::at_unix_nanos(5)).build()?;
    /// assert_eq!(gen.lease()?.clock().now_unix_nanos(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(&self) -> &C {
        &self.shared.minter.clock
    }

    /// The longest a blocking call waits.
    ///
    /// ```
    /// let gen = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).build()?;
    /// assert_eq!(gen.lease()?.max_wait(), std::time::Duration::from_secs(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_wait(&self) -> Duration {
        self.shared.minter.max_wait
    }
}

impl<C: Clock> IdSource for Lease<C> {
    type Clock = C;
    type Error = MintError;

    #[inline]
    fn next_id(&self) -> Result<Id, MintError> {
        Lease::next_id(self)
    }

    #[inline]
    fn try_next_id(&self) -> Result<Id, MintError> {
        Lease::try_next_id(self)
    }

    #[inline]
    fn next_id_timeout(&self, timeout: Duration) -> Result<Id, MintError> {
        Lease::next_id_timeout(self, timeout)
    }

    fn next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        Lease::next_ids(self, n)
    }

    fn try_next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        Lease::try_next_ids(self, n)
    }

    fn layout(&self) -> &Layout {
        Lease::layout(self)
    }

    fn last_id(&self) -> Option<Id> {
        Lease::last_id(self)
    }

    fn clock(&self) -> &C {
        Lease::clock(self)
    }

    fn max_wait(&self) -> Duration {
        Lease::max_wait(self)
    }
}

impl<C> Shared<C> {
    fn host(&self) -> u64 {
        self.host
    }
}

impl<C> core::fmt::Debug for Lease<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lease")
            .field("shard", &self.hold.index())
            .finish_non_exhaustive()
    }
}
