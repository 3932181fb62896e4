//! [`IdSource`]: the one trait every source of IDs implements, [`MintFailure`] for its
//! errors, and [`SourceBuilder`] for the settings of a source whose node comes from outside.

use core::time::Duration;

use super::batch::IdBatch;
use super::fill::{fill_with, FillError};
use crate::clock::Clock;
use crate::id::Id;
use crate::layout::Layout;
use crate::layout::LayoutError;
use crate::mint::MintError;

/// A source of unique, time-ordered IDs of one layout: a [`Generator`](crate::Generator), a
/// [`ShardedGenerator`](crate::ShardedGenerator), a shard's [`OwnedShard`](crate::shard::OwnedShard), or any
/// of them behind a [`Fenced`](crate::fence::Fenced) wrapper (a file guard or a Redis lease).
///
/// Code that mints (rayon helpers, the async calls, the command-line tool, the ID service)
/// takes any implementor, so the parts compose: a Redis-leased node with a shard per thread
/// is `Fenced<ShardedGenerator>`, and mints through this trait like a plain generator.
///
/// Every implementor keeps the same promises: IDs from one source never repeat and, from one
/// thread, always increase; blocking calls wait at most [`max_wait`](Self::max_wait) (or the
/// timeout given); `try_` calls never wait; a batch never crosses the lead.
///
/// ```
/// use snowmint::{Generator, IdSource, Layout, ShardedGenerator};
///
/// fn first_three<S: IdSource>(source: &S) -> Result<Vec<snowmint::Id>, S::Error> {
///     (0..3).map(|_| source.next_id()).collect()
/// }
///
/// let plain = Generator::new(Layout::TWITTER, 1)?;
/// let sharded = ShardedGenerator::builder(Layout::TWITTER).node(2).build()?;
/// assert_eq!(first_three(&plain)?.len(), 3);
/// let ids = first_three(&sharded)?;
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait IdSource {
    /// The clock the source reads.
    type Clock: Clock;
    /// Why the source did not mint: [`MintError`], or [`FenceError`](crate::fence::FenceError) for a
    /// fenced source.
    type Error: MintFailure;

    /// The next ID, waiting (at most [`max_wait`](Self::max_wait)) if the tick's sequence is
    /// used up or the clock was stepped back.
    ///
    /// # Errors
    ///
    /// The source's error when no ID can be had within [`max_wait`](Self::max_wait): the tick used
    /// up or the clock behind for that long, the layout expired, a fence lost ([`MintFailure`] says
    /// which and for how long).
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// let a = IdSource::next_id(&gen)?;
    /// assert!(IdSource::next_id(&gen)? > a);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn next_id(&self) -> Result<Id, Self::Error>;

    /// The next ID, or at once an error saying why not (and, where waiting helps, for how
    /// long: [`MintFailure::retry_after`]).
    ///
    /// # Errors
    ///
    /// The source's error, at once, when the next ID would need a wait (with
    /// [`MintFailure::retry_after`]) or cannot be had at all.
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// assert!(IdSource::try_next_id(&gen).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn try_next_id(&self) -> Result<Id, Self::Error>;

    /// The next ID, waiting at most `timeout`. A wait that cannot end in time is not
    /// started: the error comes at once.
    ///
    /// # Errors
    ///
    /// As [`next_id`](Self::next_id), with `timeout` for `max_wait`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// assert!(IdSource::next_id_timeout(&gen, Duration::from_millis(5)).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn next_id_timeout(&self, timeout: Duration) -> Result<Id, Self::Error>;

    /// Reserves up to `n` consecutive IDs at once, waiting (at most `max_wait`) only if none
    /// is available; fewer than `n` when the tick (and the lead) has fewer left. `n = 0` is
    /// taken as 1.
    ///
    /// # Errors
    ///
    /// As [`next_id`](Self::next_id), for the whole batch.
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// assert!(!IdSource::next_ids(&gen, 10)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn next_ids(&self, n: u64) -> Result<IdBatch, Self::Error>;

    /// Reserves up to `n` consecutive IDs without waiting.
    ///
    /// # Errors
    ///
    /// As [`try_next_id`](Self::try_next_id), for the whole batch.
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// assert!(IdSource::try_next_ids(&gen, 10)?.len() <= 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn try_next_ids(&self, n: u64) -> Result<IdBatch, Self::Error>;

    /// Fills `out` with unique, increasing IDs, tick by tick: one reservation
    /// ([`next_ids`](Self::next_ids), with the source's own checks: a fence's included) per
    /// tick, each waiting as `next_ids` does, written whole in runs of `base + i × step`.
    ///
    /// On error it stops and returns it with how many IDs it wrote
    /// ([`FillError::filled`]): those, at the front of `out`, were issued and are valid (each
    /// unique, greater than the one before); the rest of `out` is as it was. A reservation
    /// never asks for more than the slice has left, so the fill drops no ID it reserved.
    /// Implementors may override it with a faster loop that keeps these promises.
    ///
    /// # Errors
    ///
    /// [`FillError`] with the reservation's error and how many IDs were written before it.
    ///
    /// ```
    /// use snowmint::{Generator, Id, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// let mut ids = vec![Id::MIN; 10_000]; // more than one 4,096-ID tick
    /// IdSource::fill(&gen, &mut ids)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn fill(&self, out: &mut [Id]) -> Result<(), FillError<Self::Error>> {
        fill_with(out, |n| self.next_ids(n))
    }

    /// The layout of the IDs.
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::DISCORD, 1)?;
    /// assert_eq!(*IdSource::layout(&gen), Layout::DISCORD);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    fn layout(&self) -> &Layout;

    /// Where to resume after a restart: an ID at least as late as every ID issued so far
    /// (`None` before the first). For one node it is the last ID issued; for a sharded
    /// generator, the end of the latest tick any shard reached. A source built with
    /// `start_after` of it issues only IDs in later ticks.
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// let id = gen.next_id()?;
    /// assert_eq!(IdSource::last_id(&gen), Some(id));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn last_id(&self) -> Option<Id>;

    /// The clock.
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// use snowmint::clock::{Clock, ManualClock};
    /// let gen = Generator::builder(Layout::TWITTER).clock(ManualClock::at_unix_millis(7)).build()?;
    /// assert_eq!(IdSource::clock(&gen).now_unix_nanos(), 7_000_000);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    fn clock(&self) -> &Self::Clock;

    /// The longest a blocking call waits.
    ///
    /// ```
    /// use snowmint::{Generator, IdSource, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// assert_eq!(IdSource::max_wait(&gen), std::time::Duration::from_secs(1));
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    fn max_wait(&self) -> Duration;
}

