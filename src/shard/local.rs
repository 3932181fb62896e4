//! The per-thread shard registry: each thread that mints through a sharded generator keeps
//! one hold per generator, taken on first use and handed back when the thread exits.

use core::any::Any;
use core::cell::{Cell, RefCell};
use core::mem::ManuallyDrop;
use std::sync::Arc;

use super::slots::{Hold, Slots};
use crate::mint::hot_tick::HotTick;
use crate::mint::packing::Packing;
use crate::sync::{arm_thread_exit, exiting_thread_local, ThreadExit};

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
    /// The generator's shared state, kept so that its address (its [`key`]) is not reused by
    /// another generator while this thread may hold it in [`Hot::owner`].
    shared: Arc<dyn Any + Send + Sync>,
    slots: Arc<Slots>,
    hold: Option<Hold>,
    /// Overflow mints left before the next try for an exclusive shard.
    retry_in: Cell<u32>,
    /// The last state this thread issued on a shard it no longer holds: the overflow shard,
    /// or a shard it handed back with `release_local` (0: none). A shard taken later starts
    /// after that state's tick, so the thread's IDs keep increasing.
    last_elsewhere: Cell<u64>,
}

/// One thread's shards: an entry per generator it minted through, and a copy of the
/// exclusive shard it used last, which the hot path reaches with no borrow and no search.
///
/// It has no drop glue, so std reads the thread-local with no liveness check on the hot
/// path; [`ThreadExit::thread_exit`] empties it when the thread ends (armed by
/// [`lookup_slow`] before it takes a shard).
struct Registry {
    hot: Hot,
    entries: ManuallyDrop<RefCell<Vec<Entry>>>,
}

/// The state and tick window of one exclusive shard this thread holds, moved here for the
/// hot path (in ID terms: a [`HotTick`]). While `owner` names a generator, this is its hold's
/// state (the hold's own cells are stale); [`Registry::flush`] moves it back before anything
/// else reads the hold. `owner` is the address of the generator's shared state, which the hot path has in a
/// register already (no load to compare with); it cannot be freed or reused while its entry
/// (holding an `Arc` of it) lives, and the entry is never removed without a flush.
struct Hot {
    /// [`key`] of the owning generator's shared state, or 0 when nothing is here.
    owner: Cell<usize>,
    tick: HotTick,
}

exiting_thread_local! {
    static LOCAL: Registry = Registry {
        hot: Hot {
            owner: Cell::new(0),
            tick: HotTick::new(),
        },
        entries: ManuallyDrop::new(RefCell::new(Vec::new())),
    };
}

/// The identity of a generator in [`Hot::owner`]: the address of its shared state.
#[inline(always)]
pub(crate) fn key<S: ?Sized>(shared: &Arc<S>) -> usize {
    Arc::as_ptr(shared).cast::<()>() as usize
}

impl Registry {
    /// Moves the hot copy back into its hold, so that the hold's cells are every shard's
    /// state again.
    fn flush(&self, entries: &[Entry]) {
        let owner = self.hot.owner.get();
        if owner == 0 {
            return;
        }
        let hold = entries
            .iter()
            .find(|e| key(&e.shared) == owner)
            .and_then(|e| e.hold.as_ref());
        debug_assert!(hold.is_some(), "the hot copy's hold is in the registry");
        if let Some(hold) = hold {
            // The larger state: a call re-entered from a minting path (a clock that mints
            // through this generator) may have moved either copy on.
            let state = self.hot.tick.state();
            if state >= hold.state.get() {
                hold.state.set(state);
                hold.cache.copy_from(self.hot.tick.cache());
            }
        }
        self.hot.owner.set(0);
    }

    /// Copies `hold` (of the generator with [`key`] `owner`, whose IDs `packing` makes) to
    /// the hot copy; the hot copy must have been flushed.
    fn promote(&self, owner: usize, hold: &Hold, packing: &Packing) {
        debug_assert_eq!(self.hot.owner.get(), 0, "flushed before");
        self.hot.tick.load(hold.state.get(), &hold.cache, packing);
        self.hot.owner.set(owner);
    }
}

impl ThreadExit for Registry {
    /// The thread is ending: the hot copy goes back to its hold, then the holds hand their
    /// shards back (dropping the entries; the empty vector left allocates nothing).
    fn thread_exit(&self) {
        if let Ok(mut entries) = self.entries.try_borrow_mut() {
            self.flush(&entries);
            drop(core::mem::take(&mut *entries));
        }
    }
}

/// The exit hook [`lookup_slow`] arms.
fn exit_hook() {
    let _ = LOCAL.try_with(|local| local.thread_exit());
}

/// `f` on the hot copy of this thread's own shard of the generator with [`key`] `owner`,
/// if the shard is the one this thread used last: no borrow, no search, nothing taken or
/// allocated. The hot path; everything else goes through [`with`].
#[inline(always)]
pub(crate) fn with_own(owner: usize, f: impl FnOnce(&HotTick) -> Option<u64>) -> Option<u64> {
    LOCAL
        .try_with(|local| {
            if local.hot.owner.get() != owner {
                return None;
            }
            f(&local.hot.tick)
        })
        .ok()
        .flatten()
}

/// The generator a thread mints for: its shared state `S` (a thread's entry keeps it), the
/// slots in it, and how its IDs are packed (for the hot copy).
pub(crate) struct Owner<'a, S> {
    pub(crate) shared: &'a Arc<S>,
    pub(crate) slots: &'a Arc<Slots>,
    pub(crate) packing: &'a Packing,
}

