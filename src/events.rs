//! The rare things worth watching, each as one function that records a metric (feature
//! `metrics`, through the `metrics` 0.24 facade: the application installs the exporter) and
//! emits a trace event (feature `tracing`). With both features off every function is an
//! empty `#[inline(always)]` body and compiles to nothing. None is called per ID: only from
//! the cold paths (a blocked call's wait, an error returned, the overflow shard, a shard
//! taken or given back, a fence renewal, a lease, a source built, a clock re-anchored).
//!
//! Each rare thing is recorded once: a call that waits records one wait (however many
//! times it re-checks), a clock found behind is recorded once per call (when its wait starts,
//! or with the error if it never waits), and an error is counted only when it is returned to
//! the caller. The async calls ([`crate::asynchronous`]) hold back what their inner `try_`
//! calls would record ([`held_back`]) and record the same as a blocking call: a wait, then an
//! ID or one error.
//!
//! | Name | Kind | Labels | When |
//! |---|---|---|---|
//! | `snowmint_waits_total` | counter | `reason` = `exhausted` / `clock_behind` / `fenced` | a call starts waiting (`fenced`: async calls only) |
//! | `snowmint_wait_seconds` | histogram | `reason` | how long that wait lasted (given up or not) |
//! | `snowmint_clock_behind_seconds` | histogram | | a call found the clock behind the issued time, by this much (its count is the step-back count, its max the largest) |
//! | `snowmint_errors_total` | counter | `kind` = `exhausted` / `clock_behind` / `before_epoch` / `no_free_shard` / `expired` / `fenced` / `lost` | an error returned to the caller (`try_` calls included) |
//! | `snowmint_overflow_ids_total` | counter | | a `ShardedGenerator` minted from its shared overflow shard |
//! | `snowmint_shards_held` | gauge | | exclusive shards held now (by threads and `OwnedShard`s), across the process's sharded generators |
//! | `snowmint_lease_acquisitions_total` | counter | `namespace`, `backend` | a lease (Redis or etcd) took a node |
//! | `snowmint_lease_node` | gauge | `namespace` | the node number it took (the latest) |
//! | `snowmint_lease_take_backs_total` | counter | | a lapsed lease (expired, or forgotten by the store) took its node back |
//! | `snowmint_fence_renewals_total` | counter | `outcome` = `held` / `failed` / `lost` | a fenced source's keeper answered a renewal |
//! | `snowmint_layout_seconds_left` | gauge | `layout` | a source was built: the time left before its layout expires |
//! | `snowmint_clock_offset_seconds` | gauge | | a `TscClock` re-anchored: the wall clock minus the TSC reading |
//! | `snowmint_clock_step_max_seconds` | gauge | | a re-anchor: the largest step one took in this process |
//! | `snowmint_clock_cheap_age_seconds` | histogram | | a mint found the cheap reading late: its age |
//!
//! [`describe_metrics`] gives each family its HELP text and unit.
//!
//! Trace events (target `snowmint`): a wait for the next tick (or, async, for the fence)
//! that starts is `debug`, the clock found behind is `warn` when the call waits for it and
//! `error` when it is further behind than the call may wait (the error event); an error
//! returned is `debug` for a kind that waiting or a renewal can cure (`exhausted`, `fenced`,
//! and `lost`, whose cause was already an `error` event of its own) and `error` for a clock
//! behind, expiry, a clock before the epoch and no free shard; overflow use and a shard taken
//! or given back are `debug`; a fence renewal is `trace` when held, `warn` when it failed and
//! `error` when the node was lost; a lease taking a node is `info`. Fields: `unit_ms` and
//! `sequence_bits` of the layout, the node where one is known (`node`, `shard`), and the
//! amounts (`wait_us`, `behind_us`, `limit_unix_millis`, `mark_unix_millis`).

use core::time::Duration;

use crate::error::MintError;
use crate::fence::{FenceError, Renewal};
use crate::layout::Layout;

pub(crate) use crate::event_fields::{WaitReason, Whose};

/// The `kind` label of an error.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), allow(dead_code))]
fn kind(e: &FenceError) -> &'static str {
    match e {
        FenceError::Mint(MintError::Exhausted { .. }) => "exhausted",
        FenceError::Mint(MintError::ClockBehind { .. }) => "clock_behind",
        FenceError::Mint(MintError::Layout(_)) => "before_epoch",
        FenceError::Mint(MintError::NoFreeShard { .. }) => "no_free_shard",
        FenceError::Mint(MintError::Expired { .. }) => "expired",
        FenceError::Fenced { .. } => "fenced",
        FenceError::Lost { .. } => "lost",
    }
}

