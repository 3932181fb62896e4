//! [`FencedGenerator`]: a generator that mints only inside the window its keeper has secured.
//!
//! A keeper (a Redis lease, or a local high-water-mark file) secures two things and keeps
//! renewing them from a background thread:
//!
//! - a **deadline**, in the generator clock's nanoseconds: until then the keeper can prove
//!   it holds the node (for a lease: the last renewal's send time plus the TTL minus a
//!   safety margin). After it, minting fails with [`FenceError::Fenced`].
//! - a **limit** on the IDs' time, recorded durably *before* it is used (in Redis, or in the
//!   file): no ID stamped later than the limit ever leaves the generator. The next owner of
//!   the node reads the limit (or, after a clean release, the last time actually issued),
//!   waits until its clock has passed it, and continues after it.
//!
//! The deadline is in the generator clock's time, read through its cheap reading: a clock
//! stepped back extends it by the step ([`TscClock`] slews backward corrections at 500 µs
//! per second; [`WallClock`](crate::WallClock) follows at once), a clock stepped forward
//! shortens it. Uniqueness rests on the limit alone: the old owner's IDs are all at or before it and the
//! new owner's all after, whatever the two clocks read and however long a process is paused
//! between a check and its mint. The deadline makes a cut-off process stop early instead of
//! minting on borrowed time.

mod error;

pub use self::error::FenceError;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, UNIX_EPOCH};

use crossbeam_utils::CachePadded;

use crate::clock::{Clock, TscClock};
use crate::error::LayoutError;
use crate::generator::Generator;
use crate::id::Id;
use crate::layout::Layout;
use crate::parts::Parts;

/// What one renewal achieved.
pub(crate) enum Renewal {
    /// Minting may go on, for IDs stamped at most `limit_unix_millis`, until the clock reads
    /// `valid_until_nanos`. `floor_unix_millis`: the node was (re)acquired from someone who
    /// may have issued up to that time; skip past it first.
    Held {
        limit_unix_millis: u64,
        valid_until_nanos: u64,
        floor_unix_millis: Option<u64>,
    },
    /// This attempt failed (the server is unreachable, the disk is full); the window is left
    /// to close by itself.
    Failed(String),
    /// The node belongs to someone else now (only a lease can be taken over).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Lost(String),
}

/// What secures a node's window: renews it, and gives the node up at the end.
pub(crate) trait Keeper: Send + 'static {
    /// Extends the window. `now_nanos` is the generator's clock read before any request.
    fn renew(&mut self, now_nanos: u64) -> Renewal;
    /// Gives the node up, recording `last_unix_millis` (at or after the time of every ID
    /// issued) for the next owner, if any ID was issued.
    fn release(&mut self, last_unix_millis: Option<u64>);
    /// How long until the next renewal, after one that succeeded (`ok`) or not.
    fn period(&self, ok: bool) -> Duration;
}

/// Whether the keeper holds the node.
enum Status {
    Held,
    Failing(String),
    Lost(String),
}

/// The window the hot path checks: read on every mint, written once per renewal.
struct Window {
    /// Clock nanoseconds (the generator clock's cheap reading) from which minting is refused.
    valid_until: AtomicU64,
    /// The greatest ID value that may be handed out: the last ID of the limit's tick.
    limit_id: AtomicU64,
}

