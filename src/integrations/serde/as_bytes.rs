//! [`Uuid7`] or [`Ulid`] as its 16 bytes (big-endian, RFC order), for
//! `#[serde(with = "snowmint::integrations::serde::as_bytes")]`: a byte string in formats that have them
//! (bincode, CBOR, MessagePack), and read back from a byte string or a sequence of 16
//! numbers (what JSON makes of bytes).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use snowmint::{Ulid, Uuid7};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Row {
//!     #[serde(with = "snowmint::integrations::serde::as_bytes")]
//!     id: Uuid7,
//!     #[serde(with = "snowmint::integrations::serde::as_bytes")]
//!     ulid: Ulid,
//! }
//!
//! let row = Row { id: "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?, ulid: Ulid::from_u128(1) };
//! let json = serde_json::to_string(&row)?;
//! assert!(json.starts_with(r#"{"id":[1,127,34,226,121,176,124,195,"#));
//! assert_eq!(serde_json::from_str::<Row>(&json)?, row);
//! let short = r#"{"id":[1,2],"ulid":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]}"#;
//! assert!(serde_json::from_str::<Row>(short).unwrap_err().to_string().contains("16 bytes"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use core::marker::PhantomData;

use ::serde::de::{self, Deserializer, SeqAccess, Visitor};
use ::serde::ser::Serializer;

use crate::id128::{Id128Error, Ulid, Uuid7};

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::id128::Uuid7 {}
    impl Sealed for crate::id128::Ulid {}
}

/// The 128-bit IDs this module writes and reads: [`Uuid7`] and [`Ulid`] (sealed).
///
/// ```
/// use snowmint::integrations::serde::as_bytes::Bytes16;
/// use snowmint::Ulid;
/// assert_eq!(Ulid::from_u128(1).bytes()[15], 1);
/// ```
pub trait Bytes16: sealed::Sealed + Sized {
    /// The 16 bytes, big-endian.
    fn bytes(&self) -> [u8; 16];
    /// The ID of 16 bytes, if they are one (a `Uuid7` must be version 7, RFC variant).
    fn of_bytes(bytes: [u8; 16]) -> Result<Self, Id128Error>;
}

impl Bytes16 for Uuid7 {
    fn bytes(&self) -> [u8; 16] {
        self.to_bytes()
    }
    fn of_bytes(bytes: [u8; 16]) -> Result<Uuid7, Id128Error> {
        Uuid7::from_bytes(bytes)
    }
}

impl Bytes16 for Ulid {
    fn bytes(&self) -> [u8; 16] {
        self.to_bytes()
    }
    fn of_bytes(bytes: [u8; 16]) -> Result<Ulid, Id128Error> {
        Ok(Ulid::from_bytes(bytes))
    }
}

/// Writes the ID's 16 bytes as a byte string.
///
/// # Errors
///
/// The serializer's own error, if it cannot write 16 bytes.
///
/// ```
/// let id = snowmint::Ulid::from_u128(258);
/// let mut out = Vec::new();
/// snowmint::integrations::serde::as_bytes::serialize(&id, &mut serde_json::Serializer::new(&mut out))?;
/// assert_eq!(out, b"[0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,2]");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn serialize<T: Bytes16, S: Serializer>(id: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(&id.bytes())
}

/// Reads an ID from 16 bytes: a byte string or a sequence of 16 numbers; any other length
/// is an error that says 16 bytes were expected.
///
/// # Errors
///
/// The deserializer's error when the input is not 16 bytes, or bytes that are not a valid ID of the
/// type (a `Uuid7` of another version or variant).
///
/// ```
/// use snowmint::Ulid;
/// let mut de = serde_json::Deserializer::from_str("[0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,2]");
/// let id: Ulid = snowmint::integrations::serde::as_bytes::deserialize(&mut de)?;
/// assert_eq!(id.to_u128(), 258);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn deserialize<'de, T: Bytes16, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_bytes(BytesVisitor(PhantomData))
}

struct BytesVisitor<T>(PhantomData<T>);

impl<'de, T: Bytes16> Visitor<'de> for BytesVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("16 bytes")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<T, E> {
        let bytes: [u8; 16] = bytes
            .try_into()
            .map_err(|_| E::invalid_length(bytes.len(), &self))?;
        T::of_bytes(bytes).map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut bytes = [0u8; 16];
        for (i, slot) in bytes.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<u8>()?.is_some() {
            return Err(de::Error::invalid_length(17, &self));
        }
        T::of_bytes(bytes).map_err(de::Error::custom)
    }
}
