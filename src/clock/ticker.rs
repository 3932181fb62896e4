//! The ticker thread of a [`TscClock`](super::TscClock): publishes the cheap reading every
//! period and re-anchors on schedule, until the clock is dropped.

use std::sync::TryLockError;
use std::thread::JoinHandle;
use std::time::Duration;

use super::tsc::Inner;

/// Starts `inner`'s ticker thread and registers it to be woken when the clock is dropped.
/// Callers start one only for a clock with a ticker period.
pub(super) fn spawn(inner: &Inner) -> std::io::Result<JoinHandle<()>> {
    let period = inner.ticker.unwrap_or(Duration::MAX);
    let this = inner.this.clone();
    let handle = std::thread::Builder::new()
        .name("snowmint-tsc".into())
        .spawn(move || loop {
            // Woken early only by the clock's drop (or spuriously: one extra tick, harmless).
            std::thread::park_timeout(period);
            let Some(inner) = this.upgrade() else { return };
            inner.tick();
        })?;
    // `try_lock`: in a child forked while another thread held this lock the lock stays held
    // for good; the ticker is then simply not woken at the drop and ends within a period.
    let mut slot = match inner.ticker_thread.try_lock() {
        Ok(slot) => slot,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return Ok(handle),
    };
    *slot = Some(handle.thread().clone());
    drop(slot);
    Ok(handle)
}