/// The layout's fields of every event: `unit_ms`, `sequence_bits`.
#[cfg(feature = "tracing")]
fn layout_fields(layout: &Layout) -> (f64, u8) {
    (layout.unit().as_secs_f64() * 1e3, layout.sequence_bits())
}

/// Microseconds, saturating, as a `u64` field.
#[cfg(feature = "tracing")]
fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// A call starts to wait: `for_at_least` is the wait asked for; for a clock stepped back, how
/// far behind the issued time the clock is (recorded here, so not again with an error).
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn wait_started(
    layout: &Layout,
    whose: Whose,
    reason: WaitReason,
    for_at_least: Duration,
) {
    #[cfg(feature = "metrics")]
    {
        metrics::counter!("snowmint_waits_total", "reason" => reason.label()).increment(1);
        if reason == WaitReason::ClockBehind {
            metrics::histogram!("snowmint_clock_behind_seconds").record(for_at_least);
        }
    }
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = layout_fields(layout);
        match reason {
            WaitReason::Exhausted => tracing::debug!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                wait_us = micros(for_at_least),
                "sequence used up: waiting for the next tick"
            ),
            WaitReason::ClockBehind => tracing::warn!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                behind_us = micros(for_at_least),
                "clock behind the last issued time: waiting for it to catch up"
            ),
            WaitReason::Fenced => tracing::debug!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                wait_us = micros(for_at_least),
                "fenced: waiting for the keeper to secure the node again"
            ),
        }
    }
}

/// A call's wait ended after `waited` (with an ID or not).
#[cfg_attr(not(feature = "metrics"), inline(always))]
#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
pub(crate) fn wait_ended(reason: WaitReason, waited: Duration) {
    #[cfg(feature = "metrics")]
    metrics::histogram!("snowmint_wait_seconds", "reason" => reason.label()).record(waited);
}

/// A mint call returns `e` without having waited for the clock.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn mint_error(layout: &Layout, whose: Whose, e: &MintError) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    refused(layout, whose, FenceError::Mint(*e), false);
}

/// A mint call returns `e` after waiting; `behind_recorded` if its wait was for a clock
/// behind, whose amount [`wait_started`] recorded already.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn mint_error_after_wait(
    layout: &Layout,
    whose: Whose,
    e: &MintError,
    behind_recorded: bool,
) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    refused(layout, whose, FenceError::Mint(*e), behind_recorded);
}

/// A fenced source refuses to mint: `e` is [`FenceError::Fenced`] or [`FenceError::Lost`].
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn fence_refused(layout: &Layout, e: &FenceError) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    refused(layout, Whose::default(), e.clone(), false);
}

/// An error about to be returned: recorded now, or held back for the async call running
/// [`held_back`] on this thread.
#[cfg(any(feature = "metrics", feature = "tracing"))]
#[cold]
fn refused(layout: &Layout, whose: Whose, error: FenceError, behind_recorded: bool) {
    let layout = *layout;
    if HOLDING.with(Cell::get) {
        HELD.with(|h| {
            *h.borrow_mut() = Some(Held {
                layout,
                whose,
                error,
            })
        });
    } else {
        record_error(&layout, whose, &error, behind_recorded);
    }
}

#[cfg(any(feature = "metrics", feature = "tracing"))]
use std::cell::{Cell, RefCell};

#[cfg(any(feature = "metrics", feature = "tracing"))]
thread_local! {
    /// Set while an async call's attempt runs ([`held_back`]).
    static HOLDING: Cell<bool> = const { Cell::new(false) };
    /// The error that attempt would have recorded.
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// An error whose recording an async call held back: it records it only if it returns it.
#[derive(Debug)]
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), allow(dead_code))]
pub(crate) struct Held {
    layout: Layout,
    whose: Whose,
    error: FenceError,
}

impl Held {
    /// What a wait for this error waits for, and the amount to record: the wait asked for, or
    /// how far behind the clock is. `None` for an error that waiting cannot cure.
    pub(crate) fn wait(&self) -> Option<(WaitReason, Duration)> {
        match self.error {
            FenceError::Mint(MintError::Exhausted { retry_after }) => {
                Some((WaitReason::Exhausted, retry_after))
            }
            FenceError::Mint(MintError::ClockBehind { behind }) => {
                Some((WaitReason::ClockBehind, behind))
            }
            FenceError::Fenced { retry_after, .. } => Some((WaitReason::Fenced, retry_after)),
            _ => None,
        }
    }

