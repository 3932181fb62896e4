//! Times on the command line: RFC 3339 in, RFC 3339 UTC out.
//!
//! Parsing and formatting are humantime's (no dependencies, works on `SystemTime` as the
//! library does); it reads only UTC stamps, so a numeric offset such as `+09:00` is taken off
//! here and applied to the result.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::escape::quoted;

/// The first second humantime cannot format (year 10000): RFC 3339 has 4-digit years.
const YEAR_10000_SECS: u64 = 253_402_300_800;

/// What `--time` and `epoch=` accept, for error messages.
pub const ACCEPTED: &str =
    "an RFC 3339 time such as 2026-01-01T00:00:00Z or 2026-01-01T09:00:00.5+09:00, Unix milliseconds such as 1767225600000, or 'now'";

/// Parses an RFC 3339 time with `Z` or a `±HH:MM` offset, Unix milliseconds (digits only), or
/// `now`.
pub fn parse(text: &str) -> Result<SystemTime, String> {
    if text == "now" {
        return Ok(SystemTime::now());
    }
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let millis: u64 = text.parse().map_err(|_| {
            format!(
                "{} is too large for Unix milliseconds: allowed 0 to {}",
                quoted(text),
                u64::MAX
            )
        })?;
        return Ok(UNIX_EPOCH + Duration::from_millis(millis));
    }
    let bad = |why: &dyn std::fmt::Display| {
        format!(
            "{} is not a valid time ({why}): expected {ACCEPTED}",
            quoted(text)
        )
    };
    let (utc_text, offset_secs) = split_offset(text).ok_or_else(|| bad(&"bad UTC offset"))?;
    let stamp = if offset_secs.is_some() {
        format!("{utc_text}Z")
    } else {
        utc_text.to_owned()
    };
    let local = humantime::parse_rfc3339(&stamp).map_err(|e| bad(&e))?;
    match offset_secs {
        None | Some(0) => Ok(local),
        // Local time = UTC + offset, so UTC = local - offset.
        Some(offset) if offset > 0 => local
            .checked_sub(Duration::from_secs(offset.unsigned_abs()))
            .filter(|t| *t >= UNIX_EPOCH)
            .ok_or_else(|| bad(&"before 1970-01-01T00:00:00Z")),
        Some(offset) => local
            .checked_add(Duration::from_secs(offset.unsigned_abs()))
            .ok_or_else(|| bad(&"out of range")),
    }
}

/// Splits a trailing `+HH:MM`/`-HH:MM` offset off, returning the rest and the offset in
/// seconds (`None` when the text has no such offset, which leaves `Z` to humantime). `None`
/// overall for an offset out of range.
fn split_offset(text: &str) -> Option<(&str, Option<i64>)> {
    let bytes = text.as_bytes();
    // "2026-01-01T00:00:00+09:00": the offset is the last 6 bytes, after the seconds.
    if bytes.len() < 25 {
        return Some((text, None));
    }
    let tail = &bytes[bytes.len() - 6..];
    let sign = match tail[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return Some((text, None)),
    };
    let digit = |b: u8| {
        if b.is_ascii_digit() {
            Some(i64::from(b - b'0'))
        } else {
            None
        }
    };
    if tail[3] != b':' {
        return None;
    }
    let hours = digit(tail[1])? * 10 + digit(tail[2])?;
    let minutes = digit(tail[4])? * 10 + digit(tail[5])?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    // The last 6 bytes are ASCII, so the split is on a character boundary.
    let rest = text.get(..text.len() - 6)?;
    Some((rest, Some(sign * (hours * 3600 + minutes * 60))))
}

/// How many fractional digits to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    Millis,
    Micros,
    Nanos,
}

impl Precision {
    /// The fewest digits (at least milliseconds) that show a tick of `nanos` exactly.
    pub fn for_nanos(nanos: u64) -> Precision {
        if nanos.is_multiple_of(1_000_000) {
            Precision::Millis
        } else if nanos.is_multiple_of(1_000) {
            Precision::Micros
        } else {
            Precision::Nanos
        }
    }
}

