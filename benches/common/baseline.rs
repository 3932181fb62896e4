//! The designs snowmint replaces: the textbook Snowflake generator, `(last_ms, sequence)`
//! behind a mutex, written here in its usual form (read the clock and wait inside the lock).
//!
//! Two locks (`std::sync::Mutex`, `parking_lot::Mutex`) times two clocks: snowmint's own
//! [`TscClock`] through the [`Clock`] trait, so that the comparison isolates the lock against
//! the CAS, and `std::time::Instant`, as a hand-written generator would have it.

use std::hint::spin_loop;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use snowmint::clock::{Clock, TscClock};

use super::{Mint, Shape, Visit, TWITTER_EPOCH_MS};

const NANOS_PER_MS: u64 = 1_000_000;
const EPOCH_NANOS: u64 = TWITTER_EPOCH_MS * NANOS_PER_MS;

/// Milliseconds since Twitter's epoch.
pub trait Millis: Send + Sync {
    /// A reading for the hot path (may lag).
    fn millis(&self) -> u64;
    /// An exact reading, for waiting out an exhausted millisecond.
    fn millis_exact(&self) -> u64;
}

/// snowmint's clock: the cheap published reading, the exact one when waiting, as the
/// snowmint generator uses them.
pub struct TscMillis(pub TscClock);

impl Millis for TscMillis {
    #[inline]
    fn millis(&self) -> u64 {
        self.0.recent_unix_nanos().saturating_sub(EPOCH_NANOS) / NANOS_PER_MS
    }

    #[inline]
    fn millis_exact(&self) -> u64 {
        self.0.now_unix_nanos().saturating_sub(EPOCH_NANOS) / NANOS_PER_MS
    }
}

/// `Instant` anchored once to `SystemTime`: the monotonic clock a hand-written generator
/// would use.
pub struct InstantMillis {
    start: Instant,
    start_since_epoch_nanos: u64,
}

impl InstantMillis {
    pub fn new() -> InstantMillis {
        let since_unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("clock after 1970");
        InstantMillis {
            start: Instant::now(),
            start_since_epoch_nanos: u64::try_from(since_unix.as_nanos())
                .expect("before 2554")
                .saturating_sub(EPOCH_NANOS),
        }
    }
}

impl Millis for InstantMillis {
    #[inline]
    fn millis(&self) -> u64 {
        let elapsed = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        (self.start_since_epoch_nanos + elapsed) / NANOS_PER_MS
    }

    #[inline]
    fn millis_exact(&self) -> u64 {
        self.millis()
    }
}

/// The state under the lock: the last issued millisecond and sequence.
#[derive(Debug, Default, Clone, Copy)]
pub struct State {
    last_ms: u64,
    seq: u64,
}

/// A lock around [`State`].
pub trait Lock: Send + Sync {
    fn new(state: State) -> Self;
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R;
}

impl Lock for std::sync::Mutex<State> {
    fn new(state: State) -> Self {
        std::sync::Mutex::new(state)
    }

    #[inline]
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        // A panic inside `f` cannot leave the two fields inconsistent with each other in a
        // way that breaks uniqueness, but a bench has no reason to go on after one.
        f(&mut self.lock().expect("mutex poisoned"))
    }
}

impl Lock for parking_lot::Mutex<State> {
    fn new(state: State) -> Self {
        parking_lot::Mutex::new(state)
    }

    #[inline]
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.lock())
    }
}

/// The textbook generator: lock, read the clock, bump the sequence or start a new
/// millisecond, spin (holding the lock) when the millisecond is used up.
pub struct MutexGen<L, T> {
    state: L,
    clock: T,
    node_in_place: u64,
    seq_bits: u8,
    time_shift: u8,
    max_seq: u64,
}

impl<L: Lock, T: Millis> MutexGen<L, T> {
    pub fn new(shape: Shape, node: u64, clock: T) -> Self {
        let seq_bits = shape.sequence_bits();
        assert!(node < 1 << shape.node_bits(), "node {node} out of range");
        MutexGen {
            state: L::new(State::default()),
            clock,
            node_in_place: node << seq_bits,
            seq_bits,
            time_shift: seq_bits + shape.node_bits(),
            max_seq: (1 << seq_bits) - 1,
        }
    }
}

impl<L: Lock, T: Millis> Mint for MutexGen<L, T> {
    #[inline(always)]
    fn mint(&self) -> u64 {
        let (ms, seq) = self.state.with(|s| {
            // max(last, now): a reading behind the last issued millisecond (the cheap
            // reading lags, and clocks step back) keeps issuing in that millisecond.
            let now = self.clock.millis().max(s.last_ms);
            if now == s.last_ms {
                if s.seq < self.max_seq {
                    s.seq += 1;
                } else {
                    let mut exact = self.clock.millis_exact();
                    while exact <= s.last_ms {
                        spin_loop();
                        exact = self.clock.millis_exact();
                    }
                    s.last_ms = exact;
                    s.seq = 0;
                }
            } else {
                s.last_ms = now;
                s.seq = 0;
            }
            (s.last_ms, s.seq)
        });
        ms << self.time_shift | self.node_in_place | seq
    }
}

impl Default for InstantMillis {
    fn default() -> Self {
        InstantMillis::new()
    }
}

/// Offers the four mutex baselines.
pub fn visit<V: Visit>(shape: Shape, v: &mut V) {
    type Std = std::sync::Mutex<State>;
    type Pl = parking_lot::Mutex<State>;
    v.shared("std-mutex-tsc", |node| {
        MutexGen::<Std, _>::new(shape, node, TscMillis(TscClock::shared()))
    });
    v.shared("std-mutex-instant", |node| {
        MutexGen::<Std, _>::new(shape, node, InstantMillis::new())
    });
    v.shared("parking_lot-tsc", |node| {
        MutexGen::<Pl, _>::new(shape, node, TscMillis(TscClock::shared()))
    });
    v.shared("parking_lot-instant", |node| {
        MutexGen::<Pl, _>::new(shape, node, InstantMillis::new())
    });
}
