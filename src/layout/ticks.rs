//! The one place where times become ticks and back, on the layout's
//! [`TimeGrid`](super::TimeGrid), and the expiry they lead to.

use core::time::Duration;
#[cfg(feature = "std")]
use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(feature = "std")]
use super::error::LayoutError;
use super::shape::{Layout, NANOS_PER_MILLI};

impl Layout {
    /// When the time field overflows, in milliseconds since the Unix epoch (rounded down):
    /// no ID can be minted at or after this moment. A generator for a layout whose expiry
    /// has passed is refused when built ([`LayoutError::Expired`]); its old IDs still decode.
    ///
    /// ```
    /// // Sonyflake lasts 174 years from its start time.
    /// assert_eq!(snowmint::Layout::SONYFLAKE.expiry_unix_millis(), 1_409_529_600_000 + (1 << 39) * 10);
    /// ```
    pub const fn expiry_unix_millis(&self) -> u64 {
        // Validated when built: fits in u64 milliseconds.
        (self.expiry_unix_nanos() / NANOS_PER_MILLI as u128) as u64
    }

    /// When the time field overflows.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// let js = snowmint::Layout::JS53;
    /// assert_eq!(js.expiry(), UNIX_EPOCH + Duration::from_millis(js.expiry_unix_millis()));
    /// ```
    #[cfg(feature = "std")]
    pub fn expiry(&self) -> SystemTime {
        let nanos = self.expiry_unix_nanos();
        let secs = (nanos / 1_000_000_000) as u64;
        UNIX_EPOCH + Duration::new(secs, (nanos % 1_000_000_000) as u32)
    }

    /// How long the layout lasts from its epoch to its expiry.
    ///
    /// ```
    /// assert_eq!(snowmint::Layout::TWITTER.lifetime().as_millis(), 1 << 41);
    /// ```
    pub const fn lifetime(&self) -> Duration {
        let nanos = (self.max_ticks() as u128 + 1) * self.unit.get() as u128;
        Duration::new(
            (nanos / 1_000_000_000) as u64,
            (nanos % 1_000_000_000) as u32,
        )
    }

    pub(crate) const fn expiry_unix_nanos(&self) -> u128 {
        self.tick_start_unix_nanos(self.max_ticks()) + self.unit.get() as u128
    }

    /// The tick holding `time` on the layout's [`TimeGrid`](super::TimeGrid), checked against the first tick
    /// and the expiry.
    ///
    /// # Errors
    ///
    /// [`LayoutError::TimeBeforeEpoch`] when `time` is before the layout's epoch,
    /// [`LayoutError::TimeAfterExpiry`] when it is past the layout's expiry.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use snowmint::{Layout, LayoutError};
    /// let l = Layout::SONYFLAKE;
    /// assert_eq!(l.ticks_at(l.epoch() + Duration::from_millis(25))?, 2);
    /// assert!(matches!(l.ticks_at(UNIX_EPOCH), Err(LayoutError::TimeBeforeEpoch { .. })));
    /// # Ok::<(), LayoutError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn ticks_at(&self, time: SystemTime) -> Result<u64, LayoutError> {
        let nanos = match time.duration_since(UNIX_EPOCH) {
            Ok(since) => since.as_nanos(),
            // Before 1970, so before every first tick (even of an epoch of 0): refused, with
            // the time as negative milliseconds, rather than clamped to 0.
            Err(before) => {
                let millis = before
                    .duration()
                    .as_nanos()
                    .div_ceil(NANOS_PER_MILLI as u128);
                return Err(LayoutError::TimeBeforeEpoch {
                    unix_millis: i64::try_from(millis).map_or(i64::MIN, |m| -m),
                    epoch_unix_millis: self.epoch_unix_millis(),
                });
            }
        };
        let unix_millis = nanos / NANOS_PER_MILLI as u128;
        let Some(since_origin) = nanos.checked_sub(self.origin_nanos as u128) else {
            return Err(LayoutError::TimeBeforeEpoch {
                // Below the origin, which is a u64 of nanoseconds.
                unix_millis: unix_millis as i64,
                epoch_unix_millis: self.epoch_unix_millis(),
            });
        };
        let ticks = since_origin / self.unit.get() as u128;
        if ticks > self.max_ticks() as u128 {
            return Err(LayoutError::TimeAfterExpiry {
                unix_millis: u64::try_from(unix_millis).unwrap_or(u64::MAX),
                expiry_unix_millis: self.expiry_unix_millis(),
            });
        }
        Ok(ticks as u64)
    }

    /// The tick holding the instant `unix_nanos` (nanoseconds since 1970) on the layout's
    /// [`TimeGrid`](super::TimeGrid), or `None` before the first tick. Not checked against the expiry: a tick
    /// past [`max_ticks`](Self::max_ticks) means the layout has expired.
    ///
    /// This and [`tick_start_unix_nanos`](Self::tick_start_unix_nanos) are the one place
    /// where clock readings become ticks and back; generators call them on every ID, so this
    /// costs one subtraction and a division by multiplication, whatever the grid.
    ///
    /// ```
    /// use snowmint::Layout;
    /// let l = Layout::TWITTER;
    /// let epoch = l.epoch_unix_nanos();
    /// assert_eq!(l.tick_of_unix_nanos(epoch + 2_500_000), Some(2));
    /// assert_eq!(l.tick_of_unix_nanos(epoch - 1), None);
    /// ```
    #[inline]
    pub const fn tick_of_unix_nanos(&self, unix_nanos: u64) -> Option<u64> {
        match unix_nanos.checked_sub(self.origin_nanos) {
            Some(since) => Some(self.unit.div(since)),
            None => None,
        }
    }

    /// When tick `tick` starts, in nanoseconds since 1970, on the layout's [`TimeGrid`](super::TimeGrid):
    /// `origin + tick * unit`, where the origin is the epoch, or on the Unix grid the epoch
    /// rounded down to a whole unit (sonyflake's `(startTime + elapsed) * unit`).
    ///
    /// ```
    /// use snowmint::Layout;
    /// let l = Layout::SONYFLAKE;
    /// assert_eq!(l.tick_start_unix_nanos(0), l.epoch_unix_nanos() as u128);
    /// assert_eq!(l.tick_start_unix_nanos(3), l.epoch_unix_nanos() as u128 + 30_000_000);
    /// ```
    #[inline]
    pub const fn tick_start_unix_nanos(&self, tick: u64) -> u128 {
        self.origin_nanos as u128 + tick as u128 * self.unit.get() as u128
    }
}
