//! The loops: one thread's part of a pass, timed or storing every ID, for single IDs,
//! batches and slice fills, and the helpers that run them on two threads. The one-ID loops
//! are generic over the ID's width ([`Source`]: 64-bit `Mint`s and the 128-bit sources of
//! `id128.rs` alike); batches and fills are 64-bit only.

use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use snowmint::source::{FillError, IdBatch};
use snowmint::{Id, MintError};

use crate::common::Mint;

use crate::{BATCH, TICK_PAUSE, WITHIN_TICK};

/// An ID as the loops and checks see it: `u64` (Snowflake IDs) or `u128` (UUIDv7, ULID).
pub(crate) trait Value:
    Copy + Ord + Default + std::fmt::Display + Send + std::ops::BitXor<Output = Self> + 'static
{
    /// The ID as 64 bits, for the cap's arithmetic, which only a 64-bit layout has.
    fn as_id64(self) -> Option<u64>;
}

impl Value for u64 {
    fn as_id64(self) -> Option<u64> {
        Some(self)
    }
}

impl Value for u128 {
    fn as_id64(self) -> Option<u64> {
        None
    }
}

/// Which loop a pass runs: the timed harness loop (each ID through `black_box`), the plain
/// accumulate loop (each ID XORed into an accumulator, `black_box` once at the end), or the
/// check pass (every ID stored, untimed).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pass {
    Timed,
    Plain,
    Stored,
}

/// One thread's part of a pass of `n` one-ID calls, in the loop `pass` names.
#[inline(always)]
pub(crate) fn ids<S: Source>(gen: S, n: u64, pass: Pass) -> Strand<S::Value> {
    match pass {
        Pass::Timed => timed_ids(gen, n),
        Pass::Plain => timed_plain(gen, n),
        Pass::Stored => stored_ids(gen, n),
    }
}

/// One call that mints one ID, as the timed and check loops make it. A shared `&M` of any
/// [`Mint`] is one (its `u64`s); the 128-bit sources implement it for `&G` (shared) or
/// `&mut S` (one owner). Implementations are `#[inline(always)]`, as [`Mint`]'s.
pub(crate) trait Source {
    type Value: Value;
    fn draw(&mut self) -> Self::Value;
}

impl<M: Mint + ?Sized> Source for &M {
    type Value = u64;
    #[inline(always)]
    fn draw(&mut self) -> u64 {
        self.mint()
    }
}

/// One thread's part of a pass.
pub(crate) struct Strand<V = u64> {
    pub(crate) elapsed: Duration,
    pub(crate) count: u64,
    pub(crate) first: V,
    pub(crate) last: V,
    /// Every ID, in order, in a check pass; empty in a timed pass.
    pub(crate) ids: Vec<V>,
}

/// The timed loop for one-ID calls. `inline(never)` keeps one copy per generator type (and
/// a symbol for `objdump`/callgrind: `tight::timed_ids::<...>`), with `mint` inlined into it.
#[inline(never)]
pub(crate) fn timed_ids<S: Source>(gen: S, n: u64) -> Strand<S::Value> {
    // The optimiser must not specialise the loop on which generator it is given.
    let mut gen = black_box(gen);
    let start = Instant::now();
    let first = black_box(gen.draw());
    let mut last = first;
    for _ in 1..n {
        // The ID escapes, as a user's would, so computing it cannot be skipped.
        last = black_box(gen.draw());
    }
    let elapsed = start.elapsed();
    Strand {
        elapsed,
        count: n,
        first,
        last,
        ids: Vec::new(),
    }
}

/// The plain loop a user writes: each ID XORed into an accumulator, which escapes once
/// after the loop (`tight::timed_plain::<...>` for `objdump`/callgrind). Nothing per ID but
/// the call and the XOR: no store, so a generator whose state the compiler can keep in
/// registers across calls shows it here.
#[inline(never)]
pub(crate) fn timed_plain<S: Source>(gen: S, n: u64) -> Strand<S::Value> {
    let mut gen = black_box(gen);
    let start = Instant::now();
    let first = gen.draw();
    let mut acc = first;
    let mut last = first;
    for _ in 1..n {
        last = gen.draw();
        acc = acc ^ last;
    }
    let elapsed = start.elapsed();
    black_box(acc);
    Strand {
        elapsed,
        count: n,
        first,
        last,
        ids: Vec::new(),
    }
}

/// The check loop: the same calls, every ID stored (untimed).
#[inline(never)]
pub(crate) fn stored_ids<S: Source>(mut gen: S, n: u64) -> Strand<S::Value> {
    let mut ids = Vec::with_capacity(usize::try_from(n).expect("fits memory"));
    let start = Instant::now();
    for _ in 0..n {
        ids.push(gen.draw());
    }
    strand_of(start.elapsed(), ids)
}

