//! The per-thread shard registry: each thread that mints through a sharded generator keeps
//! one hold per generator, taken on first use and handed back when the thread exits.

use core::cell::{Cell, RefCell};
use std::sync::Arc;

use super::slots::{Hold, Slots};
use crate::sync::const_thread_local;

/// Mints through the overflow shard this many times before trying again for an exclusive
/// shard: often enough to pick up shards freed by exiting threads, rarely enough that the
/// scan costs nothing measurable.
const RETRY_EVERY: u32 = 1_024;

/// Where this thread mints for one generator.
pub(crate) enum Shard<'a> {
    /// Its own shard: the state cell and the node bits.
    Own(&'a Hold),
    /// The shared overflow shard (every exclusive shard is held by other threads), and
    /// where to record the last state this thread took from it.
    Overflow(&'a Cell<u64>),
}

struct Entry {
    slots: Arc<Slots>,
    hold: Option<Hold>,
    /// Overflow mints left before the next try for an exclusive shard.
    retry_in: Cell<u32>,
    /// The last state this thread took from the overflow shard (0: none), so that a shard
    /// taken later starts after its tick and the thread's IDs keep increasing.
    overflow_last: Cell<u64>,
}

const_thread_local! {
    static LOCAL: RefCell<Vec<Entry>> = RefCell::new(Vec::new());
}

/// Runs `f` with this thread's shard of the generator owning `slots`, taking one first if
/// the thread has none. Threads that are being torn down (thread-locals already destroyed)
/// use the overflow shard.
#[inline(always)]
pub(crate) fn with<R>(slots: &Arc<Slots>, mut f: impl FnMut(Shard<'_>) -> R) -> R {
    match LOCAL.try_with(|local| lookup(local, slots, &mut f)) {
        Ok(Some(r)) => r,
        _ => f(Shard::Overflow(&Cell::new(0))),
    }
}

/// `f` on this thread's entry for `slots`, made if missing; `None` if the registry is busy
/// (re-entered from inside `f`).
#[inline(always)]
fn lookup<R>(
    local: &RefCell<Vec<Entry>>,
    slots: &Arc<Slots>,
    f: &mut impl FnMut(Shard<'_>) -> R,
) -> Option<R> {
    if let Ok(entries) = local.try_borrow() {
        if let Some(entry) = entries.iter().find(|e| Arc::ptr_eq(&e.slots, slots)) {
            match &entry.hold {
                Some(hold) => return Some(f(Shard::Own(hold))),
                None if entry.retry_in.get() > 0 => {
                    entry.retry_in.set(entry.retry_in.get() - 1);
                    return Some(f(Shard::Overflow(&entry.overflow_last)));
                }
                None => {}
            }
        }
    }
    lookup_slow(local, slots, f)
}

/// [`lookup`] for a thread without a usable entry: takes a shard (or settles for the
/// overflow shard) first.
#[inline(never)]
fn lookup_slow<R>(
    local: &RefCell<Vec<Entry>>,
    slots: &Arc<Slots>,
    f: &mut impl FnMut(Shard<'_>) -> R,
) -> Option<R> {
    let mut entries = local.try_borrow_mut().ok()?;
    let position = match entries.iter().position(|e| Arc::ptr_eq(&e.slots, slots)) {
        Some(i) => {
            let entry = &mut entries[i];
            entry.hold = slots.acquire();
            if let Some(hold) = &entry.hold {
                hold.start_after_tick_of(entry.overflow_last.get(), slots.sequence_bits);
            }
            entry.retry_in.set(RETRY_EVERY);
            i
        }
        None => {
            entries.push(Entry {
                slots: Arc::clone(slots),
                hold: slots.acquire(),
                retry_in: Cell::new(RETRY_EVERY),
                overflow_last: Cell::new(0),
            });
            entries.len() - 1
        }
    };
    let entry = core::cell::RefMut::map(entries, |e| &mut e[position]);
    Some(match &entry.hold {
        Some(hold) => f(Shard::Own(hold)),
        None => f(Shard::Overflow(&entry.overflow_last)),
    })
}

/// Hands back this thread's shard of the generator owning `slots`, if it holds one.
pub(crate) fn release(slots: &Arc<Slots>) {
    let _ = LOCAL.try_with(|local| {
        if let Ok(mut entries) = local.try_borrow_mut() {
            entries.retain(|e| !Arc::ptr_eq(&e.slots, slots));
        }
    });
}

/// The index of this thread's exclusive shard of the generator owning `slots`, if any.
pub(crate) fn shard_index(slots: &Arc<Slots>) -> Option<usize> {
    LOCAL
        .try_with(|local| {
            let entries = local.try_borrow().ok()?;
            let entry = entries.iter().find(|e| Arc::ptr_eq(&e.slots, slots))?;
            entry.hold.as_ref().map(Hold::index)
        })
        .ok()
        .flatten()
}
