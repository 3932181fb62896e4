//! Node-ID providers: values, range checks and errors, on this host and on given inputs.

#[cfg(feature = "ip")]
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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
    // Link-local counts as private where it is listed, as in Sonyflake: first wins.
    let link_local_first = [Ipv4Addr::new(169, 254, 7, 7), Ipv4Addr::new(172, 20, 0, 3)];
    assert_eq!(
        PrivateIpv4::new().from_addrs(link_local_first).address(),
        Ok(Ipv4Addr::new(169, 254, 7, 7))
    );
    let err = PrivateIpv4::new()
        .from_addrs(Vec::new())
        .node(&Layout::SONYFLAKE)
        .unwrap_err();
    assert!(
        err.to_string().contains("no IPv4 address was seen"),
        "{err}"
    );
}

/// Go's sony/sonyflake v2 `New()` with `BitsMachineID` b and no `MachineID`, written out:
/// `machine = int(ip[2])<<8 + int(ip[3])`, then `ErrInvalidMachineID` if
/// `machine >= 1<<b`.
#[cfg(feature = "ip")]
fn go_v2_machine(ip: Ipv4Addr, bits_machine: u32) -> Option<u64> {
    let ip = ip.octets();
    let machine = u64::from(ip[2]) << 8 | u64::from(ip[3]);
    (machine < 1 << bits_machine).then_some(machine)
}

#[test]
#[cfg(feature = "ip")]
fn sonyflake_v2_rule_matches_go_for_any_machine_bits() {
    let v4 = Ipv4Addr::new;
    let addrs = [
        v4(10, 0, 0, 0),
        v4(10, 1, 3, 255),
        v4(10, 1, 4, 0),
        v4(192, 168, 1, 2),
        v4(172, 16, 255, 255),
        v4(169, 254, 128, 1),
    ];
    for bits in [10_u8, 16, 20] {
        // Settings{BitsMachineID: bits}: the time gets 63 - 8 - bits.
        let layout = Layout::SONYFLAKE_V2
            .to_builder()
            .node_bits(bits)
            .time_bits(63 - 8 - bits)
            .build()
            .unwrap();
        for a in addrs {
            let got = PrivateIpv4::new()
                .sonyflake_v2(true)
                .from_addrs([a])
                .node(&layout);
            match go_v2_machine(a, u32::from(bits)) {
                Some(machine) => assert_eq!(got, Ok(machine), "{a} at {bits} bits"),
                None => {
                    let err = got.unwrap_err();
                    assert_eq!(
                        err,
                        NodeError::AddressOutOfRange {
                            address: IpAddr::V4(a),
                            value: u64::from(u16::from_be_bytes([a.octets()[2], a.octets()[3]])),
                            max: layout.max_node(),
                            node_bits: bits,
                        },
                        "{a} at {bits} bits"
                    );
                    let text = err.to_string();
                    assert!(text.contains(&format!("address {a} gives node")), "{text}");
                    assert!(
                        text.contains(&format!("allowed 0 to {}", layout.max_node())),
                        "{text}"
                    );
                }
            }
        }
    }
    // 10 bits: 10.1.4.0 does not fit, and the message says which addresses do.
    let ten = Layout::SONYFLAKE_V2
        .to_builder()
        .node_bits(10)
        .time_bits(45)
        .build()
        .unwrap();
    let err = PrivateIpv4::new()
        .sonyflake_v2(true)
        .from_addrs([v4(10, 1, 4, 0)])
        .node(&ten)
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("the addresses 10.1.0.0 to 10.1.3.255 give"),
        "{err}"
    );
    // 20 bits: Go still takes 16 bits, where the default rule takes 20.
    let twenty = Layout::SONYFLAKE_V2
        .to_builder()
        .node_bits(20)
        .time_bits(35)
        .build()
        .unwrap();
    let a = v4(10, 7, 1, 2);
    assert_eq!(
        PrivateIpv4::new()
            .sonyflake_v2(true)
            .from_addrs([a])
            .node(&twenty),
        Ok(1 << 8 | 2)
    );
    assert_eq!(
        PrivateIpv4::new().from_addrs([a]).node(&twenty),
        Ok(7 << 16 | 1 << 8 | 2)
    );
    // The default rule, unchanged: the low node bits, cut to fit.
    assert_eq!(
        PrivateIpv4::new().from_addrs([v4(10, 1, 4, 0)]).node(&ten),
        Ok(0)
    );
    // At 16 bits both rules are v1's and v2's lower16BitPrivateIP.
    for a in addrs {
        assert_eq!(
            PrivateIpv4::new().from_addrs([a]).node(&Layout::SONYFLAKE),
            PrivateIpv4::new()
                .sonyflake_v2(true)
                .from_addrs([a])
                .node(&Layout::SONYFLAKE_V2),
        );
    }
    // The IPv6 fallback gives its low 16 bits by the same rule.
    let v6 = IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0x12, 0x0400));
    let err = PrivateIpv4::new()
        .sonyflake_v2(true)
        .ipv6_fallback(true)
        .from_ip_addrs([v6])
        .node(&ten)
        .unwrap_err();
    assert!(
        matches!(err, NodeError::AddressOutOfRange { value: 0x400, .. }),
        "{err}"
    );
    assert!(
        err.to_string().ends_with("fd00::12:0 to fd00::12:3ff give"),
        "{err}"
    );
}

