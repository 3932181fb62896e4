//! What the parent checks over every minter of a test: duplicates, overlaps, takeovers.

use std::collections::BTreeMap;
use std::time::Instant;

use snowmint::{Id, Layout};

use crate::fleet::*;
use crate::minter::*;
use crate::settings::*;

/// What the checks found over every minter of a test.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub(crate) ids: usize,
    pub(crate) duplicates: usize,
    /// Pairs of processes whose ID ranges on one node intersect.
    pub(crate) range_overlaps: usize,
    /// Batches of a node a process asked for after another process had begun serving it,
    /// while its own tenure began earlier.
    pub(crate) late_batches: usize,
    /// IDs whose node field is not the node their minter leased.
    pub(crate) wrong_node: usize,
    /// Batch lines cut short or garbled, of minters that were not killed while writing.
    pub(crate) torn: usize,
}

impl Tally {
    pub(crate) fn overlaps(&self) -> usize {
        self.range_overlaps + self.late_batches
    }
}

pub(crate) fn tally(minters: &[Minter]) -> Tally {
    let mut t = Tally::default();
    let mut all = Vec::new();
    // Per node: (minter, lowest ID, highest ID, when its first batch was asked for).
    let mut tenures: BTreeMap<u64, Vec<(usize, u64, u64, u64)>> = BTreeMap::new();
    for (i, m) in minters.iter().enumerate() {
        let log = m.log();
        if !m.killed {
            t.torn += log.torn;
        }
        let mut per_node: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
        for b in &log.batches {
            for &id in &b.ids {
                if Layout::TWITTER.decode(Id::from_u64(id)).node() != b.node {
                    t.wrong_node += 1;
                }
            }
            all.extend_from_slice(&b.ids);
            let (lo, hi) = (
                *b.ids.iter().min().expect("non-empty"),
                *b.ids.iter().max().expect("non-empty"),
            );
            let e = per_node.entry(b.node).or_insert((lo, hi, b.before));
            *e = (e.0.min(lo), e.1.max(hi), e.2.min(b.before));
        }
        for (node, (lo, hi, first)) in per_node {
            tenures.entry(node).or_default().push((i, lo, hi, first));
        }
    }
    t.ids = all.len();
    all.sort_unstable();
    all.dedup();
    t.duplicates = t.ids - all.len();
    for (node, ten) in &tenures {
        for (x, &(i, lo_i, hi_i, first_i)) in ten.iter().enumerate() {
            for &(j, lo_j, hi_j, first_j) in &ten[x + 1..] {
                if lo_i.max(lo_j) <= hi_i.min(hi_j) {
                    t.range_overlaps += 1;
                }
                // The one whose tenure began earlier must not mint on after the other began.
                let (early, later_first) = if first_i <= first_j {
                    (i, first_j)
                } else {
                    (j, first_i)
                };
                t.late_batches += minters[early]
                    .log()
                    .batches
                    .iter()
                    .filter(|b| b.node == *node && b.before > later_first)
                    .count();
            }
        }
    }
    t
}

/// Prints the fault's line and checks that nothing was repeated or shared.
pub(crate) fn report(fault: &str, fleet: &Fleet, started: Instant, extra: &str) -> Tally {
    let t = tally(&fleet.minters);
    say(&format!(
        "fault={fault} backend={} ids={} duplicates={} overlaps={}",
        fleet.backend.name(),
        t.ids,
        t.duplicates,
        t.overlaps()
    ));
    let per_child: Vec<String> = fleet
        .minters
        .iter()
        .map(|m| {
            let log = m.log();
            let n: usize = log.batches.iter().map(|b| b.ids.len()).sum();
            format!(
                "{}: node {:?} token {:?} {n} IDs, {}",
                m.name,
                log.node,
                log.token,
                log.stats
                    .as_deref()
                    .or(log.lost.as_deref())
                    .or(log.no_lease.as_deref())
                    .unwrap_or("killed")
            )
        })
        .collect();
    say(&format!(
        "  fault={fault} backend={}: range overlaps {}, late batches {}, wrong node {}, torn \
         lines {}; {extra}; elapsed {:.1} s\n  {}",
        fleet.backend.name(),
        t.range_overlaps,
        t.late_batches,
        t.wrong_node,
        t.torn,
        started.elapsed().as_secs_f64(),
        per_child.join("\n  ")
    ));
    t
}

pub(crate) fn assert_clean(t: &Tally) {
    assert_eq!(t.duplicates, 0, "duplicate IDs: {t:?}");
    assert_eq!(
        t.overlaps(),
        0,
        "two processes served one node at once: {t:?}"
    );
    assert_eq!(
        t.wrong_node, 0,
        "IDs of a node their minter did not lease: {t:?}"
    );
    assert_eq!(t.torn, 0, "batch lines cut short: {t:?}");
}

/// `old` lost its node to `new`: every ID `old` handed out lies below `new`'s first, each of
/// `ran_on` exited 0, and, where `token_grows` (an etcd store that kept its data), `new`'s
/// fencing token is above `old`'s.
pub(crate) fn assert_taken_over(
    fleet: &mut Fleet,
    codes: &BTreeMap<String, Option<i32>>,
    (old, new): (&str, &str),
    ran_on: &[&str],
    token_grows: bool,
) {
    let (old_max, new_min) = (fleet.get(old).max_id(), fleet.get(new).min_id());
    assert!(
        old_max < new_min,
        "{old}'s IDs reach {old_max:?}, {new}'s start at {new_min:?}"
    );
    for name in ran_on {
        assert_eq!(codes[*name], Some(0), "minter {name} failed");
    }
    if token_grows {
        let (old_token, new_token) = (fleet.get(old).token(), fleet.get(new).token());
        assert!(
            new_token > old_token,
            "the fencing token grows: {old} {old_token:?}, {new} {new_token:?}"
        );
    }
}

/// Every minter named minted, and nobody failed to get a node.
pub(crate) fn assert_minted(fleet: &Fleet, names: &[&str]) {
    for m in &fleet.minters {
        let log = m.log();
        assert!(
            log.no_lease.is_none(),
            "minter {} got no node: {:?}",
            m.name,
            log.no_lease
        );
        if names.contains(&m.name.as_str()) {
            assert!(!log.batches.is_empty(), "minter {} minted nothing", m.name);
        }
    }
}
