//! [`Ulid`]: a ULID, its numbers, bytes and text.

use core::fmt;
use core::str::FromStr;

use super::crockford;
use super::error::Id128Error;

/// A ULID: 48 bits of Unix milliseconds and 80 random bits, written as 26 characters of
/// Crockford's base32.
///
/// Every 128-bit number is a ULID. Order, the numeric order of [`to_u128`](Self::to_u128)
/// and the order of the byte and (canonical) text forms are one order, time first.
///
/// Text is read by Crockford's rule: either case, `I` and `L` read as `1`, `O` as `0`, `U`
/// refused, exactly 26 characters, the first at most `7` (26 digits would hold 130 bits).
/// Display writes the canonical form (uppercase, no aliases), so a text with lowercase
/// letters or aliases parses to a ULID whose text differs from it.
///
/// ```
/// use snowmint::Ulid;
///
/// // The ULID spec's example.
/// let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse()?;
/// assert_eq!(id.unix_millis(), 1_469_918_176_385);
/// assert_eq!(id.to_string(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
/// assert_eq!("01aryz6s41tsv4rrffq69g5fav".parse::<Ulid>()?, id);
/// # Ok::<(), snowmint::Id128Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ulid(u128);

impl Ulid {
    /// The smallest ULID.
    ///
    /// ```
    /// assert_eq!(snowmint::Ulid::MIN.to_string(), "00000000000000000000000000");
    /// ```
    pub const MIN: Ulid = Ulid(0);

    /// The largest ULID.
    ///
    /// ```
    /// assert_eq!(snowmint::Ulid::MAX.to_string(), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    /// ```
    pub const MAX: Ulid = Ulid(u128::MAX);

    /// The ULID of `unix_millis` (its low 48 bits) and `random` (its low 80 bits).
    ///
    /// ```
    /// use snowmint::Ulid;
    /// let id = Ulid::from_parts(1_469_918_176_385, 0xD6764C61EFB99302BD5B);
    /// assert_eq!(id.to_string(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
    /// ```
    #[inline]
    pub const fn from_parts(unix_millis: u64, random: u128) -> Ulid {
        let ms = (unix_millis & 0xFFFF_FFFF_FFFF) as u128;
        Ulid(ms << 80 | (random & ((1 << 80) - 1)))
    }

    /// The ULID of these 128 bits.
    ///
    /// ```
    /// use snowmint::Ulid;
    /// assert_eq!(Ulid::from_u128(7).to_u128(), 7);
    /// ```
    #[inline]
    pub const fn from_u128(value: u128) -> Ulid {
        Ulid(value)
    }

    /// The 128 bits, the time's most significant bit first.
    ///
    /// ```
    /// use snowmint::Ulid;
    /// let id: Ulid = "00000000000000000000000010".parse()?;
    /// assert_eq!(id.to_u128(), 32);
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    #[inline]
    pub const fn to_u128(self) -> u128 {
        self.0
    }

    /// The ULID of 16 bytes in the spec's order (big-endian, the time first).
    ///
    /// ```
    /// use snowmint::Ulid;
    /// let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse()?;
    /// assert_eq!(Ulid::from_bytes(id.to_bytes()), id);
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    #[inline]
    pub const fn from_bytes(bytes: [u8; 16]) -> Ulid {
        Ulid(u128::from_be_bytes(bytes))
    }

    /// The 16 bytes in the spec's order (big-endian: the time's most significant byte
    /// first), the same bytes as the UUID of the same 128 bits.
    ///
    /// ```
    /// use snowmint::Ulid;
    /// let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse()?;
    /// assert_eq!(id.to_bytes()[..6], [0x01, 0x56, 0x3d, 0xf3, 0x64, 0x81]);
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    #[inline]
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// The time: milliseconds since the Unix epoch (48 bits).
    ///
    /// ```
    /// use snowmint::Ulid;
    /// assert_eq!(Ulid::from_parts(1_700_000_000_000, 0).unix_millis(), 1_700_000_000_000);
    /// ```
    #[inline]
    pub const fn unix_millis(self) -> u64 {
        (self.0 >> 80) as u64
    }

    /// The 80 random bits (for [`UlidGenerator`](crate::UlidGenerator)'s IDs: a counter in
    /// the top 16 and 64 random bits below it).
    ///
    /// ```
    /// use snowmint::Ulid;
    /// assert_eq!(Ulid::from_parts(5, 0xABCD).random(), 0xABCD);
    /// ```
    #[inline]
    pub const fn random(self) -> u128 {
        self.0 & ((1 << 80) - 1)
    }
}

impl fmt::Display for Ulid {
    /// The canonical form: 26 characters of Crockford base32, uppercase.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = crockford::format(self.0);
        // The bytes are ASCII letters and digits.
        f.pad(core::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for Ulid {
    type Err = Id128Error;

    /// Crockford's base32 of either case, `I L` as `1` and `O` as `0`; 26 characters, the
    /// first at most `7`.
    fn from_str(text: &str) -> Result<Ulid, Id128Error> {
        crockford::parse(text).map(Ulid)
    }
}

impl TryFrom<&str> for Ulid {
    type Error = Id128Error;

    /// As [`FromStr`].
    fn try_from(text: &str) -> Result<Ulid, Id128Error> {
        text.parse()
    }
}

impl From<u128> for Ulid {
    fn from(value: u128) -> Ulid {
        Ulid(value)
    }
}

impl From<[u8; 16]> for Ulid {
    fn from(bytes: [u8; 16]) -> Ulid {
        Ulid::from_bytes(bytes)
    }
}

impl From<Ulid> for u128 {
    fn from(id: Ulid) -> u128 {
        id.0
    }
}

impl From<Ulid> for [u8; 16] {
    fn from(id: Ulid) -> [u8; 16] {
        id.to_bytes()
    }
}
