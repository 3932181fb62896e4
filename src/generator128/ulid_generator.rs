//! [`UlidGenerator`]: monotonic ULIDs from one atomic word, never failing.

use alloc::vec::Vec;

use super::random::{bits_of_millisecond, next_u64, reseed_if_forked};
use super::state::SharedState;
use super::timeline::{Timeline, COUNTER_BITS};
use crate::clock::{Clock, TscClock};
use crate::id128::Ulid;

/// Mints [`Ulid`]s, strictly increasing, from any number of threads, lock-free, never
/// failing.
///
/// The state is one `AtomicU64`, as for [`Uuid7Generator`](crate::Uuid7Generator): the
/// time since the generator's start in 1/4096 ms ticks and a 7-bit counter. An ID carries
/// the Unix millisecond in its 48-bit time and, at the top of its 80 random bits, the
/// fraction of the millisecond (12 bits, in 1/4096ths) and the counter (7 bits); the other
/// 61 bits are random. Each call takes the next state, `max(last + 1, now)`, by one
/// compare-and-swap, so IDs within one millisecond increase in their random part and never
/// fail (where the `ulid` crate's monotonic generator fails when its random part overflows).
///
/// Why the fraction and counter sit above the random bits: IDs must be ordered across
/// threads, so every bit above them must be the same for all IDs of a tick, which a
/// per-thread random value is not. With them first, order needs no shared random value, and
/// two generators collide only if they mint in the same 1/4096 ms with the same counter and
/// the same 61 random bits.
///
/// # The random bits
///
/// The ULID spec's monotonic mode, per thread: a thread draws 64 bits from its ChaCha8 RNG
/// (seeded from the OS) once per millisecond, and every ULID it mints within that
/// millisecond carries them, exclusive-or'd with the generator's own 64-bit key (drawn when
/// it is made, so two generators on one thread never share bits). Within a millisecond a
/// thread's ULIDs differ by their fraction and counter, as the spec's differ by their
/// increment: one of them tells the others of that millisecond and thread, and nothing of
/// any other millisecond. The chance that two generators collide is no higher than with a
/// fresh draw per ID (each pair of equal states still needs equal bits), and the draw's cost
/// is spread over a millisecond's IDs. Where every ID needs bits of its own, use
/// [`Uuid7Generator`](crate::Uuid7Generator), which draws 55 fresh bits for each.
///
/// # The bound
///
/// An ID's time (its millisecond and fraction) is at most 1 ms ahead of the clock's
/// reading for it: the state borrows up to 1 ms (524,288 IDs) ahead of the clock, then a
/// call waits for the clock instead of running further (as the 64-bit
/// [`Rollback::Wait`](crate::clock::Rollback)). After a clock step back the IDs keep the last
/// issued tick (up to its 128 counter values) and then wait for the clock to return.
///
/// Each call stamps its ID from the clock's cheap reading ([`Clock::recent_unix_nanos`]: one
/// atomic load on the TSC clock, lagging the exact reading by its ticker's period), and takes
/// the exact one ([`Clock::now_unix_nanos`]) only when the cheap one would make it wait, as the
/// 64-bit generators do: an ID's time may be older than the moment it was minted by that lag,
/// never more than 1 ms ahead of it. After `fork()` the child continues the parent's state, so
/// a child mints from a generator it made itself: making one (or a shard, or a fill) in a child
/// seeds the forking thread's RNG again, so the child never draws the parent's random bits (and
/// each new thread seeds its own).
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
    pub(super) state: SharedState,
    pub(super) timeline: Timeline,
    pub(super) clock: C,
    /// Mixed into every thread's draws: this generator's bits differ from another's.
    key: u64,
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

/// The random bits of the 80, below the fraction and the counter.
const RANDOM_BITS: u32 = 80 - 12 - COUNTER_BITS;

