//! Node numbers leased from Redis (feature `redis`): [`RedisLease`].
//!
//! Each generator takes a free node number atomically, renews its lease from a background
//! thread, fences itself when it cannot renew in time, and leaves a high-water mark of the
//! time it issued for the next owner of the node, who continues after it. The guarantees
//! and failure modes are on [`RedisLease`].
//!
//! Keys, per namespace `NS` and node `N`:
//! - `snowmint:NS:node:N`: the owner's token, with the lease's TTL;
//! - `snowmint:NS:node:N:last`: a hash, `ms` (the mark, Unix milliseconds: no ID of this
//!   node was issued with a later time) and `owner` (who wrote it). It has no TTL.
//!
//! ```no_run
//! use std::time::Duration;
//! use snowmint::redis::RedisLease;
//! use snowmint::{Generator, Layout};
//!
//! let lease = RedisLease::new("redis://127.0.0.1:6379/")?
//!     .namespace("orders")
//!     .ttl(Duration::from_secs(10));
//! let gen = lease.acquire(Generator::builder(Layout::TWITTER))?;
//! println!("minting as node {}", gen.node());
//! let id = gen.next_id()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod keeper;

pub use self::error::LeaseError;

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use self::keeper::{Conn, Keys, RedisKeeper};
use crate::clock::Clock;
use crate::error::MintError;
use crate::fence::mark::{resume_after, wait_past};
use crate::fence::{FenceError, Fenced, Keeper, Renewal};
use crate::source::{IdSource, SourceBuilder};

/// The most nodes one lease scans: the acquisition script visits each taken node once.
const MAX_RANGE: u64 = 1 << 16;
/// The largest node number a lease handles: the scripts count in Lua's doubles.
const MAX_NODE: u64 = (1 << 40) - 1;

/// Leases a node number from Redis for a [`Fenced`].
///
/// # How it works
/// - **Acquire**: one Lua script tries `SET snowmint:NS:node:N TOKEN NX PX ttl` for each
///   node of the range in turn and returns the first it got, with the node's stored mark.
///   Redis runs scripts one at a time, so two processes never get the same free node.
/// - **Restart guard**: if the mark (the last time the previous owner may have issued) is
///   ahead of this clock, the generator waits until its clock passes it (at most
///   [`max_wait`](Self::max_wait), else [`LeaseError::MarkAhead`] at once)
///   and mints only after it.
/// - **Renew**: every third of the TTL, a script checks the token, extends the TTL and
///   raises the mark to `now + ttl`. The generator hands out no ID stamped after the mark
///   recorded in Redis, so the next owner, who starts after the mark, can never repeat one.
/// - **Fence**: the hold is proven until `send time of the last successful renewal + TTL −
///   margin`; after that [`next_id`](Fenced::next_id) returns
///   [`FenceError::Fenced`] until a renewal gets through. If the
///   key expired meanwhile, the same node is taken back if it is free (continuing after
///   any owner in between); if another process holds it, the generator is
///   [lost](crate::FenceError::Lost) for good.
/// - **Release** (on drop): the mark is lowered to the last time actually issued and the
///   key deleted, so the next owner starts at once.
///
/// # Guarantees
/// While Redis keeps its writes, no two generators of one namespace hold a node at once,
/// and no ID is issued twice, whatever the processes' clocks read, however long a process
/// is paused (the GC-pause case: a paused process can hand out only IDs stamped before the
/// mark that the next owner waits out), and across restarts with the clock behind.
///
/// # Not guaranteed
/// - **Redis losing writes.** A restart without persistence, or a failover to a replica
///   that missed the last writes, forgets leases and marks: a node can then be handed to a
///   second process while the first still holds it, for up to one TTL, and the second does
///   not know the first one's mark. Run Redis with `appendonly yes` (and `appendfsync
///   always` for strict safety); Redis Sentinel or Cluster failover does not make it safe.
/// - **One namespace per layout.** Marks are times; node numbers mean nothing across
///   layouts.
/// - A cluster: the acquisition script builds its keys, so all keys of a namespace must be
///   on one node (a single Redis, or a namespace in braces, `{orders}`, for one slot).
///
/// ```no_run
/// use std::time::Duration;
/// use snowmint::redis::{LeaseError, RedisLease};
/// use snowmint::{FenceError, Generator, Layout};
///
/// let lease = RedisLease::new("redis://10.0.0.5:6379/")?
///     .namespace("billing")
///     .nodes(0..=99)                      // this service's share of the node range
///     .ttl(Duration::from_secs(10))
///     .margin(Duration::from_secs(2))
///     .max_wait(Duration::from_secs(10));
/// let gen = match lease.acquire(Generator::builder(Layout::TWITTER)) {
///     Ok(gen) => gen,
///     Err(LeaseError::AllTaken { .. }) => panic!("100 processes already run: widen the range"),
///     Err(e) => return Err(e.into()),
/// };
/// match gen.next_id() {
///     Ok(id) => println!("{id}"),
///     Err(FenceError::Fenced { .. }) => { /* Redis unreachable: retry later */ }
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct RedisLease {
    client: ::redis::Client,
    namespace: String,
    ttl: Duration,
    margin: Option<Duration>,
    max_wait: Duration,
    nodes: Option<RangeInclusive<u64>>,
    io_timeout: Option<Duration>,
}

