//! Defects found at the seams of the minting paths, each pinned by the test that showed it.
//! The letters are those of the review that found them (issue "One minting core…", item 4).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use snowmint::clock::{Clock, ManualClock, Rollback};
use snowmint::{Generator, Id, IdSource, Layout, MintError, ShardedGenerator};

const NOW_MS: u64 = 1_700_000_000_000;

fn frozen() -> ManualClock {
    ManualClock::at_unix_millis(NOW_MS)
}

/// (a) A sharded generator restarted with `start_after(id)` in a time|node|sequence layout
/// put every shard at the saved ID's (tick, sequence): a shard that had reached a higher
/// sequence in that tick repeated its IDs. Now every shard resumes past the saved tick, and
/// the generator reports the restart point itself.
#[test]
fn a_sharded_restart_repeats_no_id_of_any_shard() {
    let clock = frozen();
    let before = ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(2)
        .clock(clock.clone())
        .build()
        .unwrap();
    // Shard 0 (this thread) reaches sequence 9; shard 1 (a lease) issues sequence 0 only.
    let mut issued: Vec<Id> = (0..10).map(|_| before.next_id().unwrap()).collect();
    let lease = before.own_shard().unwrap();
    let saved = lease.next_id().unwrap();
    issued.push(saved);
    drop(lease);
    let resume = before.last_id().expect("something was issued");
    assert!(
        issued.iter().all(|&id| id <= resume),
        "the restart point covers every shard"
    );
    drop(before);

    // Restarted within the same millisecond (the clock has not moved: one tick of lead lets
    // the restarted shards mint at once), from the ID the application saved (shard 1's), and
    // from the reported point.
    for after in [saved, resume] {
        let again = ShardedGenerator::builder(Layout::TWITTER)
            .shard_bits(2)
            .lead_ticks(1)
            .clock(clock.clone())
            .start_after(after)
            .build()
            .unwrap();
        let lease = again.own_shard().unwrap();
        let fresh: Vec<Id> = (0..10)
            .map(|_| again.next_id().unwrap())
            .chain((0..10).map(|_| lease.next_id().unwrap()))
            .collect();
        for id in &fresh {
            assert!(!issued.contains(id), "{id} was issued before the restart");
            assert!(*id > after, "{id} is not after the restart point {after}");
        }
    }
}

/// (b) A 64-bit layout with no node bits whose state reaches `u64::MAX` overflowed
/// `current + 1` in the same-tick shortcut (a panic in debug builds) instead of returning
/// `Expired`.
#[test]
fn a_full_64_bit_state_expires_instead_of_overflowing() {
    let layout = Layout::builder()
        .max_bits(64)
        .time_bits(40)
        .node_bits(0)
        .sequence_bits(24)
        .epoch_unix_millis(0)
        .unit(Duration::from_millis(1))
        .build()
        .unwrap();
    // The clock in the last tick, the state at its last sequence number.
    let last_tick_ms = layout.max_ticks();
    let clock = ManualClock::at_unix_millis(last_tick_ms);
    let gen = Generator::builder(layout)
        .clock(clock.clone())
        .start_after(Id::MAX)
        .build()
        .unwrap();
    for _ in 0..3 {
        assert!(matches!(gen.try_next_id(), Err(MintError::Expired { .. })));
        assert!(matches!(gen.next_id(), Err(MintError::Expired { .. })));
    }
    // Minting up to the end: the last IDs come out, then Expired, never a wrap.
    let gen = Generator::builder(layout)
        .clock(clock)
        .start_after(Id::from_u64(u64::MAX - 3))
        .build()
        .unwrap();
    let tail: Vec<u64> = (0..3).map(|_| gen.next_id().unwrap().to_u64()).collect();
    assert_eq!(tail, [u64::MAX - 2, u64::MAX - 1, u64::MAX]);
    assert!(matches!(gen.next_id(), Err(MintError::Expired { .. })));
}

/// A clock whose cheap reading lags its exact one by `lag`, as a ticker's reading does.
#[derive(Debug, Clone)]
struct Lagging {
    exact: ManualClock,
    lag: Arc<AtomicU64>,
}

impl Clock for Lagging {
    fn now_unix_nanos(&self) -> u64 {
        self.exact.now_unix_nanos()
    }

    fn recent_unix_nanos(&self) -> u64 {
        self.exact.now_unix_nanos() - self.lag.load(Ordering::Relaxed)
    }
}