struct Shared<C> {
    gen: Generator<C>,
    window: CachePadded<Window>,
    /// Locked while renewing (a Redis call or a file write) and applying the outcome.
    keeper: Mutex<Box<dyn Keeper>>,
    /// Locked only briefly, never across I/O: minting threads read it to explain a refusal.
    status: Mutex<Status>,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// A [`Generator`] behind a fence: it mints only while its keeper can prove it holds the
/// node, and only IDs whose time its keeper has recorded ahead, so that the next owner of
/// the node (after a crash, a restart, or a lease taken over) continues strictly after them.
///
/// Made by [`FileGuard::start`](crate::FileGuard::start) (a restart guard for one host) or,
/// with feature `redis`, by `snowmint::redis::RedisLease::acquire` (a node leased from Redis).
/// A background thread renews the hold; dropping the generator stops it and releases the
/// node, recording the last time issued.
///
/// The hot path adds to [`Generator::next_id`] one load and compare before minting (the
/// deadline, against the clock's cheap reading) and one after (the ID against the limit).
///
/// ```
/// use snowmint::{FileGuard, Generator, Layout};
///
/// let dir = std::env::temp_dir().join(format!("snowmint-doc-fenced-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let gen = FileGuard::new(dir.join("node-7.hwm")).start(Generator::builder(Layout::TWITTER).node(7))?;
/// let a = gen.next_id()?;
/// let b = gen.next_id()?;
/// assert!(b > a && !gen.is_fenced());
/// # drop(gen);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FencedGenerator<C: Clock + 'static = TscClock> {
    shared: Arc<Shared<C>>,
    worker: Option<JoinHandle<()>>,
}

impl<C: Clock + 'static> FencedGenerator<C> {
    /// Opens the first window and starts the renewal thread.
    pub(crate) fn start(
        gen: Generator<C>,
        keeper: Box<dyn Keeper>,
        first: Renewal,
    ) -> FencedGenerator<C> {
        let shared = Arc::new(Shared {
            gen,
            window: CachePadded::new(Window {
                valid_until: AtomicU64::new(0),
                limit_id: AtomicU64::new(0),
            }),
            keeper: Mutex::new(keeper),
            status: Mutex::new(Status::Failing("not secured yet".to_string())),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let ok = matches!(first, Renewal::Held { .. });
        let delay = {
            let k = lock(&shared.keeper);
            shared.apply(first);
            k.period(ok)
        };
        let for_worker = Arc::clone(&shared);
        let worker = std::thread::Builder::new()
            .name("snowmint-keeper".to_string())
            .spawn(move || for_worker.run(delay))
            .ok();
        if worker.is_none() {
            // No thread: the window is only extended when an ID reaches its limit, and a
            // deadline (a lease) then lapses; say so in the errors.
            *lock(&shared.status) =
                Status::Failing("the renewal thread could not be started".to_string());
        }
        FencedGenerator { shared, worker }
    }

    /// The next ID, waiting (at most the generator's `max_wait`) if its tick is used up;
    /// refused at once while fenced.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-next-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER).node(1))?;
    /// assert_eq!(Layout::TWITTER.decode(gen.next_id()?).node(), 1);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id(&self) -> Result<Id, FenceError> {
        self.next_id_timeout(self.shared.gen.max_wait())
    }

    /// The next ID, or at once an error saying why not.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-try-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::SONYFLAKE))?;
    /// assert!(gen.try_next_id().is_ok());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<Id, FenceError> {
        self.shared.check_open()?;
        let id = self.shared.gen.try_next_id()?;
        self.shared.check_limit(id)
    }

    /// The next ID, waiting at most `timeout` for its tick; refused at once while fenced.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-timeout-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use std::time::Duration;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(gen.next_id_timeout(Duration::from_millis(5)).is_ok());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id_timeout(&self, timeout: Duration) -> Result<Id, FenceError> {
        self.shared.check_open()?;
        let id = self.shared.gen.next_id_timeout(timeout)?;
        self.shared.check_limit(id)
    }

    /// Whether minting is refused now (the hold could not be confirmed in time, or is lost).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-isf-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(!gen.is_fenced());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_fenced(&self) -> bool {
        self.shared.check_open().is_err()
    }

    /// Whether the node was taken over by someone else: this generator never mints again.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-lost-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(!gen.is_lost()); // a file guard is never taken over
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_lost(&self) -> bool {
        matches!(*lock(&self.shared.status), Status::Lost(_))
    }

    /// The node number in every ID.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-node-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER).node(3))?;
    /// assert_eq!(gen.node(), 3);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node(&self) -> u64 {
        self.shared.gen.node()
    }

    /// The layout of the IDs.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-layout-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::DISCORD))?;
    /// assert_eq!(*gen.layout(), Layout::DISCORD);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        self.shared.gen.layout()
    }

    /// The clock.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-clock-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Clock, FileGuard, Generator, Layout, WallClock};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::with_clock(Layout::TWITTER, WallClock))?;
    /// assert!(gen.clock().now_unix_nanos() > 0);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(&self) -> &C {
        self.shared.gen.clock()
    }

    /// The last ID minted (by any thread; possibly one refused for being past the limit), or
    /// `None` before the first.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-last-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// let id = gen.next_id()?;
    /// assert_eq!(gen.last_id(), Some(id));
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_id(&self) -> Option<Id> {
        self.shared.gen.last_id()
    }

    /// The time limit the keeper has secured: no ID stamped later is handed out (Unix
    /// milliseconds of the last tick that may be used; `None` before the first window).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-limit-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use std::time::Duration;
    /// use snowmint::{FileGuard, Generator, Layout};
    /// let gen = FileGuard::new(dir.join("n.hwm")).window(Duration::from_secs(2)).start(Generator::builder(Layout::TWITTER))?;
    /// let id = gen.next_id()?;
    /// assert!(gen.limit_unix_millis().unwrap() >= Layout::TWITTER.decode(id).unix_millis());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn limit_unix_millis(&self) -> Option<u64> {
        // Relaxed: a report, not a decision; no other memory is read on its account.
        let limit = self.shared.window.limit_id.load(Ordering::Relaxed);
        (limit != 0).then(|| self.layout().decode(Id::from_u64(limit)).unix_millis())
    }
}

