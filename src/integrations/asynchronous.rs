//! Minting from async tasks without blocking an executor: any [`IdSource`] through its
//! non-blocking `try_` calls, awaiting a timer for exactly the wait the source reports.
//!
//! [`next_id_with`] and [`next_ids_with`] take any sleep function (runtime-agnostic; no
//! dependency); with the feature `tokio`, `IdSourceAsync` adds `next_id_async()` and
//! `next_ids_async(n)` to every shared source, sleeping on `tokio::time`.
//!
//! # How it waits
//! Each call tries [`IdSource::try_next_id`]; on an error whose
//! [`retry_after`](MintFailure::retry_after) is `Some(d)` (the tick's sequence used up, the
//! clock stepped back) it awaits `sleep(d)` and tries again, and gives up, returning that
//! error, once the waits asked for would add up to more than the source's
//! [`max_wait`](IdSource::max_wait). Errors waiting cannot cure (expiry, a lost fence) come
//! at once. No thread spins or sleeps: the task is parked on the timer. A timer rounds its
//! deadline up to its resolution (tokio: 1 ms), so a task may wake that much after the tick
//! it waited for; the IDs are the same, only a little later.
//!
//! # Cancellation
//! Safe: an ID is minted only by a `try_` call that returns it within the same poll, so a
//! future dropped while it waits has issued nothing.
//!
//! # Which source to use from tasks
//! - A shared [`Generator`](crate::Generator) (in an `Arc` or a `static`): IDs never repeat
//!   and, as the state is one atomic, every task's IDs increase, wherever it runs.
//! - A [`ShardedGenerator`](crate::ShardedGenerator): its `next_id` takes the shard of the
//!   *worker thread* the task is polled on. IDs still never repeat (each shard belongs to one
//!   thread at a time), and on a current-thread runtime every task shares the one shard, so
//!   IDs increase as from a `Generator`. On a multi-threaded runtime a task that moves to
//!   another worker between two calls mints from another shard: its IDs are then ordered
//!   only to the tick (IDs of one tick order by node), so one task's later ID can be smaller
//!   than its earlier one. Use it on a multi-threaded runtime when throughput matters more
//!   than per-task order.
//! - A [`OwnedShard`](crate::shard::OwnedShard) is `!Sync`; mint from it with [`next_id_with`] in the one
//!   task that owns it.
//!
//! ```
//! use std::time::Duration;
//! use snowmint::integrations::asynchronous::next_id_with;
//! use snowmint::{Generator, Layout};
//!
//! # fn block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     use std::task::{Context, Poll, Waker};
//! #     let mut f = std::pin::pin!(f);
//! #     loop {
//! #         if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
//! #             return v;
//! #         }
//! #     }
//! # }
//! let gen = Generator::new(Layout::TWITTER, 1)?;
//! // Any runtime's timer; here a future that is ready at once, for the example.
//! let id = block_on(next_id_with(&gen, |_wait: Duration| async {}))?;
//! assert_eq!(Layout::TWITTER.decode(id).node(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::future::Future;
use std::time::{Duration, Instant};

use crate::events::{self, WaitReason};
use crate::id::Id;
use crate::source::IdBatch;
use crate::source::{IdSource, MintFailure};

/// The shortest wait awaited, so that a source reporting a zero wait still parks the task
/// (and the loop stays bounded by `max_wait`).
const MIN_WAIT: Duration = Duration::from_micros(1);

/// The next ID from `source`, awaiting `sleep(d)` for each wait `d` the source reports, at
/// most [`max_wait`](IdSource::max_wait) in all. Cancellation-safe; see the
/// [module](self) for the details.
///
/// ```
/// use std::time::Duration;
/// use snowmint::integrations::asynchronous::next_id_with;
/// use snowmint::{Generator, Layout, MintError};
/// use snowmint::clock::ManualClock;
///
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     use std::task::{Context, Poll, Waker};
/// #     let mut f = std::pin::pin!(f);
/// #     loop {
/// #         if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
/// #             return v;
/// #         }
/// #     }
/// # }
/// // Sonyflake: 256 IDs per 10 ms tick. Use up the tick, then let the "sleep" move a
/// // manual clock on by the wait the generator asked for.
/// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
/// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock.clone()).build()?;
/// let _used = gen.next_ids(256)?;
/// let mut waits = Vec::new();
/// let id = block_on(next_id_with(&gen, |d: Duration| {
///     waits.push(d);
///     clock.advance(d);
///     async {}
/// }))?;
/// assert_eq!(waits, [Duration::from_millis(10)]);
/// assert_eq!(Layout::SONYFLAKE.decode(id).sequence(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn next_id_with<S, F, Fut>(source: &S, sleep: F) -> Result<Id, S::Error>
where
    S: IdSource + ?Sized,
    F: FnMut(Duration) -> Fut,
    Fut: Future<Output = ()>,
{
    retrying(source.max_wait(), || source.try_next_id(), sleep).await
}

