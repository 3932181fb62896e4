//! [`Uuid7Shard`] and [`UlidShard`]: one thread's source for the tightest loops, minting
//! from a block of its generator's states with no shared CAS per ID.

use std::cell::Cell;
use std::sync::OnceLock;

use super::block::Block;
use super::random::reseed_if_forked;
use super::timeline::COUNTER_BITS;
use super::uuid7_run::{LocalUuids, Uuid7Run};
use super::{UlidGenerator, Uuid7Generator};
use crate::clock::{Clock, TscClock};
use crate::id128::{Ulid, Uuid7};

/// One thread's UUIDv7 source: IDs from blocks of 128 consecutive states of its
/// [`Uuid7Generator`], taken by one CAS each. A state's first UUID has 55 fresh random bits
/// from the thread's RNG; the UUIDs the shard mints after it in the same state are each the
/// last plus a random step of 1 to 2^16 (RFC 9562 §6.2 method 2, "monotonic random", with a
/// random increment: 16 fresh random bits per UUID), until the clock's cheap reading passes
/// the state's tick (or the step would leave the state's range). So an ID costs the cheap
/// reading, two compares and an add, the shard touches the shared word about once per tick
/// of the cheap reading, and its rate is not bounded by the generator's 128 states per tick.
///
/// **What the random steps give up.** Seen one UUID of a shard, its successor is one of
/// 65,536 values, where a generator's call or fill gives every UUID 55 fresh bits. Where
/// UUIDs must not be guessable from their neighbours (public resource names, for example),
/// mint with [`Uuid7Generator::next_uuid`] or [`Uuid7Generator::fill`].
///
/// Made by [`Uuid7Generator::shard`]; `&mut self` makes it one thread's at a time (it may be
/// moved to another thread).
///
/// # What order it promises
///
/// - **Per shard**: strictly increasing, through clock steps back, as the generator.
/// - **Unique across the generator**: every state is taken from the one shared word by one
///   call only, so no two shards (nor the generator's own calls) mint the same state.
/// - **Globally**, IDs are in minting order only when minted more than 1 ms (and one
///   1/4096 ms tick) plus the lag of the clock's cheap reading apart (on the
///   [`TscClock`], its ticker's period and wake-up: see [how stale it can
///   be](TscClock#how-stale-the-cheap-reading-can-be)): a shard spends its block over time
///   while other threads take newer blocks, so within that span an ID minted later on one
///   thread can be smaller than one minted earlier on another. The span is the bound: every
///   ID's time is at least the clock's cheap reading for it (a block is dropped once that
///   reading passes its tick) and at most 1 ms ahead of it. Use the generator's
///   [`next_uuid`](Uuid7Generator::next_uuid) where every ID must be above every ID minted
///   before it on any thread.
///
/// ```
/// use snowmint::Uuid7Generator;
///
/// let gen = Uuid7Generator::new();
/// let mut shard = gen.shard();
/// let ids: Vec<_> = (0..1_000).map(|_| shard.next_uuid()).collect();
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
/// assert!(gen.next_uuid() > ids[999]); // the generator's calls take later states
/// ```
#[derive(Debug)]
pub struct Uuid7Shard<'g, C: Clock = TscClock> {
    gen: &'g Uuid7Generator<C>,
    run: Uuid7Run,
}

impl<C: Clock> Uuid7Generator<C> {
    /// A shard of this generator for one thread's tightest loop (see [`Uuid7Shard`] for
    /// the order it keeps). Taking one costs nothing; its first ID takes its first block.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// let gen = Uuid7Generator::new();
    /// std::thread::scope(|s| {
    ///     for _ in 0..2 {
    ///         s.spawn(|| {
    ///             let mut shard = gen.shard();
    ///             let (a, b) = (shard.next_uuid(), shard.next_uuid());
    ///             assert!(b > a);
    ///         });
    ///     }
    /// });
    /// ```
    pub fn shard(&self) -> Uuid7Shard<'_, C> {
        reseed_if_forked();
        Uuid7Shard {
            gen: self,
            run: Uuid7Run::EMPTY,
        }
    }
}

