//! The events of the `no_std` build: no-ops. `metrics` and `tracing` need `std`, so without it
//! nothing is recorded; the minting core calls these with the same signatures as
//! `events.rs`'s, and they compile away.

use core::time::Duration;

use crate::error::MintError;
use crate::layout::Layout;

/// Whose minting an event is about (see `events.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Whose {
    pub(crate) node: Option<u64>,
}

/// Why a call waits (see `events.rs`; no fenced source without `std`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitReason {
    Exhausted,
    ClockBehind,
}

#[inline(always)]
pub(crate) fn wait_started(_: &Layout, _: Whose, _: WaitReason, _: Duration) {}

#[inline(always)]
pub(crate) fn wait_ended(_: WaitReason, _: Duration) {}

#[inline(always)]
pub(crate) fn mint_error(_: &Layout, _: Whose, _: &MintError) {}

#[inline(always)]
pub(crate) fn mint_error_after_wait(_: &Layout, _: Whose, _: &MintError, _: bool) {}

/// The default margin of the lifetime warning (see `events.rs`): a year (365.25 days).
pub(crate) const EXPIRY_MARGIN: Duration = Duration::from_secs(31_557_600);

#[inline(always)]
pub(crate) fn layout_in_use(_: &Layout, _: u64, _: Duration) {}