/// Up to `n` consecutive IDs from `source` (fewer when the tick has fewer left; `n = 0` is
/// taken as 1), awaiting `sleep(d)` only while none is available, at most
/// [`max_wait`](IdSource::max_wait) in all. Cancellation-safe.
///
/// ```
/// use std::time::Duration;
/// use snowmint::integrations::asynchronous::next_ids_with;
/// use snowmint::{Generator, Layout};
/// use snowmint::clock::ManualClock;
///
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     use std::task::{Context, Poll, Waker};
/// #     let mut f = std::pin::pin!(f);
/// #     loop {
/// #         if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
/// #             return v;
/// #         }
/// #     }
/// # }
/// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
/// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock.clone()).build()?;
/// let batch = block_on(next_ids_with(&gen, 300, |d: Duration| {
///     clock.advance(d);
///     async {}
/// }))?;
/// assert_eq!(batch.len(), 256); // one tick's worth
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn next_ids_with<S, F, Fut>(source: &S, n: u64, sleep: F) -> Result<IdBatch, S::Error>
where
    S: IdSource + ?Sized,
    F: FnMut(Duration) -> Fut,
    Fut: Future<Output = ()>,
{
    retrying(source.max_wait(), || source.try_next_ids(n), sleep).await
}

/// Calls `attempt` (non-blocking `try_` calls of this crate's sources) until it succeeds,
/// fails with an error whose [`retry_after`](MintFailure::retry_after) is `None`, or the
/// waits it asks for would add up to more than `max_wait`; between attempts it awaits
/// `sleep(d)` for the wait `d` the error reports. For callers with a loop of their own (an
/// HTTP service that refuses a fenced lease at once, by mapping it to an error that does not
/// retry), so that their retries count as what they are.
///
/// Metrics and trace events (features `metrics`, `tracing`) record what a blocking call
/// records: one wait per call that waits (`snowmint_waits_total`, `snowmint_wait_seconds`:
/// its reason, and how long it lasted in all), and an error (`snowmint_errors_total`) only
/// when one is returned. What each failed attempt would record is held back and recorded
/// only if it is the one returned.
///
/// ```
/// use std::time::Duration;
/// use snowmint::integrations::asynchronous::retry_with;
/// use snowmint::{Generator, Layout, MintError};
/// use snowmint::clock::ManualClock;
///
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     use std::task::{Context, Poll, Waker};
/// #     let mut f = std::pin::pin!(f);
/// #     loop {
/// #         if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
/// #             return v;
/// #         }
/// #     }
/// # }
/// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
/// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock.clone()).build()?;
/// let _used = gen.next_ids(256)?;
/// // One wait of 10 ms (a tick), then the ID: no error is counted.
/// let batch = block_on(retry_with(Duration::from_secs(1), || gen.try_next_ids(5), |d| {
///     clock.advance(d);
///     async {}
/// }))?;
/// assert_eq!(batch.len(), 5);
/// // A stopped clock: the waits would pass max_wait, so the error comes back.
/// let _used = gen.next_ids(256)?;
/// let err = block_on(retry_with(Duration::from_millis(5), || gen.try_next_id(), |_| async {}));
/// assert!(matches!(err, Err(MintError::Exhausted { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn retry_with<T, E, F, Fut>(
    max_wait: Duration,
    attempt: impl FnMut() -> Result<T, E>,
    sleep: F,
) -> Result<T, E>
where
    E: MintFailure,
    F: FnMut(Duration) -> Fut,
    Fut: Future<Output = ()>,
{
    retrying(max_wait, attempt, sleep).await
}