pub(crate) fn strand_of<V: Value>(elapsed: Duration, ids: Vec<V>) -> Strand<V> {
    Strand {
        elapsed,
        count: ids.len() as u64,
        first: ids.first().copied().unwrap_or_default(),
        last: ids.last().copied().unwrap_or_default(),
        ids,
    }
}

/// A source of batches: reserves up to `max` IDs and hands each to `sink` in order,
/// returning how many it handed.
pub(crate) trait MintBatch {
    fn mint_batch(&mut self, max: u64, sink: &mut impl FnMut(u64)) -> u64;
}

/// A snowmint batch call (`Generator::next_ids`, `OwnedShard::next_ids`, ...), iterated.
pub(crate) struct SnowmintBatch<F>(pub(crate) F);

impl<F: Fn(u64) -> Result<IdBatch, MintError>> MintBatch for SnowmintBatch<F> {
    #[inline]
    fn mint_batch(&mut self, max: u64, sink: &mut impl FnMut(u64)) -> u64 {
        let batch = match (self.0)(max) {
            Ok(batch) => batch,
            Err(e) => panic!("snowmint failed to mint a batch: {e}"),
        };
        let n = batch.len() as u64;
        for id in batch {
            sink(id.to_u64());
        }
        n
    }
}

/// snowflake_me's batch call into a reused buffer (its fastest form), iterated.
pub(crate) struct SnowflakeMeBatch {
    pub(crate) gen: snowflake_me::Snowflake,
    pub(crate) buf: Vec<snowflake_me::SnowflakeId>,
}

impl MintBatch for SnowflakeMeBatch {
    #[inline]
    fn mint_batch(&mut self, max: u64, sink: &mut impl FnMut(u64)) -> u64 {
        self.buf.clear();
        let n = usize::try_from(max).expect("batch fits memory");
        if let Err(e) = self.gen.next_ids_into(n, &mut self.buf) {
            panic!("snowflake_me failed to mint a batch: {e}");
        }
        for id in &self.buf {
            sink(id.as_u64());
        }
        self.buf.len() as u64
    }
}

/// The timed loop for batches: each ID of each batch passes through `black_box`.
#[inline(never)]
pub(crate) fn timed_batches<B: MintBatch>(b: &mut B, n: u64) -> Strand {
    let b = black_box(b);
    let start = Instant::now();
    let mut first = None;
    let mut last = 0;
    // The first batch also notes its first ID; the others only pass theirs on.
    let mut count = b.mint_batch(BATCH.min(n), &mut |id| {
        first.get_or_insert(id);
        last = black_box(id);
    });
    while count < n {
        count += b.mint_batch(BATCH.min(n - count), &mut |id| last = black_box(id));
    }
    let elapsed = start.elapsed();
    Strand {
        elapsed,
        count,
        first: first.unwrap_or(0),
        last,
        ids: Vec::new(),
    }
}

#[inline(never)]
pub(crate) fn stored_batches<B: MintBatch>(b: &mut B, n: u64) -> Strand {
    let mut ids = Vec::with_capacity(usize::try_from(n).expect("fits memory"));
    let start = Instant::now();
    while (ids.len() as u64) < n {
        let left = n - ids.len() as u64;
        b.mint_batch(BATCH.min(left), &mut |id| ids.push(id));
    }
    strand_of(start.elapsed(), ids)
}

/// A source that fills a buffer it owns, up to `max` IDs per call (the slice-fill cases).
/// Each call ends with the buffer passed to `black_box`, so its stores cannot be skipped.
pub(crate) trait FillBuf {
    /// Fills the buffer's first `max` slots (at most the batch size); returns how many.
    fn fill_buf(&mut self, max: usize) -> usize;
    /// ID `i` of the last fill.
    fn id_at(&self, i: usize) -> u64;
}

/// snowmint's `fill` (of any source) into a reused `[Id]` buffer.
pub(crate) struct SnowmintFill<F> {
    pub(crate) fill: F,
    pub(crate) buf: Vec<Id>,
}

impl<F: FnMut(&mut [Id]) -> Result<(), FillError<MintError>>> FillBuf for SnowmintFill<F> {
    #[inline]
    fn fill_buf(&mut self, max: usize) -> usize {
        if let Err(e) = (self.fill)(&mut self.buf[..max]) {
            panic!("snowmint failed to fill: {e}");
        }
        black_box(&mut self.buf);
        max
    }

    fn id_at(&self, i: usize) -> u64 {
        self.buf[i].to_u64()
    }
}

/// snowflake_me's `next_ids_into(4096, &mut buf)` into a reused buffer, nothing else.
pub(crate) struct SnowflakeMeFill {
    pub(crate) gen: snowflake_me::Snowflake,
    pub(crate) buf: Vec<snowflake_me::SnowflakeId>,
}

impl FillBuf for SnowflakeMeFill {
    #[inline]
    fn fill_buf(&mut self, max: usize) -> usize {
        self.buf.clear();
        if let Err(e) = self.gen.next_ids_into(max, &mut self.buf) {
            panic!("snowflake_me failed to mint a batch: {e}");
        }
        black_box(&mut self.buf);
        self.buf.len()
    }

