//! The 128-bit cases: snowmint's `Uuid7Generator` and `UlidGenerator` (shared, and their
//! shards) against the `uuid` crate's `Uuid::now_v7()`, `ulid`'s `Generator` and ferroid's
//! thread-local monotonic ULID, through the same paired-round driver and checks as the
//! 64-bit cases (each ID as its `u128`), plus the random bits' cost on their own and the
//! fills of 4,096, each ID iterated, against the same peers' single calls (none of them
//! has a batch call).

use std::cell::RefCell;
use std::hash::{BuildHasher, RandomState};

use chacha20::rand_core::{Rng, SeedableRng};
use chacha20::ChaCha8Rng;
use snowmint::shard::{UlidShard, Uuid7Shard};
use snowmint::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};

use crate::cases::{Case, Unit};
use crate::entries::{one_owner, one_thread, two_shared, Entry};
use crate::loops::{Pass, Source};

impl Source for &Uuid7Generator {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        self.next_uuid().to_u128()
    }
}

impl Source for &UlidGenerator {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        self.next_ulid().to_u128()
    }
}

impl Source for &mut Uuid7Shard<'static> {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        self.next_uuid().to_u128()
    }
}

impl Source for &mut UlidShard<'static> {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        self.next_ulid().to_u128()
    }
}

/// The IDs of one `fill` of a 4,096-slot buffer, handed out one per draw and refilled when
/// spent: the batch path, each ID iterated (as the 64-bit `1t-batch-*` cases).
pub(crate) struct Filled<G, T> {
    gen: G,
    buf: Vec<T>,
    next: usize,
}

/// Slots per fill: the 64-bit batch cases' 4,096.
const FILL: usize = 4096;

impl<G, T: Copy> Filled<G, T> {
    fn new(gen: G, empty: T) -> Filled<G, T> {
        Filled {
            gen,
            buf: vec![empty; FILL],
            next: FILL,
        }
    }

    #[inline(always)]
    fn draw_with(&mut self, fill: impl FnOnce(&G, &mut [T])) -> T {
        if self.next == FILL {
            fill(&self.gen, &mut self.buf);
            self.next = 0;
        }
        self.next += 1;
        self.buf[self.next - 1]
    }
}

impl Source for &mut Filled<Uuid7Generator, Uuid7> {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        self.draw_with(|gen, buf| gen.fill(buf)).to_u128()
    }
}

impl Source for &mut Filled<UlidGenerator, Ulid> {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        self.draw_with(|gen, buf| gen.fill(buf)).to_u128()
    }
}

/// `snowmint::Ulid::now()`: this thread's shard of the process-wide `UlidGenerator`.
pub(crate) struct UlidNow;

impl Source for &UlidNow {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        Ulid::now().to_u128()
    }
}

/// `snowmint::Uuid7::now()`: this thread's shard of the process-wide `Uuid7Generator`.
pub(crate) struct Uuid7Now;

impl Source for &Uuid7Now {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        Uuid7::now().to_u128()
    }
}

/// `uuid::Uuid::now_v7()`: the `uuid` crate's process-wide `ContextV7` (ordered across the
/// process), `SystemTime` read at every call.
pub(crate) struct UuidNowV7;

impl Source for &UuidNowV7 {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        uuid::Uuid::now_v7().as_u128()
    }
}

/// `ulid::Generator::generate`, one per thread (`&mut self`), monotonic; it fails when its
/// 80-bit random part would overflow within a millisecond, which 10 M calls never reach.
impl Source for &mut ulid::Generator {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        match self.generate() {
            Ok(id) => id.0,
            Err(_) => panic!("ulid's Generator overflowed its random part"),
        }
    }
}

/// ferroid's thread-local monotonic ULID (`thread_local::Ulid::new_ulid_mono`, strictly
/// increasing per thread; its non-monotonic `new_ulid` would fail the check pass's order).
pub(crate) struct FerroidThreadLocal;

impl Source for &FerroidThreadLocal {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        ferroid::generator::thread_local::Ulid::new_ulid_mono(|_| std::thread::yield_now()).to_raw()
    }
}

std::thread_local! {
    /// The bench's own per-thread ChaCha8 (the generators' RNG is private to the crate).
    static RNG: RefCell<ChaCha8Rng> = RefCell::new(ChaCha8Rng::from_seed(seed()));
}

/// A seed for the bench's RNG: what is measured is a draw, not the seed's quality.
fn seed() -> [u8; 32] {
    let keys = RandomState::new();
    let mut seed = [0u8; 32];
    for (i, chunk) in seed.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&keys.hash_one(i).to_le_bytes());
    }
    seed
}

/// The random bits alone: one `next_u64` of a thread-local `ChaCha8Rng` in a `RefCell`, as
/// the 128-bit generators draw them (one 64-bit draw per ID), above a counter so that the
/// check pass's order holds. A baseline: it mints no ID.
pub(crate) struct ChaChaDraw {
    count: u64,
}

impl Source for &mut ChaChaDraw {
    type Value = u128;
    #[inline(always)]
    fn draw(&mut self) -> u128 {
        self.count += 1;
        let random = RNG.with_borrow_mut(|rng| rng.next_u64());
        u128::from(self.count) << 64 | u128::from(random)
    }
}

