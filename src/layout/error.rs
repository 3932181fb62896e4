//! [`LayoutError`]: why a layout, or a value checked against one, was refused, and the
//! [`Field`] it names.

use core::fmt;

use crate::id::Utc;

/// The bits bwmarrin/snowflake's `NewNode` lets `NodeBits` and `StepBits` share.
pub(crate) const BWMARRIN_NODE_STEP_BITS: u8 = 22;

/// One of the three fields of an ID.
///
/// ```
/// assert_eq!(snowmint::layout::Field::Node.to_string(), "node");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The timestamp, in the layout's ticks since its epoch.
    Time,
    /// The node (machine, worker, shard) number.
    Node,
    /// The sequence number within one tick.
    Sequence,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Time => "time",
            Field::Node => "node",
            Field::Sequence => "sequence",
        })
    }
}

/// Why a layout, or a value for one of its fields, was rejected.
///
/// Every message names the rule that was broken and the allowed range.
///
/// ```
/// use snowmint::{Layout, LayoutError};
///
/// let err = Layout::builder().time_bits(41).node_bits(10).sequence_bits(13).build().unwrap_err();
/// assert_eq!(err, LayoutError::TooWide { total: 64, max_bits: 63 });
/// assert_eq!(
///     err.to_string(),
///     "layout fields need 64 bits (time + node + sequence) but at most 63 are allowed"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayoutError {
    /// The time field has no bits.
    NoTimeBits,
    /// One field has more bits than any layout allows (64 for the time field, 63 for the
    /// node and sequence fields), whatever the others have.
    FieldTooWide {
        /// Which field.
        field: Field,
        /// The bits asked for.
        bits: u8,
        /// The most bits that field may have.
        max: u8,
    },
    /// `time + node + sequence` bits exceed the layout's width.
    TooWide {
        /// Bits the three fields need together.
        total: u32,
        /// Bits the layout allows (63 unless set otherwise).
        max_bits: u8,
    },
    /// The width is not between 1 and 64 bits.
    MaxBitsOutOfRange {
        /// The width asked for.
        max_bits: u8,
    },
    /// [`Layout::bwmarrin`](crate::Layout::bwmarrin) was asked for more than 22 node and
    /// step bits together, which bwmarrin/snowflake's `NewNode` refuses.
    ///
    /// ```
    /// use snowmint::{Layout, LayoutError};
    /// assert_eq!(
    ///     Layout::bwmarrin(16, 8).unwrap_err().to_string(),
    ///     "bwmarrin layout with 16 node and 8 step bits needs 24 bits for them but \
    ///      bwmarrin/snowflake allows at most 22 (NewNode refuses more)"
    /// );
    /// ```
    NodeStepTooWide {
        /// The `NodeBits` asked for.
        node_bits: u8,
        /// The `StepBits` asked for.
        step_bits: u8,
    },
    /// The time unit is zero.
    ZeroUnit,
    /// The time unit does not fit in 64 bits of nanoseconds (about 584 years).
    UnitTooLong,
    /// The epoch lies before 1970-01-01T00:00:00Z.
    EpochBeforeUnixEpoch,
    /// The epoch lies past what `u64` nanoseconds since 1970 hold (2554-07-21T23:34:33Z).
    EpochTooLate {
        /// The epoch as given, in milliseconds since the Unix epoch.
        epoch_unix_millis: u128,
    },
    /// The epoch lies in the future.
    EpochInFuture {
        /// The epoch, in milliseconds since the Unix epoch.
        epoch_unix_millis: u64,
        /// The wall clock when the layout was built.
        now_unix_millis: u64,
    },
    /// The time field would overflow at a date that cannot be expressed in Unix milliseconds
    /// in a `u64`.
    ExpiryUnrepresentable,
    /// A field value is larger than its bits allow.
    FieldOutOfRange {
        /// Which field.
        field: Field,
        /// The value given.
        value: u64,
        /// The largest allowed value.
        max: u64,
    },
    /// A time lies before the layout's epoch (before its first tick).
    TimeBeforeEpoch {
        /// The time, in milliseconds since the Unix epoch (negative before 1970).
        unix_millis: i64,
        /// The layout's epoch, in milliseconds since the Unix epoch.
        epoch_unix_millis: u64,
    },
    /// A time lies at or after the moment the layout's time field overflows.
    TimeAfterExpiry {
        /// The time, in milliseconds since the Unix epoch.
        unix_millis: u64,
        /// The layout's expiry, in milliseconds since the Unix epoch.
        expiry_unix_millis: u64,
    },
    /// A generator was asked for a layout whose time field has already overflowed by its
    /// clock: it could never mint. IDs of the layout still decode.
    Expired {
        /// The layout's expiry, in milliseconds since the Unix epoch.
        expiry_unix_millis: u64,
        /// The generator's clock when it was built.
        now_unix_millis: u64,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LayoutError::NoTimeBits => f.write_str("layout has no time bits: time_bits must be 1 to 64"),
            LayoutError::FieldTooWide { field: Field::Time, bits, max } => {
                write!(f, "layout time field of {bits} bits is too wide: time_bits must be 1 to {max}")
            }
            LayoutError::FieldTooWide { field, bits, max } => {
                write!(f, "layout {field} field of {bits} bits is too wide: {field}_bits must be 0 to {max}")
            }
            LayoutError::TooWide { total, max_bits } => write!(
                f,
                "layout fields need {total} bits (time + node + sequence) but at most {max_bits} are allowed"
            ),
            LayoutError::MaxBitsOutOfRange { max_bits } => {
                write!(f, "layout width of {max_bits} bits is out of range: allowed 1 to 64")
            }
            LayoutError::NodeStepTooWide { node_bits, step_bits } => write!(
                f,
                "bwmarrin layout with {node_bits} node and {step_bits} step bits needs {} bits for them but bwmarrin/snowflake allows at most {BWMARRIN_NODE_STEP_BITS} (NewNode refuses more)",
                u32::from(node_bits) + u32::from(step_bits)
            ),
            LayoutError::ZeroUnit => f.write_str("layout time unit is zero: it must be at least 1 ns"),
            LayoutError::UnitTooLong => {
                f.write_str("layout time unit is too long: it must be below 2^64 ns (about 584 years)")
            }
            LayoutError::EpochBeforeUnixEpoch => {
                f.write_str("layout epoch is before 1970-01-01T00:00:00Z: it must not be")
            }
            LayoutError::EpochTooLate { epoch_unix_millis } => write!(
                f,
                "layout epoch {epoch_unix_millis} ms (Unix) is too late: it must be at most {} ms (2554-07-21T23:34:33.709Z, the most u64 nanoseconds hold)",
                u64::MAX / 1_000_000
            ),
            LayoutError::EpochInFuture { epoch_unix_millis, now_unix_millis } => write!(
                f,
                "layout epoch {epoch_unix_millis} ms (Unix) is in the future: it must be at most now ({now_unix_millis} ms)"
            ),
            LayoutError::ExpiryUnrepresentable => f.write_str(
                "layout time field overflows too far in the future: its expiry must fit in u64 Unix milliseconds",
            ),
            LayoutError::FieldOutOfRange { field, value, max } => {
                write!(f, "{field} {value} is out of range: allowed 0 to {max}")
            }
            LayoutError::TimeBeforeEpoch { unix_millis, epoch_unix_millis } if unix_millis < 0 => write!(
                f,
                "time {unix_millis} ms (Unix) is before 1970-01-01T00:00:00Z and so before the layout epoch: allowed from {epoch_unix_millis} ms"
            ),
            LayoutError::TimeBeforeEpoch { unix_millis, epoch_unix_millis } => write!(
                f,
                "time {unix_millis} ms (Unix) is before the layout epoch: allowed from {epoch_unix_millis} ms"
            ),
            LayoutError::TimeAfterExpiry { unix_millis, expiry_unix_millis } => write!(
                f,
                "time {unix_millis} ms (Unix) is past the layout's expiry: allowed before {expiry_unix_millis} ms"
            ),
            LayoutError::Expired { expiry_unix_millis, now_unix_millis } => {
                f.write_str("layout expired on ")?;
                write!(f, "{}", Utc::millis(expiry_unix_millis))?;
                write!(
                    f,
                    " ({expiry_unix_millis} ms Unix), before the clock's {now_unix_millis} ms: its time field is full, so no generator can mint (its IDs still decode)"
                )
            }
        }
    }
}

impl core::error::Error for LayoutError {}