    fn id_at(&self, i: usize) -> u64 {
        self.buf[i].as_u64()
    }
}

/// The baseline: a plain `out[i] = base + i` store loop over the same buffer length, the
/// memory's limit for a slice fill, in two spellings the compiler vectorises differently:
/// `base + i` from the index (`running: false`), or a value counted up by one per slot.
pub(crate) struct StoreLoop {
    pub(crate) base: u64,
    pub(crate) running: bool,
    pub(crate) buf: Vec<u64>,
}

impl FillBuf for StoreLoop {
    #[inline]
    fn fill_buf(&mut self, max: usize) -> usize {
        let out = &mut self.buf[..max];
        if self.running {
            store_running(out, self.base);
        } else {
            store_from_index(out, self.base);
        }
        self.base += max as u64;
        black_box(&mut self.buf);
        max
    }

    fn id_at(&self, i: usize) -> u64 {
        self.buf[i]
    }
}

/// `out[i] = base + i`, a value counted up by one per slot. Out of line, as snowmint's run
/// writer is, so that where the loop falls in the code (which changed its speed by up to 1.8×
/// on this machine kind) is a function's start, not wherever the caller's code ends.
// The running value is the spelling measured: clippy's `zip` form is another loop.
#[allow(clippy::explicit_counter_loop)]
#[inline(never)]
pub(crate) fn store_running(out: &mut [u64], base: u64) {
    let mut value = base;
    for slot in out {
        *slot = value;
        value += 1;
    }
}

/// `out[i] = base + i` from the index, out of line as [`store_running`].
#[inline(never)]
pub(crate) fn store_from_index(out: &mut [u64], base: u64) {
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = base + i as u64;
    }
}

/// The timed loop for slice fills: `n` IDs in fills of up to [`BATCH`], in stretches of
/// [`WITHIN_TICK`] IDs, each after an untimed [`TICK_PAUSE`]; the time is the stretches' sum.
/// No ID is looked at but the first and the last.
#[inline(never)]
pub(crate) fn timed_fills<F: FillBuf>(f: &mut F, n: u64) -> Strand {
    let f = black_box(f);
    let batch = BATCH as usize;
    let mut elapsed = Duration::ZERO;
    let (mut count, mut first, mut last) = (0, None, 0);
    while count < n {
        pause_a_tick();
        let stretch_end = (count + WITHIN_TICK).min(n);
        let start = Instant::now();
        let mut filled = f.fill_buf(batch.min((stretch_end - count) as usize));
        count += filled as u64;
        first = first.or(Some(f.id_at(0)));
        while count < stretch_end {
            filled = f.fill_buf(batch.min((stretch_end - count) as usize));
            count += filled as u64;
        }
        last = f.id_at(filled - 1);
        elapsed += start.elapsed();
    }
    Strand {
        elapsed,
        count,
        first: first.unwrap_or(0),
        last,
        ids: Vec::new(),
    }
}

/// Spins for [`TICK_PAUSE`] (a sleep could oversleep by far more, and would let the core idle
/// down). Out of line, so that an instruction count can leave it out by its name.
#[inline(never)]
pub(crate) fn pause_a_tick() {
    let start = Instant::now();
    while start.elapsed() < TICK_PAUSE {
        std::hint::spin_loop();
    }
}

#[inline(never)]
pub(crate) fn stored_fills<F: FillBuf>(f: &mut F, n: u64) -> Strand {
    let mut ids = Vec::with_capacity(usize::try_from(n).expect("fits memory"));
    let start = Instant::now();
    while (ids.len() as u64) < n {
        if (ids.len() as u64).is_multiple_of(WITHIN_TICK) {
            pause_a_tick();
        }
        let left = (n - ids.len() as u64).min(WITHIN_TICK - ids.len() as u64 % WITHIN_TICK);
        let filled = f.fill_buf((BATCH as usize).min(left as usize));
        ids.extend((0..filled).map(|i| f.id_at(i)));
    }
    strand_of(start.elapsed(), ids)
}

/// The floor: the loop and `black_box` with no minting.
#[inline(never)]
pub(crate) fn timed_floor(n: u64) -> Duration {
    let start = Instant::now();
    for i in 0..n {
        black_box(i);
    }
    start.elapsed()
}

/// How many of `total` IDs thread `i` of two mints.
pub(crate) fn share_of(total: u64, i: usize) -> u64 {
    total / 2 + u64::from(i == 0 && total % 2 == 1)
}

/// Runs `work(i)` on two threads started together at a barrier.
pub(crate) fn on_two_threads<V: Value, W: Fn(usize) -> Strand<V> + Sync>(
    work: W,
) -> Vec<Strand<V>> {
    let barrier = Barrier::new(2);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let (barrier, work) = (&barrier, &work);
                s.spawn(move || {
                    barrier.wait();
                    work(i)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("minting thread panicked"))
            .collect()
    })
}
