//! The leader fault (etcd): the cluster's leader killed while the three mint, on a plain
//! cluster and once on a secured one (TLS both ways, client certificates with a common name
//! that is etcd's user).

use std::time::{Duration, Instant};

use crate::certs;
use crate::checks::*;
use crate::etcd_cluster;
use crate::fleet::*;
use crate::settings::*;

/// etcd's leader killed: the three mint on through the election (on the two members
/// left), then the member restarted from its data rejoins; nothing shared, nobody lost.
pub(crate) fn leader() {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(cluster) = etcd_cluster::EtcdCluster::start("leader") else {
        return;
    };
    leader_lost(
        cluster,
        Fleet::new(Backend::Etcd, "leader"),
        "leader",
        started,
    );
}

/// The same fault on a secured cluster: TLS on every client and peer URL, client
/// certificates required both ways, authentication on, the minters' user limited to the
/// namespace's keys and named by their client certificate's common name (`CN=snow`, a user
/// without a password: certificate-as-user). Each minter's renewals go over TLS through the
/// election, with no token to refresh.
pub(crate) fn leader_over_tls() {
    let _one = one_at_a_time();
    let started = Instant::now();
    let dir = std::env::temp_dir().join(format!("snowmint-faults-certs-{}", std::process::id()));
    let certs = certs::Certs::make(&dir);
    let tls = etcd_cluster::Tls {
        ca: certs.ca.clone(),
        client_certs: vec![certs.server.clone()],
        peer_cert: certs.server.clone(),
        harness: certs.tls_config(),
    };
    let Some(mut cluster) = etcd_cluster::EtcdCluster::start_tls("leader-tls", tls) else {
        return;
    };
    let fleet = Fleet::new(Backend::Etcd, "leader-tls");
    let prefix = format!("snowmint/{}/", fleet.namespace);
    let end = format!("snowmint/{}0", fleet.namespace);
    cluster.add_certificate_user("snow", &prefix, &end);
    cluster.enable_auth("root-secret");
    let fleet = fleet.secured(ChildTls {
        ca: certs.ca.clone(),
        cert: certs.cn_client.0.clone(),
        key: certs.cn_client.1.clone(),
        user: String::new(),
        password: String::new(),
    });
    leader_lost(cluster, fleet, "leader-tls", started);
}

/// The leader of `cluster` killed while `fleet`'s three mint, then restarted.
fn leader_lost(
    mut cluster: etcd_cluster::EtcdCluster,
    mut fleet: Fleet,
    fault: &str,
    started: Instant,
) {
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
        fault,
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