/// The ULID of a state's fields and 61 (or more; the rest are dropped) random bits.
#[inline]
pub(crate) fn ulid_of((ms, fraction, counter): (u64, u16, u8), random: u64) -> Ulid {
    let above = u128::from(fraction) << COUNTER_BITS | u128::from(counter);
    Ulid::from_parts(
        ms,
        above << RANDOM_BITS | u128::from(random >> (64 - RANDOM_BITS)),
    )
}

impl<C: Clock> UlidGenerator<C> {
    /// A generator on `clock`.
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// use snowmint::clock::ManualClock;
    ///
    /// let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    /// let a = gen.next_ulid();
    /// let b = gen.next_ulid();
    /// assert_eq!(a.unix_millis(), 1_700_000_000_000);
    /// assert_eq!(b.random() >> 61, 1); // the fraction (0) and the counter (1), above 61 random bits
    /// ```
    pub fn with_clock(clock: C) -> UlidGenerator<C> {
        reseed_if_forked();
        UlidGenerator {
            state: SharedState::new(),
            timeline: Timeline::starting_at(clock.now_unix_nanos()),
            clock,
            key: next_u64(),
        }
    }

    /// The ULID of an issued state, with this thread's bits for its millisecond.
    #[inline(always)]
    pub(super) fn ulid_at(&self, state: u64) -> Ulid {
        let fields = self.timeline.fields(state);
        ulid_of(fields, bits_of_millisecond(fields.0) ^ self.key)
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// use snowmint::clock::{Clock, ManualClock};
    /// let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(5));
    /// assert_eq!(gen.clock().now_unix_nanos(), 5_000_000);
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The next ULID: the clock's cheap reading, one CAS, and this thread's bits for the
    /// millisecond (see [the random bits](UlidGenerator#the-random-bits)).
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// let gen = UlidGenerator::new();
    /// let ids: Vec<_> = (0..10_000).map(|_| gen.next_ulid()).collect();
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// ```
    #[inline(always)]
    pub fn next_ulid(&self) -> Ulid {
        self.ulid_at(self.state.take_one(&self.timeline, &self.clock))
    }

    /// `n` consecutive ULIDs in a `Vec`, reserved by one CAS for up to 524,288 (a `Vec` rather than an
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
    /// let batch = gen.next_ulids(100_000); // more than one tick's 128: carried
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// assert!(gen.next_ulids(0).is_empty());
    /// ```
    pub fn next_ulids(&self, n: usize) -> Vec<Ulid> {
        let mut out = alloc::vec![Ulid::MIN; n];
        self.fill(&mut out);
        out
    }

    /// Fills `out` with consecutive ULIDs, reserved by one CAS for up to 524,288 (none for
    /// an empty slice; a longer slice takes one per 524,288 and waits for the clock between
    /// them, keeping [the bound](UlidGenerator#the-bound)).
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
        reseed_if_forked();
        // The bits of the millisecond last seen: a fill's states span few milliseconds.
        let mut bits = (u64::MAX, 0);
        self.state
            .take_each(&self.timeline, &self.clock, out.len(), |i, state| {
                let fields = self.timeline.fields(state);
                if fields.0 != bits.0 {
                    bits = (fields.0, bits_of_millisecond(fields.0) ^ self.key);
                }
                out[i] = ulid_of(fields, bits.1);
            });
    }

    /// The time of the last issued ULID's state, in Unix milliseconds (0: none yet); the
    /// next ULID's time is at least this.
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// use snowmint::clock::ManualClock;
    /// let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(9));
    /// assert_eq!(gen.last_unix_millis(), 0);
    /// gen.next_ulid();
    /// assert_eq!(gen.last_unix_millis(), 9);
    /// ```
    pub fn last_unix_millis(&self) -> u64 {
        self.state
            .last()
            .map_or(0, |state| self.timeline.unix_millis(state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fraction_and_counter_sit_above_61_random_bits() {
        let id = ulid_of((7, 0xABC, 0x7F), u64::MAX);
        assert_eq!(id.unix_millis(), 7);
        assert_eq!(id.random() >> 61, 0xABC << 7 | 0x7F);
        assert_eq!(id.random() & ((1 << 61) - 1), (1 << 61) - 1);
    }
}