impl<S> Clone for Owner<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Owner<'_, S> {}

/// Runs `f` with this thread's shard of the generator `owner`, taking one first if the
/// thread has none. Threads that are being torn down (thread-locals already destroyed) use
/// the overflow shard.
#[inline(always)]
pub(crate) fn with<S: Any + Send + Sync, R>(
    owner: Owner<'_, S>,
    mut f: impl FnMut(Shard<'_>) -> R,
) -> R {
    match LOCAL.try_with(|local| lookup(local, owner, &mut f)) {
        Ok(Some(r)) => r,
        _ => f(Shard::Overflow(&Cell::new(0))),
    }
}

/// `f` on this thread's entry for `owner`, made if missing; `None` if the registry is busy
/// (re-entered from inside `f`). An exclusive shard used here becomes the hot one.
#[inline(always)]
fn lookup<S: Any + Send + Sync, R>(
    local: &Registry,
    owner: Owner<'_, S>,
    f: &mut impl FnMut(Shard<'_>) -> R,
) -> Option<R> {
    if let Ok(entries) = local.entries.try_borrow() {
        local.flush(&entries);
        let owner_key = key(owner.shared);
        if let Some(entry) = entries.iter().find(|e| key(&e.shared) == owner_key) {
            match &entry.hold {
                Some(hold) => {
                    return Some(local.use_own(&entries, owner_key, owner.packing, hold, f))
                }
                None if entry.retry_in.get() > 0 => {
                    entry.retry_in.set(entry.retry_in.get() - 1);
                    return Some(f(Shard::Overflow(&entry.last_elsewhere)));
                }
                None => {}
            }
        }
    }
    lookup_slow(local, owner, f)
}

impl Registry {
    /// `f` on `hold` (flushed), then `hold` made the hot copy. A call re-entered from `f`
    /// may have made it hot already: flushing again folds that in.
    #[inline(always)]
    fn use_own<R>(
        &self,
        entries: &[Entry],
        owner: usize,
        packing: &Packing,
        hold: &Hold,
        f: &mut impl FnMut(Shard<'_>) -> R,
    ) -> R {
        let r = f(Shard::Own(hold));
        self.flush(entries);
        self.promote(owner, hold, packing);
        r
    }
}

/// [`lookup`] for a thread without a usable entry: takes a shard (or settles for the
/// overflow shard) first.
#[inline(never)]
fn lookup_slow<S: Any + Send + Sync, R>(
    local: &Registry,
    owner: Owner<'_, S>,
    f: &mut impl FnMut(Shard<'_>) -> R,
) -> Option<R> {
    let (slots, owner_key) = (owner.slots, key(owner.shared));
    // A thread whose exit hook can no longer run (it is ending) takes nothing to hand back:
    // it mints on the overflow shard.
    if !arm_thread_exit(exit_hook) {
        return None;
    }
    let mut entries = local.entries.try_borrow_mut().ok()?;
    // Before entries are removed or their holds replaced, their states are in them.
    local.flush(&entries);
    let position = match entries.iter().position(|e| key(&e.shared) == owner_key) {
        Some(i) => {
            let entry = &mut entries[i];
            entry.hold = slots.acquire();
            let last = entry.last_elsewhere.get();
            // A thread that let a shard go moved the overflow shard past it then (`release`);
            // past the overflow shard's own states it already is. Moving it here, at each
            // retry, would cost the overflow shard the rest of its tick every time.
            if let Some(hold) = &entry.hold {
                hold.start_after_tick_of(last);
            }
            entry.retry_in.set(RETRY_EVERY);
            i
        }
        None => {
            // Entries of dropped generators hold shards nobody can use: hand them back.
            entries.retain(|e| !e.slots.is_closed());
            entries.push(Entry {
                shared: Arc::clone(owner.shared) as Arc<dyn Any + Send + Sync>,
                slots: Arc::clone(slots),
                hold: slots.acquire(),
                retry_in: Cell::new(RETRY_EVERY),
                last_elsewhere: Cell::new(0),
            });
            entries.len() - 1
        }
    };
    let entry = &entries[position];
    Some(match &entry.hold {
        Some(hold) => local.use_own(&entries, owner_key, owner.packing, hold, f),
        None => f(Shard::Overflow(&entry.last_elsewhere)),
    })
}

/// Hands back this thread's shard of the generator owning `slots`, if it holds one. The
/// thread's next ID takes a shard again (starting past the tick it last issued in).
pub(crate) fn release(slots: &Arc<Slots>) {
    let _ = LOCAL.try_with(|local| {
        if let Ok(mut entries) = local.entries.try_borrow_mut() {
            local.flush(&entries);
            if let Some(entry) = entries.iter_mut().find(|e| Arc::ptr_eq(&e.slots, slots)) {
                if let Some(hold) = entry.hold.take() {
                    let last = hold.state.get().max(entry.last_elsewhere.get());
                    entry.last_elsewhere.set(last);
                }
                // The thread's next ID starts past the tick it last minted in, as documented:
                // on a shard it takes (`lookup_slow`) or on the overflow shard, moved here.
                let last = entry.last_elsewhere.get();
                if last != 0 {
                    slots.overflow_past_tick_of(last);
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
            let entries = local.entries.try_borrow().ok()?;
            let entry = entries.iter().find(|e| Arc::ptr_eq(&e.slots, slots))?;
            entry.hold.as_ref().map(Hold::index)
        })
        .ok()
        .flatten()
}
