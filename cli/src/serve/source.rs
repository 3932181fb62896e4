//! [`Minter`]: the service's source of IDs (a sharded generator, fenced by a Redis lease or
//! not), minted from async tasks without ever blocking a worker thread.

use std::time::Duration;

use snowmint::{
    Clock, FenceError, Fenced, Id, IdBatch, IdSource, Layout, MintError, ShardedGenerator, TscClock,
};

/// The shortest timer awaited: a source reporting a zero wait still parks the task.
const MIN_WAIT: Duration = Duration::from_micros(1);

/// The service's generator, by where its node number came from. Generic over the clock
/// only so that tests can stand time still.
pub enum Minter<C: Clock = TscClock> {
    /// `--node` or `--node-from`: the node is fixed for the process's life.
    Fixed(ShardedGenerator<C>),
    /// `--lease`: the node is leased from Redis or etcd; minting stops while the lease is
    /// fenced.
    Leased {
        gen: Fenced<ShardedGenerator<C>>,
        namespace: String,
        /// `redis` or `etcd`.
        backend: &'static str,
    },
}

/// Why no ID was minted for a request.
#[derive(Debug, Clone)]
pub enum Refusal {
    /// Waiting can help, but not within `--max-wait`, or the lease is fenced: 503 with
    /// `Retry-After` (none when the lease is lost for good).
    Unavailable {
        retry_after: Option<Duration>,
        message: String,
    },
    /// Waiting cannot help (the layout expired, the clock is before the epoch): 500.
    Failed { message: String },
}

/// What one non-blocking attempt gave.
enum Attempt<T> {
    Minted(T),
    /// Try again after this long (the tick's sequence is used up, the clock stepped back).
    Wait(Duration, String),
    Refused(Refusal),
}

/// How the service is doing, for `/healthz`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    Ok,
    /// The lease could not be renewed in time: minting resumes once it is.
    Fenced,
    /// Another process took the node number: this process mints no more.
    Lost,
}

impl<C: Clock> Minter<C> {
    /// The layout of the IDs.
    pub fn layout(&self) -> &Layout {
        match self {
            Minter::Fixed(gen) => gen.layout(),
            Minter::Leased { gen, .. } => gen.layout(),
        }
    }

    /// The node number (the node bits above the shard bits).
    pub fn node(&self) -> u64 {
        match self {
            Minter::Fixed(gen) => gen.node(),
            Minter::Leased { gen, .. } => gen.node(),
        }
    }

    /// The lease's namespace, if leased.
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Minter::Fixed(_) => None,
            Minter::Leased { namespace, .. } => Some(namespace),
        }
    }

    /// The lease's backend (`redis`, `etcd`), if leased.
    pub fn backend(&self) -> Option<&'static str> {
        match self {
            Minter::Fixed(_) => None,
            Minter::Leased { backend, .. } => Some(backend),
        }
    }

    /// The lease's fencing token, if leased from a backend that has one (etcd).
    pub fn token(&self) -> Option<u64> {
        match self {
            Minter::Fixed(_) => None,
            Minter::Leased { gen, .. } => gen.token(),
        }
    }

    /// The lease's deadline, Unix milliseconds, if leased (0 while fenced).
    pub fn deadline_unix_millis(&self) -> Option<u64> {
        match self {
            Minter::Fixed(_) => None,
            Minter::Leased { gen, .. } => Some(gen.deadline_unix_nanos() / 1_000_000),
        }
    }

    /// Whether minting works now.
    pub fn health(&self) -> Health {
        match self {
            Minter::Fixed(_) => Health::Ok,
            Minter::Leased { gen, .. } if gen.is_lost() => Health::Lost,
            Minter::Leased { gen, .. } if gen.is_fenced() => Health::Fenced,
            Minter::Leased { .. } => Health::Ok,
        }
    }

    fn max_wait(&self) -> Duration {
        match self {
            Minter::Fixed(gen) => gen.max_wait(),
            Minter::Leased { gen, .. } => IdSource::max_wait(gen),
        }
    }

    fn try_one(&self) -> Attempt<Id> {
        match self {
            Minter::Fixed(gen) => from_mint(gen.try_next_id()),
            Minter::Leased { gen, .. } => from_fence(gen.try_next_id()),
        }
    }

    fn try_batch(&self, n: u64) -> Attempt<IdBatch> {
        match self {
            Minter::Fixed(gen) => from_mint(gen.try_next_ids(n)),
            Minter::Leased { gen, .. } => from_fence(gen.try_next_ids(n)),
        }
    }

    /// One ID, awaiting tokio's timer (never blocking the worker) while the shard must wait,
    /// at most `--max-wait` in all. A fenced lease is refused at once: waiting for Redis is
    /// the client's to decide, told by `Retry-After`.
    ///
    /// The library's `next_id_async` would wait out a fence too, up to its `max_wait`; a
    /// service answers at once instead. Cancellation-safe like it: an ID is minted only by
    /// a `try_` call whose result is used in the same poll.
    pub async fn one(&self) -> Result<Id, Refusal> {
        let mut budget = WaitBudget::new(self.max_wait());
        loop {
            match self.try_one() {
                Attempt::Minted(id) => return Ok(id),
                Attempt::Refused(refusal) => return Err(refusal),
                Attempt::Wait(wait, why) => budget.sleep(wait, why).await?,
            }
        }
    }

    /// Exactly `n` IDs, handed to `each` a reservation at a time (one tick of one shard at
    /// most), awaiting the timer between reservations when the shard's tick is used up. The
    /// wait budget (`--max-wait`) starts again after every reservation, so a large batch
    /// takes as many ticks as it needs while a stuck clock still ends it.
    pub async fn fill(&self, n: u64, mut each: impl FnMut(IdBatch)) -> Result<(), Refusal> {
        let mut left = n;
        let mut budget = WaitBudget::new(self.max_wait());
        while left > 0 {
            match self.try_batch(left) {
                Attempt::Minted(batch) => {
                    // At most `left`: a reservation is never larger than asked for.
                    left -= (batch.len() as u64).min(left);
                    budget = WaitBudget::new(budget.max);
                    each(batch);
                    if left > 0 {
                        // A tick's worth at a time, then let the worker serve others: when
                        // formatting outlasts the tick, no wait would ever give it back.
                        tokio::task::yield_now().await;
                    }
                }
                Attempt::Refused(refusal) => return Err(refusal),
                Attempt::Wait(wait, why) => budget.sleep(wait, why).await?,
            }
        }
        Ok(())
    }
}

