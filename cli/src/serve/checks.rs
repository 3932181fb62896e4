//! The lease flags checked against each other, the store and the layout before the port is
//! bound: a mistake exits at once with status 2 and a message naming the flag and the
//! allowed range, instead of after the banner, from the claim.
//!
//! The rules are the lease's own (the TTL's range per store, the margin at most half the
//! TTL, the node range within the layout and shard bits, at most 65,536 nodes): the claim
//! checks them again.

use std::time::Duration;

use super::args::LeaseArgs;
use crate::error::CliError;
use crate::store_args::StoreKind;

/// The longest TTL a lease takes.
const MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// The most node numbers one service may lease from.
const MAX_RANGE: u64 = 65_536;

/// The largest node number the lease layer takes (2^40 - 1).
const MAX_NODE: u64 = (1 << 40) - 1;

/// The least TTL `kind`'s store takes.
fn min_ttl(kind: StoreKind) -> Duration {
    match kind {
        StoreKind::Redis => Duration::from_millis(30),
        StoreKind::Etcd => Duration::from_secs(1),
        // A claim and a renewal wait for a flushed commit.
        StoreKind::Postgres => Duration::from_millis(500),
    }
}

fn shown(d: Duration) -> humantime::FormattedDuration {
    humantime::format_duration(d)
}

/// Checks `--ttl`, `--margin` and `--nodes` for a lease from `kind`'s store, whose node
/// numbers go up to `max_node` (the layout's node bits above the shard bits).
pub fn lease_flags(flags: &LeaseArgs, kind: StoreKind, max_node: u64) -> Result<(), CliError> {
    let (ttl, min) = (flags.ttl, min_ttl(kind));
    if ttl < min || ttl > MAX_TTL {
        let store = match kind {
            StoreKind::Redis => "Redis",
            StoreKind::Etcd => "etcd",
            StoreKind::Postgres => "PostgreSQL",
        };
        return Err(CliError::input(format_args!(
            "--ttl {}: a lease in {store} lives {} to 1 day",
            shown(ttl),
            shown(min)
        )));
    }
    if let Some(margin) = flags.margin {
        if margin > ttl / 2 {
            return Err(CliError::input(format_args!(
                "--margin {}: at most half the TTL (--ttl {}): {} or less",
                shown(margin),
                shown(ttl),
                shown(ttl / 2)
            )));
        }
    }
    if let Some(nodes) = &flags.nodes {
        let max = max_node.min(MAX_NODE);
        let (first, last) = (*nodes.start(), *nodes.end());
        if last > max {
            return Err(CliError::input(format_args!(
                "--nodes {first}-{last}: node numbers go up to {max} with this layout and shard \
                 bits (fewer --shard-bits or --workers leave more)"
            )));
        }
        if last - first >= MAX_RANGE {
            return Err(CliError::input(format_args!(
                "--nodes {first}-{last}: at most {MAX_RANGE} node numbers"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store_args::StoreArgs;

    fn flags(ttl: u64, margin: Option<u64>, nodes: Option<(u64, u64)>) -> LeaseArgs {
        LeaseArgs {
            lease: Some("redis://h/".into()),
            store: StoreArgs::default(),
            nodes: nodes.map(|(a, b)| a..=b),
            ttl: Duration::from_millis(ttl),
            margin: margin.map(Duration::from_millis),
            lease_wait: Duration::from_secs(10),
        }
    }

    #[test]
    fn ttl_margin_and_nodes_are_checked_with_their_ranges() {
        assert!(lease_flags(
            &flags(10_000, Some(5_000), Some((0, 127))),
            StoreKind::Etcd,
            127
        )
        .is_ok());
        let e = lease_flags(&flags(0, None, None), StoreKind::Redis, 127).unwrap_err();
        assert!(e.message().contains("30ms to 1 day"), "{}", e.message());
        let e = lease_flags(&flags(500, None, None), StoreKind::Etcd, 127).unwrap_err();
        assert!(e.message().contains("1s to 1 day"), "{}", e.message());
        let e = lease_flags(&flags(8_000, Some(5_000), None), StoreKind::Redis, 127).unwrap_err();
        assert!(e.message().contains("4s or less"), "{}", e.message());
        let e =
            lease_flags(&flags(10_000, None, Some((0, 200))), StoreKind::Redis, 127).unwrap_err();
        assert!(e.message().contains("go up to 127"), "{}", e.message());
    }
}
