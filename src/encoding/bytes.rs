//! The ID as 8 big-endian bytes, for binary protocols and database `BINARY(8)` columns: plain
//! value conversions (bwmarrin/snowflake's `IntBytes()`/`ParseIntBytes`), not an encoding.

use crate::id::Id;

impl Id {
    /// The value's 8 bytes, most significant first (network order), so byte strings sort
    /// like the IDs. As bwmarrin/snowflake's `IntBytes()`; its `Bytes()` is the decimal
    /// text instead ([`Encoding::BwmarrinBytes`](super::scheme::Encoding::BwmarrinBytes)).
    ///
    /// ```
    /// use snowmint::Id;
    ///
    /// let id = Id::from_u64(0x0102_0304_0506_0708);
    /// assert_eq!(id.to_bytes(), [1, 2, 3, 4, 5, 6, 7, 8]);
    /// assert_eq!(Id::from_bytes(id.to_bytes()), id);
    /// // bwmarrin/snowflake's TestMarshalsIntBytes.
    /// assert_eq!(Id::from_u64(13_587).to_bytes(), [0, 0, 0, 0, 0, 0, 0x35, 0x13]);
    /// ```
    #[inline]
    pub const fn to_bytes(self) -> [u8; 8] {
        self.to_u64().to_be_bytes()
    }

    /// The ID whose big-endian bytes these are. From a slice of unknown length, convert
    /// first: `Id::from_bytes(slice.try_into()?)` refuses every length but 8.
    ///
    /// ```
    /// use snowmint::Id;
    ///
    /// // bwmarrin/snowflake's TestIntBytes.
    /// let id = Id::from_bytes([0x0f, 0x7f, 0xc0, 0xfc, 0x2f, 0x80, 0, 0]);
    /// assert_eq!(id, Id::from_u64(1_116_823_421_972_381_696));
    /// let column: &[u8] = &[0, 0, 0, 0, 0, 0, 0x35, 0x13];
    /// assert_eq!(Id::from_bytes(column.try_into()?), Id::from_u64(13_587));
    /// # Ok::<(), std::array::TryFromSliceError>(())
    /// ```
    #[inline]
    pub const fn from_bytes(bytes: [u8; 8]) -> Id {
        Id::from_u64(u64::from_be_bytes(bytes))
    }
}
