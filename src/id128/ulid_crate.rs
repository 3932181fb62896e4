//! [`Ulid`] and the `ulid` crate's `Ulid` (feature `ulid`): the same 128 bits, both ways.

use super::ulid::Ulid;

impl From<Ulid> for ulid::Ulid {
    /// The same 128 bits.
    ///
    /// ```
    /// use snowmint::Ulid;
    /// let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse()?;
    /// let theirs = ulid::Ulid::from(id);
    /// assert_eq!(theirs.timestamp_ms(), id.unix_millis());
    /// assert_eq!(theirs.to_string(), id.to_string());
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    fn from(id: Ulid) -> ulid::Ulid {
        ulid::Ulid(id.to_u128())
    }
}

impl From<ulid::Ulid> for Ulid {
    /// The same 128 bits.
    ///
    /// ```
    /// use snowmint::Ulid;
    /// let theirs = ulid::Ulid::from_parts(1_469_918_176_385, 42);
    /// assert_eq!(Ulid::from(theirs).unix_millis(), 1_469_918_176_385);
    /// assert_eq!(Ulid::from(theirs).random(), 42);
    /// ```
    fn from(theirs: ulid::Ulid) -> Ulid {
        Ulid::from_u128(theirs.0)
    }
}
