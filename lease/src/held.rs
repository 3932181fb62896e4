//! [`Held`]: how long a claim is proven held while `acquire` waits, and the retries that
//! keep it so.

use std::time::{Duration, Instant};

/// How long a claim is proven held while [`Lease::acquire`](crate::Lease::acquire) waits,
/// and how it keeps it so.
pub(super) struct Held {
    /// A TTL less the margin after the last store call that succeeded was sent.
    pub(super) until: Instant,
    /// The TTL less the margin.
    pub(super) window: Duration,
    /// How soon a failed call is tried again: the renewal thread's period after a failure.
    pub(super) retry: Duration,
}

impl Held {
    /// Calls `call` until it reaches the store (`Ok`), trying again after `retry` while the
    /// claim is proven held past that retry; then returns the last failure. Each success
    /// proves the claim held until its send time plus the window.
    pub(super) fn retry_while_held<T, E>(
        &mut self,
        mut call: impl FnMut() -> Result<T, E>,
    ) -> Result<T, E> {
        loop {
            let sent = Instant::now();
            match call() {
                Ok(v) => {
                    self.until = sent + self.window;
                    return Ok(v);
                }
                Err(e) if Instant::now() + self.retry >= self.until => return Err(e),
                Err(_) => std::thread::sleep(self.retry),
            }
        }
    }
}
