//! The partition fault: one minter cut off in a network namespace.

use std::time::{Duration, Instant};

use crate::checks::*;
use crate::fleet::*;
use crate::netns::NetNs;
use crate::settings::*;

/// A in a network namespace, reaching the store only through a veth pair; the link cut
/// past the TTL, D takes A's node, the link healed: A must have stopped within its TTL of
/// the cut, and learn it lost its node.
pub(crate) fn partition(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(net) = NetNs::create("partition") else {
        return;
    };
    let Some(store) = Store::start(backend, "partition", Some(net.host_addr())) else {
        return;
    };
    let mut fleet = Fleet::new(backend, "partition");
    let (url, url_a) = (store.url(), store.url_on(net.host_addr()));
    fleet.spawn_three(
        |name| {
            if name == "a" {
                url_a.clone()
            } else {
                url.clone()
            }
        },
        Some(&net),
    );
    std::thread::sleep(Duration::from_secs(1));
    let node = fleet.get("a").node();
    net.cut();
    let cut = wall_nanos();
    fleet.spawn("d", &url, (node, node), None);
    fleet
        .get("d")
        .wait_for("minted", WITHIN, |l| !l.batches.is_empty());
    let d_first = fleet.get("d").first_batch_at();
    std::thread::sleep(Duration::from_millis(500));
    net.heal();
    let healed = wall_nanos();
    let a_status = fleet.get("a").wait_exit(WITHIN);
    let learnt = wall_nanos();
    for name in ["b", "c", "d"] {
        fleet.get(name).wait_minted_after(learnt, WITHIN);
    }
    let codes = fleet.stop_all();
    let ttl_nanos = u64::try_from(TTL.as_nanos()).expect("ttl");
    let (a_last, past_ttl) = {
        let a = fleet.get("a").log();
        let last = a.batches.last().map_or(0, |b| b.after);
        let past = a
            .batches
            .iter()
            .filter(|b| b.before >= cut + ttl_nanos)
            .count();
        (last, past)
    };
    let a_stderr = fleet.get("a").stderr_tail();
    let t = report(
        "partition",
        &fleet,
        started,
        &format!(
            "A's last batch {:.2} s after the cut; D minted {:.2} s after the cut; A exited \
             {a_status:?} {:.2} s after the heal; {past_ttl} batches of A asked for a TTL or more \
             after the cut; the heal at {:.3}, A's stderr:\n{}",
            secs(cut, a_last),
            secs(cut, d_first),
            secs(healed, learnt),
            healed as f64 / 1e9,
            a_stderr
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c", "d"]);
    assert_eq!(past_ttl, 0, "A minted a TTL after it was cut off");
    assert_eq!(
        a_status.code(),
        Some(EXIT_LOST),
        "A must learn that its node is lost"
    );
    assert_taken_over(
        &mut fleet,
        &codes,
        ("a", "d"),
        &["b", "c", "d"],
        backend != Backend::Redis,
    );
    drop(fleet);
    drop(store);
    drop(net);
}
