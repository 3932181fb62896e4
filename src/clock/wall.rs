//! [`WallClock`]: the operating system's clock, read on every call.

use super::Clock;

/// Reads `SystemTime::now()` on every call (~35 ns here), for users who want IDs to follow
/// the operating system's clock exactly, steps included.
///
/// A wall clock can step backwards (NTP, an operator, a VM restore). What the generator does
/// then is its [`Rollback`](crate::clock::Rollback) policy: keep issuing from the last time while
/// that tick's sequence lasts, or wait up to its bound and then return
/// [`MintError::ClockBehind`](crate::MintError::ClockBehind). It never repeats an ID and never
/// waits without a bound.
///
/// ```
/// use snowmint::{Generator, Layout};
/// use snowmint::clock::{Clock, WallClock};
///
/// let gen = Generator::builder(Layout::TWITTER).clock(WallClock).node(1).build()?;
/// let id = gen.next_id()?;
/// let made = Layout::TWITTER.decode(id).unix_millis();
/// assert!(made <= WallClock.now_unix_nanos() / 1_000_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct WallClock;

impl Clock for WallClock {
    #[inline]
    fn now_unix_nanos(&self) -> u64 {
        system_unix_nanos()
    }
}

/// `SystemTime::now()` in Unix nanoseconds; 0 before 1970, saturating after 2554.
#[cfg(feature = "std")]
pub(crate) fn system_unix_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}