    /// The layout of the source that refused.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Whose minting refused.
    pub(crate) fn whose(&self) -> Whose {
        self.whose
    }

    /// Records the error, being returned to the caller; `behind_recorded` as for
    /// [`mint_error_after_wait`].
    #[cfg_attr(
        not(any(feature = "metrics", feature = "tracing")),
        allow(unused_variables)
    )]
    pub(crate) fn record(self, behind_recorded: bool) {
        #[cfg(any(feature = "metrics", feature = "tracing"))]
        record_error(&self.layout, self.whose, &self.error, behind_recorded);
    }
}

/// Runs `attempt` (an async call's `try_` call), holding back the error it would record: the
/// caller decides, by what it does next (wait, or return the error), what to record.
#[inline]
pub(crate) fn held_back<T>(attempt: impl FnOnce() -> T) -> (T, Option<Held>) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    {
        /// Stops holding back even if `attempt` panics.
        struct Holding;
        impl Drop for Holding {
            fn drop(&mut self) {
                HOLDING.with(|h| h.set(false));
            }
        }
        HOLDING.with(|h| h.set(true));
        let holding = Holding;
        let value = attempt();
        drop(holding);
        // Only a failed attempt stored anything; an `Ok` leaves this `None`.
        let held = HELD.with(|h| h.borrow_mut().take());
        (value, held)
    }
    #[cfg(not(any(feature = "metrics", feature = "tracing")))]
    (attempt(), None)
}

/// Records an error returned to the caller.
#[cfg(any(feature = "metrics", feature = "tracing"))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
fn record_error(layout: &Layout, whose: Whose, e: &FenceError, behind_recorded: bool) {
    #[cfg(feature = "metrics")]
    {
        metrics::counter!("snowmint_errors_total", "kind" => kind(e)).increment(1);
        if let FenceError::Mint(MintError::ClockBehind { behind }) = *e {
            if !behind_recorded {
                metrics::histogram!("snowmint_clock_behind_seconds").record(behind);
            }
        }
    }
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = layout_fields(layout);
        let kind = kind(e);
        match e {
            FenceError::Mint(MintError::Exhausted { retry_after }) => tracing::debug!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                kind,
                wait_us = micros(*retry_after),
                error = %e,
                "not minted"
            ),
            FenceError::Mint(MintError::ClockBehind { behind }) => tracing::error!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                kind,
                behind_us = micros(*behind),
                error = %e,
                "not minted: clock behind"
            ),
            FenceError::Fenced { node, .. } | FenceError::Lost { node, .. } => tracing::debug!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                kind,
                node,
                error = %e,
                "not minted: fenced"
            ),
            _ => tracing::error!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                kind,
                error = %e,
                "not minted"
            ),
        }
    }
}

/// A sharded generator minted from its overflow shard (the thread got no shard of its own).
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn overflow_shard(layout: &Layout, whose: Whose) {
    #[cfg(feature = "metrics")]
    metrics::counter!("snowmint_overflow_ids_total").increment(1);
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = layout_fields(layout);
        tracing::debug!(
            target: "snowmint",
            unit_ms,
            sequence_bits,
            node = whose.node,
            "minted from the overflow shard: no shard of its own for this thread"
        );
    }
}

/// A thread or an owned shard took the exclusive shard `shard` (`held`) or gave it back.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn shard_held(shard: usize, held: bool) {
    #[cfg(feature = "metrics")]
    {
        let gauge = metrics::gauge!("snowmint_shards_held");
        if held {
            gauge.increment(1.0);
        } else {
            gauge.decrement(1.0);
        }
    }
    #[cfg(feature = "tracing")]
    if held {
        tracing::debug!(target: "snowmint", shard, "took a shard");
    } else {
        tracing::debug!(target: "snowmint", shard, "gave a shard back");
    }
}