/// The error of an [`IdSource`]: whether, and after how long, trying again can succeed.
///
/// ```
/// use std::time::Duration;
/// use snowmint::MintError;
/// use snowmint::source::MintFailure;
/// let e = MintError::Exhausted { retry_after: Duration::from_micros(3) };
/// assert_eq!(MintFailure::retry_after(&e), Some(Duration::from_micros(3)));
/// ```
pub trait MintFailure: core::error::Error + From<MintError> + Send + Sync + 'static {
    /// How long to wait before trying again, when waiting can help; `None` when it cannot
    /// (the layout expired, the node was lost).
    ///
    /// ```
    /// use snowmint::MintError;
    /// use snowmint::source::MintFailure;
    /// assert_eq!(MintFailure::retry_after(&MintError::Expired { expiry_unix_millis: 0 }), None);
    /// ```
    fn retry_after(&self) -> Option<Duration>;
}

impl MintFailure for MintError {
    fn retry_after(&self) -> Option<Duration> {
        MintError::retry_after(self)
    }
}

/// The settings of a source whose node number comes from outside: a node source, a lease, a
/// restart guard. For a [`Generator`](crate::Generator) the number is its node; for a
/// [`ShardedGenerator`](crate::ShardedGenerator), its node (the node bits above the shards).
///
/// ```
/// use snowmint::{Generator, Layout, ShardedGenerator};
/// use snowmint::source::SourceBuilder;
///
/// fn on_node<B: SourceBuilder>(b: B, n: u64) -> Result<B::Source, B::Error> {
///     let n = n.min(b.max_node());
///     b.node(n).build()
/// }
/// assert_eq!(on_node(Generator::builder(Layout::TWITTER), 5_000)?.node(), 1_023);
/// // Twitter's 10 node bits, 6 of them shards: 16 nodes.
/// assert_eq!(on_node(ShardedGenerator::builder(Layout::TWITTER), 5_000)?.node(), 15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait SourceBuilder: Sized {
    /// What it builds.
    type Source: IdSource;
    /// Why it refuses its settings: [`LayoutError`], or
    /// [`ShardError`](crate::ShardError) for a sharded generator.
    type Error: core::error::Error + From<LayoutError> + Send + Sync + 'static;

    /// The largest node number the source takes (its node, when sharded).
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::source::SourceBuilder;
    /// assert_eq!(SourceBuilder::max_node(&Generator::builder(Layout::SONYFLAKE)), 65_535);
    /// ```
    fn max_node(&self) -> u64;

    /// The node number set so far (the node, when sharded).
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::source::SourceBuilder;
    /// assert_eq!(Generator::builder(Layout::TWITTER).node(4).node_number(), 4);
    /// ```
    fn node_number(&self) -> u64;

    /// Sets the node number (the node, when sharded).
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::source::SourceBuilder;
    /// let gen = SourceBuilder::node(Generator::builder(Layout::TWITTER), 9).build()?;
    /// assert_eq!(gen.node(), 9);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    fn node(self, node: u64) -> Self;

    /// Resumes after `id`: every ID issued is in a later tick than `id`'s (or, for one node,
    /// greater than `id`).
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::source::SourceBuilder;
    /// let old = Generator::new(Layout::TWITTER, 1)?.next_id()?;
    /// let gen = SourceBuilder::start_after(Generator::builder(Layout::TWITTER).node(1), old).build()?;
    /// assert!(gen.next_id()? > old);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn start_after(self, id: Id) -> Self;

    /// The layout.
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::source::SourceBuilder;
    /// assert_eq!(*SourceBuilder::layout(&Generator::builder(Layout::JS53)), Layout::JS53);
    /// ```
    fn layout(&self) -> &Layout;

    /// Checks the settings and builds the source.
    ///
    /// # Errors
    ///
    /// The source's error when a setting is out of range (the node above
    /// [`max_node`](Self::max_node), a split the layout cannot hold) or the layout has expired.
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::source::SourceBuilder;
    /// assert!(SourceBuilder::build(Generator::builder(Layout::TWITTER).node(1_024)).is_err());
    /// ```
    fn build(self) -> Result<Self::Source, Self::Error>;
}