impl<C: Clock> Uuid7Shard<'_, C> {
    /// The next UUID of this shard: above its previous one, unique across the generator.
    ///
    /// ```
    /// use snowmint::Uuid7Generator;
    /// use snowmint::clock::ManualClock;
    /// let gen = Uuid7Generator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    /// let mut shard = gen.shard();
    /// let id = shard.next_uuid();
    /// assert_eq!(id.unix_millis(), 1_700_000_000_000);
    /// assert!(shard.next_uuid() > id);
    /// ```
    #[inline(always)]
    pub fn next_uuid(&mut self) -> Uuid7 {
        self.run.next(self.gen)
    }
}

/// One thread's ULID source, as [`Uuid7Shard`] is for UUIDs: blocks of 128 consecutive
/// states of its [`UlidGenerator`], one CAS each; strictly increasing per shard, unique
/// across the generator, and in minting order across threads only for IDs minted more than
/// 1 ms (and one 1/4096 ms tick) plus the cheap reading's lag apart (see [`Uuid7Shard`] for
/// why). Its random bits are its generator's ([the random
/// bits](UlidGenerator#the-random-bits)) for a state's first ULID; the ULIDs it mints after
/// it in the same state are that ULID plus 1, 2, ... (the ULID spec's monotonic mode), until
/// the clock's cheap reading passes the state's tick (or the 61 random bits would carry into
/// the next state): so one state serves a shard for as long as the cheap reading stays in its
/// tick, the shard touches the shared word about once per tick of the cheap reading, and its
/// rate is not bounded by the generator's 128 states per tick.
///
/// ```
/// use snowmint::UlidGenerator;
///
/// let gen = UlidGenerator::new();
/// let mut shard = gen.shard();
/// let ids: Vec<_> = (0..1_000).map(|_| shard.next_ulid()).collect();
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
/// ```
#[derive(Debug)]
pub struct UlidShard<'g, C: Clock = TscClock> {
    gen: &'g UlidGenerator<C>,
    run: UlidRun,
}

/// A ULID shard's block, and the run of ULIDs of the state it issued last: that state's
/// ULID with the thread's random bits for its millisecond, then the same plus 1, 2, ... (the
/// ULID spec's monotonic mode) up to the ULID of the state after it. Every ULID of the run
/// lies in the state's own range (a state's ULIDs are `base + state × 2^61 + r`, `r` below
/// 2^61), so no other shard or call can mint it, and the run needs no state per ID: an ID
/// costs the cheap reading, two compares and a 128-bit add, and the shared word is touched
/// only when the cheap reading passes the state's tick.
#[derive(Debug, Clone, Copy)]
struct UlidRun {
    /// The next ULID of the run.
    id: u128,
    /// The first ULID past the run: the ULID of the state after the issued one, with random
    /// bits 0.
    limit: u128,
    /// The first cheap reading past the issued state's tick ([`Block::until`]).
    until: u64,
    block: Block,
}

/// A state's place in a ULID's 128 bits: the counter, the state's low bits, sits right above
/// the 61 random bits, and the fraction and millisecond above it count on in the state's
/// tick (a tick is 1/4096 ms: the fraction's 12 bits carry into the millisecond exactly).
const STATE_UNIT: u128 = 1 << (80 - 12 - COUNTER_BITS);

impl UlidRun {
    const EMPTY: UlidRun = UlidRun {
        id: 0,
        limit: 0,
        until: 0,
        block: Block::EMPTY,
    };

    /// The next ULID of `gen` from this run (see [`UlidShard::next_ulid`]).
    #[inline(always)]
    fn next<C: Clock>(&mut self, gen: &UlidGenerator<C>) -> Ulid {
        let reading = gen.clock.recent_unix_nanos();
        // The reading first: tested after the 128-bit compare, its outcome waits in a flag
        // register (two more instructions per ID).
        if reading < self.until {
            let id = self.id;
            if id < self.limit {
                self.id = id + 1;
                return Ulid::from_u128(id);
            }
        }
        self.next_past_run(reading, gen)
    }

