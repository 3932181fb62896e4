//! Parser properties, shared by `tests/prop_parse.rs` (proptest) and the parser fuzz targets
//! (`fuzz/fuzz_targets/parse_*.rs` and `id_round_trip.rs`, which include this file by path).
//!
//! Each parser is checked against a reference written here from the documented rules alone
//! (alphabets from the `Encoding` docs, digits most significant first, no leading zero, at
//! most `u64::MAX`; base64 as exactly 11 characters of the big-endian bytes with two zero
//! padding bits; bwmarrin's base64 as RFC 4648 standard padded base64 of canonical decimal
//! text; the first offending character reported by byte offset, or the byte itself when no
//! character starts there), so a parser that accepts or refuses anything the rules do not
//! say, or reports the wrong reason, fails.
#![allow(dead_code)] // Each includer uses part of it.

use snowmint::encoding::ParseErrorKind;
use snowmint::{Encoding, Id};

/// The documented alphabets, zero digit first (copied from the docs, not from the crate).
fn reference_alphabet(e: Encoding) -> Option<&'static str> {
    Some(match e {
        Encoding::Decimal | Encoding::BwmarrinBytes => "0123456789",
        Encoding::Base2 => "01",
        Encoding::Base32 => "ybndrfg8ejkmcpqxot1uwisza345h769",
        Encoding::Base36 => "0123456789abcdefghijklmnopqrstuvwxyz",
        Encoding::Base58 => "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ",
        Encoding::Base64 => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
        Encoding::BwmarrinBase64 => {
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        }
        Encoding::Hex => "0123456789abcdef",
        _ => return None,
    })
}

/// The error for an offending byte at `index`: the character that starts there, or the
/// byte when none does (the shortest valid UTF-8 prefix, tried at every width).
fn invalid_at(input: &[u8], index: usize) -> ParseErrorKind {
    (1..=4)
        .filter(|w| index + w <= input.len())
        .find_map(|w| std::str::from_utf8(&input[index..index + w]).ok())
        .and_then(|s| s.chars().next())
        .map_or(
            ParseErrorKind::InvalidByte {
                byte: input[index],
                index,
            },
            |ch| ParseErrorKind::InvalidChar { ch, index },
        )
}

/// What the documented rules say `input` parses to under `e`: the value, or the error kind.
/// `None` for an encoding added after this file (only the round-trip checks apply then).
pub fn reference_parse(
    input: impl AsRef<[u8]>,
    e: Encoding,
) -> Option<Result<u64, ParseErrorKind>> {
    let input = input.as_ref();
    let alphabet = reference_alphabet(e)?.as_bytes();
    let digit = |b: u8| alphabet.iter().position(|&a| a == b).map(|d| d as u128);
    if input.is_empty() {
        return Some(Err(ParseErrorKind::Empty));
    }
    if e == Encoding::BwmarrinBase64 {
        return Some(reference_bwmarrin_base64(input, &digit));
    }
    let first_invalid = input.iter().position(|&b| digit(b).is_none());
    if e == Encoding::Base64 {
        if input.len() != 11 {
            return Some(Err(ParseErrorKind::InvalidLength {
                len: input.len(),
                expected: 11,
            }));
        }
        if let Some(bad) = first_invalid {
            return Some(Err(invalid_at(input, bad)));
        }
        let bits = input
            .iter()
            .fold(0_u128, |acc, &b| acc << 6 | digit(b).unwrap());
        if bits & 0b11 != 0 {
            return Some(Err(ParseErrorKind::NonZeroPadding));
        }
        return Some(Ok((bits >> 2) as u64));
    }
    if let Some(bad) = first_invalid {
        return Some(Err(invalid_at(input, bad)));
    }
    if input.len() > 1 && input[0] == alphabet[0] {
        return Some(Err(ParseErrorKind::LeadingZero));
    }
    Some(reference_value(
        input.iter().map(|&b| digit(b).unwrap()),
        alphabet.len() as u128,
    ))
}

/// Digits most significant first, at most `u64::MAX`.
fn reference_value(digits: impl Iterator<Item = u128>, base: u128) -> Result<u64, ParseErrorKind> {
    let mut value: u128 = 0;
    for d in digits {
        value = value * base + d;
        if value > u64::MAX as u128 {
            return Err(ParseErrorKind::Overflow);
        }
    }
    Ok(value as u64)
}

