//! [`Generator`]: the lock-free minting state and its calls.

mod builder;
mod rollback;
pub(crate) mod step;
mod wait;

pub use self::builder::GeneratorBuilder;
pub use self::rollback::Rollback;

use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use self::step::{step, Rules, Step};
use crate::clock::{Clock, TscClock};
use crate::error::{LayoutError, MintError};
use crate::id::Id;
use crate::layout::Layout;
use crate::sync::{spin_loop, AtomicU64, Ordering, SPIN_DOUBLINGS};

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
pub struct Generator<C = TscClock> {
    /// `tick << sequence_bits | sequence` of the last issued ID (0: none yet).
    state: CachePadded<AtomicU64>,
    rules: Rules,
    layout: Layout,
    node: u64,
    node_bits_in_place: u64,
    max_wait: Duration,
    rollback: Rollback,
    clock: C,
}

/// Why an attempt did not issue.
#[derive(Debug, Clone, Copy)]
enum Blocked {
    Wait {
        until_tick: u64,
        now_nanos: u64,
        behind: bool,
    },
    Fatal(MintError),
}

impl Generator {
    /// A generator for `node` of `layout` on the shared [`TscClock`], with the defaults: no
    /// lead, [`Rollback::Continue`], `max_wait` of one second (or one tick if longer).
    ///
    /// ```
    /// use snowmint::{Field, Generator, Layout, LayoutError};
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
    /// use snowmint::{Generator, Layout, Rollback};
    /// let gen = Generator::builder(Layout::TWITTER)
    ///     .node(7)
    ///     .lead_ticks(2)
    ///     .on_rollback(Rollback::Wait)
    ///     .build()?;
    /// assert_eq!(gen.node(), 7);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn builder(layout: Layout) -> GeneratorBuilder<TscClock> {
        GeneratorBuilder::new(layout, TscClock::shared())
    }
}

