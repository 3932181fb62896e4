//! The [`Id`] newtype: a minted 64-bit identifier.

use core::fmt;

/// A 64-bit, time-ordered identifier.
///
/// An `Id` is just the number: which bits hold the time, the node and the sequence is a
/// property of the [`Layout`](crate::layout::Layout) that minted it, so decoding takes the layout
/// (`layout.decode(id)`). IDs of one layout sort by time, then by node and sequence in the
/// layout's field order.
///
/// Formatting never allocates: [`Display`](fmt::Display) writes the decimal digits straight
/// into the formatter, and [`Id::encode`] writes any [`Encoding`](crate::encoding::Encoding)
/// into a stack-held [`EncodedId`](crate::encoding::EncodedId); [`Id::parse`] reads them
/// back.
///
/// ```
/// use snowmint::Id;
///
/// let id = Id::from_u64(1_288_834_974_657);
/// assert_eq!(id.to_u64(), 1_288_834_974_657);
/// assert_eq!(id.to_string(), "1288834974657");
/// assert_eq!("1288834974657".parse::<Id>(), Ok(id));
/// assert_eq!(u64::from(id), 1_288_834_974_657);
/// assert_eq!(Id::from(7_u64), Id::from_u64(7));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(transparent)]
pub struct Id(u64);

impl Id {
    /// The smallest ID, `0`.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::MIN.to_u64(), 0);
    /// ```
    pub const MIN: Id = Id(0);

    /// The largest ID, `u64::MAX` (only 64-bit layouts reach it).
    ///
    /// ```
    /// assert_eq!(snowmint::Id::MAX.to_u64(), u64::MAX);
    /// ```
    pub const MAX: Id = Id(u64::MAX);

    /// Wraps a raw value.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(42).to_u64(), 42);
    /// ```
    #[inline]
    pub const fn from_u64(value: u64) -> Id {
        Id(value)
    }

    /// The raw value.
    ///
    /// ```
    /// assert_eq!(snowmint::Id::from_u64(42).to_u64(), 42);
    /// ```
    #[inline]
    pub const fn to_u64(self) -> u64 {
        self.0
    }

    /// The value as an `i64`, for databases and languages without unsigned 64-bit integers;
    /// `None` when the top bit is set (only 64-bit layouts set it).
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::from_u64(42).to_i64(), Some(42));
    /// assert_eq!(Id::MAX.to_i64(), None);
    /// ```
    #[inline]
    pub const fn to_i64(self) -> Option<i64> {
        if self.0 <= i64::MAX as u64 {
            Some(self.0 as i64)
        } else {
            None
        }
    }

    /// Wraps an `i64`; `None` when it is negative.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::from_i64(42), Some(Id::from_u64(42)));
    /// assert_eq!(Id::from_i64(-1), None);
    /// ```
    #[inline]
    pub const fn from_i64(value: i64) -> Option<Id> {
        if value >= 0 {
            Some(Id(value as u64))
        } else {
            None
        }
    }
}

impl From<u64> for Id {
    #[inline]
    fn from(value: u64) -> Id {
        Id(value)
    }
}

impl From<Id> for u64 {
    #[inline]
    fn from(id: Id) -> u64 {
        id.0
    }
}

impl fmt::Display for Id {
    /// The decimal value, as bwmarrin/snowflake's `String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Binary for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Binary::fmt(&self.0, f)
    }
}

impl fmt::LowerHex for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

impl fmt::UpperHex for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::UpperHex::fmt(&self.0, f)
    }
}
