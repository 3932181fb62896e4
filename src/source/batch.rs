//! [`IdBatch`]: a run of consecutive IDs reserved with one atomic operation.

use core::iter::FusedIterator;

use crate::id::Id;
use crate::layout::Layout;

/// Consecutive IDs reserved at once by [`Generator::next_ids`](crate::Generator::next_ids)
/// (or a shard's), handed out in increasing order without touching shared memory again.
///
/// A batch holds consecutive `(tick, sequence)` pairs of one node: within a tick the IDs
/// differ by one sequence step, and a batch that spans ticks (within the generator's lead)
/// carries on at sequence 0 of the next tick. Iterating keeps one word per ID: the next ID,
/// compared with the end of its tick's run and moved on by the step;
/// [`write_to`](Self::write_to) writes whole runs into a slice.
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
    /// The next ID of the current run, while it is not `run_end`.
    id: u64,
    /// One step past the current run's last ID (wrapping): the run is `id`, `id + step`,
    /// ... up to it. A run is the batch's states in one tick.
    run_end: u64,
    /// One sequence step in an ID: the distance between consecutive IDs of a run.
    step: u64,
    /// The state after the current run's last (wrapping: 0 after `u64::MAX`).
    next: u64,
    /// States left after the current run, from `next` on.
    after: u64,
    layout: Layout,
    node_in_place: u64,
}

impl IdBatch {
    pub(crate) fn new(layout: Layout, node_in_place: u64, first: u64, last: u64) -> IdBatch {
        let mut batch = IdBatch {
            id: 0,
            run_end: 0,
            // Below 64: the time field (at least one bit) is above the sequence. Without
            // sequence bits every run is one ID long, and any step above 0 does.
            step: 1_u64
                .checked_shl(layout.sequence_shift().into())
                .unwrap_or(1),
            next: first,
            after: last - first + 1,
            layout,
            node_in_place,
        };
        batch.start_run();
        batch
    }

    /// Moves on to the run of the states from `next` to the end of its tick (or of the
    /// batch); there must be some.
    #[inline]
    fn start_run(&mut self) {
        let max_sequence = self.layout.max_sequence();
        // `max_sequence` is below u64::MAX (the time field has at least one bit): no overflow.
        let in_tick = max_sequence - (self.next & max_sequence) + 1;
        let len = in_tick.min(self.after);
        self.id = self.layout.id_of_state(self.next, self.node_in_place);
        // Below 2^64: at most 2^sequence_bits steps of 2^sequence_shift, which sum below 64.
        self.run_end = self.id.wrapping_add(len * self.step);
        // Wraps only past the last state, u64::MAX, when nothing is left after it.
        self.next = self.next.wrapping_add(len);
        self.after -= len;
    }

    /// IDs left in the current run.
    #[inline]
    fn run_len(&self) -> u64 {
        self.run_end.wrapping_sub(self.id) >> self.step.trailing_zeros()
    }

    /// Drops the IDs stamped later than `tick` (a fence's limit): the batch keeps its states
    /// up to the end of that tick.
    pub(crate) fn keep_through_tick(&mut self, tick: u64) {
        let s = self.layout.sequence_bits();
        // The current run's states lie in the tick of its last, the one before `next`.
        if self.run_len() > 0 && self.next.wrapping_sub(1) >> s > tick {
            self.run_end = self.id;
            self.after = 0;
            return;
        }
        let end = (u128::from(tick) + 1) << s;
        let room = end.saturating_sub(u128::from(self.next));
        self.after = self.after.min(u64::try_from(room).unwrap_or(u64::MAX));
    }

    /// The ID the batch would hand out last, if any.
    pub(crate) fn final_id(&self) -> Option<Id> {
        if self.after > 0 {
            let last = self.next + (self.after - 1);
            Some(Id::from_u64(
                self.layout.id_of_state(last, self.node_in_place),
            ))
        } else {
            (self.run_len() > 0).then(|| Id::from_u64(self.run_end.wrapping_sub(self.step)))
        }
    }

