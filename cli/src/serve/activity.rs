//! What the status page and the sampled gauges show, kept off the minting path: IDs served
//! (one addition per request), the fullest tick seen (one `fetch_max` per reservation), and
//! a ring of per-second counts sampled once a second by a task of its own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use snowmint::Layout;

use super::App;

/// Seconds of history the ring keeps: the status page's chart spans them.
pub const SECONDS: usize = 300;

/// The service's own counters and the per-second history.
pub struct Activity {
    /// IDs handed out, in all.
    served: AtomicU64,
    /// The highest sequence number (plus one) a reservation reached since the last sample:
    /// how full the fullest tick got.
    fullest: AtomicU64,
    ring: Mutex<Ring>,
}

/// IDs served in each of the last [`SECONDS`] seconds, oldest first once full.
struct Ring {
    counts: [u64; SECONDS],
    /// The next slot to write.
    next: usize,
    /// Slots written so far, at most [`SECONDS`].
    filled: usize,
    /// `served` at the previous sample.
    last_total: u64,
}

impl Activity {
    /// Nothing served yet.
    pub fn new() -> Activity {
        Activity {
            served: AtomicU64::new(0),
            fullest: AtomicU64::new(0),
            ring: Mutex::new(Ring {
                counts: [0; SECONDS],
                next: 0,
                filled: 0,
                last_total: 0,
            }),
        }
    }

    /// A request handed out `n` IDs.
    pub fn served(&self, n: u64) {
        // Relaxed: a lone counter; the sampler reads a total, ordered with nothing else.
        self.served.fetch_add(n, Ordering::Relaxed);
    }

    /// A reservation's last ID was `last`: its tick is at least that full.
    pub fn reached(&self, layout: &Layout, last: u64) {
        let used = layout.decode(snowmint::Id::from_u64(last)).sequence() + 1;
        // Relaxed: a lone maximum, swapped out by the sampler; no other memory depends on it.
        self.fullest.fetch_max(used, Ordering::Relaxed);
    }

    /// The fullest tick since the previous call, as a share of the layout's IDs per tick
    /// (0 to 1), and starts a new period.
    pub fn take_fullest(&self, layout: &Layout) -> f64 {
        // Relaxed: as in `reached`.
        let used = self.fullest.swap(0, Ordering::Relaxed);
        used as f64 / layout.ids_per_tick() as f64
    }

    /// IDs handed out, in all.
    pub fn total(&self) -> u64 {
        // Relaxed: as in `served`.
        self.served.load(Ordering::Relaxed)
    }

    /// One second passed: appends the IDs served since the previous sample.
    pub fn sample(&self) {
        let total = self.total();
        let mut ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let delta = total.saturating_sub(ring.last_total);
        ring.last_total = total;
        let next = ring.next;
        ring.counts[next] = delta;
        ring.next = (next + 1) % SECONDS;
        ring.filled = (ring.filled + 1).min(SECONDS);
    }

    /// The per-second counts sampled so far, oldest first (at most [`SECONDS`]).
    pub fn history(&self) -> Vec<u64> {
        let ring = self.ring.lock().unwrap_or_else(PoisonError::into_inner);
        let start = (ring.next + SECONDS - ring.filled) % SECONDS;
        (0..ring.filled)
            .map(|i| ring.counts[(start + i) % SECONDS])
            .collect()
    }
}

/// Samples `app`'s activity once a second, until aborted, and brings the sampled gauges
/// (the fullest tick, the layout's time left) up to date.
pub fn spawn_sampler(app: Arc<App>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(1));
        // The first tick is immediate: start the ring a second from now.
        every.tick().await;
        loop {
            every.tick().await;
            app.activity.sample();
            let layout = &app.layout;
            app.metrics
                .sampled(layout, app.activity.take_fullest(layout));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_last_seconds_in_order() {
        let a = Activity::new();
        assert!(a.history().is_empty());
        for second in 0..(SECONDS as u64 + 5) {
            a.served(second);
            a.sample();
        }
        let h = a.history();
        assert_eq!(h.len(), SECONDS);
        assert_eq!(h[0], 5);
        assert_eq!(*h.last().unwrap(), SECONDS as u64 + 4);
        assert!(h.windows(2).all(|w| w[1] == w[0] + 1));
    }

    #[test]
    fn the_fullest_tick_is_a_share_of_the_tick() {
        let a = Activity::new();
        let l = Layout::TWITTER;
        let id = |seq: u64| {
            l.compose(
                5,
                snowmint::Parts {
                    node: 1,
                    sequence: seq,
                },
            )
            .unwrap()
            .to_u64()
        };
        a.reached(&l, id(1_023));
        a.reached(&l, id(10));
        assert_eq!(a.take_fullest(&l), 0.25);
        assert_eq!(a.take_fullest(&l), 0.0);
    }
}