/// The values Go's sony/sonyflake (v1 and v2) `lower16BitPrivateIP` gives for these interface
/// address lists, in this order: the first address of 10/8, 172.16/12, 192.168/16 or
/// 169.254/16 wins, its last two bytes the machine ID.
#[test]
#[cfg(feature = "ip")]
fn private_ipv4_picks_the_address_sonyflake_picks() {
    let v4 = Ipv4Addr::new;
    let cases: [(&[Ipv4Addr], u64); 8] = [
        (&[v4(169, 254, 1, 2), v4(10, 1, 2, 3)], 258),
        (&[v4(10, 1, 2, 3), v4(169, 254, 1, 2)], 2 << 8 | 3),
        (&[v4(192, 168, 5, 6), v4(10, 1, 2, 3)], 5 << 8 | 6),
        (&[v4(10, 1, 2, 3), v4(192, 168, 5, 6)], 2 << 8 | 3),
        (
            &[v4(172, 31, 7, 8), v4(192, 168, 5, 6), v4(10, 1, 2, 3)],
            7 << 8 | 8,
        ),
        // Neither 172.15 nor 172.32 is private; loopback and public addresses are skipped.
        (
            &[
                v4(127, 0, 0, 1),
                v4(172, 15, 1, 1),
                v4(172, 32, 1, 1),
                v4(8, 8, 4, 4),
                v4(172, 16, 9, 9),
            ],
            9 << 8 | 9,
        ),
        // 100.64/10 is not private for Go (nor by default here).
        (&[v4(100, 64, 3, 4), v4(169, 254, 250, 1)], 250 << 8 | 1),
        (&[v4(192, 167, 1, 1), v4(192, 168, 0, 0)], 0),
    ];
    for (addrs, go) in cases {
        let node = PrivateIpv4::new()
            .from_addrs(addrs.iter().copied())
            .node(&Layout::SONYFLAKE);
        assert_eq!(node, Ok(go), "{addrs:?}");
    }
    // IPv4-mapped IPv6 counts as IPv4 (Go's To4), in its place in the list.
    let mapped = [
        IpAddr::V6(v4(10, 9, 8, 7).to_ipv6_mapped()),
        IpAddr::V4(v4(192, 168, 1, 1)),
    ];
    assert_eq!(
        PrivateIpv4::new()
            .from_ip_addrs(mapped)
            .node(&Layout::SONYFLAKE),
        Ok(8 << 8 | 7)
    );
}

