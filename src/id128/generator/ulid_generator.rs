//! [`UlidGenerator`]: monotonic ULIDs from one atomic word, never failing.

use alloc::vec::Vec;

use chacha20::rand_core::Rng;

use super::random::{next_u64, with_rng};
use super::state::SharedState;
use crate::clock::{Clock, TscClock};
use crate::id128::Ulid;

/// The counter's width: the top 16 of the 80 random bits.
const COUNTER_BITS: u32 = 16;

/// Mints [`Ulid`]s, strictly increasing, from any number of threads, lock-free, never
/// failing.
///
/// The state is one `AtomicU64`, `unix_ms << 16 | counter`. Each ID takes the next state,
/// `max(last + 1, now)`, by one compare-and-swap: IDs within one millisecond count up, a
/// millisecond whose 65,536 values are used up carries into the next (where the `ulid`
/// crate's monotonic generator fails), and a clock stepped back leaves the state where it
/// was. The 80 random bits are the counter (the top 16) and 64 random bits from this
/// thread's ChaCha8 RNG, seeded from the OS.
///
/// Why the counter sits above the random bits: IDs must be ordered across threads, so every
/// bit above the counter must be the same for all IDs of a millisecond, which a per-thread
/// random value is not. With the counter first (RFC 9562's method 1, in a ULID), order needs
/// no shared random value, and two generators collide only if they mint the same
/// millisecond and counter and draw the same 64 random bits.
///
/// Each call reads the clock's exact reading ([`Clock::now_unix_nanos`]; about 20 ns on the
/// TSC clock). After `fork()` the child continues the parent's state and, on the forking
/// thread, its random stream: a child mints from a generator it made itself, on threads it
/// started itself (each new thread seeds its own RNG).
///
/// ```
/// use snowmint::UlidGenerator;
///
/// let gen = UlidGenerator::new();
/// let a = gen.next_ulid();
/// let b = gen.next_ulid();
/// assert!(b > a);
/// println!("{a} at {} ms", a.unix_millis());
/// ```
#[derive(Debug)]
pub struct UlidGenerator<C = TscClock> {
    state: SharedState,
    clock: C,
}

impl UlidGenerator {
    /// A generator on the shared [`TscClock`].
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// let id = UlidGenerator::new().next_ulid();
    /// assert!(id.unix_millis() > 1_700_000_000_000);
    /// ```
    pub fn new() -> UlidGenerator {
        UlidGenerator::with_clock(TscClock::shared())
    }
}

impl Default for UlidGenerator {
    /// [`UlidGenerator::new`].
    fn default() -> UlidGenerator {
        UlidGenerator::new()
    }
}

/// The clock's reading as a state: Unix milliseconds, counter 0.
#[inline]
fn floor_of(unix_nanos: u64) -> u64 {
    (unix_nanos / 1_000_000) << COUNTER_BITS
}

/// The ULID of a state and 64 random bits.
#[inline]
fn ulid_of(state: u64, random: u64) -> Ulid {
    let counter = state & ((1 << COUNTER_BITS) - 1);
    Ulid::from_parts(
        state >> COUNTER_BITS,
        u128::from(counter) << 64 | u128::from(random),
    )
}

impl<C: Clock> UlidGenerator<C> {
    /// A generator on `clock`.
    ///
    /// ```
    /// use snowmint::{ManualClock, UlidGenerator};
    ///
    /// let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    /// let a = gen.next_ulid();
    /// let b = gen.next_ulid();
    /// assert_eq!(a.unix_millis(), 1_700_000_000_000);
    /// assert_eq!(b.random() >> 64, 1); // the counter, above 64 random bits
    /// ```
    pub fn with_clock(clock: C) -> UlidGenerator<C> {
        UlidGenerator {
            state: SharedState::new(),
            clock,
        }
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::{Clock, ManualClock, UlidGenerator};
    /// let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(5));
    /// assert_eq!(gen.clock().now_unix_nanos(), 5_000_000);
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The next ULID: one clock reading, one CAS, 64 random bits.
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// let gen = UlidGenerator::new();
    /// let ids: Vec<_> = (0..10_000).map(|_| gen.next_ulid()).collect();
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// ```
    #[inline]
    pub fn next_ulid(&self) -> Ulid {
        let state = self.state.reserve(floor_of(self.clock.now_unix_nanos()), 1);
        ulid_of(state, next_u64())
    }

    /// `n` consecutive ULIDs in a `Vec`, reserved by one CAS (a `Vec` rather than an
    /// iterator, as for [`Uuid7Generator::next_uuids`](crate::Uuid7Generator::next_uuids)).
    ///
    /// # Panics
    ///
    /// Like `vec![x; n]`, if `n` ULIDs (16 bytes each) do not fit in memory; [`fill`](Self::fill)
    /// into a slice of the caller's never allocates.
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// let gen = UlidGenerator::new();
    /// let batch = gen.next_ulids(100_000); // more than one millisecond's 65,536: carried
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// assert!(gen.next_ulids(0).is_empty());
    /// ```
    pub fn next_ulids(&self, n: usize) -> Vec<Ulid> {
        let mut out = alloc::vec![Ulid::MIN; n];
        self.fill(&mut out);
        out
    }

    /// Fills `out` with consecutive ULIDs, reserved by one CAS (none for an empty slice).
    ///
    /// ```
    /// use snowmint::{Ulid, UlidGenerator};
    /// let gen = UlidGenerator::new();
    /// let mut buf = [Ulid::MIN; 256];
    /// gen.fill(&mut buf);
    /// assert!(buf.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub fn fill(&self, out: &mut [Ulid]) {
        if out.is_empty() {
            return;
        }
        let first = self
            .state
            .reserve(floor_of(self.clock.now_unix_nanos()), out.len() as u64);
        with_rng(|rng| {
            for (state, slot) in (first..).zip(out.iter_mut()) {
                *slot = ulid_of(state, rng.next_u64());
            }
        });
    }

    /// The time of the last issued ULID's state, in Unix milliseconds (0: none yet); the
    /// next ULID's time is at least this.
    ///
    /// ```
    /// use snowmint::{ManualClock, UlidGenerator};
    /// let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(9));
    /// assert_eq!(gen.last_unix_millis(), 0);
    /// gen.next_ulid();
    /// assert_eq!(gen.last_unix_millis(), 9);
    /// ```
    pub fn last_unix_millis(&self) -> u64 {
        self.state.last() >> COUNTER_BITS
    }
}
