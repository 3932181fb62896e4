//! [`Fenced`]: any source of IDs behind a fence, minting only inside the window its keeper
//! has secured.

use std::sync::{Arc, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::error::FenceError;
use super::gate::{lock, Gate, Status};
use super::keeper::Keeper;
use super::mark::ceil_millis;
use crate::clock::Clock;
use crate::id::Id;
use crate::layout::Layout;
use crate::source::IdBatch;
use crate::source::IdSource;
use crate::source::{fill_with, FillError};
use crate::sync;

/// A source of IDs behind a fence: it mints only while its [`Keeper`] can prove it holds the
/// node, and only IDs whose time the keeper has recorded ahead, so that the next owner of
/// the node (after a crash, a restart, or a lease taken over) continues strictly after them.
///
/// Any [`IdSource`] can be fenced: a [`Generator`](crate::Generator) for one node, or a
/// [`ShardedGenerator`](crate::ShardedGenerator) whose node number is the fenced node, with a
/// shard per thread under it. Made by [`FileGuard::start`](crate::fence::FileGuard::start) (a
/// restart guard for one node), by the `snowmint-lease` crate's `Lease::acquire` (a node
/// leased from Redis or etcd), or by
/// [`Fenced::start`] with a keeper of your own. A background thread renews the hold;
/// dropping the fenced source stops it and releases the node, recording the last time
/// issued.
///
/// The hot path adds to the source's one load and compare before minting (the deadline,
/// against the clock's cheap reading) and two after (the ID against the secured range).
///
/// ```
/// use snowmint::{Generator, Layout, ShardedGenerator};
/// use snowmint::fence::FileGuard;
///
/// let dir = std::env::temp_dir().join(format!("snowmint-doc-fenced-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let gen = FileGuard::new(dir.join("node-7.hwm")).start(Generator::builder(Layout::TWITTER).node(7))?;
/// let a = gen.next_id()?;
/// assert!(gen.next_id()? > a && !gen.is_fenced());
/// // The same guard over a sharded generator: node 3, a shard per thread.
/// let sharded = FileGuard::new(dir.join("node-3.hwm")).start(ShardedGenerator::builder(Layout::TWITTER).node(3))?;
/// assert_eq!(Layout::TWITTER.decode(sharded.next_id()?).node() >> 6, 3);
/// # drop((gen, sharded));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Fenced<S: IdSource> {
    source: S,
    gate: Arc<Gate<S::Clock>>,
    worker: Option<JoinHandle<()>>,
}

impl<S: IdSource> Fenced<S>
where
    S::Clock: Clone + 'static,
    S::Error: Into<FenceError>,
{
    /// Fences `source`, which mints as `node` (for a sharded generator, the node above its shards), with
    /// `keeper`: renews once now (refusing to start if that fails) and starts the renewal
    /// thread.
    ///
    /// # Errors
    /// The refusal of the first window: [`FenceError::Fenced`] if the keeper's first renewal
    /// failed, [`FenceError::Lost`] if it found the node taken.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use snowmint::fence::{Keeper, Renewal};
    /// # struct Generous;
    /// # impl Keeper for Generous {
    /// #     fn renew(&mut self, now: u64) -> Renewal {
    /// #         Renewal::Held { limit_unix_millis: now / 1_000_000 + 1_000, valid_until_nanos: u64::MAX, floor_unix_millis: None }
    /// #     }
    /// #     fn release(&mut self, _: Option<u64>) {}
    /// #     fn period(&self, _: bool) -> Duration { Duration::from_millis(500) }
    /// # }
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::Fenced;
    /// let fenced = Fenced::start(Generator::new(Layout::TWITTER, 5)?, 5, Generous)?;
    /// assert_eq!(fenced.node(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start(source: S, node: u64, keeper: impl Keeper) -> Result<Fenced<S>, FenceError> {
        Fenced::start_with(source, node, Box::new(keeper), None, true).opened()
    }

    /// As [`start`](Self::start), without a renewal thread: the window is extended only by
    /// [`renew`](Self::renew) (for an application that renews from its own timer or task),
    /// and, when an ID reaches the limit, by the minting call itself.
    ///
    /// # Errors
    /// As [`start`](Self::start).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use snowmint::fence::{Keeper, Renewal};
    /// # struct Generous;
    /// # impl Keeper for Generous {
    /// #     fn renew(&mut self, now: u64) -> Renewal {
    /// #         Renewal::Held { limit_unix_millis: now / 1_000_000 + 1_000, valid_until_nanos: u64::MAX, floor_unix_millis: None }
    /// #     }
    /// #     fn release(&mut self, _: Option<u64>) {}
    /// #     fn period(&self, _: bool) -> Duration { Duration::from_millis(500) }
    /// # }
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::Fenced;
    /// let fenced = Fenced::start_manual(Generator::new(Layout::TWITTER, 5)?, 5, Generous)?;
    /// fenced.renew();
    /// assert!(fenced.next_id().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_manual(
        source: S,
        node: u64,
        keeper: impl Keeper,
    ) -> Result<Fenced<S>, FenceError> {
        Fenced::start_with(source, node, Box::new(keeper), None, false).opened()
    }

    /// `self` if its first window is open; else the refusal (dropping `self` gives the node
    /// back as it was: nothing was minted).
    fn opened(self) -> Result<Fenced<S>, FenceError> {
        self.gate.check_open()?;
        Ok(self)
    }

    /// Renews the hold now and applies the outcome (the renewal thread does this every
    /// period).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-renew-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// let before = gen.limit_unix_millis();
    /// std::thread::sleep(std::time::Duration::from_millis(2));
    /// gen.renew();
    /// assert!(gen.limit_unix_millis() > before);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn renew(&self) {
        self.gate.renew();
    }
}

