//! [`ShardedGeneratorBuilder`]: settings of a sharded generator.

use std::time::Duration;

use super::error::ShardError;
use super::ShardedGenerator;
use crate::clock::Clock;
use crate::clock::Rollback;
use crate::generator::GeneratorBuilder;
use crate::id::Id;
use crate::layout::Layout;
use crate::source::SourceBuilder;

/// Default shard bits: 63 exclusive shards, more than the cores of most servers.
const DEFAULT_SHARD_BITS: u8 = 6;

/// Settings of a [`ShardedGenerator`]: the node number, how many node bits number shards,
/// and the minting settings every shard shares.
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Layout, ShardedGenerator};
/// use snowmint::clock::WallClock;
///
/// let gen = ShardedGenerator::builder(Layout::SONYFLAKE)
///     .shard_bits(6)       // 63 shards + 1 overflow shard...
///     .node(1_000)         // ...under node 1000 of 1024 (10 bits left)
///     .lead_ticks(1)
///     .max_wait(Duration::from_millis(50))
///     .clock(WallClock)
///     .build()?;
/// assert_eq!(gen.shards(), 63);
/// # Ok::<(), snowmint::ShardError>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ShardedGeneratorBuilder<C> {
    inner: GeneratorBuilder<C>,
    shard_bits: Option<u8>,
}

