//! [`IdBatch`]: a run of consecutive IDs reserved with one atomic operation.

use core::iter::FusedIterator;

use crate::id::Id;
use crate::layout::Layout;

/// Consecutive IDs reserved at once by [`Generator::next_ids`](crate::Generator::next_ids)
/// (or a shard's), handed out in increasing order without touching shared memory again.
///
/// A batch holds consecutive `(tick, sequence)` pairs of one node: within a tick the IDs
/// differ by one sequence step, and a batch that spans ticks (within the generator's lead)
/// carries on at sequence 0 of the next tick.
///
/// ```
/// use snowmint::{Generator, Layout};
///
/// let gen = Generator::new(Layout::TWITTER, 1)?;
/// let batch = gen.next_ids(100)?;
/// assert!(batch.len() >= 1 && batch.len() <= 100);
/// let ids: Vec<_> = batch.collect();
/// assert!(ids.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use = "reserved IDs are lost unless used"]
pub struct IdBatch {
    layout: Layout,
    node_in_place: u64,
    next: u64,
    remaining: u64,
    /// The ID handed out last.
    id: u64,
    /// IDs left after `id` in its tick (and in the batch): each is `id` plus `step`.
    in_tick: u64,
    /// One sequence step in an ID.
    step: u64,
}

impl IdBatch {
    pub(crate) fn new(layout: Layout, node_in_place: u64, first: u64, last: u64) -> IdBatch {
        IdBatch {
            layout,
            node_in_place,
            next: first,
            remaining: last - first + 1,
            id: 0,
            in_tick: 0,
            step: 0,
        }
    }

    /// Drops the IDs stamped later than `tick` (a fence's limit): the batch keeps its states
    /// up to the end of that tick.
    pub(crate) fn keep_through_tick(&mut self, tick: u64) {
        let s = self.layout.sequence_bits();
        let end = (u128::from(tick) + 1) << s;
        let room = end.saturating_sub(u128::from(self.next));
        self.remaining = self.remaining.min(u64::try_from(room).unwrap_or(u64::MAX));
    }

    /// The ID the batch would hand out last, if any.
    pub(crate) fn final_id(&self) -> Option<Id> {
        let last = self.next.checked_add(self.remaining.checked_sub(1)?)?;
        Some(Id::from_u64(
            self.layout.id_of_state(last, self.node_in_place),
        ))
    }

    /// How many IDs are left in the batch.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 1)?;
    /// let mut batch = gen.next_ids(2)?;
    /// let n = batch.len();
    /// batch.next();
    /// assert_eq!(batch.len(), n - 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        usize::try_from(self.remaining).unwrap_or(usize::MAX)
    }

    /// Whether every ID has been handed out.
    ///
    /// ```
    /// let gen = snowmint::Generator::new(snowmint::Layout::TWITTER, 1)?;
    /// let mut batch = gen.next_ids(1)?;
    /// assert!(!batch.is_empty());
    /// batch.next();
    /// assert!(batch.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining == 0
    }
}

impl Iterator for IdBatch {
    type Item = Id;

    #[inline]
    fn next(&mut self) -> Option<Id> {
        if self.remaining == 0 {
            return None;
        }
        let id = if self.in_tick > 0 {
            // Within one tick the next ID is one sequence step up.
            self.in_tick -= 1;
            self.id = self.id.wrapping_add(self.step);
            self.id
        } else {
            self.id = self.layout.id_of_state(self.next, self.node_in_place);
            // The states left in `next`'s tick after it.
            let to_tick_end = self.layout.max_sequence() - (self.next & self.layout.max_sequence());
            self.in_tick = to_tick_end.min(self.remaining - 1);
            self.step = 1_u64
                .checked_shl(self.layout.sequence_shift().into())
                .unwrap_or(0);
            self.id
        };
        self.remaining -= 1;
        // Cannot overflow past the last state, which is at most u64::MAX.
        self.next = self.next.wrapping_add(1);
        Some(Id::from_u64(id))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len(), usize::try_from(self.remaining).ok())
    }
}

impl ExactSizeIterator for IdBatch {}

impl FusedIterator for IdBatch {}

#[cfg(test)]
mod tests {
    use super::IdBatch;
    use crate::layout::{Layout, Order};

    /// Stepping within a tick gives what packing each state gives, across tick ends, for
    /// both orders, with the batch cut short by a fence's limit.
    #[test]
    fn every_id_is_its_state_packed() {
        for order in [Order::TimeNodeSequence, Order::TimeSequenceNode] {
            let layout = Layout::builder()
                .node_bits(3)
                .sequence_bits(2)
                .order(order)
                // No wall-clock check of the epoch (miri has no real-time clock).
                .validate()
                .expect("a valid layout");
            let node = layout.node_in_place(5);
            for first in 1..12_u64 {
                for last in first..first + 14 {
                    let ids: Vec<u64> = IdBatch::new(layout, node, first, last)
                        .map(|id| id.to_u64())
                        .collect();
                    let want: Vec<u64> = (first..=last)
                        .map(|s| layout.id_of_state(s, node))
                        .collect();
                    assert_eq!(ids, want, "{order:?} {first}..={last}");
                    let mut cut = IdBatch::new(layout, node, first, last);
                    cut.next();
                    cut.keep_through_tick(first >> 2);
                    let rest: Vec<u64> = cut.map(|id| id.to_u64()).collect();
                    assert_eq!(rest, want[1..want.len().min(4 - (first as usize & 3))]);
                }
            }
        }
    }
}
