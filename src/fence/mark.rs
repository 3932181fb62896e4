//! Mark arithmetic: between the Unix-millisecond marks a keeper records and the ID values
//! and clock readings a fenced source works with.

use std::time::{Duration, Instant, UNIX_EPOCH};

use crate::clock::Clock;
use crate::error::LayoutError;
use crate::id::Id;
use crate::layout::Layout;
use crate::parts::Parts;
use crate::source::IdSource;

/// Nanoseconds to milliseconds, rounded up: a mark at or after the time.
pub(crate) fn ceil_millis(nanos: u128) -> u64 {
    u64::try_from(nanos.div_ceil(1_000_000)).unwrap_or(u64::MAX)
}

/// The tick holding `unix_millis`: `Ok(None)` before the epoch.
fn tick_at(layout: &Layout, unix_millis: u64) -> Result<Option<u64>, LayoutError> {
    match layout.ticks_at(UNIX_EPOCH + Duration::from_millis(unix_millis)) {
        Ok(t) => Ok(Some(t)),
        Err(LayoutError::TimeBeforeEpoch { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The node and sequence fields full: with a tick, the last ID of that tick.
fn last_parts(layout: &Layout) -> Parts {
    Parts {
        node: layout.max_node(),
        sequence: layout.max_sequence(),
    }
}

/// The greatest ID value with a time at or before `unix_millis`'s tick (the node and
/// sequence fields full: the time field is on top, so a larger value has a later tick).
/// 0 before the epoch; `u64::MAX` past the expiry.
pub(crate) fn high_id(layout: &Layout, unix_millis: u64) -> u64 {
    match tick_at(layout, unix_millis) {
        Ok(Some(t)) => layout
            .compose(t, last_parts(layout))
            .map_or(u64::MAX, Id::to_u64),
        Ok(None) => 0,
        Err(_) => u64::MAX,
    }
}

/// The last ID of the tick holding `floor_unix_millis` (`None` before the epoch): a source
/// that resumes after it stamps every ID later than anything issued up to the floor.
/// Errors if that tick is past the layout's expiry.
pub(crate) fn resume_after(
    layout: &Layout,
    floor_unix_millis: u64,
) -> Result<Option<Id>, LayoutError> {
    Ok(
        tick_at(layout, floor_unix_millis)?
            .and_then(|t| layout.compose(t, last_parts(layout)).ok()),
    )
}

/// The least ID value of a later tick than `floor_unix_millis`'s (0 without a floor).
pub(crate) fn low_id(layout: &Layout, floor_unix_millis: Option<u64>) -> Result<u64, LayoutError> {
    let Some(floor) = floor_unix_millis else {
        return Ok(0);
    };
    match resume_after(layout, floor)? {
        // Past the last ID nothing may be issued: a low bound above every ID.
        Some(id) => Ok(id.to_u64().saturating_add(1)),
        None => Ok(0),
    }
}

/// How far `source`'s clock is from being past `floor_unix_millis`'s tick (zero if it is).
pub(crate) fn behind<S: IdSource>(source: &S, floor_unix_millis: u64) -> Duration {
    let layout = source.layout();
    let Ok(Some(tick)) = tick_at(layout, floor_unix_millis) else {
        return Duration::ZERO;
    };
    let next = layout.tick_start_unix_nanos(tick) + u128::from(layout.unit_nanos());
    let now = source.clock().now_unix_nanos() as u128;
    Duration::from_nanos(u64::try_from(next.saturating_sub(now)).unwrap_or(u64::MAX))
}

/// Waits until `source`'s clock is past `floor_unix_millis`'s tick, calling `keep` about
/// every `keep_every` (to hold a lease meanwhile). Gives up, without waiting, if that is more
/// than `max_wait` away, returning how far.
pub(crate) fn wait_past<S: IdSource, E>(
    source: &S,
    floor_unix_millis: u64,
    max_wait: Duration,
    keep_every: Duration,
    mut keep: impl FnMut() -> Result<(), E>,
) -> Result<Result<(), E>, Duration> {
    let first = behind(source, floor_unix_millis);
    if first > max_wait {
        return Err(first);
    }
    let start = Instant::now();
    let mut kept = Instant::now();
    loop {
        let left = behind(source, floor_unix_millis);
        if left.is_zero() {
            return Ok(Ok(()));
        }
        // A clock that stalls or steps back while we wait: give up at the bound.
        if start.elapsed() > max_wait {
            return Err(left);
        }
        if kept.elapsed() >= keep_every {
            if let Err(e) = keep() {
                return Ok(Err(e));
            }
            kept = Instant::now();
        }
        std::thread::sleep(left.min(keep_every).min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::{ceil_millis, high_id, last_parts, low_id};
    use crate::layout::Layout;
    use crate::parts::Parts;

    #[test]
    fn marks_round_up_and_bounds_cover_exactly_their_tick() {
        assert_eq!(ceil_millis(0), 0);
        assert_eq!(ceil_millis(1), 1);
        assert_eq!(ceil_millis(1_000_000), 1);
        assert_eq!(ceil_millis(1_000_001), 2);
        let l = Layout::SONYFLAKE; // 10 ms ticks
        let at = l.epoch_unix_millis() + 1_234; // inside tick 123
        let high = crate::id::Id::from_u64(high_id(&l, at));
        assert_eq!(l.decode(high).ticks(), 123);
        let last_of_tick = l.compose(123, last_parts(&l)).unwrap();
        let first_of_next = l.compose(124, Parts::default()).unwrap();
        assert!(last_of_tick <= high && first_of_next > high);
        assert_eq!(high_id(&l, 0), 0, "before the epoch nothing may be issued");
        let low = low_id(&l, Some(at)).unwrap();
        assert_eq!(
            low,
            first_of_next.to_u64(),
            "after a floor, the next tick's first ID"
        );
        assert_eq!(low_id(&l, None).unwrap(), 0);
        assert_eq!(
            low_id(&l, Some(0)).unwrap(),
            0,
            "a floor before the epoch bounds nothing"
        );
    }
}
