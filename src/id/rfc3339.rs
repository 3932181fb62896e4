//! [`Utc`]: a Unix time written as RFC 3339 in UTC (`2024-11-20T13:24:16.000Z`), for error
//! messages and for serde, by the days-to-civil algorithm of Howard Hinnant's
//! `chrono`-compatible date library (no dependency).

use core::fmt;

/// Nanoseconds since the Unix epoch, displayed as RFC 3339 UTC with a fixed number of
/// fractional digits. Years past 9999 are written with more digits (RFC 3339 has no form for
/// them: callers that must emit RFC 3339 check [`fits`](Self::fits) first).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Utc {
    unix_nanos: u128,
    /// 3, 6 or 9.
    digits: u8,
}

// Only serde writes an ID's time (and the tests).
#[cfg_attr(not(feature = "serde"), allow(dead_code))]
/// 10000-01-01T00:00:00Z in Unix seconds: the first time RFC 3339 cannot write.
const YEAR_10000_SECS: u128 = 253_402_300_800;

impl Utc {
    /// Milliseconds: `.mmm`.
    pub(crate) const fn millis(unix_millis: u64) -> Utc {
        Utc {
            unix_nanos: unix_millis as u128 * 1_000_000,
            digits: 3,
        }
    }

    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    /// The fewest digits (at least milliseconds) that show every tick of `unit_nanos`
    /// exactly, as `snowmint decode` writes an ID's time.
    pub(crate) const fn for_unit(unix_nanos: u128, unit_nanos: u64) -> Utc {
        let digits = if unit_nanos.is_multiple_of(1_000_000) {
            3
        } else if unit_nanos.is_multiple_of(1_000) {
            6
        } else {
            9
        };
        Utc { unix_nanos, digits }
    }

    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    /// Whether the time is before year 10000, so that the text is RFC 3339.
    pub(crate) const fn fits(&self) -> bool {
        self.unix_nanos / 1_000_000_000 < YEAR_10000_SECS
    }
}

impl fmt::Display for Utc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.unix_nanos / 1_000_000_000;
        let nanos = (self.unix_nanos % 1_000_000_000) as u32;
        let days = secs / 86_400;
        let secs_of_day = (secs % 86_400) as u32;
        // Shift the era to start on 0000-03-01, so leap days end each 400-year cycle.
        let z = days + 719_468;
        let era = z / 146_097;
        let doe = z % 146_097;
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + u128::from(month <= 2);
        let digits = usize::from(self.digits);
        let fraction = nanos / 10_u32.pow(9 - u32::from(self.digits));
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{fraction:0digits$}Z",
            secs_of_day / 3_600,
            secs_of_day / 60 % 60,
            secs_of_day % 60
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Utc;

    #[test]
    fn known_instants() {
        assert_eq!(Utc::millis(0).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Utc::millis(1_656_432_460_105).to_string(),
            "2022-06-28T16:07:40.105Z"
        );
        // A leap day, and the last millisecond RFC 3339 can write.
        assert_eq!(
            Utc::millis(951_782_400_000).to_string(),
            "2000-02-29T00:00:00.000Z"
        );
        let last = Utc::millis(253_402_300_799_999);
        assert_eq!(last.to_string(), "9999-12-31T23:59:59.999Z");
        assert!(last.fits());
        let next = Utc::millis(253_402_300_800_000);
        assert_eq!(next.to_string(), "10000-01-01T00:00:00.000Z");
        assert!(!next.fits());
    }

    #[test]
    fn digits_follow_the_unit() {
        let t = 1_477_044_887_206_565_123;
        assert_eq!(
            Utc::for_unit(t, 10_000_000).to_string(),
            "2016-10-21T10:14:47.206Z"
        );
        assert_eq!(
            Utc::for_unit(t, 1_000).to_string(),
            "2016-10-21T10:14:47.206565Z"
        );
        assert_eq!(
            Utc::for_unit(t, 7).to_string(),
            "2016-10-21T10:14:47.206565123Z"
        );
        assert_eq!(
            Utc::for_unit(1_000_000_000, 1_000_000_000).to_string(),
            "1970-01-01T00:00:01.000Z"
        );
    }
}
