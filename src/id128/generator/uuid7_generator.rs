//! [`Uuid7Generator`]: UUIDv7 by RFC 9562 method 3, from one atomic word.

use alloc::vec::Vec;

use chacha20::rand_core::Rng;

use super::random::{next_u64, with_rng};
use super::state::SharedState;
use crate::clock::{Clock, TscClock};
use crate::id128::Uuid7;

/// Mints [`Uuid7`]s, strictly increasing, from any number of threads, lock-free.
///
/// The state is one `AtomicU64`, `unix_ms << 12 | rand_a`: the 48-bit time and the 12-bit
/// `rand_a`, which holds the sub-millisecond time in 1/4096ths of a millisecond (RFC 9562
/// §6.2, method 3) and serves as the counter. Each ID takes the next state,
/// `max(last + 1, now)`, by one compare-and-swap: two IDs within one 1/4096 ms count up, a
/// millisecond whose 4096 values are used up carries into the next, and a clock stepped back
/// leaves the state where it was (IDs keep increasing, their time stays at the high mark
/// until the clock passes it). Nothing waits and nothing fails. `rand_b` is 62 random bits
/// from this thread's ChaCha8 RNG, seeded from the OS.
///
/// IDs are ordered by their state, so every ID of a generator is greater than every ID it
/// minted before, on any thread. A sustained rate above 4,096 IDs per millisecond moves the
/// IDs' time ahead of the clock by the excess; it catches up when the rate drops.
///
/// Each call reads the clock's exact reading ([`Clock::now_unix_nanos`]; about 20 ns on the
/// TSC clock). After `fork()` the child continues the parent's state and, on the forking
/// thread, its random stream: a child mints from a generator it made itself, on threads it
/// started itself (each new thread seeds its own RNG).
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
    state: SharedState,
    clock: C,
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

/// The clock's reading as a state: Unix milliseconds and the fraction of the millisecond in
/// 1/4096ths, rounded down (`rand_a` of method 3).
#[inline]
pub(crate) fn floor_of(unix_nanos: u64) -> u64 {
    let ms = unix_nanos / 1_000_000;
    let fraction = (unix_nanos % 1_000_000) * 4096 / 1_000_000;
    ms << 12 | fraction
}

/// The UUID of a state and 62 (or more; the rest are dropped) random bits.
#[inline]
fn uuid_of(state: u64, random: u64) -> Uuid7 {
    Uuid7::from_fields(state >> 12, (state & 0xFFF) as u16, random)
}

impl<C: Clock> Uuid7Generator<C> {
    /// A generator on `clock`.
    ///
    /// ```
    /// use snowmint::{ManualClock, Uuid7Generator};
    ///
    /// // 1.5 ms past 2023-11-14T22:13:20Z.
    /// let clock = ManualClock::at_unix_nanos(1_700_000_000_001_500_000);
    /// let gen = Uuid7Generator::with_clock(clock);
    /// let id = gen.next_uuid();
    /// assert_eq!(id.unix_millis(), 1_700_000_000_001);
    /// assert_eq!(id.rand_a(), 2048); // half a millisecond
    /// assert_eq!(gen.next_uuid().rand_a(), 2049); // the clock stood still: the counter
    /// ```
    pub fn with_clock(clock: C) -> Uuid7Generator<C> {
        Uuid7Generator {
            state: SharedState::new(),
            clock,
        }
    }

    /// The clock.
    ///
    /// ```
    /// use snowmint::{Clock, ManualClock, Uuid7Generator};
    /// let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(5));
    /// assert_eq!(gen.clock().now_unix_nanos(), 5_000_000);
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The next UUID: one clock reading, one CAS, 64 random bits.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// let gen = Uuid7Generator::new();
    /// let ids: Vec<_> = (0..10_000).map(|_| gen.next_uuid()).collect();
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// ```
    #[inline]
    pub fn next_uuid(&self) -> Uuid7 {
        let state = self.state.reserve(floor_of(self.clock.now_unix_nanos()), 1);
        uuid_of(state, next_u64())
    }

    /// `n` consecutive UUIDs in a `Vec`, reserved by one CAS: a `Vec` rather than an
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

    /// Fills `out` with consecutive UUIDs, reserved by one CAS (none for an empty slice).
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
        let first = self
            .state
            .reserve(floor_of(self.clock.now_unix_nanos()), out.len() as u64);
        with_rng(|rng| {
            for (state, slot) in (first..).zip(out.iter_mut()) {
                *slot = uuid_of(state, rng.next_u64());
            }
        });
    }

    /// The time of the last issued UUID's state, in Unix milliseconds (0: none yet); the
    /// next UUID's time is at least this.
    ///
    /// ```
    /// use snowmint::{ManualClock, Uuid7Generator};
    /// let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(9));
    /// assert_eq!(gen.last_unix_millis(), 0);
    /// gen.next_uuid();
    /// assert_eq!(gen.last_unix_millis(), 9);
    /// ```
    pub fn last_unix_millis(&self) -> u64 {
        self.state.last() >> 12
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_method_3s_fraction() {
        assert_eq!(floor_of(1_000_000), 1 << 12);
        assert_eq!(floor_of(1_500_000), 1 << 12 | 2048);
        assert_eq!(floor_of(1_999_999), 1 << 12 | 4095);
        assert_eq!(floor_of(u64::MAX) >> 12, u64::MAX / 1_000_000);
    }
}
