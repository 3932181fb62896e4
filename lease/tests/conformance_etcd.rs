//! The conformance suite (`snowmint_lease::conformance`) against a real 3-member etcd
//! cluster, started on free loopback ports by `common/etcd.rs` (`SNOWMINT_REQUIRE_ETCD=1`
//! makes a missing `etcd` a failure). The store forgets a namespace by a delete of its
//! prefix through the JSON gateway.
#![cfg(all(feature = "etcd", feature = "conformance"))]

#[path = "common/etcd.rs"]
mod etcd;

use etcd::{base64, http, EtcdCluster};
use snowmint_lease::conformance;
use snowmint_lease::etcd::EtcdLease;

#[test]
fn the_etcd_store_has_every_property_of_a_store() {
    let Some(cluster) = EtcdCluster::start("conformance_etcd") else {
        return;
    };
    let backend = EtcdLease::builder(&cluster.url())
        .unwrap()
        .build()
        .unwrap()
        .backend()
        .clone();
    let port = cluster.client_port(0);
    let forget = |namespace: &str| {
        // `snowmint/NS/` up to `snowmint/NS0`: every key under the prefix.
        let body = format!(
            r#"{{"key":"{}","range_end":"{}"}}"#,
            base64(format!("snowmint/{namespace}/").as_bytes()),
            base64(format!("snowmint/{namespace}0").as_bytes()),
        );
        let answer = http("127.0.0.1", port, "POST", "/v3/kv/deleterange", &body);
        assert!(
            matches!(&answer, Some((200, _))),
            "deleting the namespace's keys: {answer:?}"
        );
    };
    if let Err(failure) = conformance::run_all(&backend, forget) {
        panic!("{failure}");
    }
}
