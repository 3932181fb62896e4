//! [`HotTick`]: a [`TickCache`] whose owner keeps its place as the last ID issued rather than
//! the last state, for the thread-local hot path.
//!
//! Within one tick a state's ID is `state * per_state + tick_part` ([`Packing`]), so
//! consecutive states' IDs are `per_state` apart and ordered as the states are. Kept in those
//! terms, the fast rule ([`TickWindow::next`](super::rule::TickWindow::next)) is an add and a
//! compare on the ID itself: no multiply per ID, which is what the thread-local path spent
//! past its loads.

use core::cell::Cell;

use super::packing::Packing;
use super::tick_cache::TickCache;

/// An owner's state and tick window in ID terms, loaded from (and given back as) a state and
/// a [`TickCache`]; serves nothing until loaded.
#[derive(Debug)]
pub(crate) struct HotTick {
    /// The window and tick part loaded with the state: the time test's, and what goes back.
    cache: TickCache,
    /// The state loaded, and its ID.
    base: Cell<u64>,
    base_id: Cell<u64>,
    /// The last ID issued: `base_id + k * step` after `k` IDs.
    id: Cell<u64>,
    /// The ID of the window's last state: no ID is issued at or past it.
    last: Cell<u64>,
    /// `per_state`: between the IDs of consecutive states.
    step: Cell<u64>,
}

impl HotTick {
    pub(crate) const fn new() -> HotTick {
        HotTick {
            cache: TickCache::new(),
            base: Cell::new(0),
            base_id: Cell::new(0),
            id: Cell::new(0),
            last: Cell::new(0),
            step: Cell::new(1),
        }
    }

    /// Takes on the owner's `state` and `cache` (whose window must not be behind `state`'s
    /// tick, as a cache filled for it never is).
    pub(crate) fn load(&self, state: u64, cache: &TickCache, packing: &Packing) {
        self.cache.copy_from(cache);
        let step = packing.per_state();
        let id = packing.id_from(state, cache.tick_part());
        // The IDs from `state`'s to the last state's, as integers: for a tick the layout can
        // issue in they do not wrap; where they would, or where `state` is past the window's
        // last, the last ID is `id` itself and nothing is served.
        let last = cache
            .window()
            .last
            .checked_sub(state)
            .and_then(|n| n.checked_mul(step))
            .and_then(|span| id.checked_add(span))
            .unwrap_or(id);
        self.base.set(state);
        self.base_id.set(id);
        self.id.set(id);
        self.last.set(last);
        self.step.set(step);
    }

    /// The state of the last ID issued.
    pub(crate) fn state(&self) -> u64 {
        // `id - base_id` is `k * step` exactly (see `load`): no wrap, no remainder.
        self.base.get() + (self.id.get() - self.base_id.get()) / self.step.get()
    }

    /// The window and tick part, as loaded.
    pub(crate) fn cache(&self) -> &TickCache {
        &self.cache
    }

    /// The ID after the last for a reading `now` (nanoseconds), if the window serves the
    /// reading and has a state left: the ID of what [`TickWindow::next`] gives for the state.
    ///
    /// [`TickWindow::next`]: super::rule::TickWindow::next
    #[inline(always)]
    pub(crate) fn next(&self, now: u64) -> Option<u64> {
        if !self.cache.window().serves(now) {
            return None;
        }
        let id = self.id.get();
        if id >= self.last.get() {
            return None;
        }
        // `last` is `id + j * step` for some `j > 0`: no wrap.
        let next = id + self.step.get();
        self.id.set(next);
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::HotTick;
    use crate::layout::{Layout, Order};
    use crate::mint::packing::Packing;
    use crate::mint::rule::TickWindow;
    use crate::mint::tick_cache::TickCache;

    /// Every state of a window, every reading near it, both field orders: the hot tick
    /// issues what the window's rule issues, as IDs, and gives the state back.
    #[test]
    fn hot_tick_issues_the_ids_of_the_windows_states() {
        for order in [Order::TimeNodeSequence, Order::TimeSequenceNode] {
            let layout = Layout::builder()
                .node_bits(3)
                .sequence_bits(4)
                .order(order)
                // No wall-clock check of the epoch (miri has no real-time clock).
                .validate()
                .expect("valid layout");
            let packing = Packing::of(&layout);
            let tick = 1_000_u64;
            let floor = tick << 4;
            let node_in_place = layout.node_in_place(5);
            for last in [floor, floor + 3, floor + 15] {
                let window = TickWindow {
                    lower: 10_000,
                    span: 100,
                    floor,
                    last,
                };
                let cache = TickCache::new();
                cache.fill(window, packing.tick_part(tick, node_in_place));
                for start in floor..=floor + 15 {
                    for now in [9_999, 10_000, 10_050, 10_099, 10_100, 0, u64::MAX] {
                        let hot = HotTick::new();
                        hot.load(start, &cache, &packing);
                        let mut state = start;
                        loop {
                            let want = window.next(state, now);
                            let got = hot.next(now);
                            assert_eq!(
                                got,
                                want.map(|s| packing.id_of_state(s, node_in_place)),
                                "{order:?} last {last} start {start} now {now} state {state}"
                            );
                            match want {
                                Some(s) => state = s,
                                None => break,
                            }
                            assert_eq!(hot.state(), state);
                        }
                        assert_eq!(hot.state(), state);
                    }
                }
            }
        }
    }

    #[test]
    fn a_new_hot_tick_serves_nothing() {
        let hot = HotTick::new();
        for now in [0, 1, u64::MAX] {
            assert_eq!(hot.next(now), None);
        }
        assert_eq!(hot.state(), 0);
    }

    /// A window whose IDs would wrap is served by the general path: the hot tick serves none
    /// and keeps the state.
    #[test]
    fn a_hot_tick_whose_ids_would_wrap_serves_nothing() {
        let layout = Layout::builder()
            .node_bits(0)
            .sequence_bits(4)
            .validate()
            .expect("valid layout");
        let packing = Packing::of(&layout);
        let cache = TickCache::new();
        let window = TickWindow {
            lower: 0,
            span: u64::MAX,
            floor: 0,
            last: u64::MAX,
        };
        cache.fill(window, u64::MAX - 2);
        let hot = HotTick::new();
        hot.load(0, &cache, &packing);
        assert_eq!(hot.next(5), None);
        assert_eq!(hot.state(), 0);
    }
}
