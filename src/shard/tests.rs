use std::sync::Arc;

use super::ShardedGenerator;
use crate::clock::ManualClock;
use crate::layout::Layout;

/// A Twitter-layout sharded generator on `clock`.
fn build(clock: &ManualClock) -> ShardedGenerator<ManualClock> {
    ShardedGenerator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .build()
        .unwrap()
}

/// A thread's registry entry for a dropped sharded generator is pruned when the thread
/// registers another one (its shard table is freed), and the entries of live generators
/// are kept.
#[test]
fn a_dropped_generator_s_thread_entry_is_pruned_and_live_ones_kept() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let (live, dropped) = (build(&clock), build(&clock));
    live.next_id().unwrap();
    dropped.next_id().unwrap();
    let slots = Arc::clone(&dropped.shared.slots);
    drop(dropped);
    assert!(
        Arc::strong_count(&slots) > 1,
        "the thread's entry still holds it"
    );
    let new = build(&clock);
    new.next_id().unwrap();
    assert_eq!(Arc::strong_count(&slots), 1, "pruned when `new` registered");
    assert_eq!(
        live.local_shard(),
        Some(0),
        "a live generator's entry stays"
    );
    assert_eq!(new.local_shard(), Some(0));
}

/// A thread keeps a dropped generator's shared state while its entry lives (the address is
/// the hot copy's owner key, so it must not be reused while the thread may hold it), and
/// lets it go when the entry is pruned.
#[test]
fn a_dropped_generator_s_shared_state_lives_until_its_thread_entry_is_pruned() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let dropped = build(&clock);
    dropped.next_id().unwrap();
    let shared = Arc::clone(&dropped.shared);
    drop(dropped);
    assert_eq!(Arc::strong_count(&shared), 2, "ours and the thread's entry");
    build(&clock).next_id().unwrap();
    assert_eq!(
        Arc::strong_count(&shared),
        1,
        "pruned when another registered"
    );
}

/// Generators made and dropped one after another on one thread (each new one may be
/// allocated where the last one was) each mint with their own node and state, never from
/// the thread's hot copy of a dropped one.
#[test]
fn a_new_generator_never_mints_from_a_dropped_one_s_hot_copy() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    for i in 0..200_u64 {
        let node = i % 8;
        let gen = ShardedGenerator::builder(Layout::TWITTER)
            .node(node)
            .clock(clock.clone())
            .build()
            .unwrap();
        let parts: Vec<_> = (0..3)
            .map(|_| Layout::TWITTER.decode(gen.next_id().unwrap()))
            .collect();
        let nodes: Vec<u64> = parts.iter().map(|p| p.node() >> 6).collect();
        let sequences: Vec<u64> = parts.iter().map(|p| p.sequence()).collect();
        assert_eq!(nodes, [node; 3], "generator {i} minted another's node");
        assert_eq!(
            sequences,
            [0, 1, 2],
            "generator {i} went on from another's state"
        );
    }
}

/// The thread-local hot path issues IDs in ID terms (the last ID plus a step): in both field
/// orders, through refreshes and a tick change, each ID is its shard's node and the state
/// after the last one, as the layout packs them.
#[test]
fn thread_local_ids_are_consecutive_states_of_the_thread_s_shard_in_both_orders() {
    use crate::layout::Order;
    for order in [Order::TimeNodeSequence, Order::TimeSequenceNode] {
        let layout = Layout::builder()
            .node_bits(6)
            .sequence_bits(12)
            .order(order)
            // No wall-clock check of the epoch (miri has no real-time clock).
            .validate()
            .unwrap();
        let clock = ManualClock::at_unix_millis(1_700_000_000_000);
        let gen = ShardedGenerator::builder(layout)
            .node(5)
            .shard_bits(2)
            .clock(clock.clone())
            .build()
            .unwrap();
        let mut last: Option<(u64, u64)> = None;
        for i in 0..3_000_u32 {
            if i == 2_500 {
                clock.advance(core::time::Duration::from_millis(1));
            }
            let id = gen.next_id().unwrap();
            let parts = layout.decode(id);
            let shard = gen.local_shard().unwrap();
            assert_eq!(parts.node(), 5 << 2 | shard, "{order:?} ID {i}");
            let here = (parts.ticks(), parts.sequence());
            if let Some((ticks, sequence)) = last {
                let want = if here.0 == ticks {
                    (ticks, sequence + 1)
                } else {
                    (ticks + 1, 0)
                };
                assert_eq!(here, want, "{order:?} ID {i} after {last:?}");
            }
            last = Some(here);
        }
        assert_eq!(
            last.map(|(_, s)| s),
            Some(499),
            "{order:?}: the tick changed"
        );
    }
}
