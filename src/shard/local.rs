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
    /// The last state this thread issued on a shard it no longer holds: the overflow shard,
    /// or a shard it handed back with `release_local` (0: none). A shard taken later starts
    /// after that state's tick, so the thread's IDs keep increasing.
    last_elsewhere: Cell<u64>,
}

const_thread_local! {
    static LOCAL: RefCell<Vec<Entry>> = RefCell::new(Vec::new());
}

/// `f` on this thread's own shard of the generator owning `slots`, if it holds one and the
/// registry is free: no shard is taken, nothing is allocated. The hot path; everything else
/// goes through [`with`].
#[inline(always)]
pub(crate) fn with_own(slots: &Arc<Slots>, f: impl FnOnce(&Hold) -> Option<u64>) -> Option<u64> {
    LOCAL
        .try_with(|local| {
            let entries = local.try_borrow().ok()?;
            let entry = entries.iter().find(|e| Arc::ptr_eq(&e.slots, slots))?;
            f(entry.hold.as_ref()?)
        })
        .ok()
        .flatten()
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
                    return Some(f(Shard::Overflow(&entry.last_elsewhere)));
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
            let last = entry.last_elsewhere.get();
            match &entry.hold {
                Some(hold) => hold.start_after_tick_of(last),
                None if last != 0 => slots.overflow_past_tick_of(last),
                None => {}
            }
            entry.retry_in.set(RETRY_EVERY);
            i
        }
        None => {
            // Entries of dropped generators hold shards nobody can use: hand them back.
            entries.retain(|e| !e.slots.is_closed());
            entries.push(Entry {
                slots: Arc::clone(slots),
                hold: slots.acquire(),
                retry_in: Cell::new(RETRY_EVERY),
                last_elsewhere: Cell::new(0),
            });
            entries.len() - 1
        }
    };
    let entry = core::cell::RefMut::map(entries, |e| &mut e[position]);
    Some(match &entry.hold {
        Some(hold) => f(Shard::Own(hold)),
        None => f(Shard::Overflow(&entry.last_elsewhere)),
    })
}

/// Hands back this thread's shard of the generator owning `slots`, if it holds one. The
/// thread's next ID takes a shard again (starting past the tick it last issued in).
pub(crate) fn release(slots: &Arc<Slots>) {
    let _ = LOCAL.try_with(|local| {
        if let Ok(mut entries) = local.try_borrow_mut() {
            if let Some(entry) = entries.iter_mut().find(|e| Arc::ptr_eq(&e.slots, slots)) {
                if let Some(hold) = entry.hold.take() {
                    let last = hold.state.get().max(entry.last_elsewhere.get());
                    entry.last_elsewhere.set(last);
                }
                entry.retry_in.set(0);
            }
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
