//! [`Uuid7Shard`] and [`UlidShard`]: one thread's source for the tightest loops, minting
//! from a block of its generator's states with no shared CAS per ID.

use super::block::Block;
use super::random::reseed_if_forked;
use super::{UlidGenerator, Uuid7Generator};
use crate::clock::{Clock, TscClock};
use crate::id128::{Ulid, Uuid7};

/// One thread's UUIDv7 source: IDs from blocks of 128 consecutive states of its
/// [`Uuid7Generator`], taken by one CAS each, so that an ID costs the clock's cheap reading,
/// a compare and the random bits, and the shared word is touched once per 128 IDs (or when
/// the cheap reading passes the block's tick).
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
    block: Block,
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
            block: Block::default(),
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
        let gen = self.gen;
        gen.uuid_at(self.block.next(&gen.state, &gen.timeline, &gen.clock))
    }
}

/// One thread's ULID source, as [`Uuid7Shard`] is for UUIDs: blocks of 128 consecutive
/// states of its [`UlidGenerator`], one CAS each; strictly increasing per shard, unique
/// across the generator, and in minting order across threads only for IDs minted more than
/// 1 ms (and one 1/4096 ms tick) plus the cheap reading's lag apart (see [`Uuid7Shard`] for
/// why); its random bits are its generator's ([the random
/// bits](UlidGenerator#the-random-bits)).
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
    block: Block,
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
            block: Block::default(),
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
        let gen = self.gen;
        gen.ulid_at(self.block.next(&gen.state, &gen.timeline, &gen.clock))
    }
}