/// [`retry_with`]'s loop.
async fn retrying<T, E, F, Fut>(
    max_wait: Duration,
    mut attempt: impl FnMut() -> Result<T, E>,
    mut sleep: F,
) -> Result<T, E>
where
    E: MintFailure,
    F: FnMut(Duration) -> Fut,
    Fut: Future<Output = ()>,
{
    let mut waited = Duration::ZERO;
    let mut waiting = Waiting::None;
    loop {
        let (result, held) = events::held_back(&mut attempt);
        let error = match result {
            Ok(value) => {
                waiting.end();
                return Ok(value);
            }
            Err(error) => error,
        };
        let wait = error
            .retry_after()
            .map(|wait| wait.max(MIN_WAIT))
            .filter(|&wait| match waited.checked_add(wait) {
                Some(total) if total <= max_wait => {
                    waited = total;
                    true
                }
                _ => false,
            });
        let Some(wait) = wait else {
            let behind_recorded = waiting.end() == Some(WaitReason::ClockBehind);
            if let Some(held) = held {
                held.record(behind_recorded);
            }
            return Err(error);
        };
        waiting.start(held);
        sleep(wait).await;
    }
}

/// The wait of one async call, for the metrics: not started, or started for a reason at an
/// instant (`Untold` when the source's error was not one of this crate's, or nothing is
/// recorded).
enum Waiting {
    None,
    Untold,
    Since(WaitReason, Instant),
}

impl Waiting {
    /// The call is about to sleep: records the start of its wait, once per call.
    fn start(&mut self, held: Option<events::Held>) {
        if !matches!(self, Waiting::None) {
            return;
        }
        *self = match held.as_ref().and_then(|h| Some((h, h.wait()?))) {
            Some((held, (reason, amount))) => {
                events::wait_started(held.layout(), held.whose(), reason, amount);
                Waiting::Since(reason, Instant::now())
            }
            None => Waiting::Untold,
        };
    }

    /// The call returns: records how long it waited, and says what for.
    fn end(&self) -> Option<WaitReason> {
        match *self {
            Waiting::Since(reason, since) => {
                events::wait_ended(reason, since.elapsed());
                Some(reason)
            }
            _ => None,
        }
    }
}

/// Async minting on tokio for every shared [`IdSource`] (feature `tokio`): the waits are
/// `tokio::time::sleep`s, so a task waiting for the next tick leaves its worker free. The
/// futures are `Send` (for `tokio::spawn`) and cancellation-safe. See the [module](self) for
/// which source to share between tasks.
///
/// ```
/// use std::sync::Arc;
/// use snowmint::integrations::asynchronous::IdSourceAsync;
/// use snowmint::{Generator, Layout};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
/// let gen = Arc::new(Generator::new(Layout::SONYFLAKE, 7)?);
/// let task = tokio::spawn({
///     let gen = Arc::clone(&gen);
///     async move { gen.next_ids_async(1_000).await }
/// });
/// let batch = task.await??;
/// let next = gen.next_id_async().await?;
/// assert!(batch.into_iter().all(|id| id < next));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "tokio")]
pub trait IdSourceAsync: IdSource + Sync {
    /// The next ID, awaiting tokio's timer while the source must wait (at most
    /// [`max_wait`](IdSource::max_wait)).
    ///
    /// ```
    /// use snowmint::integrations::asynchronous::IdSourceAsync;
    /// use snowmint::{Generator, Layout};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// let a = gen.next_id_async().await?;
    /// assert!(gen.next_id_async().await? > a);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn next_id_async(&self) -> impl Future<Output = Result<Id, Self::Error>> + Send;

    /// Up to `n` consecutive IDs, awaiting tokio's timer only while none is available.
    ///
    /// ```
    /// use snowmint::integrations::asynchronous::IdSourceAsync;
    /// use snowmint::{Generator, Layout};
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
    /// let gen = Generator::new(Layout::TWITTER, 1)?;
    /// let batch = gen.next_ids_async(10).await?;
    /// assert!((1..=10).contains(&batch.len()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn next_ids_async(&self, n: u64) -> impl Future<Output = Result<IdBatch, Self::Error>> + Send;
}

#[cfg(feature = "tokio")]
impl<S: IdSource + Sync + ?Sized> IdSourceAsync for S {
    fn next_id_async(&self) -> impl Future<Output = Result<Id, S::Error>> + Send {
        next_id_with(self, tokio::time::sleep)
    }

    fn next_ids_async(&self, n: u64) -> impl Future<Output = Result<IdBatch, S::Error>> + Send {
        next_ids_with(self, n, tokio::time::sleep)
    }
}
