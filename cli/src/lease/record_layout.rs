//! The layout a namespace's record holds, read back from the lease's words for it
//! (`41+10+12 bits, unit 1000000 ns, epoch 1288834974657000000 ns, TimeNodeSequence, Epoch,
//! nodes 0..=255`), so that `lease list` can print it in the CLI's own spec form and
//! `lease raise-floor` can check a floor against its expiry.

use std::time::{Duration, UNIX_EPOCH};

use snowmint::layout::{Order, TimeGrid};
use snowmint::Layout;

/// The record's layout and the top of its leased node range, or `None` when the text is
/// not in the lease's words (a newer or older record: then it is shown as it is).
pub fn parse(text: &str) -> Option<(Layout, u64)> {
    let mut parts = text.split(", ");
    let widths = parts.next()?.strip_suffix(" bits")?;
    let mut widths = widths.split('+').map(|w| w.parse::<u8>().ok());
    let (time, node, seq) = (widths.next()??, widths.next()??, widths.next()??);
    let unit: u64 = parts
        .next()?
        .strip_prefix("unit ")?
        .strip_suffix(" ns")?
        .parse()
        .ok()?;
    let epoch: u64 = parts
        .next()?
        .strip_prefix("epoch ")?
        .strip_suffix(" ns")?
        .parse()
        .ok()?;
    let order = match parts.next()? {
        "TimeNodeSequence" => Order::TimeNodeSequence,
        "TimeSequenceNode" => Order::TimeSequenceNode,
        _ => return None,
    };
    let grid = match parts.next()? {
        "Epoch" => TimeGrid::Epoch,
        "Unix" => TimeGrid::Unix,
        _ => return None,
    };
    let max_node = parts.next()?.strip_prefix("nodes 0..=")?.parse().ok()?;
    let layout = Layout::TWITTER
        .to_builder()
        .max_bits(time.checked_add(node)?.checked_add(seq)?)
        .time_bits(time)
        .node_bits(node)
        .sequence_bits(seq)
        .unit(Duration::from_nanos(unit))
        .epoch(UNIX_EPOCH + Duration::from_nanos(epoch))
        .order(order)
        .time_grid(grid)
        .build()
        .ok()?;
    Some((layout, max_node))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lease_words_read_back_as_the_layout() {
        let text = "41+10+12 bits, unit 1000000 ns, epoch 1288834974657000000 ns, \
                    TimeNodeSequence, Epoch, nodes 0..=255";
        let (layout, max_node) = parse(text).unwrap();
        assert_eq!(
            layout.expiry_unix_millis(),
            Layout::TWITTER.expiry_unix_millis()
        );
        assert_eq!(
            crate::layout_arg::spec(&layout),
            crate::layout_arg::spec(&Layout::TWITTER)
        );
        assert_eq!(max_node, 255);
        assert!(parse("something else").is_none());
    }
}