impl<C: Clock> Generator<C> {
    /// Settings for a generator on a clock of your choice.
    ///
    /// ```
    /// use snowmint::{Generator, Layout, ManualClock};
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::with_clock(Layout::TWITTER, clock).build()?;
    /// let id = gen.next_id()?;
    /// assert_eq!(Layout::TWITTER.decode(id).unix_millis(), 1_700_000_000_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_clock(layout: Layout, clock: C) -> GeneratorBuilder<C> {
        GeneratorBuilder::new(layout, clock)
    }

    pub(crate) fn from_builder(b: GeneratorBuilder<C>, start_state: u64) -> Generator<C> {
        let layout = b.layout;
        Generator {
            state: CachePadded::new(AtomicU64::new(start_state)),
            rules: Rules {
                sequence_bits: layout.sequence_bits(),
                max_tick: layout.max_ticks(),
                lead: b.lead_ticks,
                continue_behind: b.rollback == Rollback::Continue,
            },
            node: b.node,
            node_bits_in_place: layout.node_in_place(b.node),
            max_wait: b
                .max_wait
                .unwrap_or_else(|| layout.unit().max(Duration::from_secs(1))),
            rollback: b.rollback,
            clock: b.clock,
            layout,
        }
    }

    /// The next ID, waiting (at most `max_wait`) if this tick's sequence is used up or the
    /// clock was stepped back.
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
    #[inline]
    pub fn next_id(&self) -> Result<Id, MintError> {
        self.next_id_timeout(self.max_wait)
    }

    /// The next ID, or at once an error saying why not and for how long.
    ///
    /// ```
    /// use snowmint::{Generator, Layout, ManualClock, MintError};
    ///
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::with_clock(Layout::SONYFLAKE, clock).build()?;
    /// for _ in 0..256 {
    ///     gen.try_next_id()?;
    /// }
    /// // The 10 ms tick has 256 sequence numbers; the clock has not moved.
    /// assert!(matches!(gen.try_next_id(), Err(MintError::Exhausted { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<Id, MintError> {
        match self.attempt() {
            Ok(state) => Ok(self.id_of(state)),
            Err(blocked) => Err(self.error_of(blocked)),
        }
    }

    /// The next ID, waiting at most `timeout` for it. A wait that cannot end in time is not
    /// started: the error comes at once.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{Generator, Layout, ManualClock, MintError};
    ///
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::with_clock(Layout::SONYFLAKE, clock).build()?;
    /// for _ in 0..256 {
    ///     gen.next_id()?;
    /// }
    /// // The clock stands still: the next 10 ms tick is more than 1 ms away.
    /// let err = gen.next_id_timeout(Duration::from_millis(1)).unwrap_err();
    /// assert_eq!(err, MintError::Exhausted { retry_after: Duration::from_millis(10) });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_id_timeout(&self, timeout: Duration) -> Result<Id, MintError> {
        // The fast path: no clock beyond the cheap reading, no Instant.
        let blocked = match self.attempt() {
            Ok(state) => return Ok(self.id_of(state)),
            Err(blocked) => blocked,
        };
        self.wait_and_retry(blocked, timeout)
    }

    #[cold]
    fn wait_and_retry(&self, mut blocked: Blocked, timeout: Duration) -> Result<Id, MintError> {
        let start = Instant::now();
        let mut waiter = wait::Waiter::new();
        loop {
            let Blocked::Wait {
                until_tick,
                now_nanos,
                ..
            } = blocked
            else {
                return Err(self.error_of(blocked));
            };
            let remaining_wait = self.nanos_until(until_tick, now_nanos);
            let left = timeout.saturating_sub(start.elapsed());
            if remaining_wait > left {
                return Err(self.error_of(blocked));
            }
            waiter.wait(remaining_wait);
            match self.attempt() {
                Ok(state) => return Ok(self.id_of(state)),
                Err(b) => blocked = b,
            }
        }
    }

    /// One pass of the CAS loop: the new state, or why none may be issued now.
    #[inline]
    fn attempt(&self) -> Result<u64, Blocked> {
        let mut now_nanos = self.clock.recent_unix_nanos();
        let mut now = self.ticks(now_nanos)?;
        let mut exact = false;
        let mut doublings = 0;
        // Relaxed: the state is self-contained. Uniqueness needs only that every RMW on this
        // one atomic sees the latest value in its modification order, which holds at any
        // ordering; no other memory is published through it.
        let mut current = self.state.load(Ordering::Relaxed);
        loop {
            match step(current, now, &self.rules) {
                Step::Issue(next) => {
                    // Relaxed (both): as for the load above; a failed CAS hands back the
                    // newer state, which the next pass builds on.
                    match self.state.compare_exchange_weak(
                        current,
                        next,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    ) {
                        Ok(_) => return Ok(next),
                        Err(actual) => {
                            current = actual;
                            for _ in 0..(1_u32 << doublings) {
                                spin_loop();
                            }
                            doublings = (doublings + 1).min(SPIN_DOUBLINGS);
                        }
                    }
                }
                Step::Wait { .. } if !exact => {
                    // The cheap reading may lag: ask the exact clock before blocking.
                    exact = true;
                    now_nanos = self.clock.now_unix_nanos();
                    now = self.ticks(now_nanos)?;
                }
                Step::Wait { until_tick, behind } => {
                    return Err(Blocked::Wait {
                        until_tick,
                        now_nanos,
                        behind,
                    });
                }
                Step::Expired => {
                    return Err(Blocked::Fatal(MintError::Expired {
                        expiry_unix_millis: self.layout.expiry_unix_millis(),
                    }));
                }
            }
        }
    }

    /// Clock nanoseconds to ticks since the epoch.
    #[inline]
    fn ticks(&self, now_nanos: u64) -> Result<u64, Blocked> {
        match now_nanos.checked_sub(self.layout.epoch_unix_nanos()) {
            Some(since) => Ok(self.layout.ticks_from_epoch_nanos(since)),
            None => Err(Blocked::Fatal(MintError::BeforeEpoch {
                now_unix_millis: now_nanos / 1_000_000,
                epoch_unix_millis: self.layout.epoch_unix_millis(),
            })),
        }
    }

    #[inline]
    fn id_of(&self, state: u64) -> Id {
        let s = self.rules.sequence_bits;
        let sequence = state & self.layout.max_sequence();
        Id::from_u64(self.layout.pack(state >> s, 0, sequence) | self.node_bits_in_place)
    }

    /// How long from `now_nanos` until the clock reaches `tick`.
    fn nanos_until(&self, tick: u64, now_nanos: u64) -> Duration {
        let at = (tick as u128 * self.layout.unit_nanos() as u128)
            .saturating_add(self.layout.epoch_unix_nanos() as u128);
        let nanos = at.saturating_sub(now_nanos as u128);
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    fn error_of(&self, blocked: Blocked) -> MintError {
        match blocked {
            Blocked::Fatal(e) => e,
            Blocked::Wait {
                until_tick,
                now_nanos,
                behind: false,
            } => MintError::Exhausted {
                retry_after: self.nanos_until(until_tick, now_nanos),
            },
            Blocked::Wait {
                until_tick,
                now_nanos,
                behind: true,
            } => MintError::ClockBehind {
                behind: self.nanos_until(until_tick, now_nanos),
            },
        }
    }

    /// The layout of the IDs this generator mints.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::DISCORD, 3)?;
    /// assert_eq!(*gen.layout(), snowmint::Layout::DISCORD);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.layout
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
    /// use snowmint::{Clock, Generator, Layout, ManualClock};
    /// let gen = Generator::with_clock(Layout::TWITTER, ManualClock::at_unix_nanos(5)).build()?;
    /// assert_eq!(gen.clock().now_unix_nanos(), 5);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// How many ticks the generator may run ahead of the clock.
    ///
    /// ```
    /// let gen = snowmint::Generator::builder(snowmint::Layout::TWITTER).lead_ticks(3).build()?;
    /// assert_eq!(gen.lead_ticks(), 3);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn lead_ticks(&self) -> u64 {
        self.rules.lead
    }

    /// The longest [`next_id`](Self::next_id) waits.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 0)?;
    /// assert_eq!(gen.max_wait(), std::time::Duration::from_secs(1));
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn max_wait(&self) -> Duration {
        self.max_wait
    }

    /// What the generator does when the clock is behind the last issued time.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 0)?;
    /// assert_eq!(gen.rollback(), snowmint::Rollback::Continue);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub fn rollback(&self) -> Rollback {
        self.rollback
    }

    /// The last ID issued (by any thread), or `None` before the first. Store it to resume
    /// after a restart with [`GeneratorBuilder::start_after`].
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 9)?;
    /// assert_eq!(gen.last_id(), None);
    /// let id = gen.next_id()?;
    /// assert_eq!(gen.last_id(), Some(id));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_id(&self) -> Option<Id> {
        // Relaxed: a snapshot of the lone state value; nothing else is read through it.
        let state = self.state.load(Ordering::Relaxed);
        (state != 0).then(|| self.id_of(state))
    }
}

impl<C: Clock + core::fmt::Debug> core::fmt::Debug for Generator<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Generator")
            .field("layout", &self.layout)
            .field("node", &self.node)
            .field("lead_ticks", &self.rules.lead)
            .field("rollback", &self.rollback)
            .field("max_wait", &self.max_wait)
            .field("last_id", &self.last_id())
            .field("clock", &self.clock)
            .finish()
    }
}
