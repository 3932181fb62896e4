//! [`Decoded`]: the fields of one ID under one layout.

#[cfg(feature = "std")]
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::id::Parts;

/// The fields of an ID as read by [`Layout::decode`](crate::layout::Layout::decode).
///
/// ```
/// use snowmint::{Id, Layout};
/// // A tweet ID from 2022.
/// let d = Layout::TWITTER.decode(Id::from_u64(1_541_815_603_606_036_480));
/// assert_eq!(d.unix_millis(), 1_656_432_460_105);
/// assert_eq!((d.node(), d.sequence()), (378, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decoded {
    ticks: u64,
    node: u64,
    sequence: u64,
    unix_nanos: u128,
    /// The layout's unit: how many fractional digits the time needs (for serde).
    unit_nanos: u64,
}

impl Decoded {
    pub(crate) const fn new(
        ticks: u64,
        node: u64,
        sequence: u64,
        unix_nanos: u128,
        unit_nanos: u64,
    ) -> Decoded {
        Decoded {
            ticks,
            node,
            sequence,
            unix_nanos,
            unit_nanos,
        }
    }

    /// The layout's tick length, in nanoseconds.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) const fn unit_nanos(&self) -> u64 {
        self.unit_nanos
    }

    /// The time field: ticks since the layout's first tick (its epoch, or on the Unix grid
    /// the epoch rounded down to a whole unit).
    ///
    /// ```
    /// let l = snowmint::Layout::TWITTER;
    /// assert_eq!(l.decode(l.compose(9, snowmint::Parts { node: 0, sequence: 0 })?).ticks(), 9);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const fn ticks(&self) -> u64 {
        self.ticks
    }

    /// The node field.
    ///
    /// ```
    /// let l = snowmint::Layout::TWITTER;
    /// assert_eq!(l.decode(l.compose(9, snowmint::Parts { node: 5, sequence: 0 })?).node(), 5);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const fn node(&self) -> u64 {
        self.node
    }

    /// The sequence field.
    ///
    /// ```
    /// let l = snowmint::Layout::TWITTER;
    /// assert_eq!(l.decode(l.compose(9, snowmint::Parts { node: 5, sequence: 4 })?).sequence(), 4);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The node and sequence fields, to compose the ID again (`layout.compose(d.ticks(),
    /// d.parts())`).
    ///
    /// ```
    /// use snowmint::{Layout, Parts};
    /// let l = Layout::DISCORD;
    /// // Discord's docs: worker 1, process 0, increment 7.
    /// let d = l.decode(snowmint::Id::from_u64(175_928_847_299_117_063));
    /// assert_eq!(d.parts(), Parts { node: 1 << 5, sequence: 7 });
    /// ```
    pub const fn parts(&self) -> Parts {
        Parts {
            node: self.node,
            sequence: self.sequence,
        }
    }

    /// The start of the ID's tick, in milliseconds since the Unix epoch (rounded down).
    ///
    /// ```
    /// let l = snowmint::Layout::TWITTER;
    /// assert_eq!(l.decode(l.compose(9, snowmint::Parts { node: 5, sequence: 4 })?).unix_millis(), 1_288_834_974_666);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const fn unix_millis(&self) -> u64 {
        // Layouts guarantee their expiry fits in u64 milliseconds.
        (self.unix_nanos / 1_000_000) as u64
    }

    /// The start of the ID's tick, in nanoseconds since the Unix epoch.
    ///
    /// ```
    /// let l = snowmint::Layout::TWITTER;
    /// assert_eq!(l.decode(l.compose(1, snowmint::Parts { node: 0, sequence: 0 })?).unix_nanos(), 1_288_834_974_658_000_000);
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    pub const fn unix_nanos(&self) -> u128 {
        self.unix_nanos
    }

    /// The start of the ID's tick.
    ///
    /// ```
    /// let l = snowmint::Layout::TWITTER;
    /// assert_eq!(l.decode(l.compose(0, snowmint::Parts { node: 0, sequence: 0 })?).time(), l.epoch());
    /// # Ok::<(), snowmint::LayoutError>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn time(&self) -> SystemTime {
        let secs = (self.unix_nanos / 1_000_000_000) as u64;
        UNIX_EPOCH + Duration::new(secs, (self.unix_nanos % 1_000_000_000) as u32)
    }
}