/// RFC 4648 §4 base64 with `=` padding to whole blocks of 4, strictly: every byte in the
/// alphabet or `=`, `=` only as the last one or two bytes, spare bits zero; then the bytes
/// must be canonical decimal text.
fn reference_bwmarrin_base64(
    input: &[u8],
    digit: &dyn Fn(u8) -> Option<u128>,
) -> Result<u64, ParseErrorKind> {
    if let Some(bad) = input.iter().position(|&b| b != b'=' && digit(b).is_none()) {
        return Err(invalid_at(input, bad));
    }
    if !input.len().is_multiple_of(4) {
        return Err(ParseErrorKind::LengthNotMultiple {
            len: input.len(),
            multiple: 4,
        });
    }
    let pad = input.iter().rev().take_while(|&&b| b == b'=').count();
    if let Some(p) = input.iter().position(|&b| b == b'=') {
        if pad > 2 || p != input.len() - pad {
            return Err(ParseErrorKind::InvalidChar { ch: '=', index: p });
        }
    }
    let data = &input[..input.len() - pad];
    let mut bits: u32 = 0;
    let mut held = 0;
    let mut text = Vec::new();
    for &b in data {
        bits = bits << 6 | digit(b).unwrap() as u32;
        held += 6;
        if held >= 8 {
            held -= 8;
            text.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    if bits != 0 {
        return Err(ParseErrorKind::NonZeroPadding);
    }
    if let Some(index) = text.iter().position(|b| !b.is_ascii_digit()) {
        return Err(ParseErrorKind::NotDecimalText {
            byte: text[index],
            index,
        });
    }
    if text.len() > 1 && text[0] == b'0' {
        return Err(ParseErrorKind::LeadingZero);
    }
    reference_value(text.iter().map(|&b| u128::from(b - b'0')), 10)
}

/// Every parser on `input` (any bytes): never panics, agrees with the reference (value or
/// reason), gives the same answer for the bytes as for the text when they are text, and
/// whatever parses re-encodes to exactly `input`.
pub fn check_input(input: &[u8]) {
    let text = std::str::from_utf8(input).ok();
    for e in Encoding::ALL {
        let parsed = Id::parse(input, e);
        if let Some(text) = text {
            assert_eq!(Id::parse(text, e), parsed, "{e} {text:?}");
        }
        if let Some(expected) = reference_parse(input, e) {
            assert_eq!(
                parsed
                    .as_ref()
                    .map(|id| id.to_u64())
                    .map_err(|err| *err.kind()),
                expected,
                "{e} {input:?}"
            );
        }
        match parsed {
            Ok(id) => {
                assert_eq!(id.encode(e).as_bytes(), input, "{e}: not canonical");
                check_id_in(id, e);
            }
            Err(err) => {
                assert_eq!(err.encoding(), e, "{input:?}");
                let message = err.to_string();
                assert!(
                    message.starts_with(&format!("invalid {e} ID: ")),
                    "{message}"
                );
                // The message quotes at most one character of the input, escaped.
                assert!(!message.chars().any(char::is_control), "{message:?}");
                match *err.kind() {
                    ParseErrorKind::InvalidChar { ch, index } => {
                        let tail = String::from_utf8_lossy(&input[index..]);
                        assert_eq!(tail.chars().next(), Some(ch), "{e} {input:?}");
                    }
                    ParseErrorKind::InvalidByte { byte, index } => {
                        assert_eq!(input[index], byte, "{e} {input:?}");
                        assert!(std::str::from_utf8(&input[index..]).is_err());
                    }
                    _ => {}
                }
            }
        }
    }
    // Decimal is also `FromStr`.
    if let Some(text) = text {
        assert_eq!(text.parse::<Id>(), Id::parse(text, Encoding::Decimal));
    }
}

/// [`check_input`] on text.
pub fn check_text(text: &str) {
    check_input(text.as_bytes());
}

/// One ID through one encoding: parse(encode) is the ID, and the text is in the alphabet
/// (and, for bwmarrin's base64, its padding).
fn check_id_in(id: Id, e: Encoding) {
    let text = id.encode(e);
    assert_eq!(Id::parse(&text, e), Ok(id), "{e} {text:?}");
    assert_eq!(Id::parse(text.as_bytes(), e), Ok(id), "{e} {text:?}");
    assert_eq!(text.to_string(), *text, "{e}");
    let padding = if e == Encoding::BwmarrinBase64 {
        "="
    } else {
        ""
    };
    assert!(
        text.bytes()
            .all(|b| e.alphabet().as_bytes().contains(&b) || padding.as_bytes().contains(&b)),
        "{e} {text:?}"
    );
    if let Some(alphabet) = reference_alphabet(e) {
        assert_eq!(e.alphabet(), alphabet, "{e}");
    }
    assert_eq!(e.name().parse::<Encoding>(), Ok(e));
}

/// Every ID round-trips through every encoding and its bytes; decimal, hex and binary are
/// the standard library's texts of the value, and bwmarrin's bytes are the decimal text's.
pub fn check_id(value: u64) {
    let id = Id::from_u64(value);
    for e in Encoding::ALL {
        check_id_in(id, e);
    }
    assert_eq!(id.encode(Encoding::Decimal).as_str(), id.to_string());
    assert_eq!(id.encode(Encoding::BwmarrinBytes).as_str(), id.to_string());
    assert_eq!(id.encode(Encoding::Hex).as_str(), format!("{value:x}"));
    assert_eq!(id.encode(Encoding::Base2).as_str(), format!("{value:b}"));
    assert_eq!(id.encode(Encoding::Base64).len(), 11);
    assert_eq!(Id::from_bytes(id.to_bytes()), id);
    assert_eq!(id.to_bytes(), value.to_be_bytes());
}

/// Any bytes: every parser as [`check_input`] says, and 8 of them convert to the big-endian
/// value and back.
pub fn check_bytes(bytes: &[u8]) {
    check_input(bytes);
    if let Ok(array) = <[u8; 8]>::try_from(bytes) {
        let id = Id::from_bytes(array);
        assert_eq!(id.to_u64(), u64::from_be_bytes(array));
        assert_eq!(id.to_bytes(), array);
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
        Value::String(s) => Id::parse(s, Encoding::Decimal).ok(),
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

    let as_string = whole(input, |de| {
        snowmint::integrations::serde::as_string::deserialize(de)
    });
    assert_eq!(
        as_string,
        expected_string,
        "{:?}",
        String::from_utf8_lossy(input)
    );
    let as_u64 = whole(input, |de| {
        snowmint::integrations::serde::as_u64::deserialize(de)
    });
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
