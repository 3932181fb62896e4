//! [`Uuid7`]: a UUID of version 7 (RFC 9562), its numbers, bytes and text.

use core::fmt;
use core::str::FromStr;

use super::error::Id128Error;
use super::hex;

/// A UUID of version 7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, the version `7`, 12
/// bits `rand_a`, the variant `0b10`, 62 bits `rand_b`.
///
/// Every value of the type is a version 7, RFC-variant UUID: the constructors from numbers,
/// bytes and text check both. Order, the numeric order of [`to_u128`](Self::to_u128) and the
/// order of the byte and text forms are one order, time first. [`Uuid7Generator`] fills
/// `rand_a` with the sub-millisecond time (RFC 9562 §6.2, method 3), so
/// [`sub_millis_nanos`](Self::sub_millis_nanos) of its IDs is the fraction of the millisecond.
///
/// ```
/// use snowmint::Uuid7;
///
/// // RFC 9562, Appendix A.6.
/// let id: Uuid7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F".parse()?;
/// assert_eq!(id.unix_millis(), 0x017F_22E2_79B0); // 2022-02-22T19:22:22Z
/// assert_eq!(id.rand_a(), 0xCC3);
/// assert_eq!(id.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// assert_eq!(id.to_bytes()[0], 0x01);
/// # Ok::<(), snowmint::Id128Error>(())
/// ```
///
/// [`Uuid7Generator`]: crate::Uuid7Generator
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid7(u128);

/// The version field's place (bits 76–79 from the least significant).
const VERSION_SHIFT: u32 = 76;
/// The variant field's place (bits 62–63).
const VARIANT_SHIFT: u32 = 62;

impl Uuid7 {
    /// The smallest version 7 UUID: time 0, every other field 0.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::MIN.to_string(), "00000000-0000-7000-8000-000000000000");
    /// ```
    pub const MIN: Uuid7 = Uuid7::from_fields(0, 0, 0);

    /// The largest version 7 UUID.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::MAX.to_string(), "ffffffff-ffff-7fff-bfff-ffffffffffff");
    /// ```
    pub const MAX: Uuid7 = Uuid7::from_fields(u64::MAX, u16::MAX, u64::MAX);

    /// The UUID of `unix_millis` (its low 48 bits), `rand_a` (its low 12 bits) and `rand_b`
    /// (its low 62 bits), with the version and variant set.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// let id = Uuid7::from_fields(0x017F_22E2_79B0, 0xCC3, 0x18C4_DC0C_0C07_398F);
    /// assert_eq!(id.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    /// ```
    #[inline]
    pub const fn from_fields(unix_millis: u64, rand_a: u16, rand_b: u64) -> Uuid7 {
        let ms = (unix_millis & 0xFFFF_FFFF_FFFF) as u128;
        let a = (rand_a & 0xFFF) as u128;
        let b = (rand_b & 0x3FFF_FFFF_FFFF_FFFF) as u128;
        Uuid7(ms << 80 | 7 << VERSION_SHIFT | a << 64 | 0b10 << VARIANT_SHIFT | b)
    }

    /// The UUID of these 128 bits, if they are version 7 and the RFC variant.
    ///
    /// # Errors
    ///
    /// [`Id128Error`] when `value` is not a UUID of version 7 and the RFC 9562 variant (the error
    /// says which bits are wrong).
    ///
    /// ```
    /// use snowmint::{Id128Error, Uuid7};
    /// let id = Uuid7::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F)?;
    /// assert_eq!(id.to_u128(), 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
    /// assert_eq!(Uuid7::from_u128(0), Err(Id128Error::NotVersion7 { version: 0 }));
    /// # Ok::<(), Id128Error>(())
    /// ```
    #[inline]
    pub const fn from_u128(value: u128) -> Result<Uuid7, Id128Error> {
        let version = ((value >> VERSION_SHIFT) & 0xf) as u8;
        if version != 7 {
            return Err(Id128Error::NotVersion7 { version });
        }
        let digit = ((value >> 60) & 0xf) as u8;
        if digit >> 2 != 0b10 {
            return Err(Id128Error::NotRfcVariant { digit });
        }
        Ok(Uuid7(value))
    }

    /// The UUID of 128 bits the caller knows to be version 7 and the RFC variant (a
    /// generator's run adds to a valid UUID's low random bits only).
    #[inline(always)]
    pub(crate) const fn from_valid_u128(value: u128) -> Uuid7 {
        debug_assert!(Uuid7::from_u128(value).is_ok());
        Uuid7(value)
    }

    /// The 128 bits, most significant first as in the text.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::MIN.to_u128(), 0x00000000_0000_7000_8000_000000000000);
    /// ```
    #[inline]
    pub const fn to_u128(self) -> u128 {
        self.0
    }

