//! `Serialize` and `Deserialize` for [`Uuid7`] and [`Ulid`]: the canonical string, read by
//! the strict parsers.

use core::fmt;
use core::marker::PhantomData;
use core::str::FromStr;

use ::serde::de::{self, Deserializer, Visitor};
use ::serde::ser::{Serialize, Serializer};

use crate::id128::{Id128Error, Ulid, Uuid7};

impl Serialize for Uuid7 {
    /// The canonical string: 36 characters, lowercase, hyphenated (in every format; the
    /// 16 bytes with [`as_bytes`](super::as_bytes)).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Serialize for Ulid {
    /// The canonical string: 26 characters of Crockford base32, uppercase.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Reads an ID of type `T` from a string with its strict parser.
struct TextVisitor<T>(PhantomData<T>, &'static str);

impl<T: FromStr<Err = Id128Error>> Visitor<'_> for TextVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        text.parse().map_err(E::custom)
    }
}

impl<'de> ::serde::Deserialize<'de> for Uuid7 {
    /// A UUID string (hyphenated, either case), version 7 and the RFC variant.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Uuid7, D::Error> {
        deserializer.deserialize_str(TextVisitor(PhantomData, "a UUIDv7 string"))
    }
}

impl<'de> ::serde::Deserialize<'de> for Ulid {
    /// A ULID string (26 characters of Crockford base32).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ulid, D::Error> {
        deserializer.deserialize_str(TextVisitor(PhantomData, "a ULID string"))
    }
}