/// The waits one request may still spend.
struct WaitBudget {
    max: Duration,
    waited: Duration,
}

impl WaitBudget {
    fn new(max: Duration) -> WaitBudget {
        WaitBudget {
            max,
            waited: Duration::ZERO,
        }
    }

    /// Sleeps `wait` on tokio's timer, or refuses if that would pass the budget.
    async fn sleep(&mut self, wait: Duration, why: String) -> Result<(), Refusal> {
        let wait = wait.max(MIN_WAIT);
        match self.waited.checked_add(wait) {
            Some(total) if total <= self.max => self.waited = total,
            _ => {
                return Err(Refusal::Unavailable {
                    retry_after: Some(wait),
                    message: format!(
                        "{why}; waiting longer than --max-wait {} would be needed",
                        humantime::format_duration(self.max)
                    ),
                })
            }
        }
        tokio::time::sleep(wait).await;
        Ok(())
    }
}

fn from_mint<T>(result: Result<T, MintError>) -> Attempt<T> {
    match result {
        Ok(value) => Attempt::Minted(value),
        Err(e) => match e.retry_after() {
            Some(wait) => Attempt::Wait(wait, e.to_string()),
            None => Attempt::Refused(Refusal::Failed {
                message: e.to_string(),
            }),
        },
    }
}

fn from_fence<T>(result: Result<T, FenceError>) -> Attempt<T> {
    match result {
        Ok(value) => Attempt::Minted(value),
        Err(FenceError::Mint(e)) => from_mint(Err(e)),
        Err(e @ FenceError::Fenced { .. }) => Attempt::Refused(Refusal::Unavailable {
            retry_after: e.retry_after(),
            message: with_cause(&e),
        }),
        Err(e @ FenceError::Lost { .. }) => Attempt::Refused(Refusal::Unavailable {
            retry_after: None,
            message: with_cause(&e),
        }),
        Err(e) => Attempt::Refused(Refusal::Failed {
            message: with_cause(&e),
        }),
    }
}

/// The error and its source, as one line.
pub fn with_cause(e: &dyn std::error::Error) -> String {
    match e.source() {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use snowmint::ManualClock;

    use super::*;

    /// A runtime whose timer jumps ahead whenever every task sleeps: waits cost no real time.
    fn paused_runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap()
    }

    fn on_clock(clock: &ManualClock, max_wait: Duration) -> Minter<ManualClock> {
        Minter::Fixed(
            ShardedGenerator::builder(Layout::TWITTER)
                .clock(clock.clone())
                .max_wait(max_wait)
                .build()
                .unwrap(),
        )
    }

    #[test]
    fn a_batch_larger_than_a_tick_is_exact_and_unique() {
        let minter = Minter::Fixed(ShardedGenerator::builder(Layout::TWITTER).build().unwrap());
        let mut ids = Vec::new();
        let mut reservations = 0;
        paused_runtime()
            .block_on(minter.fill(10_000, |batch| {
                reservations += 1;
                ids.extend(batch);
            }))
            .unwrap();
        assert_eq!(ids.len(), 10_000);
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 10_000);
        // Twitter's 4,096 IDs per tick and shard: at least three reservations.
        assert!(reservations >= 3, "{reservations}");
    }

    #[test]
    fn a_clock_that_stands_still_ends_the_request_with_503_not_a_spin() {
        let clock = ManualClock::at_unix_millis(1_700_000_000_000);
        let minter = on_clock(&clock, Duration::from_millis(5));
        let rt = paused_runtime();
        let mut got = 0;
        let err = rt
            .block_on(minter.fill(5_000, |batch| got += batch.len()))
            .unwrap_err();
        // One tick's worth, then waits (on tokio's paused timer) until the budget is spent.
        assert_eq!(got, 4_096);
        let Refusal::Unavailable {
            retry_after,
            message,
        } = err
        else {
            panic!("{err:?}")
        };
        assert!(retry_after.is_some());
        assert!(message.contains("--max-wait 5ms"), "{message}");
        // The clock moves on: minting resumes.
        clock.advance(Duration::from_millis(1));
        assert!(rt.block_on(minter.one()).is_ok());
    }
}
