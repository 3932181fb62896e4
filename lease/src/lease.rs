//! [`Lease`]: the settings of a lease on a [`Backend`], and the acquisition: claim, wait
//! out the node's mark and the forgetting rule, hand a proven window to the fence.

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::backend::Backend;
use crate::error::LeaseError;
use crate::held::Held;
use crate::keeper::{forgetting_floor, LeaseKeeper};
use crate::owner;
use crate::progress::AcquireProgress;
use crate::store::{self, Store};
use snowmint::fence::{behind, resume_after, wait_past};
use snowmint::fence::{FenceError, Fenced, Keeper, Renewal};
use snowmint::{Clock, IdSource, MintError, SourceBuilder};

/// The most nodes one lease scans.
const MAX_RANGE: u64 = 1 << 16;
/// The largest node number a lease handles (Redis's scripts count in Lua's doubles).
const MAX_NODE: u64 = (1 << 40) - 1;
/// The longest TTL.
const MAX_TTL: Duration = Duration::from_secs(86_400);

/// Leases a node number from a shared store for a [`Fenced`] source: see the [module
/// docs](self) for the rules, [`RedisLease`](crate::redis::RedisLease) and
/// [`EtcdLease`](crate::etcd::EtcdLease) for each backend's keys and guarantees.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// use std::time::Duration;
/// use snowmint_lease::etcd::EtcdLease;
/// use snowmint::{Generator, Layout};
///
/// let lease = EtcdLease::new("etcd://10.0.0.5:2379,10.0.0.6:2379,10.0.0.7:2379")?
///     .namespace("billing")
///     .nodes(0..=99)
///     .ttl(Duration::from_secs(10));
/// let gen = lease.acquire(Generator::builder(Layout::TWITTER))?;
/// println!("node {} with fencing token {:?}", gen.node(), gen.token());
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Lease<B: Backend> {
    pub(crate) backend: B,
    pub(crate) namespace: String,
    pub(crate) ttl: Duration,
    pub(crate) margin: Option<Duration>,
    pub(crate) max_wait: Duration,
    pub(crate) nodes: Option<RangeInclusive<u64>>,
    pub(crate) io_timeout: Option<Duration>,
}

