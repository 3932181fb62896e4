//! [`Uuid7`] and the `uuid` crate's `Uuid` (feature `uuid`): into it always, from it when it
//! is version 7 and the RFC variant. The 128 bits are the same in both, in the same order.

use super::error::Id128Error;
use super::uuid7::Uuid7;

impl From<Uuid7> for uuid::Uuid {
    /// The same 128 bits.
    ///
    /// ```
    /// use snowmint::Uuid7;
    /// let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
    /// let theirs = uuid::Uuid::from(id);
    /// assert_eq!(theirs.get_version_num(), 7);
    /// assert_eq!(theirs.to_string(), id.to_string());
    /// # Ok::<(), snowmint::Id128Error>(())
    /// ```
    fn from(id: Uuid7) -> uuid::Uuid {
        uuid::Uuid::from_u128(id.to_u128())
    }
}

impl TryFrom<uuid::Uuid> for Uuid7 {
    type Error = Id128Error;

    /// The same 128 bits, if they are version 7 and the RFC variant.
    ///
    /// ```
    /// use snowmint::{Id128Error, Uuid7};
    /// let theirs = uuid::Uuid::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
    /// assert_eq!(Uuid7::try_from(theirs)?.unix_millis(), 0x017F_22E2_79B0);
    /// assert_eq!(Uuid7::try_from(uuid::Uuid::nil()), Err(Id128Error::NotVersion7 { version: 0 }));
    /// # Ok::<(), Id128Error>(())
    /// ```
    fn try_from(theirs: uuid::Uuid) -> Result<Uuid7, Id128Error> {
        Uuid7::from_u128(theirs.as_u128())
    }
}
