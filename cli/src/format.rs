//! `--format` and `--from`: the ID's text forms, and telling them apart.

use std::io::{self, Write};

use clap::ValueEnum;
use snowmint::{Encoding, Id, Layout, ParseErrorKind, ParseIdError};

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
    /// The decimal value as a JSON string, one per line ("1541815603606036480")
    Json,
    /// bwmarrin/snowflake's Base64(): standard base64 of the decimal text (never detected)
    BwmarrinBase64,
    /// bwmarrin/snowflake's Bytes(): the decimal text's bytes, the same text as decimal
    BwmarrinBytes,
}

impl Format {
    /// The forms auto-detection tries, in the order it reports them (decimal first). The
    /// bwmarrin forms are never guessed: their texts read as other encodings too.
    pub const DETECTED: [Format; 8] = [
        Format::Decimal,
        Format::Base2,
        Format::Base32,
        Format::Base36,
        Format::Base58,
        Format::Base64,
        Format::Hex,
        Format::Json,
    ];

    /// The library encoding this form writes (JSON wraps decimal).
    pub fn encoding(self) -> Encoding {
        match self {
            Format::Decimal | Format::Json => Encoding::Decimal,
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
            other => other.encoding().name(),
        }
    }

    /// Writes the ID's text, without a newline. No allocation: the encodings write into a
    /// stack buffer.
    #[inline]
    pub fn write(self, out: &mut impl Write, id: Id) -> io::Result<()> {
        let text = id.encode(self.encoding());
        if self == Format::Json {
            out.write_all(b"\"")?;
            out.write_all(text.as_bytes())?;
            out.write_all(b"\"")
        } else {
            out.write_all(text.as_bytes())
        }
    }

    /// Parses the ID's text (any bytes) in this form.
    pub fn parse(self, input: &[u8]) -> Result<Id, ParseIdError> {
        let inner = if self == Format::Json {
            // A JSON string of the decimal value, or a JSON number (exact up to 2^53 in
            // JavaScript, but exact here).
            input
                .strip_prefix(b"\"")
                .and_then(|t| t.strip_suffix(b"\""))
                .unwrap_or(input)
        } else {
            input
        };
        Id::parse(inner, self.encoding())
    }
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
    let attempts: Vec<(Format, Result<Id, ParseIdError>)> = Format::DETECTED
        .iter()
        .filter(|&&f| f != Format::Json)
        .map(|&f| (f, f.parse(input)))
        .collect();
    let readings: Vec<(Format, Id)> = attempts
        .iter()
        .filter_map(|(f, r)| r.as_ref().ok().map(|id| (*f, *id)))
        .collect();
    let fitting: Vec<(Format, Id)> = readings
        .iter()
        .copied()
        .filter(|(_, id)| id.to_u64() <= max)
        .collect();
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
                .max_by_key(|(_, e)| depth(e.kind(), input.len()))
                .expect("every attempt failed");
            Err(format!(
                "{} is not an ID in any encoding; as {}: {}",
                quoted(input),
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
            "{} is ambiguous: it reads as {}; pass --from ENCODING",
            quoted(input),
            fitting
                .iter()
                .map(|(f, id)| format!("{} {id}", f.name()))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The library's reason, without its "invalid ENCODING ID: " lead (the caller names the
/// encoding).
fn reason(err: &ParseIdError) -> String {
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