/// RFC 3339 in UTC (`2026-01-01T00:00:00.000Z`), or `None` for a time before 1970 or in
/// year 10000 and later, which RFC 3339 cannot write.
pub fn format(time: SystemTime, precision: Precision) -> Option<String> {
    let since = time.duration_since(UNIX_EPOCH).ok()?;
    if since.as_secs() >= YEAR_10000_SECS {
        return None;
    }
    Some(match precision {
        Precision::Millis => humantime::format_rfc3339_millis(time).to_string(),
        Precision::Micros => humantime::format_rfc3339_micros(time).to_string(),
        Precision::Nanos => humantime::format_rfc3339_nanos(time).to_string(),
    })
}

/// As [`format()`], with a description for times RFC 3339 cannot write, for people.
pub fn display(time: SystemTime, precision: Precision) -> String {
    format(time, precision).unwrap_or_else(|| {
        if time < UNIX_EPOCH {
            "before 1970-01-01T00:00:00Z".to_owned()
        } else {
            "after 9999-12-31T23:59:59Z".to_owned()
        }
    })
}

/// A Unix-millisecond time in RFC 3339 for people.
pub fn display_millis(millis: u64) -> String {
    display(
        UNIX_EPOCH + Duration::from_millis(millis),
        Precision::Millis,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(millis: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(millis)
    }

    #[test]
    fn utc_offsets_and_unix_millis_name_the_same_instant() {
        let utc = parse("2026-01-01T00:00:00Z").unwrap();
        assert_eq!(utc, at(1_767_225_600_000));
        assert_eq!(parse("2026-01-01T09:00:00+09:00").unwrap(), utc);
        assert_eq!(parse("2025-12-31T19:30:00-04:30").unwrap(), utc);
        assert_eq!(parse("2026-01-01T00:00:00+00:00").unwrap(), utc);
        assert_eq!(parse("1767225600000").unwrap(), utc);
        assert_eq!(
            parse("2026-01-01T00:00:00.250Z").unwrap(),
            at(1_767_225_600_250)
        );
    }

    #[test]
    fn malformed_times_are_errors_naming_the_accepted_forms() {
        for bad in [
            "",
            "2026-01-01",
            "2026-01-01T00:00:00",
            "2026-13-01T00:00:00Z",
            "2026-01-01T00:00:00+24:00",
            "2026-01-01T00:00:00+0a:00",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00+01:00",
            "99999999999999999999999",
            "2026-01-01T00:00:00Zé",
            "é2026-01-01T00:00:00+01:00",
        ] {
            let err = parse(bad).unwrap_err();
            assert!(
                err.contains("expected") || err.contains("allowed"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn formatting_round_trips_and_refuses_year_10000() {
        let t = at(1_656_432_460_105);
        let text = format(t, Precision::Millis).unwrap();
        assert_eq!(text, "2022-06-28T16:07:40.105Z");
        assert_eq!(parse(&text).unwrap(), t);
        let t = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789);
        assert_eq!(parse(&format(t, Precision::Nanos).unwrap()).unwrap(), t);
        assert_eq!(
            format(
                UNIX_EPOCH + Duration::from_secs(YEAR_10000_SECS),
                Precision::Millis
            ),
            None
        );
        assert!(format(
            UNIX_EPOCH + Duration::from_secs(YEAR_10000_SECS - 1),
            Precision::Millis
        )
        .is_some());
    }

    #[test]
    fn precision_is_the_fewest_digits_that_show_a_tick() {
        assert_eq!(Precision::for_nanos(10_000_000), Precision::Millis);
        assert_eq!(Precision::for_nanos(100_000), Precision::Micros);
        assert_eq!(Precision::for_nanos(100), Precision::Nanos);
    }
}
