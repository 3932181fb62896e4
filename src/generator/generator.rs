//! [`Generator`]: the lock-free minting state and its calls.

use core::time::Duration;

#[cfg(feature = "std")]
use crossbeam_utils::CachePadded;

use super::builder::GeneratorBuilder;
use crate::clock::Clock;
use crate::clock::Rollback;
#[cfg(feature = "std")]
use crate::clock::TscClock;
use crate::id::Id;
use crate::layout::Layout;
#[cfg(feature = "std")]
use crate::layout::LayoutError;
use crate::mint::cell::StateCell;
use crate::mint::minter::Minter;
use crate::mint::MintError;
use crate::source::id_source_by_inherent;
use crate::source::IdBatch;
use crate::source::{fill_with, FillError};
use crate::sync::AtomicU64;

/// Mints unique, time-ordered IDs for one node of one layout, from any number of threads.
///
/// The whole state, the last issued `(tick, sequence)`, is one `AtomicU64` on a cache line of
/// its own, advanced by a compare-and-swap loop: no lock, no allocation per ID. Time is
/// folded in as `max(last, now)`, so issued time never goes backwards however the clock
/// moves, and two IDs are never equal.
///
/// - [`next_id`](Self::next_id) waits when the current tick's sequence is used up (spinning,
///   then yielding; sleeping only for waits over 2 ms and never past the tick boundary), at
///   most [`max_wait`](GeneratorBuilder::max_wait);
/// - [`try_next_id`](Self::try_next_id) never waits: it returns an error saying how long to;
/// - [`next_id_timeout`](Self::next_id_timeout) waits at most the given time.
///
/// ```
/// use snowmint::{Generator, Layout};
///
/// let gen = Generator::new(Layout::TWITTER, 42)?;
/// let a = gen.next_id()?;
/// let b = gen.next_id()?;
/// assert!(b > a);
/// let parts = Layout::TWITTER.decode(b);
/// assert_eq!(parts.node(), 42);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Generator<#[cfg(feature = "std")] C = TscClock, #[cfg(not(feature = "std"))] C> {
    /// `tick << sequence_bits | sequence` of the last issued ID (0: none yet).
    state: CachePadded<AtomicU64>,
    minter: Minter<C>,
    node: u64,
    node_in_place: u64,
}

#[cfg(feature = "std")]
impl Generator {
    /// A generator for `node` of `layout` on the shared [`TscClock`], with the defaults: no
    /// lead, [`Rollback::Continue`], `max_wait` of one second (or one tick if longer).
    ///
    /// # Errors
    ///
    /// As [`GeneratorBuilder::build`]: [`LayoutError::FieldOutOfRange`] when `node` does not fit
    /// the layout, [`LayoutError::Expired`] when the layout's expiry is past.
    ///
    /// ```
    /// use snowmint::{Generator, Layout, LayoutError};
    /// use snowmint::layout::Field;
    /// assert!(Generator::new(Layout::SONYFLAKE, 65_535).is_ok());
    /// assert_eq!(
    ///     Generator::new(Layout::SONYFLAKE, 65_536).unwrap_err(),
    ///     LayoutError::FieldOutOfRange { field: Field::Node, value: 65_536, max: 65_535 }
    /// );
    /// ```
    pub fn new(layout: Layout, node: u64) -> Result<Generator, LayoutError> {
        Generator::builder(layout).node(node).build()
    }

    /// Settings for a generator on the shared [`TscClock`].
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::Rollback;
    /// let gen = Generator::builder(Layout::TWITTER)
    ///     .node(7)
    ///     .lead_ticks(2)
    ///     .on_rollback(Rollback::Wait)
    ///     .build()?;
    /// assert_eq!(gen.node(), 7);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn builder(layout: Layout) -> GeneratorBuilder<TscClock> {
        GeneratorBuilder::new(layout, None)
    }
}