/// With the fallback, a host with no private IPv4 address takes the low node bits of its
/// first `fc00::/7` address; any private IPv4 address, wherever listed, comes first; and
/// without the fallback IPv6 addresses are never used.
#[test]
#[cfg(feature = "ip")]
fn the_ipv6_fallback_takes_the_first_unique_local_address() {
    let v6 = |s0, s6, s7| IpAddr::V6(Ipv6Addr::new(s0, 0x1234, 0, 0, 0, 0, s6, s7));
    let addrs = [
        IpAddr::V6(Ipv6Addr::LOCALHOST),
        v6(0xfe80, 0x1111, 0x2222), // link-local: every interface has one
        v6(0x2001, 0x3333, 0x4444), // global
        IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7)),
        v6(0xfd00, 0xab, 0xcdef), // the first unique-local
        v6(0xfc00, 0x5555, 0x6666),
    ];
    let src = PrivateIpv4::new().ipv6_fallback(true).from_ip_addrs(addrs);
    assert_eq!(src.ip_address(), Ok(v6(0xfd00, 0xab, 0xcdef)));
    assert_eq!(src.node(&Layout::SONYFLAKE), Ok(0xcdef));
    assert_eq!(src.node(&Layout::TWITTER), Ok(0xcdef & 0x3ff));
    // 32 node bits reach into the next group.
    let wide = Layout::builder()
        .time_bits(31)
        .node_bits(32)
        .sequence_bits(0)
        .build()
        .unwrap();
    assert_eq!(src.node(&wide), Ok(0xab << 16 | 0xcdef));
    assert_eq!(
        src.describe(),
        "the low bits of unique-local IPv6 address fd00:1234::ab:cdef"
    );
    // The IPv4 rule is unchanged: address() still says there is no private IPv4 address.
    assert!(matches!(
        src.address(),
        Err(NodeError::NoPrivateIpv4 { .. })
    ));
    // A private IPv4 address anywhere in the list wins.
    let mut with_v4 = addrs.to_vec();
    with_v4.push(IpAddr::V4(Ipv4Addr::new(10, 0, 3, 4)));
    let src = PrivateIpv4::new()
        .ipv6_fallback(true)
        .from_ip_addrs(with_v4.clone());
    assert_eq!(src.node(&Layout::SONYFLAKE), Ok(3 << 8 | 4));
    // Without the fallback: an error listing the IPv4 addresses seen.
    let err = PrivateIpv4::new()
        .from_ip_addrs(addrs)
        .node(&Layout::SONYFLAKE)
        .unwrap_err();
    assert_eq!(
        err,
        NodeError::NoPrivateIpv4 {
            shared_allowed: false,
            seen: vec![Ipv4Addr::new(203, 0, 113, 7)]
        }
    );
}

/// A host with neither kind of address is a typed error whose message gives both rules and
/// every address seen.
#[test]
#[cfg(feature = "ip")]
fn no_private_address_of_either_kind_says_both_rules_and_what_it_saw() {
    let seen = [
        IpAddr::V4(Ipv4Addr::new(100, 64, 0, 1)),
        IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 1)),
        IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1)),
    ];
    let err = PrivateIpv4::new()
        .ipv6_fallback(true)
        .from_ip_addrs(seen)
        .node(&Layout::SONYFLAKE)
        .unwrap_err();
    assert_eq!(
        err,
        NodeError::NoPrivateIp {
            shared_allowed: false,
            seen: seen.to_vec()
        }
    );
    assert_eq!(
        err.to_string(),
        "no private IPv4 address nor unique-local IPv6 address on any interface: a node number \
         from an address needs an IPv4 one in 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 \
         (RFC 1918) or 169.254.0.0/16 (link-local) (100.64.0.0/10 only when asked: \
         PrivateIpv4::allow_shared), or else an IPv6 one in fc00::/7 (unique local); seen: \
         100.64.0.1, fe80::1, 2001:db8::1"
    );
    let nothing = PrivateIpv4::new()
        .allow_shared(true)
        .ipv6_fallback(true)
        .from_ip_addrs([]);
    assert_eq!(
        nothing.describe(),
        "the low bits of a private IPv4 or unique-local IPv6 address"
    );
    let none = nothing.node(&Layout::SONYFLAKE).unwrap_err();
    assert_eq!(
        none.to_string(),
        "no private IPv4 address nor unique-local IPv6 address on any interface: a node number \
         from an address needs an IPv4 one in 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 \
         (RFC 1918) or 169.254.0.0/16 (link-local) or 100.64.0.0/10 (shared address space), \
         or else an IPv6 one in fc00::/7 (unique local); no address was seen"
    );
    let v4_only = PrivateIpv4::new()
        .from_addrs([Ipv4Addr::new(100, 64, 0, 1)])
        .node(&Layout::SONYFLAKE)
        .unwrap_err();
    assert_eq!(
        v4_only.to_string(),
        "no private IPv4 address on any interface: a node number from an address needs one in \
         10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918) or 169.254.0.0/16 (link-local) \
         (100.64.0.0/10 only when asked: PrivateIpv4::allow_shared); seen: 100.64.0.1"
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