    /// [`next`](Self::next) past the run: a new state, from the block (or a new block), and
    /// the run of its ULIDs.
    #[cold]
    #[inline(never)]
    fn next_past_run<C: Clock>(&mut self, reading: u64, gen: &UlidGenerator<C>) -> Ulid {
        let state = self
            .block
            .next_past_tick(reading, &gen.state, &gen.timeline, &gen.clock);
        let (id, limit) = run_of(gen.ulid_at(state));
        (self.id, self.limit, self.until) = (id + 1, limit, self.block.until());
        Ulid::from_u128(id)
    }
}

/// A state's first ULID as a run: the ULID and the first ULID past the state's range.
#[inline]
fn run_of(first: Ulid) -> (u128, u128) {
    let id = first.to_u128();
    // Below the next state's ULIDs: the random bits cleared, one state up. The last state
    // of the last millisecond would wrap: it never comes (the state stops 2^57 ticks in).
    let limit = (id & !(STATE_UNIT - 1)).wrapping_add(STATE_UNIT);
    (id, limit)
}

impl<C: Clock> UlidGenerator<C> {
    /// A shard of this generator for one thread's tightest loop (see [`UlidShard`]).
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// let gen = UlidGenerator::new();
    /// let mut shard = gen.shard();
    /// assert!(shard.next_ulid() < shard.next_ulid());
    /// ```
    pub fn shard(&self) -> UlidShard<'_, C> {
        reseed_if_forked();
        UlidShard {
            gen: self,
            run: UlidRun::EMPTY,
        }
    }
}

impl<C: Clock> UlidShard<'_, C> {
    /// The next ULID of this shard: above its previous one, unique across the generator.
    ///
    /// ```
    /// use snowmint::UlidGenerator;
    /// use snowmint::clock::ManualClock;
    /// let gen = UlidGenerator::with_clock(ManualClock::at_unix_millis(1_700_000_000_000));
    /// let mut shard = gen.shard();
    /// let id = shard.next_ulid();
    /// assert_eq!(id.unix_millis(), 1_700_000_000_000);
    /// assert!(shard.next_ulid() > id);
    /// ```
    #[inline(always)]
    pub fn next_ulid(&mut self) -> Ulid {
        self.run.next(self.gen)
    }
}

/// The process's generators behind [`Ulid::now`] and [`Uuid7::now`], on the shared
/// [`TscClock`], made on first use.
#[inline]
fn process_ulids() -> &'static UlidGenerator {
    static ULIDS: OnceLock<UlidGenerator> = OnceLock::new();
    ULIDS.get_or_init(UlidGenerator::new)
}

/// See [`process_ulids`].
#[inline]
fn process_uuids() -> &'static Uuid7Generator {
    static UUIDS: OnceLock<Uuid7Generator> = OnceLock::new();
    UUIDS.get_or_init(Uuid7Generator::new)
}

/// This thread's shard of [`process_ulids`], in cells: the fast path reads the three words
/// it tests and writes only `id` (a whole `Cell<UlidRun>` would be copied in and out per ID).
struct LocalUlids {
    id: Cell<u128>,
    limit: Cell<u128>,
    until: Cell<u64>,
    block: Cell<Block>,
}

std::thread_local! {
    /// This thread's shard of [`process_ulids`]. No drop glue and a `const` initialiser, so
    /// std reads it with no lazy-initialisation or liveness check.
    static LOCAL_ULIDS: LocalUlids = const {
        LocalUlids {
            id: Cell::new(0),
            limit: Cell::new(0),
            until: Cell::new(0),
            block: Cell::new(Block::EMPTY),
        }
    };
    /// This thread's shard of [`process_uuids`], as above.
    static LOCAL_UUIDS: LocalUuids = const { LocalUuids::new() };
}

impl LocalUlids {
    /// [`UlidRun::next`] on the cells.
    #[inline(always)]
    fn next<C: Clock>(&self, gen: &UlidGenerator<C>) -> Ulid {
        let reading = gen.clock.recent_unix_nanos();
        // The reading first, as in `UlidRun::next`.
        if reading < self.until.get() {
            let id = self.id.get();
            if id < self.limit.get() {
                self.id.set(id + 1);
                return Ulid::from_u128(id);
            }
        }
        self.next_past_run(reading, gen)
    }

