//! `Serialize` and `Deserialize` for [`Id`] (a decimal string when human-readable, a `u64`
//! otherwise), [`Decoded`] and [`Parts`], and the visitor every representation of an `Id`
//! reads with.

use core::fmt;

use ::serde::de::{self, Deserializer, Unexpected, Visitor};
use ::serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::encoding::Encoding;
use crate::id::Decoded;
use crate::id::Id;
use crate::id::Parts;
use crate::id::Utc;

impl Serialize for Id {
    /// A decimal string when the format is human-readable, the `u64` otherwise.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_str(&self.encode(Encoding::Decimal))
        } else {
            serializer.serialize_u64(self.to_u64())
        }
    }
}

impl<'de> ::serde::Deserialize<'de> for Id {
    /// A decimal string, a `u64` or a non-negative `i64`.
    ///
    /// Binary formats are asked for a `u64` (they cannot say which type comes next);
    /// human-readable ones for whatever is there.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_any(IdVisitor {
                numbers: true,
                strings: true,
            })
        } else {
            deserializer.deserialize_u64(IdVisitor {
                numbers: true,
                strings: true,
            })
        }
    }
}

impl Serialize for Decoded {
    /// `{"time", "unix_ms", "ticks", "node", "sequence"}`, as `snowmint decode --json`: the
    /// tick's start in RFC 3339 UTC with as many fractional digits as the layout's unit needs
    /// (at least milliseconds), or `null` from year 10000 on; the rest numbers.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let time = Utc::for_unit(self.unix_nanos(), self.unit_nanos());
        let mut object = serializer.serialize_struct("Decoded", 5)?;
        if time.fits() {
            object.serialize_field("time", &format_args!("{time}"))?;
        } else {
            object.serialize_field("time", &None::<&str>)?;
        }
        object.serialize_field("unix_ms", &self.unix_millis())?;
        object.serialize_field("ticks", &self.ticks())?;
        object.serialize_field("node", &self.node())?;
        object.serialize_field("sequence", &self.sequence())?;
        object.end()
    }
}

impl Serialize for Parts {
    /// `{"node", "sequence"}`, two numbers.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("Parts", 2)?;
        object.serialize_field("node", &self.node)?;
        object.serialize_field("sequence", &self.sequence)?;
        object.end()
    }
}

impl<'de> ::serde::Deserialize<'de> for Parts {
    /// `{"node", "sequence"}`, both required, nothing else.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Parts, D::Error> {
        deserializer.deserialize_struct("Parts", PARTS_FIELDS, PartsVisitor)
    }
}

const PARTS_FIELDS: &[&str] = &["node", "sequence"];

/// Reads [`Parts`] from a map or a two-element sequence (binary formats write structs so).
struct PartsVisitor;

impl<'de> Visitor<'de> for PartsVisitor {
    type Value = Parts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an ID's parts: {\"node\": N, \"sequence\": S}")
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
        let node = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let sequence = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok(Parts { node, sequence })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Parts, A::Error> {
        let (mut node, mut sequence) = (None, None);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let slot = match &*key {
                "node" => &mut node,
                "sequence" => &mut sequence,
                other => return Err(de::Error::unknown_field(other, PARTS_FIELDS)),
            };
            if slot.is_some() {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            *slot = Some(map.next_value()?);
        }
        Ok(Parts {
            node: node.ok_or_else(|| de::Error::missing_field("node"))?,
            sequence: sequence.ok_or_else(|| de::Error::missing_field("sequence"))?,
        })
    }
}

/// Reads an [`Id`] from the representations it is allowed.
#[derive(Clone, Copy)]
pub(super) struct IdVisitor {
    pub(super) numbers: bool,
    pub(super) strings: bool,
}

impl IdVisitor {
    fn number<E: de::Error>(self, value: u64, unexpected: Unexpected<'_>) -> Result<Id, E> {
        if self.numbers {
            Ok(Id::from_u64(value))
        } else {
            Err(E::invalid_type(unexpected, &self))
        }
    }
}

impl Visitor<'_> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.numbers, self.strings) {
            (true, true) => f.write_str(
                "a snowflake ID: a decimal string or an integer in 0..=18446744073709551615",
            ),
            (true, false) => {
                f.write_str("a snowflake ID as an integer in 0..=18446744073709551615")
            }
            _ => f.write_str(
                "a snowflake ID as a decimal string of a value in 0..=18446744073709551615",
            ),
        }
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Id, E> {
        self.number(value, Unexpected::Unsigned(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Id, E> {
        match u64::try_from(value) {
            Ok(value) => self.number(value, Unexpected::Signed(value as i64)),
            Err(_) if self.numbers => Err(E::invalid_value(Unexpected::Signed(value), &self)),
            Err(_) => Err(E::invalid_type(Unexpected::Signed(value), &self)),
        }
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Id, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::invalid_value(
                Unexpected::Other("a 128-bit integer"),
                &self,
            )),
        }
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Id, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::invalid_value(
                Unexpected::Other("a 128-bit integer"),
                &self,
            )),
        }
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Id, E> {
        if !self.strings {
            return Err(E::invalid_type(Unexpected::Str(text), &self));
        }
        // The ParseIdError says what is wrong (sign, leading zero, overflow…) and what is
        // allowed.
        Id::parse(text, Encoding::Decimal).map_err(E::custom)
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Id, E> {
        match core::str::from_utf8(bytes) {
            Ok(text) if self.strings => self.visit_str(text),
            _ => Err(E::invalid_type(Unexpected::Bytes(bytes), &self)),
        }
    }
}
