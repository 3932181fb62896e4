//! [`Id`] as a signed 64-bit integer (SQL's `BIGINT`), checked both ways.
//!
//! A database without unsigned 64-bit integers stores IDs as `BIGINT`. That keeps their order
//! (`ORDER BY id` sorts by time) only while every ID is below 2^63: a bit-cast would turn a
//! 64-bit layout's larger IDs negative and sort them first. So an ID past `i64::MAX` is refused
//! with [`BigintError::IdTooLarge`] instead of wrapping, and a negative `BIGINT`, which no
//! 63-bit layout mints, is refused with [`BigintError::Negative`] when read back.
//!
//! The `postgres` and `sqlx` features use these checks for their column types.

use core::fmt;

use crate::id::Id;

/// Why an [`Id`] and a `BIGINT` (`i64`) could not be converted into each other.
///
/// ```
/// use snowmint::{BigintError, Id};
///
/// let err = i64::try_from(Id::MAX).unwrap_err();
/// assert_eq!(err, BigintError::IdTooLarge { id: Id::MAX });
/// assert_eq!(
///     err.to_string(),
///     "ID 18446744073709551615 does not fit in BIGINT: allowed 0 to 9223372036854775807"
/// );
///
/// let err = Id::try_from(-5_i64).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "BIGINT -5 is not an ID: allowed 0 to 9223372036854775807"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BigintError {
    /// The ID is above `i64::MAX` (only a 64-bit layout mints these): stored bit for bit it
    /// would read back negative and sort before every other ID.
    IdTooLarge {
        /// The ID that was refused.
        id: Id,
    },
    /// The value is negative, so no layout minted it.
    Negative {
        /// The value that was refused.
        value: i64,
    },
}

impl fmt::Display for BigintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BigintError::IdTooLarge { id } => write!(
                f,
                "ID {id} does not fit in BIGINT: allowed 0 to {}",
                i64::MAX
            ),
            BigintError::Negative { value } => {
                write!(f, "BIGINT {value} is not an ID: allowed 0 to {}", i64::MAX)
            }
        }
    }
}

impl core::error::Error for BigintError {}

impl TryFrom<Id> for i64 {
    type Error = BigintError;

    /// The ID's value, if it is at most `i64::MAX`.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(i64::try_from(Id::from_u64(42)), Ok(42));
    /// assert!(i64::try_from(Id::from_u64(1 << 63)).is_err());
    /// ```
    #[inline]
    fn try_from(id: Id) -> Result<i64, BigintError> {
        id.to_i64().ok_or(BigintError::IdTooLarge { id })
    }
}

impl TryFrom<i64> for Id {
    type Error = BigintError;

    /// The ID with this value, if it is not negative.
    ///
    /// ```
    /// use snowmint::Id;
    /// assert_eq!(Id::try_from(42_i64), Ok(Id::from_u64(42)));
    /// assert!(Id::try_from(-1_i64).is_err());
    /// ```
    #[inline]
    fn try_from(value: i64) -> Result<Id, BigintError> {
        Id::from_i64(value).ok_or(BigintError::Negative { value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_at_the_edges() {
        for v in [0_i64, 1, i64::MAX - 1, i64::MAX] {
            let id = Id::try_from(v).unwrap();
            assert_eq!(id.to_u64(), v as u64);
            assert_eq!(i64::try_from(id), Ok(v));
        }
    }

    #[test]
    fn refuses_past_the_edges() {
        for raw in [1_u64 << 63, (1 << 63) + 1, u64::MAX] {
            let id = Id::from_u64(raw);
            assert_eq!(i64::try_from(id), Err(BigintError::IdTooLarge { id }));
        }
        for value in [-1_i64, i64::MIN] {
            assert_eq!(Id::try_from(value), Err(BigintError::Negative { value }));
        }
        assert_eq!(
            BigintError::IdTooLarge {
                id: Id::from_u64(1 << 63)
            }
            .to_string(),
            "ID 9223372036854775808 does not fit in BIGINT: allowed 0 to 9223372036854775807"
        );
        assert_eq!(
            BigintError::Negative { value: i64::MIN }.to_string(),
            "BIGINT -9223372036854775808 is not an ID: allowed 0 to 9223372036854775807"
        );
    }
}
