//! The events of the `no_std` build: no-ops. `metrics` and `tracing` need `std`, so without it
//! nothing is recorded; the minting core calls these with the same signatures as the
//! recording events', and they compile away.

use core::time::Duration;

use super::fields::{Refusal, WaitReason, Whose};
use crate::layout::Layout;

#[inline(always)]
pub(crate) fn wait_started(_: &Layout, _: Whose, _: WaitReason, _: Duration) {}

#[inline(always)]
pub(crate) fn wait_ended(_: WaitReason, _: Duration) {}

#[inline(always)]
pub(crate) fn mint_error(_: &Layout, _: Whose, _: Refusal<'_>) {}

#[inline(always)]
pub(crate) fn mint_error_after_wait(_: &Layout, _: Whose, _: Refusal<'_>, _: bool) {}

#[inline(always)]
pub(crate) fn layout_in_use(_: &Layout, _: u64, _: Duration) {}
