//! The rare things worth watching, each as one function that records a metric (feature
//! `metrics`, through the `metrics` 0.24 facade: the application installs the exporter) and
//! emits a trace event (feature `tracing`). With both features off every function is an
//! empty `#[inline(always)]` body and compiles to nothing. None is called per ID: only from
//! the cold paths (a blocked call's wait, an error returned, the overflow shard).
//!
//! | Name | Kind | Labels | When |
//! |---|---|---|---|
//! | `snowmint_waits_total` | counter | `reason` = `exhausted` / `clock_behind` | a blocking call starts waiting |
//! | `snowmint_wait_seconds` | histogram | `reason` | how long that wait lasted (given up or not) |
//! | `snowmint_clock_behind_seconds` | histogram | | how far behind the issued time the clock was found (its max is the largest step back) |
//! | `snowmint_errors_total` | counter | `kind` = `exhausted` / `clock_behind` / `before_epoch` / `no_free_shard` / `expired` | an error returned by a mint call (`try_` calls included) |
//! | `snowmint_overflow_ids_total` | counter | | a `ShardedGenerator` minted from its shared overflow shard |
//! | `snowmint_lease_acquisitions_total` | counter | `namespace` | a Redis lease took a node |
//! | `snowmint_lease_node` | gauge | `namespace` | the node number it took (the latest) |
//! | `snowmint_fence_renewals_total` | counter | `outcome` = `held` / `failed` / `lost` | a fenced source's keeper answered a renewal |
//!
//! Trace events (target `snowmint`): a wait that starts is `debug`, the clock found behind
//! is `warn` (`error` when further behind than the call may wait), an error returned is
//! `debug` for a wait-and-retry kind and `error` for expiry, a clock before the epoch and
//! no free shard; overflow use is `debug`; a fence renewal is `trace` when held, `warn` when
//! it failed and `error` when the node was lost; a lease taking a node is `info`. Fields: `unit_ms` and `sequence_bits` of the
//! layout, and the amounts.

use std::time::Duration;

use crate::error::MintError;
use crate::fence::Renewal;
use crate::layout::Layout;

/// Why a blocking call waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitReason {
    Exhausted,
    ClockBehind,
}

impl WaitReason {
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    fn label(self) -> &'static str {
        match self {
            WaitReason::Exhausted => "exhausted",
            WaitReason::ClockBehind => "clock_behind",
        }
    }
}

/// The `kind` label of an error.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), allow(dead_code))]
fn kind(e: &MintError) -> &'static str {
    match e {
        MintError::Exhausted { .. } => "exhausted",
        MintError::ClockBehind { .. } => "clock_behind",
        MintError::Layout(_) => "before_epoch",
        MintError::NoFreeShard { .. } => "no_free_shard",
        MintError::Expired { .. } => "expired",
    }
}

/// A blocking call starts to wait: `for_at_least` is the wait the clock asks for, `behind`
/// (for a clock stepped back) how far behind the issued time the clock is.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn wait_started(layout: &Layout, reason: WaitReason, for_at_least: Duration) {
    #[cfg(feature = "metrics")]
    {
        metrics::counter!("snowmint_waits_total", "reason" => reason.label()).increment(1);
        if reason == WaitReason::ClockBehind {
            metrics::histogram!("snowmint_clock_behind_seconds").record(for_at_least);
        }
    }
    #[cfg(feature = "tracing")]
    match reason {
        WaitReason::Exhausted => tracing::debug!(
            target: "snowmint",
            unit_ms = layout.unit().as_secs_f64() * 1e3,
            sequence_bits = layout.sequence_bits(),
            wait_us = for_at_least.as_micros() as u64,
            "sequence used up: waiting for the next tick"
        ),
        WaitReason::ClockBehind => tracing::warn!(
            target: "snowmint",
            unit_ms = layout.unit().as_secs_f64() * 1e3,
            sequence_bits = layout.sequence_bits(),
            behind_us = for_at_least.as_micros() as u64,
            "clock behind the last issued time: waiting for it to catch up"
        ),
    }
}

/// A blocking call's wait ended after `waited` (with an ID or not).
#[cfg_attr(not(feature = "metrics"), inline(always))]
#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
pub(crate) fn wait_ended(reason: WaitReason, waited: Duration) {
    #[cfg(feature = "metrics")]
    metrics::histogram!("snowmint_wait_seconds", "reason" => reason.label()).record(waited);
}

/// A mint call returns `e`. For a clock stepped back, the amount goes to
/// `snowmint_clock_behind_seconds` too.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn mint_error(layout: &Layout, e: &MintError) {
    #[cfg(feature = "metrics")]
    {
        metrics::counter!("snowmint_errors_total", "kind" => kind(e)).increment(1);
        if let MintError::ClockBehind { behind } = *e {
            metrics::histogram!("snowmint_clock_behind_seconds").record(behind);
        }
    }
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = (layout.unit().as_secs_f64() * 1e3, layout.sequence_bits());
        match e {
            MintError::Exhausted { .. } => {
                tracing::debug!(target: "snowmint", unit_ms, sequence_bits, kind = kind(e), error = %e, "not minted")
            }
            MintError::ClockBehind { behind } => tracing::error!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                kind = kind(e),
                behind_us = behind.as_micros() as u64,
                error = %e,
                "not minted: clock behind"
            ),
            _ => {
                tracing::error!(target: "snowmint", unit_ms, sequence_bits, kind = kind(e), error = %e, "not minted")
            }
        }
    }
}

/// A sharded generator minted from its overflow shard (the thread got no shard of its own).
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn overflow_shard(layout: &Layout) {
    #[cfg(feature = "metrics")]
    metrics::counter!("snowmint_overflow_ids_total").increment(1);
    #[cfg(feature = "tracing")]
    tracing::debug!(
        target: "snowmint",
        unit_ms = layout.unit().as_secs_f64() * 1e3,
        sequence_bits = layout.sequence_bits(),
        "minted from the overflow shard: no shard of its own for this thread"
    );
}

/// A fenced source's keeper answered a renewal.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn fence_renewal(layout: &Layout, renewal: &Renewal) {
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
        let (unit_ms, sequence_bits) = (layout.unit().as_secs_f64() * 1e3, layout.sequence_bits());
        match renewal {
            Renewal::Held {
                limit_unix_millis, ..
            } => tracing::trace!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                limit_unix_millis,
                "fence renewed"
            ),
            Renewal::Failed(cause) => tracing::warn!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                cause = %cause,
                "fence renewal failed: minting stops when the window closes"
            ),
            Renewal::Lost(cause) => tracing::error!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                cause = %cause,
                "fence lost: this source never mints again"
            ),
        }
    }
}

/// A Redis lease took `node` in `namespace`, whose previous owner left the mark
/// `mark_unix_millis` (if any).
#[cfg(feature = "redis")]
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(all(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn lease_acquired(
    layout: &Layout,
    namespace: &str,
    node: u64,
    mark_unix_millis: Option<u64>,
) {
    #[cfg(feature = "metrics")]
    {
        let ns = namespace.to_string();
        metrics::counter!("snowmint_lease_acquisitions_total", "namespace" => ns.clone())
            .increment(1);
        metrics::gauge!("snowmint_lease_node", "namespace" => ns).set(node as f64);
    }
    #[cfg(feature = "tracing")]
    tracing::info!(
        target: "snowmint",
        unit_ms = layout.unit().as_secs_f64() * 1e3,
        sequence_bits = layout.sequence_bits(),
        namespace,
        node,
        mark_unix_millis,
        "leased a node from Redis"
    );
}