    /// [`UlidRun::next_past_run`] on the cells.
    #[cold]
    #[inline(never)]
    fn next_past_run<C: Clock>(&self, reading: u64, gen: &UlidGenerator<C>) -> Ulid {
        let mut run = UlidRun {
            id: self.id.get(),
            limit: self.limit.get(),
            until: self.until.get(),
            block: self.block.get(),
        };
        let id = run.next_past_run(reading, gen);
        self.id.set(run.id);
        self.limit.set(run.limit);
        self.until.set(run.until);
        self.block.set(run.block);
        id
    }
}

impl Ulid {
    /// A new ULID from this thread's shard of one process-wide [`UlidGenerator`] (on the
    /// shared [`TscClock`]): the one-call per-thread entry, at a [`UlidShard`]'s cost plus a
    /// thread-local lookup (the shard lives in a thread-local; no atomic write per ID).
    ///
    /// **What order it keeps.** Each thread's ULIDs strictly increase, and no two threads
    /// ever get the same one (their states come from the one generator's word); across
    /// threads they are in minting order only when minted more than 1 ms (and one 1/4096
    /// ms tick) plus the cheap reading's lag apart, as for [`UlidShard`]. Where every ULID
    /// must be above every ULID minted before it on any thread, share a [`UlidGenerator`]
    /// and call [`next_ulid`](UlidGenerator::next_ulid), which orders across threads and
    /// pays a compare-and-swap per ID.
    ///
    /// **After `fork()`** the child holds copies of the process-wide generator and of the
    /// forking thread's shard and random bits, so its `now()` would repeat the parent's
    /// next ULIDs: a child that mints uses a generator it makes itself, as for any
    /// generator made before a fork.
    ///
    /// ```
    /// use snowmint::Ulid;
    ///
    /// let a = Ulid::now();
    /// let b = Ulid::now();
    /// assert!(b > a);
    /// let there = std::thread::spawn(Ulid::now).join().unwrap();
    /// assert!(there != a && there != b);
    /// ```
    #[inline]
    pub fn now() -> Ulid {
        let gen = process_ulids();
        LOCAL_ULIDS
            .try_with(|local| local.next(gen))
            .unwrap_or_else(|_| gen.next_ulid())
    }
}

impl Uuid7 {
    /// A new UUIDv7 from this thread's shard of one process-wide [`Uuid7Generator`] (on
    /// the shared [`TscClock`]): the one-call per-thread entry, at a [`Uuid7Shard`]'s cost
    /// plus a thread-local lookup, its random bits as a shard's (55 fresh bits for a state's
    /// first UUID, then random steps of 16 fresh bits: see [`Uuid7Shard`] for what that
    /// gives up).
    ///
    /// **What order it keeps.** Each thread's UUIDs strictly increase, and no two threads
    /// ever get the same one; across threads they are in minting order only when minted
    /// more than 1 ms (and one 1/4096 ms tick) plus the cheap reading's lag apart, as for
    /// [`Uuid7Shard`]. Where every UUID must be above every UUID minted before it on any
    /// thread, share a [`Uuid7Generator`] and call [`next_uuid`](Uuid7Generator::next_uuid),
    /// which orders across threads and pays a compare-and-swap per ID.
    ///
    /// **After `fork()`** the child holds copies of the process-wide generator and of the
    /// forking thread's shard and draws made ahead, so its `now()` would repeat the parent's
    /// next UUIDs: a child that mints uses a generator it makes itself.
    ///
    /// ```
    /// use snowmint::Uuid7;
    ///
    /// let a = Uuid7::now();
    /// let b = Uuid7::now();
    /// assert!(b > a);
    /// let there = std::thread::spawn(Uuid7::now).join().unwrap();
    /// assert!(there != a && there != b);
    /// ```
    #[inline]
    pub fn now() -> Uuid7 {
        let gen = process_uuids();
        LOCAL_UUIDS
            .try_with(|local| local.next(gen))
            .unwrap_or_else(|_| gen.next_uuid())
    }
}
