//! [`Minter`]: the service's source of IDs (a sharded generator, fenced by a Redis lease or
//! not), minted from async tasks without ever blocking a worker thread.

use std::time::Duration;

use snowmint::clock::{Clock, TscClock};
use snowmint::fence::{FenceError, Fenced};
use snowmint::integrations::asynchronous::retry_with;
use snowmint::source::{IdBatch, MintFailure};
use snowmint::{Id, IdSource, Layout, MintError, ShardedGenerator};

use super::pool::Pool;
use crate::error::with_cause;

/// The service's generator, by where its node number came from. Generic over the clock
/// only so that tests can stand time still.
pub enum Minter<C: Clock + 'static = TscClock> {
    /// `--node` or `--node-from`: the node is fixed for the process's life. IDs come from
    /// the pool of its exclusive shards, or from the generator (its overflow shard) when
    /// every pooled shard is held or has used its tick up.
    Fixed(ShardedGenerator<C>, Pool<C>),
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
        /// The readiness state that refused (`fenced: <cause>`, `lost`), if that is why.
        state: Option<String>,
    },
    /// Waiting cannot help (the layout expired, the clock is before the epoch): 500.
    Failed { message: String },
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

impl<C: Clock + 'static> Minter<C> {
    /// The layout of the IDs.
    pub fn layout(&self) -> &Layout {
        match self {
            Minter::Fixed(gen, _) => gen.layout(),
            Minter::Leased { gen, .. } => gen.layout(),
        }
    }

    /// The node number (the node bits above the shard bits).
    pub fn node(&self) -> u64 {
        match self {
            Minter::Fixed(gen, _) => gen.node(),
            Minter::Leased { gen, .. } => gen.node(),
        }
    }

    /// The lease's namespace, if leased.
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Minter::Fixed(..) => None,
            Minter::Leased { namespace, .. } => Some(namespace),
        }
    }

    /// The lease's backend (`redis`, `etcd`), if leased.
    pub fn backend(&self) -> Option<&'static str> {
        match self {
            Minter::Fixed(..) => None,
            Minter::Leased { backend, .. } => Some(backend),
        }
    }

    /// The lease's fencing token, if leased from a backend that has one (etcd).
    pub fn token(&self) -> Option<u64> {
        match self {
            Minter::Fixed(..) => None,
            Minter::Leased { gen, .. } => gen.token(),
        }
    }

    /// The lease's deadline, Unix milliseconds, if leased (0 while fenced).
    pub fn deadline_unix_millis(&self) -> Option<u64> {
        match self {
            Minter::Fixed(..) => None,
            Minter::Leased { gen, .. } => Some(gen.deadline_unix_nanos() / 1_000_000),
        }
    }

    /// Until when (Unix milliseconds) the fence lets the source mint without another
    /// renewal: `None` for a fixed node.
    pub fn fence_limit_unix_millis(&self) -> Option<u64> {
        match self {
            Minter::Fixed(..) => None,
            Minter::Leased { gen, .. } => gen.limit_unix_millis(),
        }
    }

    /// Why a fenced lease refuses now, as the fence names it (the node's floor not passed,
    /// the deadline passed with the last renewal's error, the node lost), without minting.
    pub fn fence_cause(&self) -> String {
        match self {
            Minter::Leased { gen, .. } => gen.fence_cause().map_or_else(
                || "the hold was restored a moment ago".to_owned(),
                |cause| cause.to_string(),
            ),
            Minter::Fixed(..) => "a fixed node is never fenced".to_owned(),
        }
    }

    /// Whether minting works now.
    pub fn health(&self) -> Health {
        match self {
            Minter::Fixed(..) => Health::Ok,
            Minter::Leased { gen, .. } if gen.is_lost() => Health::Lost,
            Minter::Leased { gen, .. } if gen.is_fenced() => Health::Fenced,
            Minter::Leased { .. } => Health::Ok,
        }
    }

    fn max_wait(&self) -> Duration {
        match self {
            Minter::Fixed(gen, _) => gen.max_wait(),
            Minter::Leased { gen, .. } => IdSource::max_wait(gen),
        }
    }

    fn try_one(&self) -> Result<Id, Retry> {
        match self {
            Minter::Fixed(gen, pool) => match pool.try_one() {
                Some(id) => Ok(id),
                None => gen.try_next_id().map_err(Retry::from),
            },
            Minter::Leased { gen, .. } => gen.try_next_id().map_err(Retry),
        }
    }

    fn try_batch(&self, n: u64) -> Result<IdBatch, Retry> {
        match self {
            Minter::Fixed(gen, pool) => match pool.try_batch(n) {
                Some(batch) => Ok(batch),
                None => gen.try_next_ids(n).map_err(Retry::from),
            },
            Minter::Leased { gen, .. } => gen.try_next_ids(n).map_err(Retry),
        }
    }

    /// One ID, awaiting tokio's timer (never blocking the worker) while the shard must wait,
    /// at most `--max-wait` in all. A fenced lease is refused at once: waiting for Redis is
    /// the client's to decide, told by `Retry-After`.
    ///
    /// The retries go through the library's [`retry_with`], so a request that waits for a
    /// tick counts as one wait (`snowmint_waits_total`), and an error
    /// (`snowmint_errors_total`) only when the client gets one. Cancellation-safe: an ID is
    /// minted only by a `try_` call whose result is used in the same poll.
    pub async fn one(&self) -> Result<Id, Refusal> {
        let max = self.max_wait();
        retry_with(max, || self.try_one(), tokio::time::sleep)
            .await
            .map_err(|e| e.refusal(max))
    }

    /// Exactly `n` IDs, handed to `each` a reservation at a time (one tick of one shard at
    /// most), awaiting the timer between reservations when the shard's tick is used up. The
    /// wait budget (`--max-wait`) starts again for every reservation, so a large batch
    /// takes as many ticks as it needs while a stuck clock still ends it.
    pub async fn fill(&self, n: u64, mut each: impl FnMut(IdBatch)) -> Result<(), Refusal> {
        let max = self.max_wait();
        let mut left = n;
        while left > 0 {
            let batch = retry_with(max, || self.try_batch(left), tokio::time::sleep)
                .await
                .map_err(|e| e.refusal(max))?;
            // At most `left`: a reservation is never larger than asked for.
            left -= (batch.len() as u64).min(left);
            each(batch);
            if left > 0 {
                // A tick's worth at a time, then let the worker serve others: when
                // formatting outlasts the tick, no wait would ever give it back.
                tokio::task::yield_now().await;
            }
        }
        Ok(())
    }
}

