//! Entries: one generator set up one way, with the passes it ran, its samples, and the
//! checks of its IDs (strictly increasing, no duplicate, how much of the cap a run used).
//! One entry type for 64- and 128-bit IDs: the width is the runner's ([`Run`]), and only
//! a 64-bit layout has a cap.

use std::collections::BTreeMap;
use std::sync::Barrier;
use std::time::Duration;

use snowmint::{Id, Layout};

use crate::loops::{
    ids, on_two_threads, share_of, stored_batches, stored_fills, timed_batches, timed_fills,
    FillBuf, MintBatch, Pass, Source, Strand, Value,
};

/// Runs one pass of `n` IDs in the loop [`Pass`] names (batches and fills have no plain
/// loop: they run their timed one).
pub(crate) type Runner<V = u64> = Box<dyn FnMut(u64, Pass) -> Vec<Strand<V>>>;

/// One thread minting from `gen` (any `Mint`, or a 128-bit source shared by `&`).
pub(crate) fn one_thread<G: 'static, V: Value>(gen: G) -> Runner<V>
where
    for<'a> &'a G: Source<Value = V>,
{
    Box::new(move |n, pass| vec![ids(&gen, n, pass)])
}

/// One thread minting from a source it must own (`&mut`: a 128-bit shard, `ulid`'s
/// `Generator`).
pub(crate) fn one_owner<S: 'static, V: Value>(mut src: S) -> Runner<V>
where
    for<'a> &'a mut S: Source<Value = V>,
{
    Box::new(move |n, pass| vec![ids(&mut src, n, pass)])
}

/// Two threads minting from ONE generator (for a `ShardedGenerator`: each on its
/// thread-local shard; the threads are new in every pass and take a shard on first use).
pub(crate) fn two_shared<G: Sync + 'static, V: Value>(gen: G) -> Runner<V>
where
    for<'a> &'a G: Source<Value = V>,
{
    Box::new(move |n, pass| {
        let gen = &gen;
        on_two_threads(|i| ids(gen, share_of(n, i), pass))
    })
}

/// A generator on cache lines of its own (128 bytes: a line and the adjacent-line
/// prefetcher's pair), so that two threads' generators never share one.
#[repr(align(128))]
struct Padded<M>(M);

/// Two threads, each minting from a generator of its own, each generator on cache lines of
/// its own: side by side in one array they would share a line, and a peer whose state is
/// written per ID (ferroid's basic generator: a `Cell`) would pay for false sharing the
/// bench made, not its code.
pub(crate) fn two_own<M: Send + 'static, V: Value>(gens: [M; 2]) -> Runner<V>
where
    for<'a> &'a M: Source<Value = V>,
{
    let mut gens = gens.map(Padded);
    Box::new(move |n, pass| {
        let barrier = Barrier::new(2);
        std::thread::scope(|s| {
            let handles: Vec<_> = gens
                .iter_mut()
                .enumerate()
                .map(|(i, gen)| {
                    let barrier = &barrier;
                    s.spawn(move || {
                        let gen: &M = &gen.0;
                        barrier.wait();
                        ids(gen, share_of(n, i), pass)
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
    Box::new(move |n, pass| {
        vec![if pass == Pass::Stored {
            stored_batches(&mut b, n)
        } else {
            timed_batches(&mut b, n)
        }]
    })
}

pub(crate) fn fills<F: FillBuf + 'static>(mut f: F) -> Runner {
    Box::new(move |n, pass| {
        vec![if pass == Pass::Stored {
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

/// An entry's passes, whatever its IDs' width: the one interface the paired-round driver
/// (`main.rs`) and the report see.
pub(crate) trait Passes {
    /// One timed pass (`Pass::Timed` or `Pass::Plain`), or what was wrong with its first
    /// and last IDs.
    fn timed(&mut self, n: u64, pass: Pass) -> Result<Sample, String>;
    /// The check pass: `Ok(ticks used up)` or what was wrong.
    fn check(&mut self, n: u64) -> Result<u64, String>;
}

/// A runner of `V`s and the 64-bit layout its IDs are in (`None`: 128-bit IDs, no cap).
pub(crate) struct Run<V> {
    pub(crate) runner: Runner<V>,
    pub(crate) layout: Option<Layout>,
}

impl<V: Value> Passes for Run<V> {
    fn timed(&mut self, n: u64, pass: Pass) -> Result<Sample, String> {
        let strands = (self.runner)(n, pass);
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
        Ok(Sample {
            elapsed,
            count,
            cap_use: self.layout.map_or(0.0, |l| cap_use(&l, &strands)),
        })
    }

    fn check(&mut self, n: u64) -> Result<u64, String> {
        let strands = (self.runner)(n, Pass::Stored);
        verify(self.layout.as_ref(), &strands, n)
    }
}

pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) passes: Box<dyn Passes>,
    /// Whether its IDs are in a 64-bit layout, which has a cap (128-bit IDs have none here).
    pub(crate) has_layout: bool,
    pub(crate) samples: Vec<Sample>,
    /// The check pass's verdict: `Ok(ticks used up)` or what was wrong.
    pub(crate) check: Option<Result<u64, String>>,
    /// A baseline (no generator): never the best peer, no cap.
    pub(crate) baseline: bool,
}

impl Entry {
    /// A 64-bit entry in `layout`.
    pub(crate) fn new(name: impl Into<String>, layout: Layout, runner: Runner) -> Entry {
        Entry::of(name, Some(layout), runner)
    }

    /// A 128-bit entry (UUIDv7, ULID): checked the same way, no cap.
    pub(crate) fn wide(name: impl Into<String>, runner: Runner<u128>) -> Entry {
        Entry::of(name, None, runner)
    }

    fn of<V: Value>(name: impl Into<String>, layout: Option<Layout>, runner: Runner<V>) -> Entry {
        Entry {
            name: name.into(),
            has_layout: layout.is_some(),
            passes: Box::new(Run { runner, layout }),
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

    pub(crate) fn warm_up(&mut self, n: u64, pass: Pass) {
        // A warm-up's IDs are not checked; only its side effects count.
        let _ = self.passes.timed((n / 10).max(2), pass);
    }

    pub(crate) fn timed(&mut self, n: u64, pass: Pass) -> Result<(), String> {
        let sample = self.passes.timed(n, pass)?;
        self.samples.push(sample);
        Ok(())
    }

    pub(crate) fn check(&mut self, n: u64) {
        self.check = Some(self.passes.check(n));
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
pub(crate) fn cap_use<V: Value>(layout: &Layout, strands: &[Strand<V>]) -> f64 {
    // node -> (first tick, last tick, IDs)
    let mut nodes: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for s in strands.iter().filter(|s| s.count > 0) {
        let (Some(first), Some(last)) = (s.first.as_id64(), s.last.as_id64()) else {
            continue;
        };
        let (a, b) = (
            layout.decode(Id::from_u64(first)),
            layout.decode(Id::from_u64(last)),
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
/// threads, the count is right. Returns how many (node, tick) pairs were used up (none
/// without a layout).
pub(crate) fn verify<V: Value>(
    layout: Option<&Layout>,
    strands: &[Strand<V>],
    n: u64,
) -> Result<u64, String> {
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
    let Some(layout) = layout else {
        return Ok(0);
    };
    let max_seq = layout.max_sequence();
    Ok(strands
        .iter()
        .flat_map(|s| &s.ids)
        .filter_map(|id| id.as_id64())
        .filter(|&id| layout.decode(Id::from_u64(id)).sequence() == max_seq)
        .count() as u64)
}
