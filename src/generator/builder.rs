//! [`GeneratorBuilder`]: a generator's settings, checked when built.

use core::time::Duration;

use super::Generator;
use crate::clock::Clock;
use crate::clock::Rollback;
use crate::id::Id;
use crate::layout::Layout;
use crate::layout::{Field, LayoutError};
use crate::mint::minter::Minter;
use crate::source::SourceBuilder;

/// The default margin of the layout's lifetime warning: a year (365.25 days).
const EXPIRY_WARNING: Duration = Duration::from_secs(31_557_600);

/// Settings of a [`Generator`]: node, lead, waiting and the clock.
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Generator, Layout};
/// use snowmint::clock::{Rollback, WallClock};
///
/// let gen = Generator::builder(Layout::TWITTER).clock(WallClock)
///     .node(3)
///     .lead_ticks(4)                         // may borrow up to 4 ms ahead under bursts
///     .max_wait(Duration::from_millis(50))   // next_id never waits longer
///     .on_rollback(Rollback::Wait)
///     .build()?;
/// assert_eq!(gen.lead_ticks(), 4);
/// # Ok::<(), snowmint::LayoutError>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct GeneratorBuilder<C> {
    layout: Layout,
    node: u64,
    lead_ticks: u64,
    max_wait: Option<Duration>,
    rollback: Rollback,
    start_after: Option<Id>,
    expiry_warning: Duration,
    /// `None` until `.clock(…)`: the clock's process default is taken at `build`.
    clock: Option<C>,
}

impl<C: Clock> GeneratorBuilder<C> {
    /// Settings for `layout` on `clock`, node 0.
    pub(crate) fn new(layout: Layout, clock: Option<C>) -> GeneratorBuilder<C> {
        GeneratorBuilder {
            layout,
            node: 0,
            lead_ticks: 0,
            max_wait: None,
            rollback: Rollback::default(),
            start_after: None,
            expiry_warning: EXPIRY_WARNING,
            clock,
        }
    }

    /// The node number (checked against the layout's node bits when built).
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// assert!(Generator::builder(Layout::TWITTER).node(1024).build().is_err());
    /// ```
    pub fn node(mut self, node: u64) -> Self {
        self.node = node;
        self
    }

