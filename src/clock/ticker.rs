//! The ticker thread of a [`TscClock`](super::TscClock): publishes the cheap reading every
//! period and re-anchors on schedule, until the clock is dropped. It knows the clock's state
//! only as a weak reference and a `tick` function, so that it does not depend on `tsc.rs`.

use std::sync::{Mutex, TryLockError, Weak};
use std::thread::{JoinHandle, Thread};
use std::time::Duration;

/// Starts a thread that calls `tick` on `target` every `period` until `target` is dropped,
/// and registers it in `wake_slot` to be woken (and so end at once) at that drop.
pub(super) fn spawn<T: Send + Sync + 'static>(
    period: Duration,
    target: Weak<T>,
    tick: fn(&T),
    wake_slot: &Mutex<Option<Thread>>,
) -> std::io::Result<JoinHandle<()>> {
    let handle = std::thread::Builder::new()
        .name("snowmint-tsc".into())
        .spawn(move || loop {
            // Woken early only by the clock's drop (or spuriously: one extra tick, harmless).
            std::thread::park_timeout(period);
            let Some(target) = target.upgrade() else {
                return;
            };
            tick(&target);
        })?;
    // `try_lock`: in a child forked while another thread held this lock the lock stays held
    // for good; the ticker is then simply not woken at the drop and ends within a period.
    let mut slot = match wake_slot.try_lock() {
        Ok(slot) => slot,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return Ok(handle),
    };
    *slot = Some(handle.thread().clone());
    drop(slot);
    Ok(handle)
}