    /// The UUID of 16 bytes in RFC order (big-endian: the time's most significant byte
    /// first), if they are version 7 and the RFC variant.
    ///
    /// # Errors
    ///
    /// [`Id128Error`] when the bytes are not a UUID of version 7 and the RFC 9562 variant, as
    /// [`from_u128`](Self::from_u128).
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
    /// assert_eq!(Uuid7::from_bytes(id.to_bytes()), Ok(id));
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    #[inline]
    pub const fn from_bytes(bytes: [u8; 16]) -> Result<Uuid7, Id128Error> {
        Uuid7::from_u128(u128::from_be_bytes(bytes))
    }

    /// The 16 bytes in RFC order (big-endian), as PostgreSQL's `uuid` and the `uuid` crate
    /// store them.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
    /// assert_eq!(id.to_bytes(), [0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3,
    ///                            0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f]);
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    #[inline]
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// The time: milliseconds since the Unix epoch (48 bits).
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::from_fields(1_700_000_000_123, 0, 0).unix_millis(), 1_700_000_000_123);
    /// ```
    #[inline]
    pub const fn unix_millis(self) -> u64 {
        (self.0 >> 80) as u64
    }

    /// The 12 bits of `rand_a`.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::from_fields(0, 0xABC, 0).rand_a(), 0xABC);
    /// ```
    #[inline]
    pub const fn rand_a(self) -> u16 {
        ((self.0 >> 64) & 0xFFF) as u16
    }

    /// The 62 bits of `rand_b`.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::from_fields(0, 0, 42).rand_b(), 42);
    /// ```
    #[inline]
    pub const fn rand_b(self) -> u64 {
        (self.0 as u64) & 0x3FFF_FFFF_FFFF_FFFF
    }

    /// `rand_a` read as RFC 9562 method 3 writes it: the fraction of the millisecond, in
    /// nanoseconds (`rand_a × 1,000,000 / 4096`, rounded down). For the IDs of
    /// [`Uuid7Generator`](crate::Uuid7Generator) this is the sub-millisecond time (at most
    /// 1 ms ahead of the clock, when its counter carried on).
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::from_fields(0, 2048, 0).sub_millis_nanos(), 500_000);
    /// assert_eq!(Uuid7::from_fields(0, 4095, 0).sub_millis_nanos(), 999_755);
    /// ```
    #[inline]
    pub const fn sub_millis_nanos(self) -> u32 {
        (self.rand_a() as u32 * 1_000_000) / 4096
    }

    /// The time in nanoseconds since the Unix epoch that method 3 encodes:
    /// [`unix_millis`](Self::unix_millis) and [`sub_millis_nanos`](Self::sub_millis_nanos).
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// assert_eq!(Uuid7::from_fields(3, 2048, 0).unix_nanos(), 3_500_000);
    /// ```
    #[inline]
    pub const fn unix_nanos(self) -> u64 {
        self.unix_millis() * 1_000_000 + self.sub_millis_nanos() as u64
    }
}

impl fmt::Display for Uuid7 {
    /// The canonical form: 36 characters, lowercase hex, hyphenated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = hex::format(self.0);
        // The bytes are ASCII hex digits and hyphens.
        f.pad(core::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl FromStr for Uuid7 {
    type Err = Id128Error;

    /// The hyphenated form only (hex digits of either case); version 7 and the RFC variant.
    fn from_str(text: &str) -> Result<Uuid7, Id128Error> {
        Uuid7::from_u128(hex::parse(text)?)
    }
}

impl TryFrom<&str> for Uuid7 {
    type Error = Id128Error;

    /// As [`FromStr`].
    fn try_from(text: &str) -> Result<Uuid7, Id128Error> {
        text.parse()
    }
}

impl TryFrom<u128> for Uuid7 {
    type Error = Id128Error;

    /// As [`Uuid7::from_u128`].
    fn try_from(value: u128) -> Result<Uuid7, Id128Error> {
        Uuid7::from_u128(value)
    }
}

impl TryFrom<[u8; 16]> for Uuid7 {
    type Error = Id128Error;

    /// As [`Uuid7::from_bytes`].
    fn try_from(bytes: [u8; 16]) -> Result<Uuid7, Id128Error> {
        Uuid7::from_bytes(bytes)
    }
}

impl From<Uuid7> for u128 {
    fn from(id: Uuid7) -> u128 {
        id.0
    }
}

impl From<Uuid7> for [u8; 16] {
    fn from(id: Uuid7) -> [u8; 16] {
        id.to_bytes()
    }
}
