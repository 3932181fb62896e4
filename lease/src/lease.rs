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
use snowmint::clock::Clock;
use snowmint::fence::{behind, resume_after, wait_past};
use snowmint::fence::{FenceError, Fenced, Keeper, Renewal};
use snowmint::source::SourceBuilder;
use snowmint::{IdSource, MintError};

/// The most nodes one lease scans.
const MAX_RANGE: u64 = 1 << 16;
/// The largest node number a lease handles (Redis's scripts count in Lua's doubles).
const MAX_NODE: u64 = (1 << 40) - 1;

/// Leases a node number from a shared store for a [`Fenced`] source: the settings a
/// [`LeaseBuilder`](crate::LeaseBuilder) checked, read back with plain getters, and the calls. See [the crate's
/// docs](crate) for the rules, [`RedisLease`](crate::redis::RedisLease) and
/// [`EtcdLease`](crate::etcd::EtcdLease) for each backend's keys and guarantees.
///
/// ```no_run
/// # #[cfg(feature = "etcd")] {
/// use std::time::Duration;
/// use snowmint_lease::etcd::EtcdLease;
/// use snowmint::{Generator, Layout};
///
/// let lease = EtcdLease::builder("etcd://10.0.0.5:2379,10.0.0.6:2379,10.0.0.7:2379")?
///     .namespace("billing")
///     .nodes(0..=99)
///     .ttl(Duration::from_secs(10))
///     .build()?;
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
    pub(crate) margin: Duration,
    pub(crate) max_wait: Duration,
    pub(crate) nodes: Option<RangeInclusive<u64>>,
    pub(crate) io_timeout: Option<Duration>,
}

impl<B: Backend> Lease<B> {
    /// The backend: the store's connection settings.
    ///
    /// ```
    /// # #[cfg(feature = "etcd")] {
    /// let lease = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?;
    /// let etcd: &snowmint_lease::etcd::Etcd = lease.backend();
    /// println!("{etcd:?}");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The namespace.
    ///
    /// ```
    /// # #[cfg(feature = "etcd")] {
    /// let lease = snowmint_lease::etcd::EtcdLease::builder("etcd://127.0.0.1:2379")?.build()?;
    /// assert_eq!(lease.namespace(), "default");
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The TTL.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.build()?;
    /// assert_eq!(lease.ttl(), std::time::Duration::from_secs(10));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The margin in effect (a fifth of the TTL unless set).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.build()?;
    /// assert_eq!(lease.margin(), std::time::Duration::from_secs(2));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn margin(&self) -> Duration {
        self.margin
    }

    /// The longest [`acquire`](Self::acquire) waits for the clock to pass a node's mark.
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.build()?;
    /// assert_eq!(lease.max_wait(), std::time::Duration::from_secs(10));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn max_wait(&self) -> Duration {
        self.max_wait
    }

    /// The node numbers set (`None`: every node of the layout, at most 65,536).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.nodes(3..=9).build()?;
    /// assert_eq!(lease.nodes(), Some(3..=9));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn nodes(&self) -> Option<RangeInclusive<u64>> {
        self.nodes.clone()
    }

    /// The bound of each store call during an acquisition (a tenth of the TTL unless set).
    ///
    /// ```
    /// # #[cfg(feature = "redis")] {
    /// let lease = snowmint_lease::redis::RedisLease::builder("redis://127.0.0.1/")?.build()?;
    /// assert_eq!(lease.io_timeout(), std::time::Duration::from_secs(1));
    /// # }
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn io_timeout(&self) -> Duration {
        self.io_timeout
            .unwrap_or(self.ttl / 10)
            .max(Duration::from_millis(1))
    }

    /// Claims a free node, waits out the node's mark (and the forgetting rule, where the store
    /// cannot vouch that it lost no write), records the
    /// first window, and returns the source (its node set to the one leased; the builder's
    /// node is ignored). A background thread renews the lease until the source is dropped,
    /// which releases the node.
    ///
    /// # Errors
    /// [`LeaseError::NodeRange`] if the node range does not fit the layout;
    /// [`LeaseError::AllTaken`] if every node is held; [`LeaseError::Mismatch`] if the namespace
    /// was made with another TTL or layout; [`LeaseError::MarkAhead`] if the node's mark is further
    /// ahead of the clock than the lease waits; [`LeaseError::LostWhileWaiting`] if the node was
    /// taken while waiting; [`LeaseError::Layout`] if the mark is past the layout's expiry;
    /// [`LeaseError::Build`] if the builder refused its settings; [`LeaseError::Store`] if the
    /// store failed.
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")] {
    /// use snowmint_lease::redis::RedisLease;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::WallClock;
    /// let gen = RedisLease::builder("redis://127.0.0.1:6379/")?
    ///     .build()?
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
    /// # Errors
    /// As [`acquire`](Self::acquire).
    ///
    /// ```no_run
    /// # #[cfg(feature = "redis")] {
    /// use snowmint_lease::AcquireProgress;
    /// use snowmint_lease::redis::RedisLease;
    /// use snowmint::{Generator, Layout};
    ///
    /// let gen = RedisLease::builder("redis://127.0.0.1:6379/")?.build()?.acquire_with(
    ///     Generator::builder(Layout::TWITTER),
    ///     |step| match step {
    ///         AcquireProgress::Forgetting { node, until_unix_millis, .. } => {
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
        let margin = self.margin;
        let io_timeout = self.io_timeout();
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
            floor_ahead: 0,
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
                why: keeper.store.unvouched_why(),
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
