//! [`Uuid7Generator`]: UUIDv7 by RFC 9562 method 3, from one atomic word.

use alloc::vec::Vec;

use chacha20::rand_core::Rng;

use super::random::{next_u64, reseed_if_forked, with_rng};
use super::state::SharedState;
use super::timeline::{Timeline, COUNTER_BITS};
use crate::clock::{Clock, TscClock};
use crate::id128::Uuid7;

/// Mints [`Uuid7`]s, strictly increasing, from any number of threads, lock-free.
///
/// The state is one `AtomicU64`: the time since the generator's start in 1/4096 ms ticks
/// and a 7-bit counter. An ID carries the tick as its 48-bit Unix millisecond and 12-bit
/// `rand_a`, the sub-millisecond fraction (RFC 9562 §6.2, method 3), and the counter in the
/// top 7 bits of `rand_b` (method 1's counter, after the time); the other 55 bits of
/// `rand_b` are random, from this thread's ChaCha8 RNG, seeded from the OS. Each call takes
/// the next state, `max(last + 1, now)`, by one compare-and-swap.
///
/// # The bound
///
/// An ID's time (`unix_nanos`) is at most 1 ms ahead of the clock's reading for it. A tick's 128 counter values carry into the next tick, and the state may borrow up
/// to 1 ms (524,288 IDs) ahead of the clock; past that a call waits for the clock (as the
/// 64-bit [`Rollback::Wait`](crate::clock::Rollback)) instead of running further ahead. One thread
/// mints far below the 524 million IDs a second that would reach it; a batch larger than
/// the lead's room takes one CAS per 524,288 IDs and waits between them. After a clock step
/// back the IDs keep the last issued tick (up to its 128 counter values) and then wait
/// for the clock to return: nothing fails, and no ID repeats or goes back.
///
/// IDs are ordered by their state, so every ID of a generator is greater than every ID it
/// minted before, on any thread.
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
/// use snowmint::Uuid7Generator;
///
/// let gen = Uuid7Generator::new();
/// let a = gen.next_uuid();
/// let b = gen.next_uuid();
/// assert!(b > a);
/// println!("{a} at {} ms", a.unix_millis());
/// ```
#[derive(Debug)]
pub struct Uuid7Generator<C = TscClock> {
    pub(super) state: SharedState,
    pub(super) timeline: Timeline,
    pub(super) clock: C,
}

impl Uuid7Generator {
    /// A generator on the shared [`TscClock`].
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// let id = Uuid7Generator::new().next_uuid();
    /// assert!(id.unix_millis() > 1_700_000_000_000);
    /// ```
    pub fn new() -> Uuid7Generator {
        Uuid7Generator::with_clock(TscClock::shared())
    }
}

impl Default for Uuid7Generator {
    /// [`Uuid7Generator::new`].
    fn default() -> Uuid7Generator {
        Uuid7Generator::new()
    }
}

/// The UUID of a state's fields and 55 (or more; the rest are dropped) random bits.
#[inline]
pub(crate) fn uuid_of((ms, fraction, counter): (u64, u16, u8), random: u64) -> Uuid7 {
    let rand_b = u64::from(counter) << RANDOM_BITS | random >> (64 - RANDOM_BITS);
    Uuid7::from_fields(ms, fraction, rand_b)
}

/// The random bits of `rand_b`, below the counter.
pub(super) const RANDOM_BITS: u32 = 62 - COUNTER_BITS;

impl<C: Clock> Uuid7Generator<C> {
    /// A generator on `clock`.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// use snowmint::clock::ManualClock;
    ///
    /// // 1.5 ms past 2023-11-14T22:13:20Z.
    /// let clock = ManualClock::at_unix_nanos(1_700_000_000_001_500_000);
    /// let gen = Uuid7Generator::with_clock(clock);
    /// let id = gen.next_uuid();
    /// assert_eq!(id.unix_millis(), 1_700_000_000_001);
    /// assert_eq!(id.rand_a(), 2048); // half a millisecond
    /// // The clock stood still: the counter, in the top 7 bits of rand_b.
    /// let next = gen.next_uuid();
    /// assert_eq!((next.rand_a(), next.rand_b() >> 55), (2048, 1));
    /// ```
    pub fn with_clock(clock: C) -> Uuid7Generator<C> {
        reseed_if_forked();
        Uuid7Generator {
            state: SharedState::new(),
            timeline: Timeline::starting_at(clock.now_unix_nanos()),
            clock,
        }
    }