    /// Writes the batch's next IDs to the front of `out`, as many as both have
    /// (`min(self.len(), out.len())`), and returns how many: they leave the batch, as if
    /// iterated. Each tick's run is one loop of `id + i × step` stores, which the compiler
    /// vectorises.
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout};
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// let mut batch = gen.next_ids(10)?;
    /// let n = batch.len();
    /// let mut out = [Id::MIN; 4];
    /// let written = batch.write_to(&mut out);
    /// assert_eq!(written, n.min(4));
    /// assert_eq!(batch.len(), n - written);
    /// assert!(out[..written].windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_to(&mut self, out: &mut [Id]) -> usize {
        let mut written = 0;
        loop {
            let room = out.len() - written;
            let run = usize::try_from(self.run_len()).map_or(room, |run| run.min(room));
            write_run(&mut out[written..written + run], self.id, self.step);
            // `run` steps stay within the run: no overflow past `run_end`.
            self.id = self.id.wrapping_add(run as u64 * self.step);
            written += run;
            if written == out.len() || self.after == 0 {
                return written;
            }
            self.start_run();
        }
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
        // At most the states of one reservation: the sum fits u64.
        usize::try_from(self.run_len() + self.after).unwrap_or(usize::MAX)
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
        self.id == self.run_end && self.after == 0
    }
}

/// `out[i] = first + i × step`: one run of one tick. A plain loop over the slice with the ID
/// as its induction variable, which the compiler turns into vector adds and stores. Out of
/// line: inlined into [`IdBatch::write_to`], the same loop ran 15% slower (measured, 4,096
/// IDs per fill; the call costs one per tick).
#[inline(never)]
fn write_run(out: &mut [Id], first: u64, step: u64) {
    let mut id = first;
    for slot in out {
        *slot = Id::from_u64(id);
        // Wraps only after the top ID, u64::MAX, the run's last: never written.
        id = id.wrapping_add(step);
    }
}

impl Iterator for IdBatch {
    type Item = Id;

    #[inline]
    fn next(&mut self) -> Option<Id> {
        if self.id == self.run_end {
            if self.after == 0 {
                return None;
            }
            self.start_run();
        }
        let id = self.id;
        // Wraps only after the top ID, u64::MAX, to `run_end`: the run ends there.
        self.id = id.wrapping_add(self.step);
        Some(Id::from_u64(id))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.run_len() + self.after;
        (self.len(), usize::try_from(left).ok())
    }
}

impl ExactSizeIterator for IdBatch {}

impl FusedIterator for IdBatch {}

#[cfg(test)]
mod tests {
    use super::IdBatch;
    use crate::id::Id;
    use crate::layout::{Layout, Order};

    /// A batch whose last ID is the top one, `u64::MAX`: the step past it wraps to the run's
    /// end, and iterating, writing and `final_id` all stop there.
    #[test]
    fn a_batch_ending_at_the_top_id_stops_there() {
        for order in [Order::TimeNodeSequence, Order::TimeSequenceNode] {
            let layout = Layout::builder()
                .time_bits(2)
                .node_bits(2)
                .sequence_bits(60)
                .max_bits(64)
                .order(order)
                .validate()
                .expect("a valid layout");
            let node = layout.node_in_place(3);
            // The last 6 of the 2^62 states (2 time bits and 60 sequence bits).
            let last = u64::MAX >> 2;
            let first = last - 5;
            let want: Vec<u64> = (first..=last)
                .map(|s| layout.id_of_state(s, node))
                .collect();
            assert_eq!(*want.last().unwrap(), u64::MAX, "{order:?}");
            let batch = IdBatch::new(layout, node, first, last);
            assert_eq!(batch.final_id(), Some(Id::from_u64(u64::MAX)));
            let ids: Vec<u64> = batch.clone().map(|id| id.to_u64()).collect();
            assert_eq!(ids, want, "{order:?}");
            let mut out = vec![Id::MIN; want.len() + 3];
            let mut written = batch;
            assert_eq!(written.write_to(&mut out), want.len());
            assert!(written.is_empty() && written.next().is_none());
        }
    }

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
                    // Written into slices of every size, mixed with iteration: the same IDs.
                    for chunk in 1..6 {
                        let mut batch = IdBatch::new(layout, node, first, last);
                        let mut got = Vec::new();
                        loop {
                            let mut out = vec![Id::MIN; chunk];
                            let n = batch.write_to(&mut out);
                            assert_eq!(n, chunk.min(want.len() - got.len()));
                            got.extend(out[..n].iter().map(|id| id.to_u64()));
                            assert_eq!(batch.len(), want.len() - got.len());
                            match batch.next() {
                                Some(id) => got.push(id.to_u64()),
                                None => break,
                            }
                        }
                        assert_eq!(got, want, "{order:?} {first}..={last} in {chunk}s");
                    }
                }
            }
        }
    }
}