/// (c) With an epoch of "now", the cheap reading can lie before the epoch while the exact
/// one is past it: the error came without reading the exact clock.
#[test]
fn a_lagging_cheap_reading_before_the_epoch_is_checked_against_the_exact_clock() {
    let epoch_ms = NOW_MS;
    let layout = Layout::builder().epoch_unix_millis(epoch_ms).build_const();
    let clock = Lagging {
        exact: ManualClock::at_unix_millis(epoch_ms + 1),
        lag: Arc::new(AtomicU64::new(3_000_000)), // the cheap reading: 2 ms before the epoch
    };
    let gen = Generator::builder(layout)
        .clock(clock.clone())
        .build()
        .unwrap();
    let id = gen
        .try_next_id()
        .expect("the exact clock is past the epoch");
    assert_eq!(layout.decode(id).unix_millis(), epoch_ms + 1);
    let sharded = ShardedGenerator::builder(layout)
        .clock(clock.clone())
        .build()
        .unwrap();
    assert!(sharded.next_id().is_ok());
    // Truly before the epoch, both readings, by more than `Rollback::TOLERANCE` (within it,
    // a reading is the epoch's first tick): the error names it.
    clock.exact.set_unix_nanos((epoch_ms - 3) * 1_000_000);
    let fresh = Generator::builder(layout).clock(clock).build().unwrap();
    assert!(matches!(
        fresh.next_id(),
        Err(MintError::Layout(
            snowmint::LayoutError::TimeBeforeEpoch { .. }
        ))
    ));
}

/// (e) With a 1 ns unit, readings that lag by a few microseconds (another core's TSC, the
/// cheap reading) were reported as `ClockBehind` although no clock stepped back.
#[test]
fn a_lag_of_microseconds_is_not_reported_as_a_step_back() {
    let layout = Layout::builder()
        .unit(Duration::from_nanos(1))
        .time_bits(51)
        .node_bits(0)
        .sequence_bits(12)
        .epoch_unix_millis(NOW_MS - 1_000)
        .build()
        .unwrap();
    let exact = frozen();
    let clock = Lagging {
        exact: exact.clone(),
        lag: Arc::new(AtomicU64::new(0)),
    };
    for policy in [Rollback::Wait, Rollback::Continue] {
        let gen = Generator::builder(layout)
            .clock(clock.clone())
            .on_rollback(policy)
            .build()
            .unwrap();
        // Fill the current tick (4,096 IDs at this nanosecond), then read 5 µs behind it.
        while gen.try_next_id().is_ok() {}
        exact.rewind(Duration::from_micros(5));
        clock.lag.store(300_000, Ordering::Relaxed);
        match gen.try_next_id() {
            Err(MintError::Exhausted { retry_after }) => {
                assert_eq!(retry_after, Duration::from_nanos(5_001))
            }
            other => panic!("{policy:?}: a 5 µs lag is a wait, not a step back: {other:?}"),
        }
        // A real step back, beyond the tolerance, is still reported as one.
        exact.rewind(Rollback::TOLERANCE * 2);
        assert!(matches!(
            gen.try_next_id(),
            Err(MintError::ClockBehind { .. })
        ));
        exact.set_unix_nanos(NOW_MS * 1_000_000);
        clock.lag.store(0, Ordering::Relaxed);
    }
}

/// A clock whose exact reading mints one ID from the sharded generator it drives, on the
/// same thread (a clock that logs through an ID-stamped sink, say).
#[derive(Debug, Clone)]
struct Reentrant {
    time: ManualClock,
    gen: Arc<OnceLock<Weak<ShardedGenerator<Reentrant>>>>,
    inner_ids: Arc<Mutex<Vec<Id>>>,
}

thread_local! {
    static INSIDE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Clock for Reentrant {
    fn now_unix_nanos(&self) -> u64 {
        if !INSIDE.with(|i| i.replace(true)) {
            if let Some(gen) = self.gen.get().and_then(Weak::upgrade) {
                if let Ok(id) = gen.try_next_id() {
                    self.inner_ids.lock().unwrap().push(id);
                }
            }
            INSIDE.with(|i| i.set(false));
        }
        self.time.now_unix_nanos()
    }
}

/// (f) A clock whose exact reading minted from the same `ShardedGenerator` on the same thread
/// made the outer call overwrite the inner one's state: 2,001 IDs, 2,000 distinct.
#[test]
fn a_clock_that_mints_from_its_own_shard_repeats_nothing() {
    let clock = Reentrant {
        time: frozen(),
        gen: Arc::new(OnceLock::new()),
        inner_ids: Arc::new(Mutex::new(Vec::new())),
    };
    // 64 IDs per tick: the exact clock is read often (exhaustion, every new tick).
    let layout = Layout::builder()
        .node_bits(4)
        .sequence_bits(6)
        .build_const();
    let gen = Arc::new(
        ShardedGenerator::builder(layout)
            .shard_bits(2)
            .clock(clock.clone())
            .build()
            .unwrap(),
    );
    clock.gen.set(Arc::downgrade(&gen)).unwrap();
    let mut all = Vec::new();
    for i in 0..2_000 {
        if i % 16 == 15 {
            clock.time.advance(Duration::from_millis(1));
        }
        all.push(gen.next_id().unwrap());
        if i % 97 == 0 {
            all.extend(gen.try_next_ids(3).unwrap());
        }
    }
    let inner = clock.inner_ids.lock().unwrap().clone();
    assert!(
        !inner.is_empty(),
        "the clock never minted: the test checks nothing"
    );
    all.extend(inner);
    let distinct: HashSet<Id> = all.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        all.len(),
        "{} IDs, {} distinct",
        all.len(),
        distinct.len()
    );
}

