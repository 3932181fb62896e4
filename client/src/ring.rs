//! [`Ring`]: the prefetch buffer, a bounded ring of IDs with one producer (the refill
//! thread) and any number of consumers, lock-free: a consumer takes an ID with two loads,
//! one load of the slot and one compare-and-swap.
//!
//! `head` and `tail` count IDs taken and IDs put since the start (never wrapping: 2^64
//! IDs); the slot of position `i` is `i & mask`. The producer writes a slot only when the
//! position it last held has been taken (`i < head + capacity`), so a consumer that read
//! slot `head` and then moved `head` on by its compare-and-swap read a value no one had
//! overwritten: an overwrite needs `head` past that position first, and then the
//! compare-and-swap fails.

use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

/// The buffer.
pub struct Ring {
    slots: Box<[AtomicU64]>,
    mask: u64,
    /// IDs that may be held at once (at most the slots' count).
    capacity: u64,
    /// Positions taken.
    head: CachePadded<AtomicU64>,
    /// Positions put.
    tail: CachePadded<AtomicU64>,
}

impl Ring {
    /// A ring holding up to `capacity` IDs (at least 1).
    pub fn new(capacity: usize) -> Ring {
        let slots = capacity.max(1).next_power_of_two();
        Ring {
            slots: (0..slots).map(|_| AtomicU64::new(0)).collect(),
            mask: slots as u64 - 1,
            capacity: capacity.max(1) as u64,
            head: CachePadded::new(AtomicU64::new(0)),
            tail: CachePadded::new(AtomicU64::new(0)),
        }
    }

    /// Takes the oldest ID, and how many are left after it; `None` when empty.
    #[inline]
    pub fn pop(&self) -> Option<(u64, u64)> {
        // Acquire: pairs with the consumers' Release compare-and-swap (nothing to see, but
        // it orders this load before the slot's).
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            // Acquire: pairs with `put`'s Release store, so the slots below it are written.
            let tail = self.tail.load(Ordering::Acquire);
            if head >= tail {
                return None;
            }
            // Relaxed: made visible by the Acquire load of `tail` above.
            let id = self.slots[(head & self.mask) as usize].load(Ordering::Relaxed);
            // AcqRel on success: Release orders the slot's read before the producer's
            // Acquire load of `head` that lets it overwrite the slot. Relaxed on failure:
            // only the new head is used, and the loop reloads `tail` with Acquire.
            match self.head.compare_exchange_weak(
                head,
                head + 1,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some((id, tail - head - 1)),
                Err(now) => head = now,
            }
        }
    }

    /// IDs held now (a snapshot).
    pub fn len(&self) -> u64 {
        // Acquire on both: a count for decisions, ordered as `pop` orders them; `head` first
        // so that the difference is never negative (`tail` only grows past it).
        let head = self.head.load(Ordering::Acquire);
        let tail = self.tail.load(Ordering::Acquire);
        tail.saturating_sub(head)
    }

    /// Room for this many more IDs now (the producer's view: only grows until `put`).
    pub fn room(&self) -> u64 {
        self.capacity - self.len()
    }

    /// Puts `ids` in order; only the one producer calls this. Returns how many went in (all
    /// of them when no more than [`room`](Self::room) were given).
    pub fn put(&self, ids: impl IntoIterator<Item = u64>) -> usize {
        // Relaxed: only this thread writes `tail`.
        let tail = self.tail.load(Ordering::Relaxed);
        // Acquire: pairs with the consumers' Release compare-and-swap, so their reads of
        // the slots about to be overwritten are done.
        let head = self.head.load(Ordering::Acquire);
        let room = self.capacity - (tail - head);
        let mut put = 0;
        for id in ids.into_iter().take(room as usize) {
            let at = tail + put as u64;
            // Relaxed: published by the Release store of `tail` below.
            self.slots[(at & self.mask) as usize].store(id, Ordering::Relaxed);
            put += 1;
        }
        // Release: the slots written above are visible to a consumer that sees this tail.
        self.tail.store(tail + put as u64, Ordering::Release);
        put
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;

    #[test]
    fn fifo_and_bounded() {
        let r = Ring::new(3);
        assert_eq!(r.pop(), None);
        assert_eq!(r.put([1, 2, 3, 4]), 3);
        assert_eq!(r.room(), 0);
        assert_eq!(r.pop(), Some((1, 2)));
        assert_eq!(r.put([5, 6]), 1);
        assert_eq!(r.pop(), Some((2, 2)));
        assert_eq!(r.pop(), Some((3, 1)));
        assert_eq!(r.pop(), Some((5, 0)));
        assert_eq!(r.pop(), None);
    }

    #[test]
    fn every_id_is_taken_once_by_racing_consumers() {
        let r = Arc::new(Ring::new(64));
        let total = 200_000u64;
        let consumers: Vec<_> = (0..3)
            .map(|_| {
                let r = Arc::clone(&r);
                std::thread::spawn(move || {
                    let mut got = Vec::new();
                    let mut idle = 0u64;
                    while idle < 50_000_000 {
                        match r.pop() {
                            Some((id, _)) => {
                                if id == u64::MAX {
                                    break;
                                }
                                got.push(id);
                                idle = 0;
                            }
                            None => {
                                idle += 1;
                                std::thread::yield_now();
                            }
                        }
                    }
                    got
                })
            })
            .collect();
        let mut next = 0u64;
        while next < total {
            let end = (next + 17).min(total);
            next += r.put(next..end) as u64;
            std::thread::yield_now();
        }
        let mut stops = 0;
        while stops < 3 {
            stops += r.put([u64::MAX]);
            std::thread::yield_now();
        }
        let mut seen = HashSet::new();
        for c in consumers {
            let got = c.join().unwrap();
            assert!(
                got.windows(2).all(|w| w[0] < w[1]),
                "each consumer sees the order"
            );
            for id in got {
                assert!(seen.insert(id), "{id} taken twice");
            }
        }
        assert_eq!(seen.len() as u64, total);
    }
}