impl<S: IdSource> Fenced<S>
where
    S::Error: Into<FenceError>,
{
    /// The next ID, waiting (at most the source's `max_wait`) if its tick is used up;
    /// refused at once while fenced.
    ///
    /// # Errors
    /// [`FenceError::Fenced`] while the keeper cannot prove it holds the node (past the deadline,
    /// or an ID at the secured limit), [`FenceError::Lost`] once another owner holds it,
    /// [`FenceError::Mint`] with the source's own refusal (after its waits).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-next-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER).node(1))?;
    /// assert_eq!(Layout::TWITTER.decode(gen.next_id()?).node(), 1);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id(&self) -> Result<Id, FenceError> {
        self.gate.check_open()?;
        let id = self.source.next_id().map_err(into_fence)?;
        self.gate.check_id(id)
    }

    /// The next ID, or at once an error saying why not.
    ///
    /// # Errors
    /// [`FenceError::Fenced`] while the keeper cannot prove it holds the node (past the deadline,
    /// or an ID at the secured limit), [`FenceError::Lost`] once another owner holds it,
    /// [`FenceError::Mint`] with the source's own refusal, at once.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-try-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::SONYFLAKE))?;
    /// assert!(gen.try_next_id().is_ok());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<Id, FenceError> {
        self.gate.check_open()?;
        let id = self.source.try_next_id().map_err(into_fence)?;
        self.gate.check_id(id)
    }

    /// The next ID, waiting at most `timeout` for its tick; refused at once while fenced.
    ///
    /// # Errors
    /// [`FenceError::Fenced`] while the keeper cannot prove it holds the node (past the deadline,
    /// or an ID at the secured limit), [`FenceError::Lost`] once another owner holds it,
    /// [`FenceError::Mint`] with the source's own refusal (after waiting at most `timeout`).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-timeout-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use std::time::Duration;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(gen.next_id_timeout(Duration::from_millis(5)).is_ok());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id_timeout(&self, timeout: Duration) -> Result<Id, FenceError> {
        self.gate.check_open()?;
        let id = self.source.next_id_timeout(timeout).map_err(into_fence)?;
        self.gate.check_id(id)
    }

    /// Reserves up to `n` consecutive IDs, as [`IdSource::next_ids`]; a batch reaching past
    /// the secured limit is cut at it.
    ///
    /// # Errors
    /// [`FenceError::Fenced`] while the keeper cannot prove it holds the node (past the deadline,
    /// or an ID at the secured limit), [`FenceError::Lost`] once another owner holds it,
    /// [`FenceError::Mint`] with the source's own refusal.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-ids-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(!gen.next_ids(100)?.is_empty());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_ids(&self, n: u64) -> Result<IdBatch, FenceError> {
        self.gate.check_open()?;
        let batch = self.source.next_ids(n).map_err(into_fence)?;
        self.gate.check_batch(batch)
    }

    /// Reserves up to `n` consecutive IDs without waiting, as [`next_ids`](Self::next_ids).
    ///
    /// # Errors
    /// [`FenceError::Fenced`] while the keeper cannot prove it holds the node (past the deadline,
    /// or an ID at the secured limit), [`FenceError::Lost`] once another owner holds it,
    /// [`FenceError::Mint`] with the source's own refusal, at once.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-tids-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(gen.try_next_ids(10)?.len() <= 10);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_next_ids(&self, n: u64) -> Result<IdBatch, FenceError> {
        self.gate.check_open()?;
        let batch = self.source.try_next_ids(n).map_err(into_fence)?;
        self.gate.check_batch(batch)
    }

    /// Fills `out` with unique, increasing IDs, one reservation per tick, as
    /// [`IdSource::fill`]: each reservation is checked as [`next_ids`](Self::next_ids)'
    /// batches are, so a fill stops (with [`FillError::filled`] IDs written) at the secured
    /// limit or when the node is fenced.
    ///
    /// # Errors
    /// As [`next_ids`](Self::next_ids), for the first ID that could not be filled.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-fill-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Id, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// let mut ids = [Id::MIN; 1_000];
    /// gen.fill(&mut ids)?;
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill(&self, out: &mut [Id]) -> Result<(), FillError<FenceError>> {
        fill_with(out, |n| self.next_ids(n))
    }

    /// Whether minting is refused now (the hold could not be confirmed in time, or is lost).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-isf-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(!gen.is_fenced());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_fenced(&self) -> bool {
        let now = self.gate.clock.now_unix_nanos();
        !self.gate.window.is_open(now) || self.before_floor(now)
    }

    /// Whether the node was taken over by someone else: this source never mints again.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-lost-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(!gen.is_lost()); // a file guard is never taken over
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_lost(&self) -> bool {
        matches!(*lock(&self.gate.status), Status::Lost(_))
    }

    /// The fenced node number: the source's node (for a sharded generator, the node above its shards).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-node-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER).node(3))?;
    /// assert_eq!(gen.node(), 3);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn node(&self) -> u64 {
        self.gate.node
    }

    /// The layout of the IDs.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-layout-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::DISCORD))?;
    /// assert_eq!(*gen.layout(), Layout::DISCORD);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        self.source.layout()
    }

    /// The clock.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-clock-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::{Clock, WallClock};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER).clock(WallClock))?;
    /// assert!(gen.clock().now_unix_nanos() > 0);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(&self) -> &S::Clock {
        self.source.clock()
    }

    /// Where to resume after a restart, as [`IdSource::last_id`] (possibly an ID refused for
    /// being past the limit), or `None` before the first.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-last-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// let id = gen.next_id()?;
    /// assert_eq!(gen.last_id(), Some(id));
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_id(&self) -> Option<Id> {
        self.source.last_id()
    }

    /// The time limit the keeper has secured: no ID stamped later is handed out (Unix
    /// milliseconds of the last tick that may be used; `None` before the first window).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-limit-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use std::time::Duration;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).window(Duration::from_secs(2)).start(Generator::builder(Layout::TWITTER))?;
    /// let id = gen.next_id()?;
    /// assert!(gen.limit_unix_millis().unwrap() >= Layout::TWITTER.decode(id).unix_millis());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn limit_unix_millis(&self) -> Option<u64> {
        let high = self.gate.window.high();
        (high != 0).then(|| self.layout().decode(Id::from_u64(high)).unix_millis())
    }

    /// The fencing token of the hold: a number the store raised when this process claimed
    /// the node and never hands out again (etcd: the node key's `create_revision`), to pass
    /// to systems that must refuse a stale holder's writes. `None` if the keeper has none
    /// (Redis, a file guard).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-token-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert_eq!(gen.token(), None);
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn token(&self) -> Option<u64> {
        // Relaxed: a report; the renewal thread stores it.
        let t = self.gate.token.load(sync::Ordering::Relaxed);
        (t != 0).then_some(t)
    }

    /// The deadline, in the source clock's Unix nanoseconds: minting is refused from then on
    /// unless a renewal extends it (0 while closed).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-deadline-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, IdSource, Layout};
    /// use snowmint::clock::Clock;
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert!(gen.deadline_unix_nanos() > gen.clock().now_unix_nanos());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn deadline_unix_nanos(&self) -> u64 {
        self.gate.window.valid_until()
    }

    /// The longest a blocking call waits for a tick before giving up: the wrapped source's.
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-max-wait-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// use snowmint::{Generator, IdSource, Layout};
    /// use snowmint::fence::FileGuard;
    /// let gen = FileGuard::new(dir.join("n.hwm")).start(Generator::builder(Layout::TWITTER))?;
    /// assert_eq!(gen.max_wait(), Generator::new(Layout::TWITTER, 0)?.max_wait());
    /// # drop(gen);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_wait(&self) -> Duration {
        self.source.max_wait()
    }
}

crate::source::id_source_by_inherent!(
    impl[S: IdSource] Fenced<S> where [S::Error: Into<FenceError>]
    { clock: S::Clock, error: FenceError }
);

/// A source's own error as a fence error.
fn into_fence<E: Into<FenceError>>(e: E) -> FenceError {
    e.into()
}

impl<S: IdSource> Drop for Fenced<S> {
    fn drop(&mut self) {
        *self
            .gate
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
        self.gate.wake.notify_all();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
        // No thread mints any more: this was the only handle, and the worker has ended.
        let last = self
            .source
            .last_id()
            .map(|id| ceil_millis(self.source.layout().decode(id).unix_nanos()));
        self.gate.release(last);
    }
}

impl<S: IdSource> core::fmt::Debug for Fenced<S>
where
    S::Error: Into<FenceError>,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Fenced")
            .field("layout", self.layout())
            .field("node", &self.node())
            .field("fenced", &self.is_fenced())
            .field("limit_unix_millis", &self.limit_unix_millis())
            .finish_non_exhaustive()
    }
}

mod cause;
mod start;
#[cfg(test)]
mod tests;
