//! Reading any ID the CLI knows from text: a 64-bit one in any of its encodings, or a
//! 128-bit UUIDv7 or ULID; [`Encoding`] is what `--from` (and the service's `?from=`) names,
//! [`read`] the one reading rule of `decode`, `encode` and `GET /decode/{id}`.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use snowmint::{Id, Layout};

use crate::escape::quoted;
use crate::format::{self, Format};
use crate::id128::{self, Id128};

/// What `--from` and `--to` name: a 64-bit encoding or a 128-bit kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Id(Format),
    Id128(id128::Kind),
}

impl Encoding {
    /// The name `--from` and `--to` take.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Id(format) => format.name(),
            Encoding::Id128(kind) => kind.name(),
        }
    }
}

/// An ID read from text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyId {
    /// A 64-bit ID and the encoding it was read in.
    Id(Id, Format),
    /// A UUIDv7 or ULID.
    Id128(Id128),
}

/// `--from`'s value parser: every 64-bit encoding and 128-bit kind by name.
pub fn encoding_arg(text: &str) -> Result<Encoding, String> {
    if let Ok(kind) = id128::Kind::from_str(text, false) {
        return Ok(Encoding::Id128(kind));
    }
    Format::from_str(text, false)
        .map(Encoding::Id)
        .map_err(|_| {
            let names: Vec<String> = encoding_names()
                .iter()
                .map(|p| p.get_name().to_owned())
                .collect();
            format!("{} is not one of: {}", quoted(text), names.join(", "))
        })
}

/// The names `--from` and `--to` take, for `--help`.
pub fn encoding_names() -> Vec<PossibleValue> {
    let ids = Format::value_variants().iter();
    let wide = id128::Kind::value_variants().iter();
    ids.filter_map(ValueEnum::to_possible_value)
        .chain(wide.filter_map(ValueEnum::to_possible_value))
        .collect()
}

/// Reads `input` in the encoding `from`, or detects it: a text shaped as a UUID (36
/// characters, hyphenated) or a ULID (26 letters and digits) is read as one, and any text as
/// the 64-bit encodings read it ([`format::read_id`]) for `layout`. A text that reads both as
/// a ULID and as a 64-bit ID is refused as ambiguous, naming the `--from` of each; a text
/// that reads as nothing gets an error naming every encoding tried.
pub fn read(input: &[u8], from: Option<Encoding>, layout: &Layout) -> Result<AnyId, String> {
    let from = match from {
        Some(Encoding::Id128(kind)) => return Id128::parse(kind, input).map(AnyId::Id128),
        Some(Encoding::Id(format)) => Some(format),
        None => None,
    };
    let narrow = format::read_id(input, from, layout);
    let wide = if from.is_none() {
        Id128::detect(input)
    } else {
        None
    };
    match (wide, narrow) {
        (None | Some(Err(_)), Ok((id, format))) => Ok(AnyId::Id(id, format)),
        (Some(Ok(wide)), Err(_)) => Ok(AnyId::Id128(wide)),
        // Shaped as a 128-bit ID: its reason is the one that was meant.
        (Some(Err(why)), Err(_)) => Err(why),
        (None, Err(why)) => Err(why),
        (Some(Ok(wide)), Ok((id, format))) => Err(format!(
            "{} is ambiguous: it reads as {} {wide} and as {} {id}; pass --from {} or --from {} to pick one",
            quoted(input),
            wide.kind().name(),
            format.name(),
            wide.kind().name(),
            format.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_read_and_a_failure_names_every_encoding_tried() {
        let l = Layout::TWITTER;
        assert!(matches!(
            read(b"1541815603606036480", None, &l),
            Ok(AnyId::Id(_, Format::Decimal))
        ));
        let uuid = b"018f3a5c-7d2e-7abc-8def-0123456789ab";
        assert!(matches!(read(uuid, None, &l), Ok(AnyId::Id128(_))));
        let ulid = b"01HZ3V5M6N7P8Q9R0S1T2V3W4X";
        assert!(matches!(
            read(ulid, Some(Encoding::Id128(id128::Kind::Ulid)), &l),
            Ok(AnyId::Id128(_))
        ));
        let err = read(b"not-an-id!", None, &l).unwrap_err();
        for name in [
            "decimal", "base2", "base32", "base36", "base58", "base64", "hex", "json", "uuid7",
            "ulid",
        ] {
            assert!(err.contains(name), "{name}: {err}");
        }
    }
}