/// The keeper of a fenced source on `node` answered a renewal.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn fence_renewal(layout: &Layout, node: u64, renewal: &Renewal) {
    #[cfg(feature = "metrics")]
    {
        let outcome = match renewal {
            Renewal::Held { .. } => "held",
            Renewal::Failed(_) => "failed",
            Renewal::Lost(_) => "lost",
        };
        metrics::counter!("snowmint_fence_renewals_total", "outcome" => outcome).increment(1);
    }
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = layout_fields(layout);
        match renewal {
            Renewal::Held {
                limit_unix_millis, ..
            } => tracing::trace!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node,
                limit_unix_millis,
                "fence renewed"
            ),
            Renewal::Failed(cause) => tracing::warn!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node,
                cause = %cause,
                "fence renewal failed: minting stops when the window closes"
            ),
            Renewal::Lost(cause) => tracing::error!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node,
                cause = %cause,
                "fence lost: this source never mints again"
            ),
        }
    }
}

/// A lease on `backend` took `node` in `namespace`, whose previous owner left the mark
/// `mark_unix_millis` (if any).
#[cfg(any(feature = "redis", feature = "etcd"))]
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn lease_acquired(
    layout: &Layout,
    backend: &'static str,
    namespace: &str,
    node: u64,
    mark_unix_millis: Option<u64>,
) {
    #[cfg(feature = "metrics")]
    {
        let ns = namespace.to_string();
        metrics::counter!("snowmint_lease_acquisitions_total", "namespace" => ns.clone(), "backend" => backend)
            .increment(1);
        metrics::gauge!("snowmint_lease_node", "namespace" => ns).set(node as f64);
    }
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = layout_fields(layout);
        // The store's name as people write it: the `backend` label is lower case.
        let store = if backend == "etcd" { "etcd" } else { "Redis" };
        tracing::info!(
            target: "snowmint",
            unit_ms,
            sequence_bits,
            namespace,
            node,
            mark_unix_millis,
            "leased a node from {store}"
        );
    }
}

/// A lapsed lease took `node` back; it mints again only after `floor_unix_millis` (the
/// forgetting rule, or the owner in between).
#[cfg(any(feature = "redis", feature = "etcd"))]
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn lease_taken_back(node: u64, floor_unix_millis: u64) {
    #[cfg(feature = "metrics")]
    metrics::counter!("snowmint_lease_take_backs_total").increment(1);
    #[cfg(feature = "tracing")]
    tracing::warn!(
        target: "snowmint",
        node,
        floor_unix_millis,
        "the lease had lapsed (expired, or the store forgot it): took the node back, minting again after the floor"
    );
}

/// The `layout` label of a layout: its preset's name, or `custom`.
#[cfg(any(feature = "metrics", feature = "tracing"))]
fn layout_label(layout: &Layout) -> &'static str {
    Layout::PRESETS
        .iter()
        .find(|(_, l)| l == layout)
        .map_or("custom", |&(name, _)| name)
}

/// A source of `layout` was built at `now_unix_nanos` (before its expiry): records the time
/// left before its time field runs out, and warns, once per layout and process, when that is
/// less than `margin`.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
pub(crate) fn layout_in_use(layout: &Layout, now_unix_nanos: u64, margin: Duration) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    {
        let left_nanos = layout
            .expiry_unix_nanos()
            .saturating_sub(u128::from(now_unix_nanos));
        let left = Duration::from_nanos(u64::try_from(left_nanos).unwrap_or(u64::MAX));
        #[cfg(feature = "metrics")]
        metrics::gauge!("snowmint_layout_seconds_left", "layout" => layout_label(layout))
            .set(left.as_secs_f64());
        #[cfg(feature = "tracing")]
        if left < margin && first_warning(layout) {
            let (unit_ms, sequence_bits) = layout_fields(layout);
            tracing::warn!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                layout = layout_label(layout),
                expiry_unix_millis = layout.expiry_unix_millis(),
                days_left = left.as_secs_f64() / 86_400.0,
                "the layout's time field runs out soon: no ID can be minted after its expiry"
            );
        }
    }
}

/// Whether this is the first expiry warning for `layout` in this process.
#[cfg(feature = "tracing")]
fn first_warning(layout: &Layout) -> bool {
    static WARNED: std::sync::Mutex<Vec<Layout>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if warned.contains(layout) {
        return false;
    }
    warned.push(*layout);
    true
}