impl<C: Clock + 'static> ShardedGeneratorBuilder<C> {
    pub(crate) fn new(inner: GeneratorBuilder<C>) -> ShardedGeneratorBuilder<C> {
        ShardedGeneratorBuilder {
            inner,
            shard_bits: None,
        }
    }

    /// Bits of the node field that number shards, from the bottom (1 to the layout's node
    /// bits, at most 16; default 6, or the node bits if fewer).
    ///
    /// ```
    /// use snowmint::{Layout, ShardError, ShardedGenerator};
    /// let err = ShardedGenerator::builder(Layout::TWITTER).shard_bits(11).build().unwrap_err();
    /// assert_eq!(err, ShardError::ShardBitsOutOfRange { shard_bits: 11, max: 10 });
    /// ```
    pub fn shard_bits(mut self, bits: u8) -> Self {
        self.shard_bits = Some(bits);
        self
    }

    /// The node number: the node bits above the shard bits (default 0).
    ///
    /// ```
    /// use snowmint::{Layout, ShardError, ShardedGenerator};
    /// // Twitter: 10 node bits - 6 shard bits = 4 node bits.
    /// let err = ShardedGenerator::builder(Layout::TWITTER).node(16).build().unwrap_err();
    /// assert_eq!(err, ShardError::NodeOutOfRange { node: 16, max: 15 });
    /// ```
    pub fn node(mut self, node: u64) -> Self {
        self.inner = self.inner.node(node);
        self
    }

    /// Future ticks each shard may borrow, as [`GeneratorBuilder::lead_ticks`].
    ///
    /// ```
    /// let b = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER).lead_ticks(2);
    /// assert!(b.build().is_ok());
    /// ```
    pub fn lead_ticks(mut self, ticks: u64) -> Self {
        self.inner = self.inner.lead_ticks(ticks);
        self
    }

    /// How long before the layout's expiry building warns, as
    /// [`GeneratorBuilder::expiry_warning`] (default a year).
    ///
    /// ```
    /// let b = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER)
    ///     .expiry_warning(std::time::Duration::from_secs(86_400));
    /// assert!(b.build().is_ok());
    /// ```
    pub fn expiry_warning(mut self, margin: Duration) -> Self {
        self.inner = self.inner.expiry_warning(margin);
        self
    }

    /// The longest a blocking call waits, as [`GeneratorBuilder::max_wait`].
    ///
    /// ```
    /// let b = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER)
    ///     .max_wait(std::time::Duration::from_millis(5));
    /// assert!(b.build().is_ok());
    /// ```
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.inner = self.inner.max_wait(max_wait);
        self
    }

    /// The policy for a clock behind the last issued time, as
    /// [`GeneratorBuilder::on_rollback`].
    ///
    /// ```
    /// let b = snowmint::ShardedGenerator::builder(snowmint::Layout::TWITTER)
    ///     .on_rollback(snowmint::clock::Rollback::Wait);
    /// assert!(b.build().is_ok());
    /// ```
    pub fn on_rollback(mut self, policy: Rollback) -> Self {
        self.inner = self.inner.on_rollback(policy);
        self
    }

    /// Every shard resumes past the tick of this ID (the sharded generator's
    /// [`last_id`](ShardedGenerator::last_id) before a restart, for example): all IDs minted
    /// lie in later ticks, so none repeats whatever sequence another shard had reached.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let old = ShardedGenerator::builder(Layout::TWITTER).build()?;
    /// old.next_id()?;
    /// let resume = old.last_id().unwrap();
    /// let new = ShardedGenerator::builder(Layout::TWITTER).start_after(resume).build()?;
    /// let next = Layout::TWITTER.decode(new.next_id()?);
    /// assert!(next.ticks() > Layout::TWITTER.decode(resume).ticks());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_after(mut self, id: Id) -> Self {
        self.inner = self.inner.start_after(id);
        self
    }

    /// Uses another clock.
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// use snowmint::clock::ManualClock;
    /// let gen = ShardedGenerator::builder(Layout::TWITTER)
    ///     .clock(ManualClock::at_unix_millis(1_700_000_000_000))
    ///     .build()?;
    /// assert_eq!(Layout::TWITTER.decode(gen.next_id()?).unix_millis(), 1_700_000_000_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock<D: Clock>(self, clock: D) -> ShardedGeneratorBuilder<D> {
        ShardedGeneratorBuilder {
            inner: self.inner.clock(clock),
            shard_bits: self.shard_bits,
        }
    }

    /// Checks the split and builds the generator.
    ///
    /// # Errors
    ///
    /// [`ShardError::ShardBitsOutOfRange`](crate::ShardError::ShardBitsOutOfRange) when the shard
    /// bits exceed the layout's node bits,
    /// [`ShardError::NodeOutOfRange`](crate::ShardError::NodeOutOfRange) when the node does not fit
    /// the bits left, [`ShardError::Layout`](crate::ShardError::Layout) when the layout's expiry is
    /// past (each with the allowed range).
    ///
    /// ```
    /// use snowmint::{Layout, ShardedGenerator};
    /// let gen = ShardedGenerator::builder(Layout::DISCORD).shard_bits(5).node(31).build()?;
    /// assert_eq!(gen.shards(), 31);
    /// # Ok::<(), snowmint::ShardError>(())
    /// ```
    pub fn build(self) -> Result<ShardedGenerator<C>, ShardError> {
        let shard_bits = self.shard_bits_or_default();
        let inner = self.inner.resolve_clock();
        inner.check_not_expired()?;
        let (minter, node, start) = inner.into_parts();
        ShardedGenerator::from_parts(minter, node, shard_bits, start)
    }

    /// The shard bits asked for, or the default for the layout.
    fn shard_bits_or_default(&self) -> u8 {
        self.shard_bits.unwrap_or_else(|| {
            DEFAULT_SHARD_BITS.min(SourceBuilder::layout(&self.inner).node_bits())
        })
    }
}

impl<C: Clock + 'static> SourceBuilder for ShardedGeneratorBuilder<C> {
    type Source = ShardedGenerator<C>;
    type Error = ShardError;

    /// The largest node: the node bits above the shard bits.
    fn max_node(&self) -> u64 {
        let layout = SourceBuilder::layout(&self.inner);
        layout
            .max_node()
            .checked_shr(self.shard_bits_or_default().into())
            .unwrap_or(0)
    }

    fn node_number(&self) -> u64 {
        self.inner.node_number()
    }

    fn node(self, node: u64) -> Self {
        self.node(node)
    }

    fn start_after(self, id: Id) -> Self {
        ShardedGeneratorBuilder::start_after(self, id)
    }

    fn layout(&self) -> &Layout {
        SourceBuilder::layout(&self.inner)
    }

    fn build(self) -> Result<ShardedGenerator<C>, ShardError> {
        ShardedGeneratorBuilder::build(self)
    }
}