/// A failed attempt as the service retries it: a mint error waits as long as it says (the
/// tick used up, the clock behind), a fence's refusal not at all (answered at once).
#[derive(Debug)]
struct Retry(FenceError);

impl From<MintError> for Retry {
    fn from(e: MintError) -> Retry {
        Retry(FenceError::Mint(e))
    }
}

impl std::fmt::Display for Retry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Retry {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl MintFailure for Retry {
    fn retry_after(&self) -> Option<Duration> {
        match &self.0 {
            FenceError::Mint(e) => e.retry_after(),
            _ => None,
        }
    }
}

impl Retry {
    /// The answer to the client, after waits of at most `max_wait`.
    fn refusal(self, max_wait: Duration) -> Refusal {
        match self.0 {
            FenceError::Mint(e) => match e.retry_after() {
                // Retryable, returned: the next wait would have passed the budget.
                Some(wait) => Refusal::Unavailable {
                    retry_after: Some(wait),
                    message: format!(
                        "{e}; waiting longer than --max-wait {} would be needed",
                        humantime::format_duration(max_wait)
                    ),
                    state: None,
                },
                None => Refusal::Failed {
                    message: e.to_string(),
                },
            },
            e @ FenceError::Fenced { .. } => Refusal::Unavailable {
                retry_after: e.retry_after(),
                message: with_cause(&e),
                state: Some(match std::error::Error::source(&e) {
                    Some(cause) => format!("fenced: {cause}"),
                    None => "fenced".to_owned(),
                }),
            },
            e @ FenceError::Lost { .. } => Refusal::Unavailable {
                retry_after: None,
                message: with_cause(&e),
                state: Some("lost".to_owned()),
            },
            e => Refusal::Failed {
                message: with_cause(&e),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use snowmint::clock::ManualClock;

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
            Pool::none(),
        )
    }

    #[test]
    fn a_batch_larger_than_a_tick_is_exact_and_unique() {
        let minter = Minter::Fixed(
            ShardedGenerator::builder(Layout::TWITTER).build().unwrap(),
            Pool::none(),
        );
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
    fn a_fence_is_answered_at_once_and_a_used_up_tick_is_waited_for() {
        let cause = std::sync::Arc::new(std::io::Error::other("connection refused"));
        let fenced = Retry(FenceError::Fenced {
            node: 5,
            retry_after: Duration::from_millis(100),
            cause,
        });
        // Not retried by the service (the client decides, told by Retry-After)...
        assert_eq!(MintFailure::retry_after(&fenced), None);
        let Refusal::Unavailable {
            retry_after,
            message,
            state,
        } = fenced.refusal(Duration::from_secs(1))
        else {
            panic!("a fence is a 503")
        };
        assert_eq!(retry_after, Some(Duration::from_millis(100)));
        assert!(message.contains("connection refused"), "{message}");
        assert_eq!(state.as_deref(), Some("fenced: connection refused"));
        // ...while a used-up tick is waited for, and a 503 only past --max-wait.
        let exhausted = Retry::from(MintError::Exhausted {
            retry_after: Duration::from_millis(1),
        });
        assert_eq!(
            MintFailure::retry_after(&exhausted),
            Some(Duration::from_millis(1))
        );
        let expired = Retry::from(MintError::Expired {
            expiry_unix_millis: 0,
        });
        assert!(matches!(
            expired.refusal(Duration::from_secs(1)),
            Refusal::Failed { .. }
        ));
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
            ..
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
