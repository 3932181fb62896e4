//! [`Pinned`]: an [`Id`] in one representation whatever the format, the element the `option`
//! and `vec` modules of [`as_u64`](super::as_u64) and [`as_string`](super::as_string) hand to
//! serde.

use ::serde::{Deserializer, Serialize, Serializer};

use super::{as_string, as_u64};
use crate::id::Id;

/// An [`Id`] in one pinned representation (a string if `STRING`, else a number), the element
/// the `option` and `vec` modules hand to serde.
struct Pinned<const STRING: bool>(Id);

impl<const STRING: bool> Serialize for Pinned<STRING> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if STRING {
            as_string::serialize(&self.0, serializer)
        } else {
            as_u64::serialize(&self.0, serializer)
        }
    }
}

impl<'de, const STRING: bool> ::serde::Deserialize<'de> for Pinned<STRING> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if STRING {
            as_string::deserialize(deserializer).map(Pinned)
        } else {
            as_u64::deserialize(deserializer).map(Pinned)
        }
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