impl<B: Backend> Lease<B> {
    /// A lease on `backend`: namespace `default`, TTL 10 s, margin a fifth of the TTL,
    /// `max_wait` 10 s, every node of the layout (at most 65,536). The stores of this crate
    /// have their own constructors (`RedisLease::new(url)`, `EtcdLease::new(url)`); this one
    /// is for a store of your own (see [`Backend`]).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use snowmint_lease::Lease;
    /// let redis = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?.backend().clone();
    /// let lease = Lease::with_backend(redis).namespace("orders");
    /// assert_eq!(lease.namespace_name(), "orders");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn with_backend(backend: B) -> Lease<B> {
        Lease {
            backend,
            namespace: "default".to_string(),
            ttl: Duration::from_secs(10),
            margin: None,
            max_wait: Duration::from_secs(10),
            nodes: None,
            io_timeout: None,
        }
    }

    /// The namespace: leases of different namespaces never see each other. Use one per
    /// layout (and per ID space).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?.namespace("orders");
    /// assert_eq!(lease.namespace_name(), "orders");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = namespace.to_string();
        self
    }

    /// The namespace set.
    ///
    /// ```
    /// # #[cfg(feature = "etcd")] {
    /// let lease = snowmint_lease::etcd::EtcdLease::new("etcd://127.0.0.1:2379")?;
    /// assert_eq!(lease.namespace_name(), "default");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn namespace_name(&self) -> &str {
        &self.namespace
    }

    /// How long a lease lives without renewal (default 10 s; Redis 30 ms to 1 day, etcd 1 s
    /// to 1 day). A crashed process's node is free again after this long; renewals come every
    /// third of it; a start the store cannot vouch for (a new namespace, a store that may
    /// have lost writes) waits this long plus the margin (the forgetting rule).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?.ttl(Duration::from_secs(30));
    /// assert_eq!(lease.ttl_set(), Duration::from_secs(30));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The TTL set.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?;
    /// assert_eq!(lease.ttl_set(), std::time::Duration::from_secs(10));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn ttl_set(&self) -> Duration {
        self.ttl
    }

    /// How much earlier than the TTL the source fences itself, and how much longer than the
    /// TTL a new holder waits (default a fifth of the TTL; at most half of it). It covers the
    /// clocks' rate differences and offsets between the processes of a namespace.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?.margin(Duration::from_secs(1));
    /// assert_eq!(lease.margin_set(), Duration::from_secs(1));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn margin(mut self, margin: Duration) -> Self {
        self.margin = Some(margin);
        self
    }

    /// The margin in effect.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?;
    /// assert_eq!(lease.margin_set(), std::time::Duration::from_secs(2));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn margin_set(&self) -> Duration {
        self.margin.unwrap_or(self.ttl / 5)
    }

    /// The longest [`acquire`](Self::acquire) waits, beyond the forgetting rule's wait, for
    /// this clock to pass the node's mark (default 10 s); a clock further behind is
    /// [`LeaseError::MarkAhead`], at once.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?.max_wait(Duration::from_secs(2));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn max_wait(mut self, max: Duration) -> Self {
        self.max_wait = max;
        self
    }

    /// The node numbers this lease may take (default: all of the layout's, at most 65,536).
    /// Processes sharing a namespace must agree on the layout; ranges may differ.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?.nodes(100..=199);
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn nodes(mut self, nodes: RangeInclusive<u64>) -> Self {
        self.nodes = Some(nodes);
        self
    }

    /// The connect, read and write timeout of each store call (default a tenth of the TTL).
    /// etcd tries the next endpoint after it.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// use std::time::Duration;
    /// let lease = snowmint_lease::redis::RedisLease::new("redis://127.0.0.1/")?.io_timeout(Duration::from_millis(500));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn io_timeout(mut self, timeout: Duration) -> Self {
        self.io_timeout = Some(timeout);
        self
    }

    /// The backend: the store's connection settings.
    ///
    /// ```
    /// # #[cfg(feature = "etcd")] {
    /// let lease = snowmint_lease::etcd::EtcdLease::new("etcd://127.0.0.1:2379")?;
    /// let etcd: &snowmint_lease::etcd::Etcd = lease.backend();
    /// println!("{etcd:?}");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub(crate) fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// Claims a free node, waits out the node's mark (and the forgetting rule, where the store
    /// cannot vouch that it lost no write), records the
    /// first window, and returns the source (its node set to the one leased; the builder's
    /// node is ignored). A background thread renews the lease until the source is dropped,
    /// which releases the node.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")] {
    /// use snowmint_lease::redis::RedisLease;
    /// use snowmint::{Generator, Layout, WallClock};
    /// let gen = RedisLease::new("redis://127.0.0.1:6379/")?
    ///     .acquire(Generator::builder(Layout::SONYFLAKE).clock(WallClock))?;
    /// assert!(gen.node() <= Layout::SONYFLAKE.max_node());
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn acquire<S>(&self, builder: S) -> Result<Fenced<S::Source>, LeaseError>
    where
        S: SourceBuilder,
        <S::Source as IdSource>::Clock: Clone + 'static,
        <S::Source as IdSource>::Error: Into<FenceError>,
    {
        self.acquire_with(builder, |_| {})
    }

    /// As [`acquire`](Self::acquire), calling `on_progress` as each step begins: the claim,
    /// then the wait, if any, with its reason and its end ([`AcquireProgress`]). It runs on
    /// the calling thread, between store calls: keep it short.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")] {
    /// use snowmint_lease::AcquireProgress;
    /// use snowmint_lease::redis::RedisLease;
    /// use snowmint::{Generator, Layout};
    ///
    /// let gen = RedisLease::new("redis://127.0.0.1:6379/")?.acquire_with(
    ///     Generator::builder(Layout::TWITTER),
    ///     |step| match step {
    ///         AcquireProgress::Forgetting { node, until_unix_millis } => {
    ///             eprintln!("node {node}: the store may have forgotten; waiting until {until_unix_millis} ms")
    ///         }
    ///         other => eprintln!("{other:?}"),
    ///     },
    /// )?;
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn acquire_with<S>(
        &self,
        builder: S,
        mut on_progress: impl FnMut(AcquireProgress),
    ) -> Result<Fenced<S::Source>, LeaseError>
    where
        S: SourceBuilder,
        <S::Source as IdSource>::Clock: Clone + 'static,
        <S::Source as IdSource>::Error: Into<FenceError>,
    {
        let layout = *builder.layout();
        let (first, last) = self.range(builder.max_node())?;
        let margin = self.margin_set();
        if self.ttl < B::MIN_TTL || self.ttl > MAX_TTL || margin > self.ttl / 2 {
            return Err(LeaseError::Timing {
                ttl: self.ttl,
                margin,
                min_ttl: B::MIN_TTL,
            });
        }
        let io_timeout = self
            .io_timeout
            .unwrap_or(self.ttl / 10)
            .max(Duration::from_millis(1));
        let owner = owner::owner_token();
        let described = describe(&layout, builder.max_node());
        let mut store =
            self.backend
                .open(&self.namespace, &owner, self.ttl, io_timeout, &described)?;
        on_progress(AcquireProgress::Claiming);
        // Before the claim is sent: the store keeps the key at least a TTL after it.
        let claim_sent = Instant::now();
        let claim = store
            .claim(first, last)?
            .ok_or_else(|| LeaseError::AllTaken {
                namespace: self.namespace.clone(),
                first,
                last,
                ttl: self.ttl,
            })?;
        let node = claim.node;
        snowmint::fence::events::lease_acquired(
            &layout,
            B::NAME,
            &self.namespace,
            node,
            claim.mark,
        );
        let mut keeper = LeaseKeeper {
            store,
            node,
            ttl: self.ttl,
            margin,
            floor: claim.mark,
            unsettled: !claim.vouched,
        };
        let started = self.start(
            builder.node(node),
            &mut keeper,
            (&claim, claim_sent),
            &mut on_progress,
        );
        match started {
            Ok((source, first)) => Ok(Fenced::start_proven(source, node, keeper, first)),
            Err(e) => {
                // Give the node back, its mark untouched.
                let _ = keeper.store.release(claim.mark);
                Err(e)
            }
        }
    }

    /// Builds the source after the node's mark, waits for its clock to pass the mark and
    /// the forgetting rule's floor (holding the lease meanwhile), and records the first
    /// window, which admits only IDs after both. A store call that fails while the hold is
    /// still proven (a TTL less the margin after the last call that succeeded was sent) is
    /// tried again, as the renewal thread does: one slow answer does not give the node up.
    fn start<S: SourceBuilder, T: Store>(
        &self,
        builder: S,
        keeper: &mut LeaseKeeper<T>,
        (claim, claim_sent): (&store::Claim, Instant),
        on_progress: &mut impl FnMut(AcquireProgress),
    ) -> Result<(S::Source, Renewal), LeaseError> {
        let mark = claim.mark;
        let mut held = Held {
            until: claim_sent + self.ttl.saturating_sub(keeper.margin),
            window: self.ttl.saturating_sub(keeper.margin),
            retry: keeper.period(false),
        };
        let node = keeper.node;
        let layout = *builder.layout();
        let builder = match mark
            .map(|m| resume_after(&layout, m))
            .transpose()?
            .flatten()
        {
            Some(after) => builder.start_after(after),
            None => builder,
        };
        let source = builder
            .build()
            .map_err(|e| LeaseError::Build(Arc::new(e)))?;
        // Read after the claim returned, on the clock the IDs are stamped with: the
        // forgetting rule counts from the claim. A vouched claim needs only the mark.
        let claimed = source.clock().now_unix_nanos();
        let rule = if claim.vouched {
            0
        } else {
            forgetting_floor(claimed, self.ttl, keeper.margin)
        };
        let floor = rule.max(mark.unwrap_or(0));
        keeper.floor = Some(floor);
        if let Some(mark) = mark {
            let ahead = behind(&source, mark);
            if ahead > self.max_wait {
                return Err(LeaseError::MarkAhead {
                    node,
                    mark_unix_millis: mark,
                    max_wait: self.max_wait,
                    cause: MintError::ClockBehind { behind: ahead },
                });
            }
        }
        if let Some((mark_raft_term, raft_term)) = claim.restore_sign {
            snowmint::fence::events::lease_restore_sign(node, mark_raft_term, raft_term, floor);
            on_progress(AcquireProgress::Restored {
                node,
                until_unix_millis: floor,
                mark_raft_term,
                raft_term,
            });
        } else if !claim.vouched {
            on_progress(AcquireProgress::Forgetting {
                node,
                until_unix_millis: floor,
            });
        } else if behind(&source, floor) > Duration::ZERO {
            on_progress(AcquireProgress::PastMark {
                node,
                until_unix_millis: floor,
            });
        }
        // The rule's wait is TTL + margin by construction; the mark may add `max_wait`.
        let bound = self.ttl + keeper.margin + self.max_wait;
        let waited = wait_past(&source, floor, bound, self.ttl / 3, || {
            // Hold the lease while waiting, the mark unchanged.
            held.retry_while_held(|| match keeper.store.renew(0) {
                Ok(Some(_)) => Ok(Ok(())),
                Ok(None) => Ok(Err(LeaseError::LostWhileWaiting { node })),
                Err(e) => Err(e),
            })?
        });
        match waited {
            Ok(kept) => kept?,
            Err(behind) => {
                return Err(LeaseError::MarkAhead {
                    node,
                    mark_unix_millis: floor,
                    max_wait: bound,
                    cause: MintError::ClockBehind { behind },
                })
            }
        }
        let renewal =
            held.retry_while_held(|| match keeper.renew(source.clock().now_unix_nanos()) {
                Renewal::Failed(cause) => Err(cause),
                other => Ok(other),
            });
        let renewal = renewal.unwrap_or_else(Renewal::Failed);
        match renewal {
            Renewal::Held {
                limit_unix_millis,
                valid_until_nanos,
                floor_unix_millis,
            } => Ok((
                source,
                Renewal::Held {
                    limit_unix_millis,
                    valid_until_nanos,
                    floor_unix_millis: floor_unix_millis.max(Some(floor)),
                },
            )),
            Renewal::Failed(cause) | Renewal::Lost(cause) => {
                match cause.downcast_ref::<LeaseError>() {
                    Some(e) => Err(e.clone()),
                    None => Err(LeaseError::LostWhileWaiting { node }),
                }
            }
        }
    }

    fn range(&self, layout_max: u64) -> Result<(u64, u64), LeaseError> {
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

/// The layout as a namespace's record holds it: every field that gives a node's IDs their
/// meaning (bit widths, unit, epoch, order, time grid) and the leased node range's top, so
/// that two holders of one node number always mint disjoint IDs.
pub(crate) fn describe(layout: &snowmint::Layout, max_node: u64) -> String {
    format!(
        "{}+{}+{} bits, unit {} ns, epoch {} ns, {:?}, {:?}, nodes 0..={max_node}",
        layout.time_bits(),
        layout.node_bits(),
        layout.sequence_bits(),
        layout.unit_nanos(),
        layout.epoch_unix_nanos(),
        layout.order(),
        layout.time_grid(),
    )
}