fn chacha_draw() -> Entry {
    Entry::wide(
        "baseline: ChaCha8Rng::next_u64 (thread-local), the random bits alone",
        one_owner(ChaChaDraw { count: 0 }),
    )
    .baseline()
}

/// A generator that lives as long as the bench, so that its shard can be an entry's.
fn leaked<G>(gen: G) -> &'static G {
    Box::leak(Box::new(gen))
}

pub(crate) fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "1t-uuid7",
            pass: Pass::Timed,
            what: "Uuid7Generator::next_uuid, one thread",
            unit: Unit::NsPerId,
            layout: None,
            snowmint: Some(Entry::wide(
                "Uuid7Generator::next_uuid",
                one_thread(Uuid7Generator::new()),
            )),
            peers: vec![
                Entry::wide("uuid-now_v7", one_thread(UuidNowV7)),
                chacha_draw(),
            ],
        },
        Case {
            name: "1t-uuid7-local",
            pass: Pass::Timed,
            what: "Uuid7Shard::next_uuid (per-thread), one thread",
            unit: Unit::NsPerId,
            layout: None,
            snowmint: Some(Entry::wide(
                "Uuid7Shard::next_uuid",
                one_owner(leaked(Uuid7Generator::new()).shard()),
            )),
            peers: vec![
                Entry::wide(
                    "ferroid-thread_local::Ulid::new_ulid_mono",
                    one_thread(FerroidThreadLocal),
                ),
                Entry::wide("Uuid7::now (thread-local shard)", one_thread(Uuid7Now)).baseline(),
            ],
        },
        Case {
            name: "2t-uuid7",
            pass: Pass::Timed,
            what: "one Uuid7Generator, two threads",
            unit: Unit::MIdsPerSec,
            layout: None,
            snowmint: Some(Entry::wide(
                "Uuid7Generator::next_uuid",
                two_shared(Uuid7Generator::new()),
            )),
            peers: vec![Entry::wide("uuid-now_v7", two_shared(UuidNowV7))],
        },
        Case {
            name: "1t-ulid",
            pass: Pass::Timed,
            what: "UlidGenerator::next_ulid, one thread",
            unit: Unit::NsPerId,
            layout: None,
            snowmint: Some(Entry::wide(
                "UlidGenerator::next_ulid",
                one_thread(UlidGenerator::new()),
            )),
            peers: ulid_peers().into_iter().chain([chacha_draw()]).collect(),
        },
        Case {
            name: "1t-ulid-local",
            pass: Pass::Timed,
            what: "UlidShard::next_ulid (per-thread), one thread",
            unit: Unit::NsPerId,
            layout: None,
            snowmint: Some(Entry::wide(
                "UlidShard::next_ulid",
                one_owner(leaked(UlidGenerator::new()).shard()),
            )),
            peers: vec![
                Entry::wide(
                    "ferroid-thread_local::Ulid::new_ulid_mono",
                    one_thread(FerroidThreadLocal),
                ),
                Entry::wide("Ulid::now (thread-local shard)", one_thread(UlidNow)).baseline(),
            ],
        },
        Case {
            name: "2t-ulid",
            pass: Pass::Timed,
            what: "one UlidGenerator, two threads",
            unit: Unit::MIdsPerSec,
            layout: None,
            snowmint: Some(Entry::wide(
                "UlidGenerator::next_ulid",
                two_shared(UlidGenerator::new()),
            )),
            peers: vec![Entry::wide(
                "ferroid-thread_local::Ulid::new_ulid_mono (a generator per thread)",
                two_shared(FerroidThreadLocal),
            )],
        },
        Case {
            name: "1t-uuid7-fill",
            pass: Pass::Timed,
            what: "Uuid7Generator::fill(&mut [Uuid7; 4096]), each ID iterated, one thread",
            unit: Unit::NsPerId,
            layout: None,
            snowmint: Some(Entry::wide(
                "Uuid7Generator::fill, iterated",
                one_owner(Filled::new(Uuid7Generator::new(), Uuid7::MIN)),
            )),
            peers: vec![Entry::wide("uuid-now_v7", one_thread(UuidNowV7))],
        },
        Case {
            name: "1t-ulid-fill",
            pass: Pass::Timed,
            what: "UlidGenerator::fill(&mut [Ulid; 4096]), each ID iterated, one thread",
            unit: Unit::NsPerId,
            layout: None,
            snowmint: Some(Entry::wide(
                "UlidGenerator::fill, iterated",
                one_owner(Filled::new(UlidGenerator::new(), Ulid::MIN)),
            )),
            peers: ulid_peers(),
        },
    ]
}

/// The ULID peers: `ulid`'s generator, one per thread, and ferroid's thread-local one.
fn ulid_peers() -> Vec<Entry> {
    vec![
        Entry::wide(
            "ulid-Generator::generate",
            one_owner(ulid::Generator::new()),
        ),
        Entry::wide(
            "ferroid-thread_local::Ulid::new_ulid_mono",
            one_thread(FerroidThreadLocal),
        ),
    ]
}
