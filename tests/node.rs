//! Node-ID providers: values, range checks and errors, on this host and on given inputs.

#[cfg(feature = "ip")]
use std::net::Ipv4Addr;

#[cfg(feature = "ip")]
use snowmint::node::PrivateIpv4;
use snowmint::node::{self, EnvVar, NodeError, NodeSource, StatefulSetOrdinal};
use snowmint::{Generator, Layout};

#[test]
fn env_var_reads_checks_and_names_the_variable() {
    let name = "SNOWMINT_TEST_NODE_ENV";
    std::env::set_var(name, "1023");
    assert_eq!(node::EnvVar::new(name).node(&Layout::TWITTER), Ok(1023));
    std::env::set_var(name, "1024");
    let err = node::EnvVar::new(name).node(&Layout::TWITTER).unwrap_err();
    assert_eq!(
        err.to_string(),
        "node 1024 from environment variable SNOWMINT_TEST_NODE_ENV is out of range: allowed 0 to 1023 (the layout's 10 node bits)"
    );
    // The same value fits Sonyflake's 16 bits.
    assert_eq!(EnvVar::new(name).node(&Layout::SONYFLAKE), Ok(1024));
    std::env::set_var(name, "");
    assert!(matches!(
        node::EnvVar::new(name).node(&Layout::TWITTER),
        Err(NodeError::EnvInvalid { .. })
    ));
    std::env::remove_var(name);
    let err = node::EnvVar::new(name).node(&Layout::TWITTER).unwrap_err();
    assert_eq!(
        err.to_string(),
        "environment variable SNOWMINT_TEST_NODE_ENV is not set: it must hold this process's node number, 0 to 1023"
    );
}

#[test]
#[cfg(feature = "ip")]
fn private_ipv4_takes_the_first_private_address_and_its_low_bits() {
    let addrs = [
        Ipv4Addr::new(127, 0, 0, 1),
        Ipv4Addr::new(203, 0, 113, 9),
        Ipv4Addr::new(10, 20, 30, 40),
        Ipv4Addr::new(192, 168, 1, 2),
    ];
    let src = PrivateIpv4::new().from_addrs(addrs);
    assert_eq!(src.address(), Ok(Ipv4Addr::new(10, 20, 30, 40)));
    assert_eq!(src.node(&Layout::SONYFLAKE), Ok(30 << 8 | 40));
    assert_eq!(src.node(&Layout::TWITTER), Ok((30 << 8 | 40) & 0x3ff));
    // 10.1.0.5 and 10.2.0.5 (two Kubernetes nodes' pod ranges) collide: the documented limit.
    let a = PrivateIpv4::new()
        .from_addrs([Ipv4Addr::new(10, 1, 0, 5)])
        .node(&Layout::SONYFLAKE);
    let b = PrivateIpv4::new()
        .from_addrs([Ipv4Addr::new(10, 2, 0, 5)])
        .node(&Layout::SONYFLAKE);
    assert_eq!(a, b);
    // Link-local (self-assigned) only when nothing else is private, wherever it is listed.
    let link_local_first = [Ipv4Addr::new(169, 254, 7, 7), Ipv4Addr::new(172, 20, 0, 3)];
    assert_eq!(
        PrivateIpv4::new().from_addrs(link_local_first).address(),
        Ok(Ipv4Addr::new(172, 20, 0, 3))
    );
    assert_eq!(
        PrivateIpv4::new()
            .from_addrs([Ipv4Addr::new(169, 254, 7, 7)])
            .address(),
        Ok(Ipv4Addr::new(169, 254, 7, 7))
    );
    let err = PrivateIpv4::new()
        .from_addrs([])
        .node(&Layout::SONYFLAKE)
        .unwrap_err();
    assert!(
        err.to_string().contains("no IPv4 address was seen"),
        "{err}"
    );
}

#[test]
#[cfg(feature = "ip")]
fn private_ipv4_on_this_host_is_private_or_says_what_it_saw() {
    match PrivateIpv4::new().address() {
        Ok(a) => {
            assert!(a.is_private() || a.is_link_local(), "{a} is not private");
            let n = PrivateIpv4::new().node(&Layout::SONYFLAKE).expect("node");
            assert_eq!(n, u64::from(u32::from(a)) & 0xffff);
        }
        Err(NodeError::NoPrivateIpv4 { seen, .. }) => {
            assert!(seen.iter().all(|a| !a.is_private() && !a.is_link_local()));
        }
        Err(e) => panic!("listing interfaces failed: {e}"),
    }
}

#[test]
fn statefulset_ordinals_build_generators_with_that_node() {
    for (host, offset, want) in [
        ("ids-0", 0, 0),
        ("ids-12.ids.prod.svc.cluster.local", 0, 12),
        ("worker-3", 512, 515),
    ] {
        let n = StatefulSetOrdinal::from_hostname(host)
            .offset(offset)
            .node(&Layout::TWITTER)
            .expect(host);
        assert_eq!(n, want);
        let gen = Generator::new(Layout::TWITTER, n).expect("generator");
        assert_eq!(
            Layout::TWITTER.decode(gen.next_id().expect("mint")).node(),
            want
        );
    }
    let err = node::StatefulSetOrdinal::from_hostname("api-7d9f8b5c4-x2x4k")
        .node(&Layout::TWITTER)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "hostname \"api-7d9f8b5c4-x2x4k\" is not a StatefulSet pod name: expected NAME-ORDINAL with a decimal ORDINAL from 0 to 1023"
    );
}

#[test]
fn the_check_hook_runs_after_the_range_check() {
    let calls = std::cell::Cell::new(0);
    let src = node::Fixed(2_000).with_check(|_, _| {
        calls.set(calls.get() + 1);
        Ok(())
    });
    assert!(matches!(
        src.node(&Layout::TWITTER),
        Err(NodeError::OutOfRange { .. })
    ));
    assert_eq!(
        calls.get(),
        0,
        "an out-of-range number never reaches the hook"
    );
    assert_eq!(src.node(&Layout::SONYFLAKE), Ok(2_000));
    assert_eq!(calls.get(), 1);
    // Sources compose behind references and boxes.
    let boxed: Box<dyn NodeSource> = Box::new(node::Fixed(4));
    fn by_value<S: NodeSource>(s: S) -> Result<u64, NodeError> {
        s.node(&Layout::TWITTER)
    }
    assert_eq!(by_value(&boxed), Ok(4));
    assert_eq!(by_value(boxed), Ok(4));
}
