//! [`Slots`]: a sharded generator's table of shards, and [`Hold`], one thread's exclusive hold
//! on one of them.

use core::cell::Cell;
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::mint::rule::last_of_tick;
use crate::mint::tick_cache::TickCache;
use crate::sync::{AtomicBool, AtomicU64, Ordering};

/// One exclusive shard: its state while nobody holds it, and whether somebody does.
struct Slot {
    taken: AtomicBool,
    /// The last issued `(tick, sequence)` of this shard, valid while `taken` is false.
    state: AtomicU64,
    /// This shard's node number, shifted into place.
    node_in_place: u64,
}

/// The shards of one sharded generator. Exclusive shards are held by one thread at a time;
/// the overflow shard is shared by CAS among threads that found every exclusive shard taken.
pub(crate) struct Slots {
    shards: Box<[Slot]>,
    pub(crate) overflow: CachePadded<AtomicU64>,
    pub(crate) overflow_node_in_place: u64,
    /// The highest state any exclusive shard has issued, published once per tick a holder
    /// enters (not per ID): with the overflow shard's state, where a restart resumes.
    reached: CachePadded<AtomicU64>,
    pub(crate) sequence_bits: u8,
    /// Set when the sharded generator is dropped: threads' registry entries for it are dead
    /// (owned shards do not use them) and are pruned.
    closed: AtomicBool,
}

impl Slots {
    /// `node_in_place` of each exclusive shard, then of the overflow shard; every shard
    /// starts at `start` (0, or the last state of a tick to resume after).
    pub(crate) fn new(
        exclusive: impl Iterator<Item = u64>,
        overflow: u64,
        start: u64,
        sequence_bits: u8,
    ) -> Slots {
        Slots {
            shards: exclusive
                .map(|node_in_place| Slot {
                    taken: AtomicBool::new(false),
                    state: AtomicU64::new(start),
                    node_in_place,
                })
                .collect(),
            overflow: CachePadded::new(AtomicU64::new(start)),
            overflow_node_in_place: overflow,
            reached: CachePadded::new(AtomicU64::new(start)),
            sequence_bits,
            closed: AtomicBool::new(false),
        }
    }

    /// Moves the overflow shard past the tick of `state`, so that a thread that minted up to
    /// `state` elsewhere and now turns to the overflow shard keeps its IDs increasing.
    /// Skipping states costs nothing but the skipped IDs.
    pub(crate) fn overflow_past_tick_of(&self, state: u64) {
        // Relaxed: as every state update, only this atomic's modification order matters.
        self.overflow
            .fetch_max(last_of_tick(state, self.sequence_bits), Ordering::Relaxed);
    }

    /// The highest state issued by any shard, at tick precision: every state issued lies in
    /// its tick or an earlier one (0: none yet).
    pub(crate) fn reached(&self) -> u64 {
        // Relaxed: a report of a monotonic value; nothing else is read on its account. A
        // caller that needs every issued state counted (a restart) reads after the minting
        // threads have stopped.
        let exclusive = self.reached.load(Ordering::Relaxed);
        // Relaxed: as above.
        exclusive.max(self.overflow.load(Ordering::Relaxed))
    }

    /// Marks the generator dropped.
    pub(crate) fn close(&self) {
        // Relaxed: a hint for pruning registry entries; a late read only delays the pruning.
        self.closed.store(true, Ordering::Relaxed);
    }

    /// Whether the generator was dropped.
    pub(crate) fn is_closed(&self) -> bool {
        // Relaxed: as in `close`.
        self.closed.load(Ordering::Relaxed)
    }

    /// How many exclusive shards there are.
    pub(crate) fn len(&self) -> usize {
        self.shards.len()
    }

    /// Takes a free exclusive shard, with the state its last holder left.
    pub(crate) fn acquire(self: &Arc<Self>) -> Option<Hold> {
        for (index, slot) in self.shards.iter().enumerate() {
            // Relaxed: a hint that skips held shards cheaply; the CAS below decides.
            if slot.taken.load(Ordering::Relaxed) {
                continue;
            }
            // Acquire: pairs with the Release in `Hold::drop`, so the last holder's state
            // store is visible below and the new holder continues after its last ID.
            if slot
                .taken
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                // Relaxed: ordered after the Acquire above, which published this value.
                let state = slot.state.load(Ordering::Relaxed);
                crate::events::shard_held(index, true);
                return Some(Hold {
                    slots: Arc::clone(self),
                    index,
                    node_in_place: slot.node_in_place,
                    state: Cell::new(state),
                    cache: TickCache::new(),
                    noted_tick: Cell::new(state >> self.sequence_bits),
                });
            }
        }
        None
    }
}

/// One thread's exclusive hold on a shard. The state lives here, in a plain cell, while held:
/// minting touches no shared memory. Dropping the hold hands the state back.
pub(crate) struct Hold {
    slots: Arc<Slots>,
    index: usize,
    pub(crate) node_in_place: u64,
    pub(crate) state: Cell<u64>,
    /// The current tick, for minting without dividing the clock reading.
    pub(crate) cache: TickCache,
    /// The latest tick this hold has published to [`Slots::reached`].
    noted_tick: Cell<u64>,
}

impl Hold {
    /// Moves the state past the tick of `state` (if it is not already): the next ID on this
    /// shard then lies in a later tick than `state`'s, whatever the node order.
    pub(crate) fn start_after_tick_of(&self, state: u64) {
        let end = last_of_tick(state, self.slots.sequence_bits);
        if self.state.get() < end {
            self.state.set(end);
        }
    }

    /// Publishes `state`, just issued on this shard, to the generator's high-water mark if
    /// it entered a later tick than the last one published: at most once per tick.
    #[inline]
    pub(crate) fn note(&self, state: u64) {
        let tick = state >> self.slots.sequence_bits;
        if tick > self.noted_tick.get() {
            self.noted_tick.set(tick);
            // Relaxed: the mark is one monotonic value read on its own (`Slots::reached`).
            self.slots.reached.fetch_max(state, Ordering::Relaxed);
        }
    }

    /// The shard's index among the exclusive shards.
    pub(crate) fn index(&self) -> usize {
        self.index
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let slot = &self.slots.shards[self.index];
        // Relaxed: published by the Release store below.
        slot.state.store(self.state.get(), Ordering::Relaxed);
        // Release: makes the state above visible to the next holder's Acquire.
        slot.taken.store(false, Ordering::Release);
        crate::events::shard_held(self.index, false);
    }
}
