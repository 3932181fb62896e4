//! `--format` and `--from`: the ID's text forms, and telling them apart.

use std::io::{self, Write};

use clap::ValueEnum;
use snowmint::encoding::ParseErrorKind;
use snowmint::{Encoding, Id, Layout, ParseIdError};

use crate::escape::quoted;

/// The text forms of an ID on the command line: the library's encodings, plus JSON (the
/// decimal value as a JSON string, since JavaScript numbers lose IDs above 2^53).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Decimal digits, as databases and most APIs write IDs
    Decimal,
    /// Binary digits, no leading zeros
    Base2,
    /// z-base-32, as bwmarrin/snowflake's Base32()
    Base32,
    /// 0-9a-z
    Base36,
    /// Flickr base58, as bwmarrin/snowflake's Base58()
    Base58,
    /// The 8 big-endian bytes in URL-safe base64, always 11 characters (not bwmarrin's Base64())
    Base64,
    /// Lowercase hexadecimal, no 0x
    Hex,
    /// The decimal value as a JSON string ("1541815603606036480"), as bwmarrin/snowflake's MarshalJSON; only the quoted form is read, as its UnmarshalJSON
    Json,
    /// The value as an unquoted JSON number (1541815603606036480): exact here, but JavaScript numbers lose IDs above 2^53
    JsonNumber,
    /// The decimal value with JavaScript's BigInt suffix (1541815603606036480n), as @sapphire/snowflake's bigint IDs print
    JsBigint,
    /// The 8 big-endian bytes (bwmarrin/snowflake's IntBytes(), a BINARY(8) column) as 16 hex digits, zero-padded
    IntBytes,
    /// bwmarrin/snowflake's Base64(): standard base64 of the decimal text (never detected)
    BwmarrinBase64,
    /// bwmarrin/snowflake's Bytes(): the decimal text's bytes, the same text as decimal
    BwmarrinBytes,
}

impl Format {
    /// The forms auto-detection tries, in the order it reports them (decimal first). The
    /// bwmarrin forms are never guessed: their texts read as other encodings too. An
    /// unquoted JSON number is decimal text, so `json-number` is never reported.
    pub const DETECTED: [Format; 10] = [
        Format::Decimal,
        Format::Base2,
        Format::Base32,
        Format::Base36,
        Format::Base58,
        Format::Base64,
        Format::Hex,
        Format::IntBytes,
        Format::JsBigint,
        Format::Json,
    ];

    /// The library encoding this form writes (JSON wraps decimal).
    pub fn encoding(self) -> Encoding {
        match self {
            Format::Decimal | Format::Json | Format::JsonNumber | Format::JsBigint => {
                Encoding::Decimal
            }
            Format::IntBytes => Encoding::Hex,
            Format::Base2 => Encoding::Base2,
            Format::Base32 => Encoding::Base32,
            Format::Base36 => Encoding::Base36,
            Format::Base58 => Encoding::Base58,
            Format::Base64 => Encoding::Base64,
            Format::Hex => Encoding::Hex,
            Format::BwmarrinBase64 => Encoding::BwmarrinBase64,
            Format::BwmarrinBytes => Encoding::BwmarrinBytes,
        }
    }

    /// The name `--format` and `--from` take.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::JsonNumber => "json-number",
            Format::JsBigint => "js-bigint",
            Format::IntBytes => "int-bytes",
            other => other.encoding().name(),
        }
    }

    /// Writes the ID's text, without a newline. No allocation: the encodings write into a
    /// stack buffer.
    #[inline]
    pub fn write(self, out: &mut impl Write, id: Id) -> io::Result<()> {
        let text = id.encode(self.encoding());
        match self {
            Format::Json => {
                out.write_all(b"\"")?;
                out.write_all(text.as_bytes())?;
                out.write_all(b"\"")
            }
            Format::JsBigint => {
                out.write_all(text.as_bytes())?;
                out.write_all(b"n")
            }
            Format::IntBytes => {
                let pad = 16 - text.len();
                out.write_all(&b"0000000000000000"[..pad])?;
                out.write_all(text.as_bytes())
            }
            _ => out.write_all(text.as_bytes()),
        }
    }

    /// Parses the ID's text (any bytes) in this form, and nothing else: `json` only the
    /// quoted string (bwmarrin/snowflake's UnmarshalJSON refuses a JSON number),
    /// `json-number` only the unquoted number, `js-bigint` digits and `n`, `int-bytes`
    /// exactly 16 hex digits.
    pub fn parse(self, input: &[u8]) -> Result<Id, FormError> {
        let inner = match self {
            Format::Json => match input
                .strip_prefix(b"\"")
                .and_then(|t| t.strip_suffix(b"\""))
            {
                Some(inner) => inner,
                // The decimal parser names the first byte that is not a digit (or the
                // missing closing quote's place), so a bare number is refused by name.
                None if input.first() == Some(&b'"') => input,
                None => {
                    return Err(FormError::Shape(
                        "an unquoted JSON number: json reads only the quoted string, as \
                         bwmarrin/snowflake's UnmarshalJSON (--from json-number reads the number)"
                            .into(),
                    ))
                }
            },
            Format::JsBigint => match input.strip_suffix(b"n") {
                Some(inner) => inner,
                None => {
                    return Err(FormError::Shape(
                        "no BigInt suffix n: expected decimal digits and n, as 12n".into(),
                    ))
                }
            },
            Format::IntBytes if input.len() != 16 => {
                return Err(FormError::Shape(format!(
                    "{} bytes long: the 8 bytes are exactly 16 hex digits",
                    input.len()
                )));
            }
            Format::IntBytes => {
                // Leading zeros are the padding: read the rest as hex.
                let digits = input.iter().position(|&b| b != b'0').unwrap_or(15);
                &input[digits..]
            }
            _ => input,
        };
        Id::parse(inner, self.encoding()).map_err(FormError::Parse)
    }
}