impl<C: Clock + 'static> Shared<C> {
    /// Refuses to mint once the deadline has passed.
    #[inline]
    fn check_open(&self) -> Result<(), FenceError> {
        // Acquire: pairs with the Release store in `apply`, so that the limit stored before
        // a deadline is seen by `check_limit`'s load after this one (free on x86: a plain
        // load). The deadline itself is a lone value; a stale one only closes the gate early
        // or late by the time a store takes to show, within the safety margin.
        let until = self.window.valid_until.load(Ordering::Acquire);
        if self.gen.clock().recent_unix_nanos() < until {
            Ok(())
        } else {
            Err(self.closed())
        }
    }

    /// Hands `id` out only if its time is within the recorded limit.
    #[inline]
    fn check_limit(&self, id: Id) -> Result<Id, FenceError> {
        // Relaxed: ordered after `check_open`'s Acquire load. The limit moves forward with
        // the clock (it falls back only if the clock steps back while Redis lost its state),
        // so a value one store old refuses IDs rather than admitting them.
        if id.to_u64() <= self.window.limit_id.load(Ordering::Relaxed) {
            Ok(id)
        } else {
            self.past_limit(id)
        }
    }

    /// An ID past the limit: the renewal thread is behind (or the clock jumped). Try to
    /// extend the window now; hand the ID out only if that worked.
    #[cold]
    #[inline(never)]
    fn past_limit(&self, id: Id) -> Result<Id, FenceError> {
        let mut k = lock(&self.keeper);
        if !matches!(*lock(&self.status), Status::Lost(_)) {
            let now = self.gen.clock().now_unix_nanos();
            let r = k.renew(now);
            self.apply(r);
        }
        drop(k);
        self.check_open()?;
        // Relaxed: as in `check_limit`.
        if id.to_u64() <= self.window.limit_id.load(Ordering::Relaxed) {
            return Ok(id);
        }
        Err(FenceError::Fenced {
            node: self.gen.node(),
            reason: format!(
                "the ID's time, {} ms (Unix), is past the secured limit of {} ms",
                self.gen.layout().decode(id).unix_millis(),
                self.gen
                    .layout()
                    .decode(Id::from_u64(self.window.limit_id.load(Ordering::Relaxed)))
                    .unix_millis()
            ),
        })
    }

    #[cold]
    fn closed(&self) -> FenceError {
        let node = self.gen.node();
        match &*lock(&self.status) {
            Status::Lost(reason) => FenceError::Lost {
                node,
                reason: reason.clone(),
            },
            Status::Failing(reason) => FenceError::Fenced {
                node,
                reason: reason.clone(),
            },
            Status::Held => FenceError::Fenced {
                node,
                reason: "the hold's deadline passed before a renewal arrived".to_string(),
            },
        }
    }

    /// Applies a renewal's outcome to the window. Callers hold the keeper's lock, so that
    /// outcomes apply in the order they were obtained.
    fn apply(&self, renewal: Renewal) {
        match renewal {
            Renewal::Held {
                limit_unix_millis,
                valid_until_nanos,
                floor_unix_millis,
            } => {
                if let Some(floor) = floor_unix_millis {
                    if skip_past(&self.gen, floor).is_err() {
                        *lock(&self.status) = Status::Failing(format!(
                            "the previous owner's last time, {floor} ms (Unix), is past the layout's expiry"
                        ));
                        return;
                    }
                }
                let limit = limit_id(self.gen.layout(), limit_unix_millis);
                // Relaxed: published by the Release store below.
                self.window.limit_id.store(limit, Ordering::Relaxed);
                // Release: a minting thread that sees this deadline (Acquire) sees the limit.
                self.window
                    .valid_until
                    .store(valid_until_nanos, Ordering::Release);
                *lock(&self.status) = Status::Held;
            }
            // The window is left to close at its deadline.
            Renewal::Failed(reason) => *lock(&self.status) = Status::Failing(reason),
            Renewal::Lost(reason) => {
                // Release: as above; 0 closes the window for every later reading.
                self.window.valid_until.store(0, Ordering::Release);
                *lock(&self.status) = Status::Lost(reason);
            }
        }
    }

    /// The renewal thread: renew every period until stopped or lost.
    fn run(&self, mut delay: Duration) {
        loop {
            let stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
            let (stop, _) = self
                .wake
                .wait_timeout_while(stop, delay, |stop| !*stop)
                .unwrap_or_else(PoisonError::into_inner);
            if *stop {
                return;
            }
            drop(stop);
            let mut k = lock(&self.keeper);
            if matches!(*lock(&self.status), Status::Lost(_)) {
                return;
            }
            let now = self.gen.clock().now_unix_nanos();
            let renewal = k.renew(now);
            let ok = matches!(renewal, Renewal::Held { .. });
            self.apply(renewal);
            delay = k.period(ok);
        }
    }
}