impl RedisLease {
    /// A lease from the Redis at `url` (`redis://host:port/db`), namespace `default`, TTL
    /// 10 s, margin a fifth of the TTL, `max_wait` 10 s, every node of the layout (at
    /// most 65,536). Nothing is connected until [`acquire`](Self::acquire).
    ///
    /// ```
    /// use snowmint::redis::RedisLease;
    /// assert!(RedisLease::new("redis://127.0.0.1:6379/").is_ok());
    /// assert!(RedisLease::new("not a url").is_err());
    /// ```
    pub fn new(url: &str) -> Result<RedisLease, LeaseError> {
        let client =
            ::redis::Client::open(url).map_err(|e| redis_error("parse the Redis URL", e))?;
        Ok(RedisLease {
            client,
            namespace: "default".to_string(),
            ttl: Duration::from_secs(10),
            margin: None,
            max_wait: Duration::from_secs(10),
            nodes: None,
            io_timeout: None,
        })
    }

    /// The namespace: generators of different namespaces never see each other's leases.
    /// Use one per layout (and per ID space).
    ///
    /// ```
    /// let lease = snowmint::redis::RedisLease::new("redis://127.0.0.1/")?.namespace("orders");
    /// assert_eq!(lease.key_prefix(), "snowmint:orders:node:");
    /// # Ok::<(), snowmint::redis::LeaseError>(())
    /// ```
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = namespace.to_string();
        self
    }

    /// How long a lease lives without renewal (default 10 s; 30 ms to 1 day). A crashed
    /// process's node is free again after this long; renewals come every third of it.
    ///
    /// ```
    /// use std::time::Duration;
    /// let lease = snowmint::redis::RedisLease::new("redis://127.0.0.1/")?.ttl(Duration::from_secs(30));
    /// # Ok::<(), snowmint::redis::LeaseError>(())
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How much earlier than the TTL the generator fences itself (default a fifth of the
    /// TTL; at most half of it, so that a renewal every third of the TTL keeps it open).
    ///
    /// ```
    /// use std::time::Duration;
    /// let lease = snowmint::redis::RedisLease::new("redis://127.0.0.1/")?.margin(Duration::from_secs(1));
    /// # Ok::<(), snowmint::redis::LeaseError>(())
    /// ```
    pub fn margin(mut self, margin: Duration) -> Self {
        self.margin = Some(margin);
        self
    }

    /// The longest [`acquire`](Self::acquire) waits for this clock to pass the node's mark
    /// (default 10 s); a clock further behind is [`LeaseError::MarkAhead`], at once.
    ///
    /// ```
    /// use std::time::Duration;
    /// let lease = snowmint::redis::RedisLease::new("redis://127.0.0.1/")?.max_wait(Duration::from_secs(2));
    /// # Ok::<(), snowmint::redis::LeaseError>(())
    /// ```
    pub fn max_wait(mut self, max: Duration) -> Self {
        self.max_wait = max;
        self
    }

    /// The node numbers this lease may take (default: all of the layout's, at most 65,536).
    /// Processes sharing a namespace must agree on the layout; ranges may differ.
    ///
    /// ```
    /// let lease = snowmint::redis::RedisLease::new("redis://127.0.0.1/")?.nodes(100..=199);
    /// # Ok::<(), snowmint::redis::LeaseError>(())
    /// ```
    pub fn nodes(mut self, nodes: RangeInclusive<u64>) -> Self {
        self.nodes = Some(nodes);
        self
    }

    /// The connect, read and write timeout of each Redis call (default a tenth of the TTL).
    ///
    /// ```
    /// use std::time::Duration;
    /// let lease = snowmint::redis::RedisLease::new("redis://127.0.0.1/")?.io_timeout(Duration::from_millis(500));
    /// # Ok::<(), snowmint::redis::LeaseError>(())
    /// ```
    pub fn io_timeout(mut self, timeout: Duration) -> Self {
        self.io_timeout = Some(timeout);
        self
    }

    /// The prefix of this namespace's node keys.
    ///
    /// ```
    /// let lease = snowmint::redis::RedisLease::new("redis://127.0.0.1/")?;
    /// assert_eq!(lease.key_prefix(), "snowmint:default:node:");
    /// # Ok::<(), snowmint::redis::LeaseError>(())
    /// ```
    pub fn key_prefix(&self) -> String {
        format!("snowmint:{}:node:", self.namespace)
    }

    /// Takes a free node, waits for the clock to pass its mark, records the first window,
    /// and returns the generator (its node set to the one leased; the builder's node is
    /// ignored). Its background thread renews the lease until it is dropped.
    ///
    /// ```no_run
    /// use snowmint::redis::RedisLease;
    /// use snowmint::{Generator, Layout, WallClock};
    /// let gen = RedisLease::new("redis://127.0.0.1:6379/")?
    ///     .acquire(Generator::builder(Layout::SONYFLAKE).clock(WallClock))?;
    /// assert!(gen.node() <= Layout::SONYFLAKE.max_node());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn acquire<B>(&self, builder: B) -> Result<Fenced<B::Source>, LeaseError>
    where
        B: SourceBuilder,
        <B::Source as IdSource>::Clock: Clone + 'static,
        <B::Source as IdSource>::Error: Into<FenceError>,
    {
        let layout = *builder.layout();
        let (first, last) = self.range(builder.max_node())?;
        let margin = self.margin.unwrap_or(self.ttl / 5);
        if self.ttl < Duration::from_millis(30)
            || self.ttl > Duration::from_secs(86_400)
            || margin > self.ttl / 2
        {
            return Err(LeaseError::Timing {
                ttl: self.ttl,
                margin,
            });
        }
        let io_timeout = self
            .io_timeout
            .unwrap_or(self.ttl / 10)
            .max(Duration::from_millis(1));
        let prefix = self.key_prefix();
        let owner = owner_token();
        let mut conn = Conn::new(self.client.clone(), io_timeout);
        let taken = conn
            .acquire(&prefix, (first, last, first), &owner, self.ttl)
            .map_err(|e| redis_error("acquire a node", e))?
            .ok_or_else(|| LeaseError::AllTaken {
                namespace: self.namespace.clone(),
                first,
                last,
                ttl: self.ttl,
            })?;
        let node = taken.node;
        crate::events::lease_acquired(&layout, &self.namespace, node, taken.mark);
        let mut keeper = RedisKeeper {
            conn,
            keys: Keys::new(&prefix, node),
            prefix,
            node,
            owner,
            ttl: self.ttl,
            margin,
            floor: taken.mark,
        };
        let builder = match taken.mark {
            Some(mark) => match resume_after(&layout, mark) {
                Ok(Some(after)) => builder.start_after(after),
                Ok(None) => builder,
                Err(e) => {
                    keeper.release(None);
                    return Err(e.into());
                }
            },
            None => builder,
        };
        match self.start(builder.node(node), &mut keeper) {
            Ok((source, first)) => Ok(Fenced::start_with(
                source,
                node,
                Box::new(keeper),
                Some(first),
                true,
            )),
            Err(e) => {
                // Give the node back, its mark untouched.
                keeper.release(None);
                Err(e)
            }
        }
    }

    /// Builds the source, waits for its clock to pass the node's mark (holding the lease
    /// meanwhile) and records the first window.
    fn start<B: SourceBuilder>(
        &self,
        builder: B,
        keeper: &mut RedisKeeper,
    ) -> Result<(B::Source, Renewal), LeaseError> {
        let source = builder
            .build()
            .map_err(|e| LeaseError::Build(Arc::new(e)))?;
        if let Some(mark) = keeper.floor {
            let (node, ttl) = (keeper.node, keeper.ttl);
            let waited = wait_past(&source, mark, self.max_wait, ttl / 3, || {
                // Hold the lease while waiting, the mark unchanged.
                match keeper.conn.renew(&keeper.keys, &keeper.owner, ttl, 0) {
                    Ok(Some(_)) => Ok(()),
                    Ok(None) => Err(LeaseError::LostWhileWaiting { node }),
                    Err(e) => Err(redis_error("hold the lease while waiting for the clock", e)),
                }
            });
            match waited {
                Ok(kept) => kept?,
                Err(behind) => {
                    return Err(LeaseError::MarkAhead {
                        node,
                        mark_unix_millis: mark,
                        max_wait: self.max_wait,
                        cause: MintError::ClockBehind { behind },
                    })
                }
            }
        }
        match keeper.renew(source.clock().now_unix_nanos()) {
            held @ Renewal::Held { .. } => Ok((source, held)),
            Renewal::Failed(cause) | Renewal::Lost(cause) => {
                match cause.downcast_ref::<LeaseError>() {
                    Some(e) => Err(e.clone()),
                    None => Err(LeaseError::LostWhileWaiting { node: keeper.node }),
                }
            }
        }
    }

    fn range(&self, layout_max: u64) -> Result<(u64, u64), LeaseError> {
        // Lua numbers are doubles printed with 14 digits: keep node numbers well inside.
        let max_node = layout_max.min(MAX_NODE);
        let (first, last) = match &self.nodes {
            Some(r) => (*r.start(), *r.end()),
            None => (0, max_node.min(MAX_RANGE - 1)),
        };
        if first > last || last > max_node || last - first >= MAX_RANGE {
            return Err(LeaseError::NodeRange {
                first,
                last,
                max: max_node,
            });
        }
        Ok((first, last))
    }
}

fn redis_error(action: &'static str, e: ::redis::RedisError) -> LeaseError {
    LeaseError::Redis {
        action,
        cause: Arc::new(e),
    }
}

/// A token unique to one lease: host, process, time and a counter.
fn owner_token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Relaxed: only the value's uniqueness in this process matters, which any RMW gives.
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let host = crate::node::system_hostname().unwrap_or_else(|| "unknown-host".to_string());
    format!(
        "{host}/{}/{}/{n}",
        std::process::id(),
        crate::clock::system_unix_nanos()
    )
}
