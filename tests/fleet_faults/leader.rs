//! The leader fault (etcd): the cluster's leader killed while the three mint.

use std::time::{Duration, Instant};

use crate::checks::*;
use crate::etcd_cluster;
use crate::fleet::*;
use crate::settings::*;

/// etcd's leader killed: the three mint on through the election (on the two members
/// left), then the member restarted from its data rejoins; nothing shared, nobody lost.
#[cfg(feature = "etcd")]
pub(crate) fn leader() {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(mut cluster) = etcd_cluster::EtcdCluster::start("leader") else {
        return;
    };
    let mut fleet = Fleet::new(Backend::Etcd, "leader");
    let url = cluster.url();
    fleet.spawn_three(|_| url.clone(), None);
    std::thread::sleep(Duration::from_secs(1));
    let old = cluster.leader();
    cluster.kill(old);
    let killed = wall_nanos();
    let new = cluster.leader();
    let elected = wall_nanos();
    assert_ne!(new, old, "the killed member is still named leader");
    for name in ["a", "b", "c"] {
        fleet.get(name).wait_minted_after(elected, WITHIN);
    }
    let minted_on = wall_nanos();
    cluster.restart(old);
    let restarted = wall_nanos();
    for name in ["a", "b", "c"] {
        fleet.get(name).wait_minted_after(restarted, WITHIN);
    }
    std::thread::sleep(Duration::from_millis(500));
    let codes = fleet.stop_all();
    let t = report(
        "leader",
        &fleet,
        started,
        &format!(
            "leader m{} killed, m{} elected {:.2} s later, all three minted again {:.2} s after \
             the kill; m{} back {:.2} s after the kill",
            old + 1,
            new + 1,
            secs(killed, elected),
            secs(killed, minted_on),
            old + 1,
            secs(killed, restarted)
        ),
    );
    assert_clean(&t);
    assert_minted(&fleet, &["a", "b", "c"]);
    for name in ["a", "b", "c"] {
        assert_eq!(codes[name], Some(0), "minter {name} failed or was lost");
    }
}
