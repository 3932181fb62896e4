//! [`Gate`]: what a [`Fenced`](super::Fenced) source's renewal thread shares with its minting
//! threads: the window, the keeper and its status; the checks of the hot path, the refusals,
//! and the renewals that move the window.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use crossbeam_utils::CachePadded;

use super::error::{FenceError, Note};
use super::keeper::{Cause, Keeper, Renewal};
use super::mark::{high_id, low_id};
use super::window::Window;
use crate::clock::Clock;
use crate::id::Id;
use crate::layout::Layout;
use crate::source::IdBatch;
use crate::sync;

/// Whether the keeper holds the node.
pub(super) enum Status {
    Held,
    Failing(Cause),
    Lost(Cause),
}

/// What the renewal thread shares with the minting threads.
pub(super) struct Gate<C> {
    pub(super) window: CachePadded<Window>,
    pub(super) clock: C,
    pub(super) layout: Layout,
    pub(super) node: u64,
    /// How long a refused caller should wait before trying again: the keeper's period after
    /// a failed renewal.
    pub(super) retry: Duration,
    /// Locked while renewing (a Redis call or a file write) and applying the outcome.
    pub(super) keeper: sync::Mutex<Box<dyn Keeper>>,
    /// The keeper's fencing token after its last renewal (0: none).
    pub(super) token: sync::AtomicU64,
    /// Locked only briefly, never across I/O: minting threads read it to explain a refusal.
    pub(super) status: sync::Mutex<Status>,
    pub(super) stop: Mutex<bool>,
    pub(super) wake: Condvar,
}

impl<C: Clock> Gate<C> {
    /// Refuses to mint once the deadline has passed.
    #[inline]
    pub(super) fn check_open(&self) -> Result<(), FenceError> {
        if self.window.is_open(self.clock.recent_unix_nanos()) {
            Ok(())
        } else {
            Err(self.closed())
        }
    }

    /// Hands `id` out only if it lies in the secured range and the deadline has not passed
    /// by an exact reading taken now, after the mint: a thread paused (SIGSTOP, a VM freeze,
    /// a long stall) between [`check_open`](Self::check_open) and here, or a cheap reading
    /// frozen by the pause, cannot hand out an ID minted after the hold lapsed.
    #[inline]
    pub(super) fn check_id(&self, id: Id) -> Result<Id, FenceError> {
        if !self.window.admits(id.to_u64()) {
            return self.outside(id);
        }
        self.check_still_open()?;
        Ok(id)
    }

    /// Refuses if the deadline has passed by an exact reading of the clock (taken now).
    #[inline]
    pub(super) fn check_still_open(&self) -> Result<(), FenceError> {
        if self.window.is_open(self.clock.now_unix_nanos()) {
            Ok(())
        } else {
            Err(self.closed())
        }
    }

    /// Hands the batch out cut at the secured limit, if its first ID is admitted.
    pub(super) fn check_batch(&self, mut batch: IdBatch) -> Result<IdBatch, FenceError> {
        let Some(last) = batch.final_id() else {
            return Ok(batch);
        };
        if self.window.admits(last.to_u64()) {
            self.check_still_open()?;
            return Ok(batch);
        }
        let first = batch.clone().next().unwrap_or(last);
        self.check_id(first)?;
        // The first is admitted, the last is not: keep the IDs up to the limit's tick.
        let high = Id::from_u64(self.window.high());
        batch.keep_through_tick(self.layout.decode(high).ticks());
        Ok(batch)
    }

    /// An ID outside the range: the renewal thread is behind (or the clock jumped). Try to
    /// extend the window now; hand the ID out only if that worked.
    #[cold]
    #[inline(never)]
    pub(super) fn outside(&self, id: Id) -> Result<Id, FenceError> {
        if id.to_u64() < self.window.low() {
            return Err(self.below_floor(id));
        }
        self.renew();
        self.check_open()?;
        if self.window.admits(id.to_u64()) {
            return Ok(id);
        }
        let high = self.layout.decode(Id::from_u64(self.window.high()));
        let e = FenceError::Fenced {
            node: self.node,
            retry_after: self.unit(),
            cause: Arc::new(Note::new(format!(
                "the ID's time, {} ms (Unix), is outside the secured window, which ends at {} ms",
                self.layout.decode(id).unix_millis(),
                high.unix_millis()
            ))),
        };
        crate::events::fence_refused(&self.layout, e.refusal());
        Err(e)
    }

