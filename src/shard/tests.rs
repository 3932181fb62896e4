use std::sync::Arc;

use super::ShardedGenerator;
use crate::clock::ManualClock;
use crate::layout::Layout;

/// A thread's registry entry for a dropped sharded generator is pruned when the thread
/// registers another one (its shard table is freed), and the entries of live generators
/// are kept.
#[test]
fn a_dropped_generator_s_thread_entry_is_pruned_and_live_ones_kept() {
    let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    let build = || {
        ShardedGenerator::builder(Layout::TWITTER)
            .clock(clock.clone())
            .build()
            .unwrap()
    };
    let (live, dropped) = (build(), build());
    live.next_id().unwrap();
    dropped.next_id().unwrap();
    let slots = Arc::clone(&dropped.shared.slots);
    drop(dropped);
    assert!(
        Arc::strong_count(&slots) > 1,
        "the thread's entry still holds it"
    );
    let new = build();
    new.next_id().unwrap();
    assert_eq!(Arc::strong_count(&slots), 1, "pruned when `new` registered");
    assert_eq!(
        live.local_shard(),
        Some(0),
        "a live generator's entry stays"
    );
    assert_eq!(new.local_shard(), Some(0));
}
