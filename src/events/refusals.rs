//! The events of a call that could not mint at once: a wait started and ended, and an error
//! returned, recorded once per call; for the async calls, held back until the call decides
//! ([`held_back`]).

use core::time::Duration;

#[cfg(feature = "tracing")]
use super::fields::{layout_fields, micros};
use super::fields::{Kind, Refusal, WaitReason, Whose};
use crate::layout::Layout;

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

/// A mint call returns an error without having waited for the clock.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn mint_error(layout: &Layout, whose: Whose, e: Refusal<'_>) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    refused(layout, whose, e, false);
}

/// A mint call returns an error after waiting; `behind_recorded` if its wait was for a clock
/// behind, whose amount [`wait_started`] recorded already.
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn mint_error_after_wait(
    layout: &Layout,
    whose: Whose,
    e: Refusal<'_>,
    behind_recorded: bool,
) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    refused(layout, whose, e, behind_recorded);
}

/// A fenced source refuses to mint: `e` is of kind [`Kind::Fenced`] or [`Kind::Lost`].
#[cfg_attr(not(any(feature = "metrics", feature = "tracing")), inline(always))]
#[cfg_attr(
    not(any(feature = "metrics", feature = "tracing")),
    allow(unused_variables)
)]
pub(crate) fn fence_refused(layout: &Layout, e: Refusal<'_>) {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    refused(layout, Whose::default(), e, false);
}

/// An error about to be returned: recorded now, or held back for the async call running
/// [`held_back`] on this thread.
#[cfg(any(feature = "metrics", feature = "tracing"))]
#[cold]
fn refused(layout: &Layout, whose: Whose, e: Refusal<'_>, behind_recorded: bool) {
    if HOLDING.with(Cell::get) {
        let held = Held {
            layout: *layout,
            whose,
            kind: e.kind,
            message: e.error.to_string(),
        };
        HELD.with(|h| *h.borrow_mut() = Some(held));
    } else {
        record_error(layout, whose, e, behind_recorded);
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
    kind: Kind,
    /// The error as its trace event prints it.
    message: String,
}

impl Held {
    /// What a wait for this error waits for, and the amount to record: the wait asked for, or
    /// how far behind the clock is. `None` for an error that waiting cannot cure.
    pub(crate) fn wait(&self) -> Option<(WaitReason, Duration)> {
        match self.kind {
            Kind::Exhausted { retry_after } => Some((WaitReason::Exhausted, retry_after)),
            Kind::ClockBehind { behind } => Some((WaitReason::ClockBehind, behind)),
            Kind::Fenced { retry_after, .. } => Some((WaitReason::Fenced, retry_after)),
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
        record_error(
            &self.layout,
            self.whose,
            Refusal {
                kind: self.kind,
                error: &self.message,
            },
            behind_recorded,
        );
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
fn record_error(layout: &Layout, whose: Whose, e: Refusal<'_>, behind_recorded: bool) {
    let kind = e.kind.label();
    #[cfg(feature = "metrics")]
    {
        metrics::counter!("snowmint_errors_total", "kind" => kind).increment(1);
        if let Kind::ClockBehind { behind } = e.kind {
            if !behind_recorded {
                metrics::histogram!("snowmint_clock_behind_seconds").record(behind);
            }
        }
    }
    #[cfg(feature = "tracing")]
    {
        let (unit_ms, sequence_bits) = layout_fields(layout);
        let error = e.error;
        match e.kind {
            Kind::Exhausted { retry_after } => tracing::debug!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                kind,
                wait_us = micros(retry_after),
                error = %error,
                "not minted"
            ),
            Kind::ClockBehind { behind } => tracing::error!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                kind,
                behind_us = micros(behind),
                error = %error,
                "not minted: clock behind"
            ),
            Kind::Fenced { node, .. } | Kind::Lost { node } => tracing::debug!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                kind,
                node,
                error = %error,
                "not minted: fenced"
            ),
            _ => tracing::error!(
                target: "snowmint",
                unit_ms,
                sequence_bits,
                node = whose.node,
                kind,
                error = %error,
                "not minted"
            ),
        }
    }
}