    /// An ID at or before the floor (the previous holder's mark, or the forgetting rule's
    /// wait after a claim): refused until the clock passes the floor, with no renewal.
    #[cold]
    pub(super) fn below_floor(&self, id: Id) -> FenceError {
        let low = self.layout.decode(Id::from_u64(self.window.low()));
        let at = self.layout.decode(id);
        let wait = Duration::from_nanos(
            u64::try_from(low.unix_nanos().saturating_sub(at.unix_nanos())).unwrap_or(u64::MAX),
        );
        let e = FenceError::Fenced {
            node: self.node,
            retry_after: wait.max(self.unit()),
            cause: Arc::new(Note::new(format!(
                "the ID's time, {} ms (Unix), is not after the node's floor: IDs start at {} ms \
                 (after the previous holder's window, or one TTL plus the margin after a claim \
                 the store could not vouch for)",
                at.unix_millis(),
                low.unix_millis()
            ))),
        };
        crate::events::fence_refused(&self.layout, e.refusal());
        e
    }

    /// The layout's tick, as a retry hint.
    pub(super) fn unit(&self) -> Duration {
        self.layout.unit()
    }

    #[cold]
    pub(super) fn closed(&self) -> FenceError {
        let e = self.refusal();
        crate::events::fence_refused(&self.layout, e.refusal());
        e
    }

    pub(super) fn refusal(&self) -> FenceError {
        let (node, retry_after) = (self.node, self.retry);
        match &*lock(&self.status) {
            Status::Lost(cause) => FenceError::Lost {
                node,
                cause: Arc::clone(cause),
            },
            Status::Failing(cause) => FenceError::Fenced {
                node,
                retry_after,
                cause: Arc::clone(cause),
            },
            Status::Held => FenceError::Fenced {
                node,
                retry_after,
                cause: Arc::new(Note::new(
                    "the hold's deadline passed before a renewal arrived",
                )),
            },
        }
    }

    /// Renews now and applies the outcome, unless the node is lost.
    pub(super) fn renew(&self) -> bool {
        let mut k = lock(&self.keeper);
        if matches!(*lock(&self.status), Status::Lost(_)) {
            return false;
        }
        // A panic in the clock or the keeper fails this renewal, not every later one: it is
        // caught, named as the fence's cause (and so in the renewal event), and the thread
        // renews on at its failure period. (Not caught under `panic = "abort"`.)
        let renewal = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            k.renew(self.clock.now_unix_nanos())
        }))
        .unwrap_or_else(|panic| Renewal::Failed(Arc::new(Note::new(panicked(&*panic)))));
        let ok = matches!(renewal, Renewal::Held { .. });
        self.apply(renewal);
        // Relaxed: a report (`Fenced::token`); no other memory is read on its account.
        self.token
            .store(k.token().unwrap_or(0), sync::Ordering::Relaxed);
        ok
    }

    /// Applies a renewal's outcome to the window. Callers hold the keeper's lock (or own the
    /// gate alone), so that outcomes apply in the order they were obtained.
    pub(super) fn apply(&self, renewal: Renewal) {
        crate::events::fence_renewal(&self.layout, self.node, renewal.event());
        match renewal {
            Renewal::Held {
                limit_unix_millis,
                valid_until_nanos,
                floor_unix_millis,
            } => {
                let Ok(low) = low_id(&self.layout, floor_unix_millis) else {
                    *lock(&self.status) = Status::Failing(Arc::new(Note::new(format!(
                        "the previous owner's last time, {} ms (Unix), is past the layout's expiry",
                        floor_unix_millis.unwrap_or_default()
                    ))));
                    return;
                };
                let high = high_id(&self.layout, limit_unix_millis);
                // A floor, once known, stays: later renewals name none.
                self.window
                    .open(low.max(self.window.low()), high, valid_until_nanos);
                *lock(&self.status) = Status::Held;
            }
            // The window is left to close at its deadline.
            Renewal::Failed(cause) => *lock(&self.status) = Status::Failing(cause),
            Renewal::Lost(cause) => {
                self.window.close();
                *lock(&self.status) = Status::Lost(cause);
            }
        }
    }

    /// Gives the node up, recording `last_unix_millis`, unless it was lost.
    pub(super) fn release(&self, last_unix_millis: Option<u64>) {
        let mut k = lock(&self.keeper);
        if !matches!(*lock(&self.status), Status::Lost(_)) {
            k.release(last_unix_millis);
        }
    }

    /// The renewal thread: renew every period until stopped or lost.
    pub(super) fn run(&self, mut delay: Duration) {
        loop {
            let stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
            let (stop, _) = self
                .wake
                .wait_timeout_while(stop, delay, |stop| !*stop)
                .unwrap_or_else(PoisonError::into_inner);
            if *stop {
                return;
            }
            drop(stop);
            if matches!(*lock(&self.status), Status::Lost(_)) {
                return;
            }
            let ok = self.renew();
            delay = lock(&self.keeper).period(ok);
        }
    }
}

/// Locks `m`; a thread that panicked while holding it left a value that is still the best
/// we know (a status, a keeper whose next call reconnects).
/// What a caught panic said, for the fence's cause.
fn panicked(payload: &(dyn std::any::Any + Send)) -> String {
    let said = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-text payload");
    format!("the renewal panicked ({said}); renewals go on")
}

pub(super) fn lock<T: ?Sized>(m: &sync::Mutex<T>) -> sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