    /// How many future ticks the generator may borrow when a tick's sequence runs out before
    /// the clock moves on (default 0: strict). Borrowed ticks make bursts faster; the IDs'
    /// time then runs at most this many ticks ahead of the clock.
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::ManualClock;
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock).lead_ticks(1).build()?;
    /// // Two 10 ms ticks' worth at once, the clock standing still.
    /// for _ in 0..512 {
    ///     gen.try_next_id()?;
    /// }
    /// assert!(gen.try_next_id().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lead_ticks(mut self, ticks: u64) -> Self {
        self.lead_ticks = ticks;
        self
    }

    /// The longest [`Generator::next_id`] waits before returning the reason as an error
    /// (default: one second, or one tick of the layout if that is longer).
    ///
    /// ```
    /// use std::time::Duration;
    /// let gen = snowmint::Generator::builder(snowmint::Layout::TWITTER)
    ///     .max_wait(Duration::from_millis(10))
    ///     .build()?;
    /// assert_eq!(gen.max_wait(), Duration::from_millis(10));
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = Some(max_wait);
        self
    }

    /// The policy for a clock behind the last issued time (default [`Rollback::Continue`]).
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::Rollback;
    /// let gen = Generator::builder(Layout::TWITTER).on_rollback(Rollback::Wait).build()?;
    /// assert_eq!(gen.rollback(), Rollback::Wait);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn on_rollback(mut self, policy: Rollback) -> Self {
        self.rollback = policy;
        self
    }

    /// Resume after an ID this node issued before (saved from [`Generator::last_id`]): every
    /// ID the new generator mints is greater, even if the clock now reads earlier.
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// let old = Generator::new(Layout::TWITTER, 5)?;
    /// let last = old.next_id()?;
    /// let new = Generator::builder(Layout::TWITTER).node(5).start_after(last).build()?;
    /// assert!(new.next_id()? > last);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_after(mut self, id: Id) -> Self {
        self.start_after = Some(id);
        self
    }

    /// How long before the layout's expiry building a generator warns (default a year,
    /// 365.25 days): with the feature `tracing`, a `warn` event (target `snowmint`), once per
    /// layout and process; with `metrics`, the gauge `snowmint_layout_seconds_left` says the
    /// time left either way. Past the expiry, `build` fails ([`LayoutError::Expired`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{Generator, Layout};
    /// // Warn when less than 30 days are left (Twitter's layout has decades).
    /// let gen = Generator::builder(Layout::TWITTER)
    ///     .expiry_warning(Duration::from_secs(30 * 86_400))
    ///     .build()?;
    /// assert!(gen.next_id().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn expiry_warning(mut self, margin: Duration) -> Self {
        self.expiry_warning = margin;
        self
    }

    /// Uses another clock.
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::WallClock;
    /// let gen = Generator::builder(Layout::TWITTER).clock(WallClock).build()?;
    /// assert!(gen.next_id().is_ok());
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn clock<D: Clock>(self, clock: D) -> GeneratorBuilder<D> {
        GeneratorBuilder {
            layout: self.layout,
            node: self.node,
            lead_ticks: self.lead_ticks,
            max_wait: self.max_wait,
            rollback: self.rollback,
            start_after: self.start_after,
            expiry_warning: self.expiry_warning,
            clock: Some(clock),
        }
    }

    /// Checks the node against the layout, and that the layout has not expired by the
    /// clock, and builds the generator.
    ///
    /// # Errors
    ///
    /// [`LayoutError::FieldOutOfRange`](crate::LayoutError::FieldOutOfRange) when the node does not
    /// fit the layout's node field (with the allowed range);
    /// [`LayoutError::Expired`](crate::LayoutError::Expired) when the layout's expiry is already
    /// past by the clock.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{Generator, Layout, LayoutError};
    /// use snowmint::layout::Field;
    /// let err = Generator::builder(Layout::JS53).node(16).build().unwrap_err();
    /// assert_eq!(err, LayoutError::FieldOutOfRange { field: Field::Node, value: 16, max: 15 });
    /// assert_eq!(err.to_string(), "node 16 is out of range: allowed 0 to 15");
    ///
    /// // 28 bits of seconds from 2016-05-20 (Baidu's uid-generator): full on 2024-11-20.
    /// let baidu = Layout::builder()
    ///     .time_bits(28)
    ///     .node_bits(22)
    ///     .sequence_bits(13)
    ///     .unit(Duration::from_secs(1))
    ///     .epoch_unix_millis(1_463_673_600_000)
    ///     .build()?;
    /// let err = Generator::builder(baidu).build().unwrap_err();
    /// assert!(matches!(err, LayoutError::Expired { expiry_unix_millis: 1_732_109_056_000, .. }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn build(self) -> Result<Generator<C>, LayoutError> {
        let layout = self.layout;
        if self.node > layout.max_node() {
            return Err(LayoutError::FieldOutOfRange {
                field: Field::Node,
                value: self.node,
                max: layout.max_node(),
            });
        }
        let resolved = self.resolve_clock();
        resolved.check_not_expired()?;
        Ok(Generator::from_parts(resolved.into_parts()))
    }

    /// Takes the clock's process default if none was given (the shared [`TscClock`](crate::clock::TscClock)).
    pub(crate) fn resolve_clock(mut self) -> Self {
        if self.clock.is_none() {
            self.clock = C::process_default();
        }
        self
    }

    /// [`LayoutError::Expired`] when the layout's expiry is at or before the clock's now:
    /// such a generator could never mint, so it is refused by name when built rather than
    /// failing on every call.
    pub(crate) fn check_not_expired(&self) -> Result<(), LayoutError> {
        let Some(clock) = &self.clock else {
            return Ok(());
        };
        let now = clock.now_unix_nanos();
        if u128::from(now) >= self.layout.expiry_unix_nanos() {
            return Err(LayoutError::Expired {
                expiry_unix_millis: self.layout.expiry_unix_millis(),
                now_unix_millis: now / 1_000_000,
            });
        }
        crate::events::layout_in_use(&self.layout, now, self.expiry_warning);
        Ok(())
    }

    /// The minter, the node (unchecked) and the state to resume after, if any.
    pub(crate) fn into_parts(self) -> (Minter<C>, u64, Option<u64>) {
        let minter = Minter::new(
            self.layout,
            self.lead_ticks,
            self.max_wait,
            self.rollback,
            self.clock.or_else(C::process_default).expect(
                "a builder without a clock is made only for TscClock, which has a process default",
            ),
        );
        let start = self.start_after.map(|id| minter.state_of(id));
        (minter, self.node, start)
    }
}

impl<C: Clock> SourceBuilder for GeneratorBuilder<C> {
    type Source = Generator<C>;
    type Error = LayoutError;

    fn max_node(&self) -> u64 {
        self.layout.max_node()
    }

    fn node_number(&self) -> u64 {
        self.node
    }

    fn node(self, node: u64) -> Self {
        GeneratorBuilder::node(self, node)
    }

    fn start_after(self, id: Id) -> Self {
        GeneratorBuilder::start_after(self, id)
    }

    fn layout(&self) -> &Layout {
        &self.layout
    }

    fn build(self) -> Result<Generator<C>, LayoutError> {
        GeneratorBuilder::build(self)
    }
}