impl<C: Clock> Generator<C> {
    /// Settings for a generator on `clock`: the way to one without `std`, where there is no
    /// [`TscClock`](crate::clock::TscClock) to default to (the same as
    /// `Generator::builder(layout).clock(clock)` with it).
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::ManualClock;
    ///
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::with_clock(Layout::TWITTER, clock).node(5).build()?;
    /// let id = gen.next_id()?;
    /// assert_eq!(Layout::TWITTER.decode(id).unix_millis(), 1_700_000_000_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_clock(layout: Layout, clock: C) -> GeneratorBuilder<C> {
        GeneratorBuilder::new(layout, Some(clock))
    }

    pub(crate) fn from_parts(
        (mut minter, node, start): (Minter<C>, u64, Option<u64>),
    ) -> Generator<C> {
        minter.whose.node = Some(node);
        Generator {
            state: CachePadded::new(AtomicU64::new(start.unwrap_or(0))),
            node,
            node_in_place: minter.layout.node_in_place(node),
            minter,
        }
    }

    /// The next ID, waiting (at most `max_wait`) if this tick's sequence is used up or the
    /// clock was stepped back.
    ///
    /// # Errors
    ///
    /// [`MintError::Exhausted`] if the tick's sequence and the lead stay used up, or
    /// [`MintError::ClockBehind`] if the clock stays behind the last issued time, for longer than
    /// [`max_wait`](Self::max_wait); [`MintError::Expired`] once the layout's time field is full;
    /// [`MintError::Layout`] if the clock reads a time before the layout's epoch.
    ///
    /// ```
    /// use std::collections::HashSet;
    /// use snowmint::{Generator, Layout};
    ///
    /// let gen = Generator::new(Layout::SONYFLAKE, 1)?;
    /// // 600 IDs need three 10 ms ticks at 256 per tick: next_id waits for them.
    /// let ids: HashSet<_> = (0..600).map(|_| gen.next_id()).collect::<Result<_, _>>()?;
    /// assert_eq!(ids.len(), 600);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn next_id(&self) -> Result<Id, MintError> {
        match self
            .minter
            .take_one_in_tick(&*self.state, self.node_in_place)
        {
            Some(id) => Ok(id),
            None => self.next_id_general(),
        }
    }

    /// [`next_id`](Self::next_id) past its fast path, out of line so that the fast path
    /// stays small enough to inline and loads nothing it does not use (`max_wait`).
    #[cold]
    #[inline(never)]
    fn next_id_general(&self) -> Result<Id, MintError> {
        let (state, _) = self.minter.take(&*self.state, 1, self.minter.max_wait)?;
        Ok(self.minter.id_of(state, self.node_in_place))
    }

    /// The next ID, or at once an error saying why not and for how long.
    ///
    /// # Errors
    ///
    /// At once, without waiting: [`MintError::Exhausted`] (with how long to wait) when the tick's
    /// sequence and the lead are used up, [`MintError::ClockBehind`] when the clock is behind the
    /// last issued time by more than the lead, [`MintError::Expired`] once the layout's time field
    /// is full, [`MintError::Layout`] if the clock reads a time before the layout's epoch.
    ///
    /// ```
    /// use snowmint::{Generator, Layout, MintError};
    /// use snowmint::clock::ManualClock;
    ///
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock).build()?;
    /// for _ in 0..256 {
    ///     gen.try_next_id()?;
    /// }
    /// // The 10 ms tick has 256 sequence numbers; the clock has not moved.
    /// assert!(matches!(gen.try_next_id(), Err(MintError::Exhausted { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<Id, MintError> {
        if let Some(id) = self
            .minter
            .take_one_in_tick(&*self.state, self.node_in_place)
        {
            return Ok(id);
        }
        let (state, _) = self.minter.try_take(&*self.state, 1)?;
        Ok(self.minter.id_of(state, self.node_in_place))
    }

    /// The next ID, waiting at most `timeout` for it. A wait that cannot end in time is not
    /// started: the error comes at once.
    ///
    /// # Errors
    ///
    /// [`MintError::Exhausted`] if the tick's sequence and the lead stay used up, or
    /// [`MintError::ClockBehind`] if the clock stays behind the last issued time, for longer than
    /// `timeout`; [`MintError::Expired`] once the layout's time field is full;
    /// [`MintError::Layout`] if the clock reads a time before the layout's epoch.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{Generator, Layout, MintError};
    /// use snowmint::clock::ManualClock;
    ///
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock).build()?;
    /// for _ in 0..256 {
    ///     gen.next_id()?;
    /// }
    /// // The clock stands still: the next 10 ms tick is more than 1 ms away.
    /// let err = gen.next_id_timeout(Duration::from_millis(1)).unwrap_err();
    /// assert_eq!(err, MintError::Exhausted { retry_after: Duration::from_millis(10) });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id_timeout(&self, timeout: Duration) -> Result<Id, MintError> {
        if let Some(id) = self
            .minter
            .take_one_in_tick(&*self.state, self.node_in_place)
        {
            return Ok(id);
        }
        let (state, _) = self.minter.take(&*self.state, 1, timeout)?;
        Ok(self.minter.id_of(state, self.node_in_place))
    }

    /// Reserves up to `n` consecutive IDs with one atomic operation, waiting (at most
    /// `max_wait`) only if none is available. The batch holds fewer than `n` IDs when the
    /// current tick, plus the ticks the lead allows, has fewer left: call again for the rest.
    /// `n = 0` is taken as 1.
    ///
    /// # Errors
    ///
    /// As [`next_id`](Self::next_id), for the whole batch: none of it is minted on an error.
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::ManualClock;
    ///
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::builder(Layout::TWITTER).clock(clock.clone()).lead_ticks(1).build()?;
    /// // 4,096 IDs per millisecond, one millisecond of lead: at most 8,192 at once.
    /// assert_eq!(gen.next_ids(10_000)?.len(), 8_192);
    /// clock.advance(std::time::Duration::from_millis(1));
    /// assert_eq!(gen.next_ids(10_000)?.len(), 4_096);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        let (first, last) = self.minter.take(&*self.state, n, self.minter.max_wait)?;
        Ok(IdBatch::new(
            self.minter.layout,
            self.node_in_place,
            first,
            last,
        ))
    }

    /// Reserves up to `n` consecutive IDs without waiting, as [`next_ids`](Self::next_ids).
    ///
    /// # Errors
    ///
    /// As [`try_next_id`](Self::try_next_id), for the whole batch: none of it is minted on an
    /// error.
    ///
    /// ```
    /// use snowmint::{Generator, Layout, MintError};
    /// use snowmint::clock::ManualClock;
    ///
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock).build()?;
    /// assert_eq!(gen.try_next_ids(1_000)?.len(), 256);
    /// assert!(matches!(gen.try_next_ids(1), Err(MintError::Exhausted { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_next_ids(&self, n: u64) -> Result<IdBatch, MintError> {
        let (first, last) = self.minter.try_take(&*self.state, n)?;
        Ok(IdBatch::new(
            self.minter.layout,
            self.node_in_place,
            first,
            last,
        ))
    }

    /// Fills `out` with unique, increasing IDs, one reservation per tick, as
    /// [`IdSource::fill`](crate::IdSource::fill) (on error, the first [`FillError::filled`] IDs are written and
    /// issued, the rest of `out` as it was).
    ///
    /// # Errors
    ///
    /// [`FillError`](crate::source::FillError) with the error that stopped the fill (as
    /// [`next_id`](Self::next_id)'s) and how many IDs were written before it.
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// let mut ids = [Id::MIN; 4_096];
    /// gen.fill(&mut ids)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill(&self, out: &mut [Id]) -> Result<(), FillError<MintError>> {
        fill_with(out, |n| self.next_ids(n))
    }

    /// The layout of the IDs this generator mints.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::DISCORD, 3)?;
    /// assert_eq!(*gen.layout(), snowmint::Layout::DISCORD);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.minter.layout
    }

    /// The node number in every ID.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::DISCORD, 3)?;
    /// assert_eq!(gen.node(), 3);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn node(&self) -> u64 {
        self.node
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::{Clock, ManualClock};
    /// let gen = Generator::builder(Layout::TWITTER).clock(ManualClock::at_unix_nanos(5)).build()?;
    /// assert_eq!(gen.clock().now_unix_nanos(), 5);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn clock(&self) -> &C {
        &self.minter.clock
    }

    /// How many ticks the generator may run ahead of the clock.
    ///
    /// ```
    /// let gen = snowmint::Generator::builder(snowmint::Layout::TWITTER).lead_ticks(3).build()?;
    /// assert_eq!(gen.lead_ticks(), 3);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn lead_ticks(&self) -> u64 {
        self.minter.rules.lead
    }

    /// The longest [`next_id`](Self::next_id) waits.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 0)?;
    /// assert_eq!(gen.max_wait(), std::time::Duration::from_secs(1));
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn max_wait(&self) -> Duration {
        self.minter.max_wait
    }

    /// What the generator does when the clock is behind the last issued time.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 0)?;
    /// assert_eq!(gen.rollback(), snowmint::clock::Rollback::Continue);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn rollback(&self) -> Rollback {
        self.minter.rollback
    }

    /// The last ID issued (by any thread), or `None` before the first. Store it to resume
    /// after a restart with [`GeneratorBuilder::start_after`]. With threads minting at a
    /// tick's end it may be the ID of a state one of them took and gave up, never handed
    /// out (see the [design notes](crate::docs::generators#design)); it is never below an
    /// issued ID, so it is always a safe place to resume after.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 9)?;
    /// assert_eq!(gen.last_id(), None);
    /// let id = gen.next_id()?;
    /// assert_eq!(gen.last_id(), Some(id));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_id(&self) -> Option<Id> {
        let state = self.state.get();
        (state != 0).then(|| self.minter.id_of(state, self.node_in_place))
    }
}

impl<C: Clock + core::fmt::Debug> core::fmt::Debug for Generator<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Generator")
            .field("layout", &self.minter.layout)
            .field("node", &self.node)
            .field("lead_ticks", &self.minter.rules.lead)
            .field("rollback", &self.minter.rollback)
            .field("max_wait", &self.minter.max_wait)
            .field("last_id", &self.last_id())
            .field("clock", &self.minter.clock)
            .finish()
    }
}

id_source_by_inherent!(impl[C: Clock] Generator<C> { clock: C, error: MintError });

/// Without `std` (no crossbeam-utils): the state on a 128-byte line of its own, as
/// `crossbeam_utils::CachePadded` places it on x86-64 and aarch64 (two 64-byte lines, for the
/// adjacent-line prefetcher), so that what sits next to a generator never shares its line.
#[cfg(not(feature = "std"))]
#[repr(align(128))]
struct CachePadded<T>(T);

#[cfg(not(feature = "std"))]
impl<T> CachePadded<T> {
    const fn new(value: T) -> CachePadded<T> {
        CachePadded(value)
    }
}

#[cfg(not(feature = "std"))]
impl<T> core::ops::Deref for CachePadded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}
