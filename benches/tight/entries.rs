//! Entries: one generator set up one way, with the passes it ran, its samples, and the
//! checks of its IDs (strictly increasing, no duplicate, how much of the cap a run used).

use std::collections::BTreeMap;
use std::sync::Barrier;
use std::time::Duration;

use snowmint::{Id, Layout};

use crate::common::Mint;

use crate::loops::{
    on_two_threads, share_of, stored_batches, stored_fills, stored_ids, timed_batches, timed_fills,
    timed_ids, FillBuf, MintBatch, Strand,
};

/// Runs one pass of `n` IDs: timed (`false`) or storing every ID (`true`).
pub(crate) type Runner = Box<dyn FnMut(u64, bool) -> Vec<Strand>>;

pub(crate) fn one_thread<M: Mint + 'static>(gen: M) -> Runner {
    Box::new(move |n, store| {
        vec![if store {
            stored_ids(&gen, n)
        } else {
            timed_ids(&gen, n)
        }]
    })
}

/// Two threads minting from ONE generator (for a `ShardedGenerator`: each on its
/// thread-local shard; the threads are new in every pass and take a shard on first use).
pub(crate) fn two_shared<M: Mint + Sync + 'static>(gen: M) -> Runner {
    Box::new(move |n, store| {
        let gen = &gen;
        on_two_threads(|i| {
            if store {
                stored_ids(gen, share_of(n, i))
            } else {
                timed_ids(gen, share_of(n, i))
            }
        })
    })
}

/// Two threads, each minting from a generator of its own.
pub(crate) fn two_own<M: Mint + Send + 'static>(mut gens: [M; 2]) -> Runner {
    Box::new(move |n, store| {
        let barrier = Barrier::new(2);
        std::thread::scope(|s| {
            let handles: Vec<_> = gens
                .iter_mut()
                .enumerate()
                .map(|(i, gen)| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        let gen: &M = gen;
                        barrier.wait();
                        if store {
                            stored_ids(gen, share_of(n, i))
                        } else {
                            timed_ids(gen, share_of(n, i))
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("minting thread panicked"))
                .collect()
        })
    })
}

pub(crate) fn batches<B: MintBatch + 'static>(mut b: B) -> Runner {
    Box::new(move |n, store| {
        vec![if store {
            stored_batches(&mut b, n)
        } else {
            timed_batches(&mut b, n)
        }]
    })
}

pub(crate) fn fills<F: FillBuf + 'static>(mut f: F) -> Runner {
    Box::new(move |n, store| {
        vec![if store {
            stored_fills(&mut f, n)
        } else {
            timed_fills(&mut f, n)
        }]
    })
}

/// One timed pass, summarised.
pub(crate) struct Sample {
    /// The slowest thread's time.
    pub(crate) elapsed: Duration,
    pub(crate) count: u64,
    /// The largest share of the cap any node used (see the module docs).
    pub(crate) cap_use: f64,
}

pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) layout: Layout,
    pub(crate) runner: Runner,
    pub(crate) samples: Vec<Sample>,
    /// The check pass's verdict: `Ok(ticks used up)` or what was wrong.
    pub(crate) check: Option<Result<u64, String>>,
    /// A baseline (no generator): never the best peer, no cap.
    pub(crate) baseline: bool,
}

impl Entry {
    pub(crate) fn new(name: impl Into<String>, layout: Layout, runner: Runner) -> Entry {
        Entry {
            name: name.into(),
            layout,
            runner,
            samples: Vec::new(),
            check: None,
            baseline: false,
        }
    }

    /// A baseline entry: shown and paired with snowmint, never the best peer.
    pub(crate) fn baseline(mut self) -> Entry {
        self.baseline = true;
        self
    }

    pub(crate) fn warm_up(&mut self, n: u64) {
        drop((self.runner)((n / 10).max(2), false));
    }

    pub(crate) fn timed(&mut self, n: u64) -> Result<(), String> {
        let strands = (self.runner)(n, false);
        let elapsed = strands.iter().map(|s| s.elapsed).max().unwrap_or_default();
        let count = strands.iter().map(|s| s.count).sum();
        for (i, s) in strands.iter().enumerate() {
            if s.count > 1 && s.last <= s.first {
                return Err(format!(
                    "thread {i}: last ID {} not above first {}",
                    s.last, s.first
                ));
            }
        }
        self.samples.push(Sample {
            elapsed,
            count,
            cap_use: cap_use(&self.layout, &strands),
        });
        Ok(())
    }

    pub(crate) fn check(&mut self, n: u64) {
        let strands = (self.runner)(n, true);
        self.check = Some(verify(&self.layout, &strands, n));
    }

    /// Nanoseconds per ID of each timed pass (for two threads: the pass's wall time over
    /// all IDs, i.e. the inverse of the throughput).
    pub(crate) fn ns_per_id(&self) -> Vec<f64> {
        self.samples
            .iter()
            .map(|s| s.elapsed.as_secs_f64() * 1e9 / s.count as f64)
            .collect()
    }

    pub(crate) fn max_cap_use(&self) -> f64 {
        self.samples.iter().map(|s| s.cap_use).fold(0.0, f64::max)
    }
}

/// The largest share of its capacity any node used in a pass: IDs minted on the node over
/// `ids_per_tick` times the ticks from its first ID's to its last ID's.
pub(crate) fn cap_use(layout: &Layout, strands: &[Strand]) -> f64 {
    // node -> (first tick, last tick, IDs)
    let mut nodes: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for s in strands.iter().filter(|s| s.count > 0) {
        let (a, b) = (
            layout.decode(Id::from_u64(s.first)),
            layout.decode(Id::from_u64(s.last)),
        );
        let e = nodes.entry(a.node()).or_insert((a.ticks(), b.ticks(), 0));
        e.0 = e.0.min(a.ticks());
        e.1 = e.1.max(b.ticks());
        e.2 += s.count;
    }
    nodes
        .values()
        .map(|&(t0, t1, ids)| ids as f64 / ((t1 - t0 + 1) * layout.ids_per_tick()) as f64)
        .fold(0.0, f64::max)
}

/// The check pass: every thread's IDs strictly increase, no ID appears twice across
/// threads, the count is right. Returns how many (node, tick) pairs were used up.
pub(crate) fn verify(layout: &Layout, strands: &[Strand], n: u64) -> Result<u64, String> {
    let minted: u64 = strands.iter().map(|s| s.ids.len() as u64).sum();
    if minted != n {
        return Err(format!("minted {minted} IDs, expected {n}"));
    }
    for (i, s) in strands.iter().enumerate() {
        if let Some(w) = s.ids.windows(2).find(|w| w[0] >= w[1]) {
            return Err(format!("thread {i}: ID {} followed by {}", w[0], w[1]));
        }
    }
    // Each list is sorted: merging them finds any ID two threads share.
    if let [a, b] = strands {
        let (mut i, mut j) = (0, 0);
        while i < a.ids.len() && j < b.ids.len() {
            match a.ids[i].cmp(&b.ids[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    return Err(format!("ID {} minted on both threads", a.ids[i]))
                }
            }
        }
    }
    let max_seq = layout.max_sequence();
    Ok(strands
        .iter()
        .flat_map(|s| &s.ids)
        .filter(|&&id| layout.decode(Id::from_u64(id)).sequence() == max_seq)
        .count() as u64)
}