impl<C: Clock + 'static> Drop for FencedGenerator<C> {
    fn drop(&mut self) {
        *self
            .shared
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
        self.shared.wake.notify_all();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
        // No thread mints any more: this was the only handle, and the worker has ended.
        let last = self
            .shared
            .gen
            .last_id()
            .map(|id| ceil_millis(self.shared.gen.layout().decode(id).unix_nanos()));
        let mut k = lock(&self.shared.keeper);
        if !matches!(*lock(&self.shared.status), Status::Lost(_)) {
            k.release(last);
        }
    }
}

impl<C: Clock + 'static> core::fmt::Debug for FencedGenerator<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FencedGenerator")
            .field("layout", self.layout())
            .field("node", &self.node())
            .field("fenced", &self.is_fenced())
            .field("limit_unix_millis", &self.limit_unix_millis())
            .finish_non_exhaustive()
    }
}

/// Locks `m`; a thread that panicked while holding it left a value that is still the best
/// we know (a status, a keeper whose next call reconnects).
fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Nanoseconds to milliseconds, rounded up: a mark at or after the time.
pub(crate) fn ceil_millis(nanos: u128) -> u64 {
    u64::try_from(nanos.div_ceil(1_000_000)).unwrap_or(u64::MAX)
}

/// The tick holding `unix_millis`: `Ok(None)` before the epoch.
fn tick_at(layout: &Layout, unix_millis: u64) -> Result<Option<u64>, LayoutError> {
    match layout.ticks_at(UNIX_EPOCH + Duration::from_millis(unix_millis)) {
        Ok(t) => Ok(Some(t)),
        Err(LayoutError::TimeBeforeEpoch { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The greatest ID value with a time at or before `unix_millis`'s tick (the node and
/// sequence fields full: the time field is on top, so a larger value has a later tick).
fn limit_id(layout: &Layout, unix_millis: u64) -> u64 {
    match tick_at(layout, unix_millis) {
        Ok(Some(t)) => layout
            .compose(
                t,
                Parts {
                    node: layout.max_node(),
                    sequence: layout.max_sequence(),
                },
            )
            .map_or(u64::MAX, Id::to_u64),
        Ok(None) => 0,
        Err(_) => u64::MAX,
    }
}

/// Moves `gen` past every state of the tick holding `floor_unix_millis`: its IDs are then
/// all stamped after the previous owner's. Errors if that tick is past the layout's expiry.
pub(crate) fn skip_past<C: Clock>(
    gen: &Generator<C>,
    floor_unix_millis: u64,
) -> Result<(), LayoutError> {
    let layout = gen.layout();
    if let Some(tick) = tick_at(layout, floor_unix_millis)? {
        // Cannot overflow: tick <= max_ticks and time + sequence bits <= 64.
        gen.advance_to(tick << layout.sequence_bits() | layout.max_sequence());
    }
    Ok(())
}

/// How far `gen`'s clock is from being past `floor_unix_millis`'s tick (zero if it is).
pub(crate) fn behind<C: Clock>(gen: &Generator<C>, floor_unix_millis: u64) -> Duration {
    let layout = gen.layout();
    let Ok(Some(tick)) = tick_at(layout, floor_unix_millis) else {
        return Duration::ZERO;
    };
    let next = layout.tick_start_unix_nanos(tick) + u128::from(layout.unit_nanos());
    let now = gen.clock().now_unix_nanos() as u128;
    Duration::from_nanos(u64::try_from(next.saturating_sub(now)).unwrap_or(u64::MAX))
}

/// Waits until `gen`'s clock is past `floor_unix_millis`'s tick, calling `keep` about every
/// `keep_every` (to hold a lease meanwhile). Gives up, without waiting, if that is more than
/// `max_wait` away, returning how far.
pub(crate) fn wait_past<C: Clock, E>(
    gen: &Generator<C>,
    floor_unix_millis: u64,
    max_wait: Duration,
    keep_every: Duration,
    mut keep: impl FnMut() -> Result<(), E>,
) -> Result<Result<(), E>, Duration> {
    let first = behind(gen, floor_unix_millis);
    if first > max_wait {
        return Err(first);
    }
    let start = Instant::now();
    let mut kept = Instant::now();
    loop {
        let left = behind(gen, floor_unix_millis);
        if left.is_zero() {
            return Ok(Ok(()));
        }
        // A clock that stalls or steps back while we wait: give up at the bound.
        if start.elapsed() > max_wait {
            return Err(left);
        }
        if kept.elapsed() >= keep_every {
            if let Err(e) = keep() {
                return Ok(Err(e));
            }
            kept = Instant::now();
        }
        std::thread::sleep(left.min(keep_every).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::{ceil_millis, limit_id};
    use crate::id::Id;
    use crate::layout::Layout;
    use crate::parts::Parts;

    #[test]
    fn marks_round_up_and_limits_cover_exactly_their_tick() {
        assert_eq!(ceil_millis(0), 0);
        assert_eq!(ceil_millis(1), 1);
        assert_eq!(ceil_millis(1_000_000), 1);
        assert_eq!(ceil_millis(1_000_001), 2);
        let l = Layout::SONYFLAKE; // 10 ms ticks
        let at = l.epoch_unix_millis() + 1_234; // inside tick 123
        let limit = Id::from_u64(limit_id(&l, at));
        assert_eq!(l.decode(limit).ticks(), 123);
        let all = Parts {
            node: l.max_node(),
            sequence: l.max_sequence(),
        };
        let last_of_tick = l.compose(123, all).unwrap();
        let first_of_next = l.compose(124, Parts::default()).unwrap();
        assert!(last_of_tick <= limit && first_of_next > limit);
        assert_eq!(limit_id(&l, 0), 0, "before the epoch nothing may be issued");
    }
}
