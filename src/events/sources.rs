//! The events of the rest of a source's life: the overflow shard, shards taken and given
//! back, a fence's renewals, leases, a source built on a layout near its expiry, and the TSC
//! clock's re-anchoring and late cheap readings.

use core::fmt::Display;
use core::time::Duration;

#[cfg(feature = "tracing")]
use super::fields::layout_fields;
#[cfg(feature = "tracing")]
use super::fields::micros;
use super::fields::Whose;
use crate::layout::Layout;

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

/// What one renewal of a fence's keeper came to, as the events print it: the limit it
/// secured, or the keeper's error.
// Only the trace event prints the fields (the metric counts the outcome).
#[cfg_attr(not(feature = "tracing"), allow(dead_code))]
#[derive(Clone, Copy)]
pub(crate) enum Renewed<'a> {
    /// The node is held, for IDs up to `limit_unix_millis`.
    Held {
        /// The latest time, Unix milliseconds, that IDs may carry.
        limit_unix_millis: u64,
    },
    /// This renewal failed: the keeper's error.
    Failed(&'a dyn Display),
    /// The node belongs to someone else now: what the keeper found.
    Lost(&'a dyn Display),
}

/// The keeper of a fenced source on `node` answered a renewal.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn fence_renewal(layout: &Layout, node: u64, renewal: Renewed<'_>) {
    #[cfg(feature = "metrics")]
    {
        let outcome = match renewal {
            Renewed::Held { .. } => "held",
            Renewed::Failed(_) => "failed",
            Renewed::Lost(_) => "lost",
        };
        metrics::counter!("snowmint_fence_renewals_total", "outcome" => outcome).increment(1);
    }
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = layout_fields(layout);
        match renewal {
            Renewed::Held { limit_unix_millis } => tracing::trace!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node,
                limit_unix_millis,
                "fence renewed"
            ),
            Renewed::Failed(cause) => tracing::warn!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node,
                cause = %cause,
                "fence renewal failed: minting stops when the window closes"
            ),
            Renewed::Lost(cause) => tracing::error!(
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
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub fn lease_acquired(
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
        let store = if backend == "redis" { "Redis" } else { backend };
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
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub fn lease_taken_back(node: u64, floor_unix_millis: u64) {
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

/// A claim of `node` found a sign that the store was restored from an older backup (etcd:
/// the node's mark written under raft term `mark_raft_term`, the claim answered under the
/// lower `raft_term`): it waits the forgetting rule, until `until_unix_millis`.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub fn lease_restore_sign(node: u64, mark_raft_term: u64, raft_term: u64, until_unix_millis: u64) {
    #[cfg(feature = "metrics")]
    metrics::counter!("snowmint_lease_restore_signs_total").increment(1);
    #[cfg(feature = "tracing")]
    tracing::warn!(
        target: "snowmint",
        node,
        mark_raft_term,
        raft_term,
        until_unix_millis,
        "the store answers under a raft term below the node's mark's: it may have been restored from an older backup; waiting for the forgetting rule (run `snowmint lease raise-floor` after a restore)"
    );
}

/// A renewal of `node` found its mark raised past this holder's window, to
/// `floor_unix_millis` (`snowmint lease raise-floor`): the holder keeps its lease and mints
/// on below its window (every ID it stamps is below that floor, so none can repeat), and
/// every later claim of the node starts after the floor.
///
/// ```
/// snowmint::fence::events::lease_floor_ahead(7, 1_900_000_000_000);
/// ```
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub fn lease_floor_ahead(node: u64, floor_unix_millis: u64) {
    #[cfg(feature = "metrics")]
    metrics::gauge!("snowmint_lease_floor_ahead_unix_millis").set(floor_unix_millis as f64);
    #[cfg(feature = "tracing")]
    tracing::warn!(
        target: "snowmint",
        node,
        floor_unix_millis,
        "the node's mark is past this holder's window (a floor raised by `snowmint lease raise-floor`): keeping the lease and minting below the window; later claims start after the floor"
    );
}

/// A claim of `node` its store does not vouch for, and `why` (PostgreSQL: the record settled
/// on another system or timeline, as after a restore or a promoted standby; `fsync` off): it
/// waits the forgetting rule.
///
/// ```
/// snowmint::fence::events::lease_unvouched(7, "the record was settled on another timeline");
/// ```
#[cfg_attr(not(feature = "tracing"), inline(always))]
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
pub fn lease_unvouched(node: u64, why: &str) {
    #[cfg(feature = "tracing")]
    tracing::warn!(
        target: "snowmint",
        node,
        why,
        "the store cannot vouch that it kept every write: waiting for the forgetting rule (run `snowmint lease raise-floor` after a restore)"
    );
}

/// The namespace's record was settled after the forgetting rule's wait (`done`), or found
/// changed since the claim (another record, another Redis server: left for the next claim).
#[cfg_attr(not(feature = "tracing"), inline(always))]
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
pub fn lease_record_settled(node: u64, done: bool) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        target: "snowmint",
        node,
        settled = done,
        "the forgetting rule's wait is over: the namespace's record now vouches for the store (unless it changed since the claim)"
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
