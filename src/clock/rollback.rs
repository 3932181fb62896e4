//! [`Rollback`]: the policy for a clock that is behind the last issued time.

use core::time::Duration;

/// What a generator does when its clock reads earlier than the last time it issued (beyond
/// its lead): the wall clock was stepped back, or another core's clock lags this one.
///
/// Neither policy ever repeats an ID or waits without bound: waits end at the generator's
/// `max_wait` (or the call's timeout) with [`MintError::ClockBehind`](crate::MintError).
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Generator, Layout, MintError};
/// use snowmint::clock::{ManualClock, Rollback};
///
/// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
/// let strict = Generator::builder(Layout::TWITTER).clock(clock.clone())
///     .on_rollback(Rollback::Wait)
///     .max_wait(Duration::from_millis(5))
///     .build()?;
/// strict.next_id()?;
/// clock.rewind(Duration::from_secs(1));
/// // Waiting 5 ms cannot cover a one-second step back: the call says so at once.
/// let err = strict.next_id().unwrap_err();
/// assert!(matches!(err, MintError::ClockBehind { .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Rollback {
    /// Keep issuing in the last issued tick while its sequence lasts, as Sonyflake does, then
    /// wait for the clock to catch up. Small backward corrections cost nothing. The default.
    #[default]
    Continue,
    /// Issue nothing stamped more than the lead ahead of the clock: wait for the clock to
    /// catch up, then continue.
    Wait,
}

impl Rollback {
    /// How far behind the last issued time a clock may read and still not count as stepped
    /// back: readings of one clock on two cores disagree by up to ~5 µs, and a cheap reading
    /// lags an exact one by up to its ticker period plus the ticker's wake-up delay. A call
    /// that must wait for a clock behind by less is refused with
    /// [`MintError::Exhausted`](crate::MintError::Exhausted), not
    /// [`ClockBehind`](crate::MintError::ClockBehind); the policies themselves act on every
    /// step back, however small.
    ///
    /// ```
    /// assert_eq!(snowmint::clock::Rollback::TOLERANCE, std::time::Duration::from_millis(2));
    /// ```
    pub const TOLERANCE: Duration = Duration::from_millis(2);
}
