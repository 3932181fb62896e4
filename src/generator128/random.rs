//! The random bits of the 128-bit IDs: one `ChaCha8Rng` per thread, seeded from the OS.
//!
//! ChaCha8 (chacha20's `ChaCha8Rng`, a CSPRNG: the ChaCha stream cipher at 8 rounds, as in
//! `rand`'s own small RNG choices) computes its output four blocks at a time (AVX2 where the
//! CPU has it), with no lock and no system call per ID; the seed is 32 bytes from `getrandom`
//! when a thread first needs random bits. Per thread, because a shared RNG would be a second
//! contended word beside the generator's state. A UUID takes its bits from 32 draws made
//! ahead into plain thread-local cells (the RNG itself sits in a `RefCell` whose every use
//! checks its borrow and the thread-local's teardown); a ULID takes one draw per thread and
//! millisecond ([`bits_of_millisecond`]).
//!
//! After `fork()` the child's forking thread holds a copy of the parent's RNG, which would
//! draw the parent's next bits again. Each RNG remembers the process that seeded it, and
//! [`reseed_if_forked`] (called where a generator or shard is made, and by every fill)
//! seeds it again in a child, and drops the draws made ahead and the millisecond's bits:
//! one `getpid` there, none per ID.

use std::cell::{Cell, RefCell};
use std::hash::{BuildHasher, RandomState};

use chacha20::rand_core::{Rng, SeedableRng};
use chacha20::ChaCha8Rng;

std::thread_local! {
    static RNG: RefCell<Option<ChaCha8Rng>> = const { RefCell::new(None) };
    /// The process that seeded this thread's RNG (0: none yet).
    static SEEDED_IN: Cell<u32> = const { Cell::new(0) };
    /// This thread's draw for one Unix millisecond ([`bits_of_millisecond`]): the
    /// millisecond (`u64::MAX`: none) and its 64 bits.
    static MILLISECOND: Cell<(u64, u64)> = const { Cell::new((u64::MAX, 0)) };
    /// Draws made ahead from this thread's RNG, handed out by [`next_u64`]: the unused ones
    /// are `AHEAD[taken..]`.
    static AHEAD: [Cell<u64>; DRAWS_AHEAD] = const { [const { Cell::new(0) }; DRAWS_AHEAD] };
    static TAKEN: Cell<usize> = const { Cell::new(DRAWS_AHEAD) };
}

/// Draws made ahead at a time: half of the RNG's block buffer of 64 words.
const DRAWS_AHEAD: usize = 32;

/// Seeds this thread's RNG again if it was seeded in another process: this is a forked
/// child, whose RNG would repeat the parent's bits.
pub(crate) fn reseed_if_forked() {
    let here = std::process::id();
    let seeded_in = SEEDED_IN.try_with(|c| c.get()).unwrap_or(here);
    if seeded_in != 0 && seeded_in != here {
        let _ = MILLISECOND.try_with(|c| c.set((u64::MAX, 0)));
        let _ = TAKEN.try_with(|c| c.set(DRAWS_AHEAD));
        let _ = RNG.try_with(|cell| {
            if let Ok(mut slot) = cell.try_borrow_mut() {
                *slot = Some(seeded());
            }
        });
    }
}

/// Runs `f` on this thread's RNG (seeding it first if needed). During the thread's
/// teardown, or if `f` would re-enter, a freshly seeded RNG stands in; `f` runs once either
/// way.
#[inline]
pub(crate) fn with_rng<R>(mut f: impl FnMut(&mut ChaCha8Rng) -> R) -> R {
    let done = RNG.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        Some(f(slot.get_or_insert_with(seeded)))
    });
    match done {
        Ok(Some(r)) => r,
        _ => f(&mut seeded()),
    }
}

/// 64 random bits from this thread's RNG, drawn ahead in runs of [`DRAWS_AHEAD`] so that a
/// call is two thread-local loads and a store.
#[inline]
pub(crate) fn next_u64() -> u64 {
    let ahead = TAKEN.try_with(|taken| {
        let i = taken.get();
        if i < DRAWS_AHEAD {
            taken.set(i + 1);
            AHEAD.with(|ahead| ahead[i].get())
        } else {
            draw_ahead(taken)
        }
    });
    ahead.unwrap_or_else(|_| with_rng(|rng| rng.next_u64()))
}

/// Refills the draws ahead and takes the first.
#[cold]
#[inline(never)]
fn draw_ahead(taken: &Cell<usize>) -> u64 {
    AHEAD.with(|ahead| {
        // One bulk copy of the RNG's output (its block buffer, or blocks made straight into
        // `bytes`), not 32 calls that each test the buffer's index and join two words.
        let mut bytes = [0u8; DRAWS_AHEAD * 8];
        with_rng(|rng| rng.fill_bytes(&mut bytes));
        for (cell, chunk) in ahead.iter().zip(bytes.chunks_exact(8)) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            cell.set(u64::from_le_bytes(word));
        }
        taken.set(1);
        ahead[0].get()
    })
}

/// 64 random bits for the IDs of Unix millisecond `ms` minted on this thread: one draw
/// from this thread's RNG per millisecond, the same bits for every call within it (a ULID's
/// monotonic mode: within a millisecond an ID differs from its neighbours by its counter).
#[inline(always)]
pub(crate) fn bits_of_millisecond(ms: u64) -> u64 {
    MILLISECOND
        .try_with(|c| match c.get() {
            (seen, bits) if seen == ms => bits,
            _ => {
                let bits = next_u64();
                c.set((ms, bits));
                bits
            }
        })
        .unwrap_or_else(|_| next_u64())
}

/// An RNG seeded with 32 bytes from the OS (noting this process as its seeder); if the OS has none to give, from std's
/// per-process hash keys (themselves from the OS at start) mixed with the time and the
/// thread, so that minting never fails.
#[cold]
fn seeded() -> ChaCha8Rng {
    let mut seed = [0u8; 32];
    if getrandom::fill(&mut seed).is_err() {
        let keys = RandomState::new();
        let time = crate::clock::system_unix_nanos();
        let thread = std::thread::current().id();
        for (i, chunk) in seed.chunks_mut(8).enumerate() {
            chunk.copy_from_slice(&keys.hash_one((i, time, thread)).to_le_bytes());
        }
    }
    let _ = SEEDED_IN.try_with(|c| c.set(std::process::id()));
    ChaCha8Rng::from_seed(seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_draw_different_streams() {
        let here: Vec<u64> = (0..4).map(|_| next_u64()).collect();
        let there: Vec<u64> = std::thread::spawn(|| (0..4).map(|_| next_u64()).collect())
            .join()
            .unwrap();
        assert_ne!(here, there);
        assert_ne!(here[0], here[1]);
    }

    #[test]
    fn a_millisecond_keeps_its_bits_and_the_next_draws_afresh() {
        let a = bits_of_millisecond(7);
        assert_eq!(bits_of_millisecond(7), a);
        let b = bits_of_millisecond(8);
        assert_ne!(a, b);
        assert_ne!(
            bits_of_millisecond(7),
            a,
            "a millisecond seen again draws again"
        );
        let there = std::thread::spawn(|| bits_of_millisecond(8))
            .join()
            .unwrap();
        assert_ne!(there, b, "each thread draws its own");
    }
}
