//! `--format` and `--from`: the ID's text forms, and telling them apart.

use std::io::{self, Write};

use clap::ValueEnum;
use snowmint::{Encoding, Id, Layout, ParseIdError};

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
    /// The 8 big-endian bytes in URL-safe base64, always 11 characters
    Base64,
    /// Lowercase hexadecimal, no 0x
    Hex,
    /// The decimal value as a JSON string, one per line ("1541815603606036480")
    Json,
}

impl Format {
    /// Every form, in the order auto-detection reports them.
    pub const ALL: [Format; 8] = [
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

    /// Parses the ID's text in this form.
    pub fn parse(self, text: &str) -> Result<Id, ParseIdError> {
        let inner = if self == Format::Json {
            // A JSON string of the decimal value, or a JSON number (exact up to 2^53 in
            // JavaScript, but exact here).
            text.strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .unwrap_or(text)
        } else {
            text
        };
        Id::parse(inner, self.encoding())
    }
}

/// The largest ID a layout can produce: its `max_bits` all ones.
pub fn max_id(layout: &Layout) -> u64 {
    u64::MAX >> (64 - u32::from(layout.max_bits()))
}

/// Reads an ID in the given form, or detects the form, and checks that it fits the layout.
///
/// Detection: the forms whose strict parser accepts the text and whose value fits the
/// layout's width are the candidates. Decimal digits are always decimal (`1234` is never hex
/// or base36); a text in quotes is JSON; otherwise exactly one candidate must be left, or the
/// text is ambiguous and the error lists the readings.
pub fn read_id(text: &str, from: Option<Format>, layout: &Layout) -> Result<(Id, Format), String> {
    let max = max_id(layout);
    if let Some(format) = from {
        let id = format
            .parse(text)
            .map_err(|e| format!("'{text}' is not a {} ID: {e}", format.name()))?;
        if id.to_u64() > max {
            return Err(format!(
                "'{text}' ({} as {}) is too wide for the layout's {} bits: allowed 0 to {max}",
                id,
                format.name(),
                layout.max_bits()
            ));
        }
        return Ok((id, format));
    }
    if text.starts_with('"') {
        return read_id(text, Some(Format::Json), layout);
    }
    if Format::Decimal.parse(text).is_ok() {
        return read_id(text, Some(Format::Decimal), layout);
    }
    let readings: Vec<(Format, Id)> = Format::ALL
        .iter()
        .filter(|&&f| f != Format::Json && f != Format::Decimal)
        .filter_map(|&f| f.parse(text).ok().map(|id| (f, id)))
        .collect();
    let fitting: Vec<(Format, Id)> = readings
        .iter()
        .copied()
        .filter(|(_, id)| id.to_u64() <= max)
        .collect();
    match fitting.as_slice() {
        [(f, id)] => Ok((*id, *f)),
        [] if readings.is_empty() => Err(format!(
            "'{text}' is not an ID in any encoding (decimal, base2, base32, base36, base58, base64, hex, or a JSON string)"
        )),
        [] => Err(format!(
            "'{text}' is too wide for the layout's {} bits in every encoding it parses in ({}): allowed 0 to {max}",
            layout.max_bits(),
            names(&readings)
        )),
        _ => Err(format!(
            "'{text}' is ambiguous: it reads as {}; pass --from ENCODING",
            fitting
                .iter()
                .map(|(f, id)| format!("{} {id}", f.name()))
                .collect::<Vec<_>>()
                .join(", ")
        )),
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
                for format in Format::ALL {
                    let mut text = Vec::new();
                    format.write(&mut text, id).unwrap();
                    let text = String::from_utf8(text).unwrap();
                    assert_eq!(format.parse(&text), Ok(id), "{text}");
                    assert_eq!(
                        read_id(&text, Some(format), &layout),
                        Ok((id, format)),
                        "{text}"
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
            read_id("1541815603606036480", None, &twitter),
            Ok((id, Format::Decimal))
        );
        // 16 hex digits overflow base36 and base32: hex alone.
        assert_eq!(
            read_id(&id.encode(Encoding::Hex), None, &twitter),
            Ok((id, Format::Hex))
        );
        assert_eq!(
            read_id("\"1541815603606036480\"", None, &twitter),
            Ok((id, Format::Json))
        );
        // "abc" reads as base32, base36, base58 and hex.
        let err = read_id("abc", None, &twitter).unwrap_err();
        for name in ["base36 ", "base58 ", "hex 2748", "--from"] {
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn values_wider_than_the_layout_are_errors() {
        let js = Layout::JS53;
        let err = read_id("9007199254740992", None, &js).unwrap_err();
        assert!(err.contains("allowed 0 to 9007199254740991"), "{err}");
        let err = read_id("9007199254740992", Some(Format::Decimal), &js).unwrap_err();
        assert!(err.contains("allowed 0 to 9007199254740991"), "{err}");
        assert!(read_id("9007199254740991", None, &js).is_ok());
        assert!(read_id("18446744073709551615", None, &Layout::DISCORD).is_ok());
        let err = read_id("not an id!", None, &js).unwrap_err();
        assert!(err.contains("not an ID in any encoding"), "{err}");
    }
}
