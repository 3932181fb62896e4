//! How long a layout's time field has left: the years shown by `snowmint layouts`, the
//! service's `/healthz` and status page.

use std::time::SystemTime;

use snowmint::Layout;

/// A Julian year, seconds: the unit of "years left".
pub const YEAR_SECONDS: f64 = 31_557_600.0;

/// Seconds from `now` to the layout's expiry; negative once it is past.
pub fn seconds_left(layout: &Layout, now: SystemTime) -> f64 {
    let expiry = layout.expiry();
    match expiry.duration_since(now) {
        Ok(left) => left.as_secs_f64(),
        Err(past) => -past.duration().as_secs_f64(),
    }
}

/// Years from `now` to the expiry, to one decimal (`0.0` once past).
pub fn years_left(layout: &Layout, now: SystemTime) -> f64 {
    (seconds_left(layout, now).max(0.0) / YEAR_SECONDS * 10.0).floor() / 10.0
}

/// The metric label of a layout, as the library names it: the preset's name, or `custom`.
pub fn label(layout: &Layout) -> &'static str {
    Layout::PRESETS
        .iter()
        .find(|(_, l)| l == layout)
        .map_or("custom", |&(name, _)| name)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;

    #[test]
    fn years_count_down_to_zero() {
        let l = Layout::TWITTER;
        let at = |years: f64| l.expiry() - Duration::from_secs_f64(years * YEAR_SECONDS);
        assert_eq!(years_left(&l, at(10.05)), 10.0);
        assert_eq!(years_left(&l, at(0.5)), 0.5);
        assert_eq!(years_left(&l, l.expiry() + Duration::from_secs(5)), 0.0);
        assert!(seconds_left(&l, l.expiry() + Duration::from_secs(5)) < 0.0);
        // Twitter's epoch is 2010-11-04: 69.7 years of 41-bit milliseconds.
        let epoch = UNIX_EPOCH + Duration::from_millis(1_288_834_974_657);
        assert_eq!(years_left(&l, epoch), 69.6);
        assert_eq!(label(&l), "twitter");
        assert_eq!(
            label(&l.to_builder().sequence_bits(11).build().unwrap()),
            "custom"
        );
    }
}
