//! [`JsClock`]: the host's clock on WebAssembly, `Date.now()` through js-sys (feature `js`).

use super::Clock;
use crate::sync::{AtomicU64, Ordering};

/// The JavaScript host's wall clock, `Date.now()` (milliseconds), for `wasm32-unknown-unknown`
/// in browsers and Node.js; it needs no `std`.
///
/// Readings are clamped to never go backwards (the highest reading so far wins), so an NTP
/// step of the host shows as a clock standing still rather than a rollback. `Date.now()` has
/// millisecond resolution: enough for every preset's unit (1 ms and up).
///
/// ```no_run
/// # #[cfg(target_arch = "wasm32")] {
/// use snowmint::{Generator, Layout};
/// use snowmint::clock::JsClock;
///
/// let gen = Generator::with_clock(Layout::TWITTER, JsClock::new()).node(1).build()?;
/// let id = gen.next_id()?;
/// assert!(Layout::TWITTER.decode(id).unix_millis() > 1_700_000_000_000);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct JsClock {
    /// The highest reading so far, Unix nanoseconds.
    highest: AtomicU64,
}

impl JsClock {
    /// A clock on the host's `Date.now()`.
    ///
    /// ```no_run
    /// # #[cfg(target_arch = "wasm32")] {
    /// use snowmint::clock::{Clock, JsClock};
    /// assert!(JsClock::new().now_unix_nanos() > 1_700_000_000_000_000_000);
    /// # }
    /// ```
    pub const fn new() -> JsClock {
        JsClock {
            highest: AtomicU64::new(0),
        }
    }
}

impl Clock for JsClock {
    fn now_unix_nanos(&self) -> u64 {
        // A float of milliseconds: negative (before 1970) or NaN saturate to 0 in `as`.
        let now = (js_sys::Date::now() * 1_000_000.0) as u64;
        // Relaxed: the clamp needs only this one word's modification order, and the generator
        // orders its own state with its own CAS.
        let before = self.highest.fetch_max(now, Ordering::Relaxed);
        before.max(now)
    }
}
