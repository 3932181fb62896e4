//! An [`Id`] pinned to one representation whatever the format: the one place each is
//! written and read, behind [`as_u64`](super::as_u64) and [`as_string`](super::as_string), and
//! [`Pinned`], the element their `option` and `vec` modules hand to serde.

use ::serde::{Deserializer, Serialize, Serializer};

use super::impls::IdVisitor;
use crate::encoding::Encoding;
use crate::id::Id;

/// Serializes `id` as its decimal string if `STRING`, else as a `u64`.
pub(super) fn serialize_pinned<const STRING: bool, S: Serializer>(
    id: &Id,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    if STRING {
        serializer.serialize_str(&id.encode(Encoding::Decimal))
    } else {
        serializer.serialize_u64(id.to_u64())
    }
}

/// Deserializes an [`Id`] from its canonical decimal string only if `STRING`, else from a
/// `u64` or a non-negative `i64` only.
pub(super) fn deserialize_pinned<'de, const STRING: bool, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Id, D::Error> {
    if STRING {
        deserializer.deserialize_str(IdVisitor {
            numbers: false,
            strings: true,
        })
    } else {
        deserializer.deserialize_u64(IdVisitor {
            numbers: true,
            strings: false,
        })
    }
}

/// An [`Id`] in one pinned representation (a string if `STRING`, else a number), the element
/// the `option` and `vec` modules hand to serde.
struct Pinned<const STRING: bool>(Id);

impl<const STRING: bool> Serialize for Pinned<STRING> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_pinned::<STRING, S>(&self.0, serializer)
    }
}

impl<'de, const STRING: bool> ::serde::Deserialize<'de> for Pinned<STRING> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize_pinned::<STRING, D>(deserializer).map(Pinned)
    }
}

pub(super) fn serialize_option<const STRING: bool, S: Serializer>(
    id: &Option<Id>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => serializer.serialize_some(&Pinned::<STRING>(*id)),
        None => serializer.serialize_none(),
    }
}

pub(super) fn deserialize_option<'de, const STRING: bool, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Id>, D::Error> {
    let id: Option<Pinned<STRING>> = ::serde::Deserialize::deserialize(deserializer)?;
    Ok(id.map(|p| p.0))
}

pub(super) fn serialize_seq<const STRING: bool, S: Serializer>(
    ids: &[Id],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(ids.iter().map(|&id| Pinned::<STRING>(id)))
}

pub(super) fn deserialize_vec<'de, const STRING: bool, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Id>, D::Error> {
    let ids: Vec<Pinned<STRING>> = ::serde::Deserialize::deserialize(deserializer)?;
    Ok(ids.into_iter().map(|p| p.0).collect())
}
