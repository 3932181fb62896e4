//! Parser properties, shared by `tests/prop_parse.rs` (proptest) and the parser fuzz targets
//! (`fuzz/fuzz_targets/parse_*.rs` and `id_round_trip.rs`, which include this file by path).
//!
//! Each parser is checked against a reference written here from the documented rules alone
//! (alphabets from the `Encoding` docs, digits most significant first, no leading zero, at
//! most `u64::MAX`; base64 as exactly 11 characters of the big-endian bytes with two zero
//! padding bits; the first offending character reported by byte offset), so a parser that
//! accepts or refuses anything the rules do not say, or reports the wrong reason, fails.
#![allow(dead_code)] // Each includer uses part of it.

use snowmint::{Encoding, Id, ParseErrorKind};

/// The documented alphabets, zero digit first (copied from the docs, not from the crate).
fn reference_alphabet(e: Encoding) -> Option<&'static str> {
    Some(match e {
        Encoding::Decimal => "0123456789",
        Encoding::Base2 => "01",
        Encoding::Base32 => "ybndrfg8ejkmcpqxot1uwisza345h769",
        Encoding::Base36 => "0123456789abcdefghijklmnopqrstuvwxyz",
        Encoding::Base58 => "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ",
        Encoding::Base64 => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
        Encoding::Hex => "0123456789abcdef",
        _ => return None,
    })
}

/// What the documented rules say `text` parses to under `e`: the value, or the error kind.
/// `None` for an encoding added after this file (only the round-trip checks apply then).
pub fn reference_parse(text: &str, e: Encoding) -> Option<Result<u64, ParseErrorKind>> {
    let alphabet = reference_alphabet(e)?.as_bytes();
    let digit = |b: u8| alphabet.iter().position(|&a| a == b).map(|d| d as u128);
    let first_invalid = text
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() || digit(c as u8).is_none());
    let invalid = |(index, ch): (usize, char)| Err(ParseErrorKind::InvalidChar { ch, index });
    if text.is_empty() {
        return Some(Err(ParseErrorKind::Empty));
    }
    if e == Encoding::Base64 {
        if text.len() != 11 {
            return Some(Err(ParseErrorKind::InvalidLength {
                len: text.len(),
                expected: 11,
            }));
        }
        if let Some(bad) = first_invalid {
            return Some(invalid(bad));
        }
        let bits = text
            .bytes()
            .fold(0_u128, |acc, b| acc << 6 | digit(b).unwrap());
        if bits & 0b11 != 0 {
            return Some(Err(ParseErrorKind::NonZeroPadding));
        }
        return Some(Ok((bits >> 2) as u64));
    }
    if let Some(bad) = first_invalid {
        return Some(invalid(bad));
    }
    if text.len() > 1 && text.as_bytes()[0] == alphabet[0] {
        return Some(Err(ParseErrorKind::LeadingZero));
    }
    let base = alphabet.len() as u128;
    let mut value: u128 = 0;
    for b in text.bytes() {
        value = value * base + digit(b).unwrap();
        if value > u64::MAX as u128 {
            return Some(Err(ParseErrorKind::Overflow));
        }
    }
    Some(Ok(value as u64))
}

/// A text parser.
type Parser = fn(&str) -> Result<Id, snowmint::ParseIdError>;

/// The per-encoding parser, to check it agrees with `Id::parse`.
fn named_parser(e: Encoding) -> Option<Parser> {
    Some(match e {
        Encoding::Decimal => Id::parse_decimal,
        Encoding::Base2 => Id::parse_base2,
        Encoding::Base32 => Id::parse_base32,
        Encoding::Base36 => Id::parse_base36,
        Encoding::Base58 => Id::parse_base58,
        Encoding::Base64 => Id::parse_base64,
        Encoding::Hex => Id::parse_hex,
        _ => return None,
    })
}

/// Every text parser on `text`: never panics, agrees with the reference (value or reason),
/// and whatever parses re-encodes to exactly `text`.
pub fn check_text(text: &str) {
    for e in Encoding::ALL {
        let parsed = Id::parse(text, e);
        if let Some(named) = named_parser(e) {
            assert_eq!(named(text), parsed, "{e} {text:?}");
        }
        if let Some(expected) = reference_parse(text, e) {
            assert_eq!(
                parsed
                    .as_ref()
                    .map(|id| id.to_u64())
                    .map_err(|err| *err.kind()),
                expected,
                "{e} {text:?}"
            );
        }
        match parsed {
            Ok(id) => {
                assert_eq!(id.encode(e).as_str(), text, "{e}: not canonical");
                check_id_in(id, e);
            }
            Err(err) => {
                assert_eq!(err.encoding(), Some(e), "{text:?}");
                assert!(!err.to_string().is_empty());
                if let ParseErrorKind::InvalidChar { ch, index } = *err.kind() {
                    assert_eq!(text[index..].chars().next(), Some(ch), "{e} {text:?}");
                }
            }
        }
    }
    // Decimal is also `FromStr` and `TryFrom<&str>`.
    assert_eq!(text.parse::<Id>(), Id::parse(text, Encoding::Decimal));
    assert_eq!(Id::try_from(text), Id::parse(text, Encoding::Decimal));
}