    /// The UUID of an issued state, with fresh random bits.
    #[inline(always)]
    pub(super) fn uuid_at(&self, state: u64) -> Uuid7 {
        uuid_of(self.timeline.fields(state), next_u64())
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// use snowmint::clock::{Clock, ManualClock};
    /// let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(5));
    /// assert_eq!(gen.clock().now_unix_nanos(), 5_000_000);
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The next UUID: the clock's cheap reading, one CAS, 64 fresh random bits.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// let gen = Uuid7Generator::new();
    /// let ids: Vec<_> = (0..10_000).map(|_| gen.next_uuid()).collect();
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// ```
    #[inline(always)]
    pub fn next_uuid(&self) -> Uuid7 {
        self.uuid_at(self.state.take_one(&self.timeline, &self.clock))
    }

    /// `n` consecutive UUIDs in a `Vec`, reserved by one CAS (for up to 524,288): a `Vec` rather than an
    /// iterator so that the reservation is made and spent at once (an iterator dropped
    /// half-way would leave states reserved and unused; harmless, but a gap).
    ///
    /// # Panics
    ///
    /// Like `vec![x; n]`, if `n` UUIDs (16 bytes each) do not fit in memory; [`fill`](Self::fill)
    /// into a slice of the caller's never allocates.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// let gen = Uuid7Generator::new();
    /// let first = gen.next_uuid();
    /// let batch = gen.next_uuids(1_000);
    /// assert_eq!(batch.len(), 1_000);
    /// assert!(batch[0] > first);
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// assert!(gen.next_uuids(0).is_empty());
    /// ```
    pub fn next_uuids(&self, n: usize) -> Vec<Uuid7> {
        let mut out = alloc::vec![Uuid7::MIN; n];
        self.fill(&mut out);
        out
    }

    /// Fills `out` with consecutive UUIDs, reserved by one CAS for up to 524,288 (none for
    /// an empty slice; a longer slice takes one per 524,288 and waits for the clock between
    /// them, keeping [the bound](Uuid7Generator#the-bound)).
    ///
    /// ```
    /// use snowmint::{Uuid7, Uuid7Generator};
    /// let gen = Uuid7Generator::new();
    /// let mut buf = [Uuid7::MIN; 256];
    /// gen.fill(&mut buf);
    /// assert!(buf.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub fn fill(&self, out: &mut [Uuid7]) {
        if out.is_empty() {
            return;
        }
        reseed_if_forked();
        let timeline = self.timeline;
        with_rng(|rng| {
            self.state
                .take_each(&timeline, &self.clock, out.len(), |i, state| {
                    out[i] = uuid_of(timeline.fields(state), rng.next_u64());
                });
        });
    }

    /// The time of the last issued UUID's state, in Unix milliseconds (0: none yet); the
    /// next UUID's time is at least this.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// use snowmint::clock::ManualClock;
    /// let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(9));
    /// assert_eq!(gen.last_unix_millis(), 0);
    /// gen.next_uuid();
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
    fn the_counter_sits_above_the_random_bits_of_rand_b() {
        let id = uuid_of((7, 0xABC, 0x7F), u64::MAX);
        assert_eq!((id.unix_millis(), id.rand_a()), (7, 0xABC));
        assert_eq!(id.rand_b(), 0x3FFF_FFFF_FFFF_FFFF);
        assert_eq!(uuid_of((7, 0xABC, 1), 0).rand_b(), 1 << 55);
    }
}
