//! [`Slots`]: a sharded generator's table of shards, and [`Hold`], one thread's exclusive hold
//! on one of them.

use core::cell::Cell;
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::generator::step::tick_end;
use crate::generator::tick_cache::TickCache;
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
    pub(crate) sequence_bits: u8,
    /// Set when the sharded generator is dropped: threads' registry entries for it are dead
    /// (leases do not use them) and are pruned.
    closed: AtomicBool,
}

impl Slots {
    /// `node_in_place` of each exclusive shard, then of the overflow shard; every shard
    /// starts at `start`.
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
            sequence_bits,
            closed: AtomicBool::new(false),
        }
    }

    /// Moves the overflow shard past the tick of `state`, so that a thread that minted up to
    /// `state` elsewhere and now turns to the overflow shard keeps its IDs increasing.
    /// Skipping states costs nothing but the skipped IDs.
    pub(crate) fn overflow_past_tick_of(&self, state: u64) {
        if let Some(end) = tick_end(state, self.sequence_bits) {
            // Relaxed: as every state update, only this atomic's modification order matters.
            self.overflow.fetch_max(end - 1, Ordering::Relaxed);
        }
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
                return Some(Hold {
                    slots: Arc::clone(self),
                    index,
                    node_in_place: slot.node_in_place,
                    state: Cell::new(state),
                    cache: TickCache::new(),
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
}

impl Hold {
    /// Moves the state past the tick of `state` (if it is not already): the next ID on this
    /// shard then lies in a later tick than `state`'s, whatever the node order.
    pub(crate) fn start_after_tick_of(&self, state: u64, sequence_bits: u8) {
        let tick = state >> sequence_bits;
        let Some(end) = tick
            .checked_add(1)
            .and_then(|t| t.checked_shl(sequence_bits.into()))
        else {
            return;
        };
        if end >> sequence_bits == tick + 1 && self.state.get() < end - 1 {
            self.state.set(end - 1);
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
    }
}