/// Why a text is not an ID in a form: the library's parse error, or a rule of the form
/// around it (quotes, a suffix, a length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormError {
    Parse(ParseIdError),
    Shape(String),
}

/// The largest ID a layout can produce: its `max_bits` all ones.
pub fn max_id(layout: &Layout) -> u64 {
    u64::MAX >> (64 - u32::from(layout.max_bits()))
}

/// Reads an ID in the given form, or detects the form, and checks that it fits the layout.
/// Errors quote the input escaped and cut (see [`quoted`]).
///
/// Detection: the forms whose strict parser accepts the input and whose value fits the
/// layout's width are the candidates. Decimal digits are always decimal (`1234` is never hex
/// or base36); a text in quotes is JSON; otherwise exactly one candidate must be left, or the
/// input is ambiguous and the error lists the readings. When no form reads it, the error is
/// the library's reason from the form that read furthest into it.
pub fn read_id(
    input: &[u8],
    from: Option<Format>,
    layout: &Layout,
) -> Result<(Id, Format), String> {
    let max = max_id(layout);
    if let Some(format) = from {
        let id = format.parse(input).map_err(|e| {
            format!(
                "{} is not a {} ID: {}{}",
                quoted(input),
                format.name(),
                reason(&e),
                bwmarrin_hint(input, format)
            )
        })?;
        if id.to_u64() > max {
            return Err(format!(
                "{} ({} as {}) is too wide for the layout's {} bits: allowed 0 to {max}",
                quoted(input),
                id,
                format.name(),
                layout.max_bits()
            ));
        }
        return Ok((id, format));
    }
    if input.starts_with(b"\"") {
        return read_id(input, Some(Format::Json), layout);
    }
    if Format::Decimal.parse(input).is_ok() {
        return read_id(input, Some(Format::Decimal), layout);
    }
    let attempts: Vec<(Format, Result<Id, FormError>)> = Format::DETECTED
        .iter()
        .filter(|&&f| f != Format::Json)
        .map(|&f| (f, f.parse(input)))
        .collect();
    let readings: Vec<(Format, Id)> = attempts
        .iter()
        .filter_map(|(f, r)| r.as_ref().ok().map(|id| (*f, *id)))
        .collect();
    // Readings of one value are one reading (16 hex digits are hex and int-bytes alike).
    let mut fitting: Vec<(Format, Id)> = Vec::new();
    for &(f, id) in &readings {
        if id.to_u64() <= max && !fitting.iter().any(|&(_, seen)| seen == id) {
            fitting.push((f, id));
        }
    }
    match fitting.as_slice() {
        [(f, id)] => Ok((*id, *f)),
        [] if readings.is_empty() => {
            if let Ok(id) = Format::BwmarrinBase64.parse(input) {
                return Err(format!(
                    "{} reads only as bwmarrin/snowflake's Base64() of {id} (standard base64 of \
                     the decimal text), which is never guessed: pass --from bwmarrin-base64",
                    quoted(input)
                ));
            }
            // Every attempt failed: report the one that read furthest (decimal on ties).
            let (format, err) = attempts
                .iter()
                .filter_map(|(f, r)| r.as_ref().err().map(|e| (*f, e)))
                .rev()
                .max_by_key(|(_, e)| match e {
                    FormError::Parse(e) => depth(e.kind(), input.len()),
                    FormError::Shape(_) => 0,
                })
                .expect("every attempt failed");
            let tried: Vec<&str> = Format::DETECTED.iter().map(|f| f.name()).collect();
            Err(format!(
                "{} is not an ID in any encoding tried ({}; uuid7 and ulid by their shape: 36 \
                 characters hyphenated, 26 letters and digits); read furthest as {}: {}",
                quoted(input),
                tried.join(", "),
                format.name(),
                reason(err)
            ))
        }
        [] => Err(format!(
            "{} is too wide for the layout's {} bits in every encoding it parses in ({}): allowed 0 to {max}",
            quoted(input),
            layout.max_bits(),
            names(&readings)
        )),
        _ => Err(format!(
            "{} is ambiguous: it reads as {}; pass {} to pick one",
            quoted(input),
            fitting
                .iter()
                .map(|(f, id)| format!("{} {id}", f.name()))
                .collect::<Vec<_>>()
                .join(", "),
            fitting
                .iter()
                .map(|(f, _)| format!("--from {}", f.name()))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

/// The library's reason, without its "invalid ENCODING ID: " lead (the caller names the
/// encoding).
fn reason(err: &FormError) -> String {
    let err = match err {
        FormError::Parse(err) => err,
        FormError::Shape(why) => return why.clone(),
    };
    let full = err.to_string();
    let lead = format!("invalid {} ID: ", err.encoding());
    full.strip_prefix(&lead).map_or(full.clone(), str::to_owned)
}

/// How far into an input of `len` bytes a parser got before refusing it.
fn depth(kind: &ParseErrorKind, len: usize) -> usize {
    match *kind {
        ParseErrorKind::InvalidChar { index, .. } | ParseErrorKind::InvalidByte { index, .. } => {
            index
        }
        // Every byte was in the alphabet.
        ParseErrorKind::LeadingZero
        | ParseErrorKind::Overflow
        | ParseErrorKind::NonZeroPadding
        | ParseErrorKind::NotDecimalText { .. } => len,
        _ => 0,
    }
}

/// A note for input that bwmarrin/snowflake's `Base64()` wrote, when another form was
/// tried: that form is never guessed, but it is worth naming.
fn bwmarrin_hint(input: &[u8], tried: Format) -> String {
    match Format::BwmarrinBase64.parse(input) {
        Ok(id) if tried != Format::BwmarrinBase64 => format!(
            " (it reads as bwmarrin-base64 {id}, the base64 of the decimal text that \
             bwmarrin/snowflake's Base64() writes: pass --from bwmarrin-base64 if it came from there)"
        ),
        _ => String::new(),
    }
}

fn names(readings: &[(Format, Id)]) -> String {
    readings
        .iter()
        .map(|(f, _)| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_reads_back_what_it_writes() {
        for layout in Layout::PRESETS.map(|(_, l)| l) {
            for value in [
                0,
                1,
                4095,
                1_541_815_603_606_036_480 & max_id(&layout),
                max_id(&layout),
            ] {
                let id = Id::from_u64(value);
                for format in Format::value_variants().iter().copied() {
                    let mut text = Vec::new();
                    format.write(&mut text, id).unwrap();
                    assert_eq!(format.parse(&text), Ok(id), "{text:?}");
                    assert_eq!(
                        read_id(&text, Some(format), &layout),
                        Ok((id, format)),
                        "{text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn detection_prefers_decimal_and_reports_ambiguity() {
        let twitter = Layout::TWITTER;
        let id = Id::from_u64(1_541_815_603_606_036_480);
        // Digits only: decimal, though it also reads as hex and base36.
        assert_eq!(
            read_id(b"1541815603606036480", None, &twitter),
            Ok((id, Format::Decimal))
        );
        // 16 hex digits overflow base36 and base32: hex alone.
        assert_eq!(
            read_id(id.encode(Encoding::Hex).as_bytes(), None, &twitter),
            Ok((id, Format::Hex))
        );
        assert_eq!(
            read_id(b"\"1541815603606036480\"", None, &twitter),
            Ok((id, Format::Json))
        );
        // "abc" reads as base32, base36, base58 and hex.
        let err = read_id(b"abc", None, &twitter).unwrap_err();
        for name in ["base36 ", "base58 ", "hex 2748", "--from"] {
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn a_text_of_two_readings_is_refused_naming_both() {
        let twitter = Layout::TWITTER;
        // Base36 1391, and the JavaScript BigInt 12n.
        let err = read_id(b"12n", None, &twitter).unwrap_err();
        assert_eq!(
            err,
            "'12n' is ambiguous: it reads as base36 1391, js-bigint 12; pass --from base36 or \
             --from js-bigint to pick one"
        );
        assert_eq!(
            read_id(b"12n", Some(Format::Base36), &twitter),
            Ok((Id::from_u64(1391), Format::Base36))
        );
        assert_eq!(
            read_id(b"12n", Some(Format::JsBigint), &twitter),
            Ok((Id::from_u64(12), Format::JsBigint))
        );
        // Too wide as base36: the BigInt alone.
        assert_eq!(
            read_id(b"1541815603606036480n", None, &twitter),
            Ok((Id::from_u64(1_541_815_603_606_036_480), Format::JsBigint))
        );
        // One value in two forms is one reading.
        assert_eq!(
            read_id(b"13d18bec48800000", None, &twitter),
            Ok((Id::from_u64(0x13d1_8bec_4880_0000), Format::Hex))
        );
        assert_eq!(
            read_id(b"0000000000000fff", None, &twitter),
            Ok((Id::from_u64(0xfff), Format::IntBytes))
        );
    }

    #[test]
    fn json_is_the_quoted_string_unless_json_number_is_asked() {
        let twitter = Layout::TWITTER;
        let err = read_id(b"123", Some(Format::Json), &twitter).unwrap_err();
        assert!(
            err.contains("unquoted JSON number") && err.contains("--from json-number"),
            "{err}"
        );
        assert_eq!(
            read_id(b"\"123\"", Some(Format::Json), &twitter),
            Ok((Id::from_u64(123), Format::Json))
        );
        assert_eq!(
            read_id(b"123", Some(Format::JsonNumber), &twitter),
            Ok((Id::from_u64(123), Format::JsonNumber))
        );
        for bad in [&b"\"123\""[..], b"1.5", b"1e3", b"-1", b"0123"] {
            assert!(
                read_id(bad, Some(Format::JsonNumber), &twitter).is_err(),
                "{bad:?}"
            );
        }
        assert!(read_id(b"\"123", Some(Format::Json), &twitter).is_err());
    }

    #[test]
    fn bwmarrin_base64_is_never_guessed_but_named() {
        let classic = b"MTI4MzMyODc4NDc2NTgxNjgzMg==";
        let err = read_id(classic, None, &Layout::TWITTER).unwrap_err();
        assert!(err.contains("--from bwmarrin-base64"), "{err}");
        let err = read_id(classic, Some(Format::Base64), &Layout::TWITTER).unwrap_err();
        assert!(err.contains("--from bwmarrin-base64"), "{err}");
        assert_eq!(
            read_id(classic, Some(Format::BwmarrinBase64), &Layout::TWITTER),
            Ok((
                Id::from_u64(1_283_328_784_765_816_832),
                Format::BwmarrinBase64
            ))
        );
    }

    #[test]
    fn undetectable_input_gets_the_exact_reason() {
        let twitter = Layout::TWITTER;
        let cases: [(&[u8], &str); 5] = [
            (
                b"18446744073709551616",
                "as decimal: value exceeds the maximum 18446744073709551615",
            ),
            (b"0123", "as decimal: leading zero digit '0'"),
            (b"-5", "as decimal: character '-' at byte 0"),
            (b"+5", "as decimal: character '+' at byte 0"),
            (
                b"12\xff",
                "as decimal: byte 0xff at offset 2 is not UTF-8 text",
            ),
        ];
        for (input, expected) in cases {
            let err = read_id(input, None, &twitter).unwrap_err();
            assert!(err.contains(expected), "{input:?}: {err}");
        }
    }

    #[test]
    fn values_wider_than_the_layout_are_errors() {
        let js = Layout::JS53;
        let err = read_id(b"9007199254740992", None, &js).unwrap_err();
        assert!(err.contains("allowed 0 to 9007199254740991"), "{err}");
        let err = read_id(b"9007199254740992", Some(Format::Decimal), &js).unwrap_err();
        assert!(err.contains("allowed 0 to 9007199254740991"), "{err}");
        assert!(read_id(b"9007199254740991", None, &js).is_ok());
        assert!(read_id(b"18446744073709551615", None, &Layout::DISCORD).is_ok());
        let err = read_id(b"not an id!", None, &js).unwrap_err();
        assert!(err.contains("not an ID in any encoding"), "{err}");
    }

    #[test]
    fn errors_escape_the_input() {
        let err = read_id(b"\x1b[31mred\x1b[0m", None, &Layout::TWITTER).unwrap_err();
        assert!(err.starts_with(r"'\u{1b}[31mred\u{1b}[0m'"), "{err}");
        assert!(!err.contains('\u{1b}'), "{err:?}");
    }
}
