//! [`Text`]: a clap value parser whose errors are this tool's own messages, with the value
//! escaped (clap's own "invalid value" errors echo the raw value, control bytes and all).

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use clap::ValueEnum;

use crate::escape::quoted;

/// Parses an argument's text with `parse`, whose error message quotes the value through
/// [`quoted`]; a value that is not UTF-8 is refused the same way.
#[derive(Clone)]
pub struct Text<T> {
    parse: fn(&str) -> Result<T, String>,
    possible: Option<fn() -> Vec<PossibleValue>>,
}

/// A [`Text`] parser.
pub fn text<T>(parse: fn(&str) -> Result<T, String>) -> Text<T> {
    Text {
        parse,
        possible: None,
    }
}

/// A [`Text`] parser whose accepted names `--help` lists.
pub fn text_listing<T>(
    parse: fn(&str) -> Result<T, String>,
    possible: fn() -> Vec<PossibleValue>,
) -> Text<T> {
    Text {
        parse,
        possible: Some(possible),
    }
}

/// A [`Text`] parser for a `ValueEnum`, by its names, which `--help` lists.
pub fn choice<T: ValueEnum + Clone + Send + Sync + 'static>() -> Text<T> {
    Text {
        parse: |name| {
            T::value_variants()
                .iter()
                .find(|v| {
                    v.to_possible_value()
                        .is_some_and(|p| p.matches(name, false))
                })
                .cloned()
                .ok_or_else(|| {
                    let names: Vec<String> = T::value_variants()
                        .iter()
                        .filter_map(|v| v.to_possible_value())
                        .map(|p| p.get_name().to_owned())
                        .collect();
                    format!("{} is not one of: {}", quoted(name), names.join(", "))
                })
        },
        possible: Some(|| {
            T::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value)
                .collect()
        }),
    }
}

/// The one rule for a number written as text (a count, a node number): plain ASCII decimal
/// digits, without sign, spaces or leading zeros (`0` itself is fine), at most `u64::MAX`;
/// the canonical decimal that `Id`'s `FromStr` reads and the library's node sources follow.
pub fn parse_number(text: &str) -> Option<u64> {
    snowmint::Id::parse(text, snowmint::Encoding::Decimal)
        .ok()
        .map(snowmint::Id::to_u64)
}

/// A count or number: canonical decimal digits (no sign, spaces or leading zeros), the one
/// rule node numbers follow too ([`parse_number`]).
pub fn number(text: &str) -> Result<u64, String> {
    parse_number(text).ok_or_else(|| {
        format!(
            "{} is not a number: expected plain decimal digits (no sign, spaces or leading zeros), 0 to {}",
            quoted(text),
            u64::MAX
        )
    })
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Text<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let result = match value.to_str() {
            Some(text) => (self.parse)(text),
            None => Err(format!(
                "{} is not UTF-8 text",
                quoted(value.as_encoded_bytes())
            )),
        };
        result.map_err(|message| {
            let name = arg.map_or_else(|| "value".to_owned(), ToString::to_string);
            clap::Error::raw(ErrorKind::ValueValidation, format!("{name}: {message}\n"))
                .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.possible
            .map(|list| Box::new(list().into_iter()) as Box<dyn Iterator<Item = PossibleValue>>)
    }
}

/// A duration as humantime writes it (`500ms`, `10s`, `1m`).
pub fn duration(text: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(text).map_err(|e| {
        format!(
            "{} is not a duration ({e}): expected e.g. 500ms, 10s, 1m",
            quoted(text)
        )
    })
}