/// The trait's promises hold through every implementor, including a fenced sharded one.
#[test]
fn every_source_keeps_its_promises_through_the_trait() {
    fn mint_increasing<S: IdSource>(source: &S, n: usize) -> Vec<Id> {
        let ids: Vec<Id> = (0..n)
            .map(|_| source.next_id().unwrap_or_else(|e| panic!("{e}")))
            .collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let batch: Vec<Id> = source
            .next_ids(10)
            .unwrap_or_else(|e| panic!("{e}"))
            .collect();
        assert!(batch.first() > ids.last());
        assert!(source.last_id() >= batch.last().copied());
        // Every other call of the trait reaches the implementor's own.
        let a = source.try_next_id().unwrap_or_else(|e| panic!("{e}"));
        let b = source
            .next_id_timeout(Duration::from_millis(5))
            .unwrap_or_else(|e| panic!("{e}"));
        let c: Vec<Id> = source
            .try_next_ids(3)
            .unwrap_or_else(|e| panic!("{e}"))
            .collect();
        assert!(batch.last() < Some(&a) && a < b && Some(&b) < c.first() && c.len() == 3);
        assert_eq!(*source.layout(), Layout::TWITTER);
        assert_eq!(source.clock().now_unix_nanos(), NOW_MS * 1_000_000);
        assert_eq!(source.max_wait(), Duration::from_secs(1), "the default");
        ids
    }
    let gen = Generator::builder(Layout::TWITTER)
        .node(1)
        .clock(frozen())
        .build()
        .unwrap();
    mint_increasing(&gen, 100);
    let sharded = ShardedGenerator::builder(Layout::TWITTER)
        .node(2)
        .clock(frozen())
        .build()
        .unwrap();
    mint_increasing(&sharded, 100);
    let lease = sharded.own_shard().unwrap();
    mint_increasing(&lease, 100);
    mint_increasing(&Arc::new(gen), 10);

    /// Grants a window far ahead of every renewal.
    struct Generous;
    impl snowmint::fence::Keeper for Generous {
        fn renew(&mut self, now_unix_nanos: u64) -> snowmint::fence::Renewal {
            snowmint::fence::Renewal::Held {
                limit_unix_millis: now_unix_nanos / 1_000_000 + 60_000,
                valid_until_nanos: u64::MAX,
                floor_unix_millis: None,
            }
        }
        fn release(&mut self, _last_unix_millis: Option<u64>) {}
        fn period(&self, _ok: bool) -> Duration {
            Duration::from_secs(3_600)
        }
    }
    let fenced_gen = Generator::builder(Layout::TWITTER)
        .node(3)
        .clock(frozen())
        .build()
        .unwrap();
    let fenced = snowmint::fence::Fenced::start_manual(fenced_gen, 3, Generous).unwrap();
    mint_increasing(&fenced, 100);
    assert!(!fenced.is_fenced() && !fenced.is_lost());
    assert_eq!(fenced.limit_unix_millis(), Some(NOW_MS + 60_000));
}

/// A clock whose exact reading comes back late once, as a thread's does when it is preempted
/// between reading the clock and its CAS: when armed, the next `now_unix_nanos` takes its
/// reading, lets another thread run `meanwhile` (move the clock on and mint), and only then
/// returns the reading it took. Every exact reading is 100 µs after the one before: a clock
/// that runs, so that a wait for the next tick ends.
#[derive(Clone)]
struct LateOnce {
    time: ManualClock,
    meanwhile: Arc<Mutex<Option<Meanwhile>>>,
}

/// What another thread does while a [`LateOnce`] reading is late.
type Meanwhile = Box<dyn FnOnce() + Send>;

impl LateOnce {
    fn arm(&self, meanwhile: impl FnOnce() + Send + 'static) {
        *self.meanwhile.lock().unwrap() = Some(Box::new(meanwhile));
    }
}