/// One ID through one encoding: parse(encode) is the ID, and the text is in the alphabet.
fn check_id_in(id: Id, e: Encoding) {
    let text = id.encode(e);
    assert_eq!(Id::parse(&text, e), Ok(id), "{e} {text:?}");
    assert_eq!(text.to_string(), *text, "{e}");
    assert!(
        text.bytes().all(|b| e.alphabet().as_bytes().contains(&b)),
        "{e} {text:?}"
    );
    if let Some(alphabet) = reference_alphabet(e) {
        assert_eq!(e.alphabet(), alphabet, "{e}");
    }
    assert_eq!(e.name().parse::<Encoding>(), Ok(e));
}

/// Every ID round-trips through every encoding and its bytes; decimal, hex and binary are
/// the standard library's texts of the value.
pub fn check_id(value: u64) {
    let id = Id::from_u64(value);
    for e in Encoding::ALL {
        check_id_in(id, e);
    }
    assert_eq!(id.encode(Encoding::Decimal).as_str(), id.to_string());
    assert_eq!(id.encode(Encoding::Hex).as_str(), format!("{value:x}"));
    assert_eq!(id.encode(Encoding::Base2).as_str(), format!("{value:b}"));
    assert_eq!(id.encode(Encoding::Base64).len(), 11);
    assert_eq!(Id::from_bytes(id.to_bytes()), id);
    assert_eq!(Id::parse_bytes(&id.to_bytes()), Ok(id));
    assert_eq!(id.to_bytes(), value.to_be_bytes());
}

/// `Id::parse_bytes` on anything: exactly 8 bytes, big-endian, else a length error.
pub fn check_bytes(bytes: &[u8]) {
    let parsed = Id::parse_bytes(bytes);
    assert_eq!(Id::try_from(bytes), parsed);
    match <[u8; 8]>::try_from(bytes) {
        Ok(array) => {
            let id = parsed.expect("8 bytes always parse");
            assert_eq!(id.to_u64(), u64::from_be_bytes(array));
            assert_eq!(id.to_bytes(), array);
        }
        Err(_) => {
            let err = parsed.expect_err("only 8 bytes parse");
            assert_eq!(
                *err.kind(),
                ParseErrorKind::InvalidLength {
                    len: bytes.len(),
                    expected: 8
                }
            );
            assert!(!err.to_string().is_empty());
        }
    }
}

/// JSON (feature `serde`): `Id`, `as_u64` and `as_string` on any input agree with what the
/// documented rules say of the same input read as a JSON value, and whatever parses
/// re-serializes to the canonical decimal string.
#[cfg(feature = "serde")]
pub fn check_json(input: &[u8]) {
    use serde_json::Value;

    // The reference: the input as a generic JSON value, then the documented rules.
    let value: Option<Value> = serde_json::from_slice(input).ok();
    let from_string = |v: &Value| match v {
        Value::String(s) => Id::parse_decimal(s).ok(),
        _ => None,
    };
    let from_number = |v: &Value| match v {
        Value::Number(n) => n.as_u64().map(Id::from_u64),
        _ => None,
    };
    let expected_any = value
        .as_ref()
        .and_then(|v| from_string(v).or(from_number(v)));
    let expected_string = value.as_ref().and_then(from_string);
    let expected_number = value.as_ref().and_then(from_number);

    let any: Option<Id> = serde_json::from_slice(input).ok();
    assert_eq!(any, expected_any, "{:?}", String::from_utf8_lossy(input));

    let as_string = whole(input, |de| snowmint::serde::as_string::deserialize(de));
    assert_eq!(
        as_string,
        expected_string,
        "{:?}",
        String::from_utf8_lossy(input)
    );
    let as_u64 = whole(input, |de| snowmint::serde::as_u64::deserialize(de));
    assert_eq!(
        as_u64,
        expected_number,
        "{:?}",
        String::from_utf8_lossy(input)
    );

    if let Some(id) = any {
        let text = serde_json::to_string(&id).unwrap();
        assert_eq!(text, format!("\"{id}\""));
        assert_eq!(serde_json::from_str::<Id>(&text).unwrap(), id);
    }
}

/// Runs a `deserialize` function over the whole input (trailing data is an error).
#[cfg(feature = "serde")]
fn whole(
    input: &[u8],
    f: impl FnOnce(
        &mut serde_json::Deserializer<serde_json::de::SliceRead<'_>>,
    ) -> Result<Id, serde_json::Error>,
) -> Option<Id> {
    let mut de = serde_json::Deserializer::from_slice(input);
    f(&mut de).and_then(|id| de.end().map(|()| id)).ok()
}