/// The largest re-anchor step of the process, in nanoseconds (its absolute value).
#[cfg(feature = "metrics")]
static LARGEST_STEP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A `TscClock` re-anchored: the wall clock was `offset_nanos` ahead of the TSC reading
/// (negative: behind), and the clock moved by `step_nanos` (less than the offset when a
/// step back is limited).
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn clock_reanchored(offset_nanos: i64, step_nanos: i64) {
    #[cfg(feature = "metrics")]
    {
        use std::sync::atomic::Ordering;
        metrics::gauge!("snowmint_clock_offset_seconds").set(offset_nanos as f64 / 1e9);
        // Relaxed: a lone maximum; the gauge it feeds is a sample, ordered with nothing.
        let before = LARGEST_STEP.fetch_max(step_nanos.unsigned_abs(), Ordering::Relaxed);
        let largest = before.max(step_nanos.unsigned_abs());
        metrics::gauge!("snowmint_clock_step_max_seconds").set(largest as f64 / 1e9);
    }
    #[cfg(feature = "tracing")]
    tracing::trace!(
        target: "snowmint",
        offset_ns = offset_nanos,
        step_ns = step_nanos,
        "TSC clock re-anchored to the wall clock"
    );
}

/// A mint read the exact clock and found the cheap reading (the ticker's) `age` old, past
/// its lateness limit: the ticker was delayed.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn cheap_reading_late(age: Duration) {
    #[cfg(feature = "metrics")]
    metrics::histogram!("snowmint_clock_cheap_age_seconds").record(age);
    #[cfg(feature = "tracing")]
    tracing::debug!(
        target: "snowmint",
        age_us = micros(age),
        "the cheap clock reading was late: read the exact clock"
    );
}

/// Gives every metric family this crate records its HELP text and unit, for exporters that
/// show them (Prometheus' `# HELP` lines). Call it once, after installing the recorder;
/// without one it does nothing.
///
/// ```
/// snowmint::describe_metrics();
/// ```
#[cfg(feature = "metrics")]
pub fn describe_metrics() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_counter!(
        "snowmint_waits_total",
        Unit::Count,
        "Calls that waited for IDs (blocking, async or the ID service's retries), by reason: exhausted (the tick's sequence used up), clock_behind, fenced"
    );
    describe_histogram!(
        "snowmint_wait_seconds",
        Unit::Seconds,
        "How long each wait lasted, ended with IDs or an error, by reason"
    );
    describe_histogram!(
        "snowmint_clock_behind_seconds",
        Unit::Seconds,
        "How far behind the issued time a call found the clock (count: calls that met a step back)"
    );
    describe_counter!(
        "snowmint_errors_total",
        Unit::Count,
        "Errors returned to a caller (never a retry inside a call), by kind"
    );
    describe_counter!(
        "snowmint_overflow_ids_total",
        Unit::Count,
        "Mints from a sharded generator's shared overflow shard (a thread found every shard held)"
    );
    describe_gauge!(
        "snowmint_shards_held",
        Unit::Count,
        "Exclusive shards held now by threads and owned shards, across the process's sharded generators"
    );
    describe_counter!(
        "snowmint_fence_renewals_total",
        Unit::Count,
        "Renewals a fence's keeper answered, by outcome: held, failed, lost"
    );
    describe_counter!(
        "snowmint_lease_acquisitions_total",
        Unit::Count,
        "Nodes a Redis lease took, by namespace"
    );
    describe_gauge!(
        "snowmint_lease_node",
        "The node number the latest Redis lease took, by namespace"
    );
    describe_gauge!(
        "snowmint_layout_seconds_left",
        Unit::Seconds,
        "Time left before the layout's time field runs out, by layout: set when a source of it is built (snowmint serve refreshes it every second)"
    );
    describe_gauge!(
        "snowmint_clock_offset_seconds",
        Unit::Seconds,
        "At the latest re-anchor of the TSC clock: the wall clock minus the TSC reading"
    );
    describe_gauge!(
        "snowmint_clock_step_max_seconds",
        Unit::Seconds,
        "The largest step (either way) a re-anchor of the TSC clock took in this process"
    );
    describe_histogram!(
        "snowmint_clock_cheap_age_seconds",
        Unit::Seconds,
        "The age of the cheap (ticker) clock reading when a mint found it late and read the exact clock"
    );
}

/// The namespace's record was settled after the forgetting rule's wait (`done`), or found
/// changed since the claim (another record, another Redis server: left for the next claim).
pub(crate) fn lease_record_settled(node: u64, done: bool) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        target: "snowmint",
        node,
        settled = done,
        "the forgetting rule's wait is over: the namespace's record now vouches for the store (unless it changed since the claim)"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (node, done);
}