impl Clock for LateOnce {
    fn now_unix_nanos(&self) -> u64 {
        let reading = self.time.now_unix_nanos();
        self.time.advance(Duration::from_micros(100));
        let meanwhile = self.meanwhile.lock().unwrap().take();
        if let Some(meanwhile) = meanwhile {
            std::thread::scope(|s| s.spawn(meanwhile).join().unwrap());
        }
        reading
    }

    fn recent_unix_nanos(&self) -> u64 {
        self.time.now_unix_nanos()
    }
}

/// A thread whose exact reading was taken before another thread moved the state 7 ms on
/// lost its CAS and decided on that stale reading: `ClockBehind` (7 to 8 ms, past a 5 ms
/// `max_wait`) although no clock stepped back. Under `Wait` the other thread minted a few IDs
/// 7 ms later; under `Continue` it filled that tick, so the call must wait for the next one
/// (`try_next_id`, which never waits, says `Exhausted`). A wait or a refusal is now decided
/// on a reading taken after the state it is compared with.
#[test]
fn a_late_exact_reading_after_a_lost_cas_is_not_a_clock_behind() {
    for blocking in [true, false] {
        for (policy, others) in [(Rollback::Wait, 3), (Rollback::Continue, 1 << 12)] {
            let clock = LateOnce {
                time: frozen(),
                meanwhile: Arc::new(Mutex::new(None)),
            };
            let gen = Arc::new(
                Generator::builder(Layout::TWITTER)
                    .clock(clock.clone())
                    .on_rollback(policy)
                    .max_wait(Duration::from_millis(5))
                    .build()
                    .unwrap(),
            );
            let first = gen.next_id().unwrap();
            // The next state (a tick's second) reads the exact clock: that reading comes late.
            let (other, time) = (Arc::downgrade(&gen), clock.time.clone());
            let theirs = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&theirs);
            clock.arm(move || {
                time.advance(Duration::from_millis(7));
                let gen = other.upgrade().unwrap();
                sink.lock()
                    .unwrap()
                    .extend(gen.try_next_ids(others).unwrap());
            });
            let case = format!("{policy:?}, blocking {blocking}");
            let got = if blocking {
                gen.next_id()
            } else {
                gen.try_next_id()
            };
            let theirs = theirs.lock().unwrap();
            assert_eq!(theirs.len() as u64, others, "the other thread minted");
            let ms = |id| Layout::TWITTER.decode(id).unix_millis();
            assert!(ms(theirs[0]) >= NOW_MS + 7, "{case}: they minted 7 ms on");
            if policy == Rollback::Continue && !blocking {
                match got {
                    Err(MintError::Exhausted { retry_after }) => {
                        assert!(retry_after <= Duration::from_millis(1), "{case}")
                    }
                    other => panic!("{case}: their tick is full, yet {other:?}"),
                }
                continue;
            }
            let id = got.unwrap_or_else(|e| panic!("{case}: no clock stepped back, yet {e}"));
            assert!(theirs.iter().all(|&t| first < t && t < id), "{case}");
            // Continue: the other thread's tick is full, so the ID is in the next one.
            let tick = if policy == Rollback::Wait { 0 } else { 1 };
            assert_eq!(ms(id), ms(theirs[0]) + tick, "{case}");
        }
    }
}

/// A clock behind the last issued time by 7 ms when read, which caught up while the thread
/// was preempted before deciding: the call gave up on that old reading (`ClockBehind`, past a
/// 5 ms `max_wait`) although the clock was due by then. Before giving up, a blocked call now
/// looks at the state and the clock again.
#[test]
fn a_clock_that_caught_up_after_the_reading_is_not_given_up_on() {
    let clock = LateOnce {
        time: frozen(),
        meanwhile: Arc::new(Mutex::new(None)),
    };
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .on_rollback(Rollback::Wait)
        .max_wait(Duration::from_millis(5))
        .build()
        .unwrap();
    clock.time.advance(Duration::from_millis(7));
    let first = gen.next_id().unwrap();
    // Stepped back 7 ms: truly behind when read, then back where it was before the decision.
    clock.time.rewind(Duration::from_millis(7));
    let time = clock.time.clone();
    clock.arm(move || time.advance(Duration::from_millis(7)));
    let id = gen
        .next_id()
        .unwrap_or_else(|e| panic!("the clock was due before the call gave up, yet {e}"));
    assert!(id > first);
    assert_eq!(
        Layout::TWITTER.decode(id).unix_millis(),
        Layout::TWITTER.decode(first).unix_millis()
    );
}
