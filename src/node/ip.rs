//! [`PrivateIpv4`]: the node number from the low bits of a private IPv4 address, or of a
//! unique-local IPv6 one as a fallback.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{NodeError, NodeSource};
use crate::layout::Layout;

/// The low bits of this host's first private IPv4 address: Sonyflake's default machine ID,
/// from the address Sonyflake chooses, by one of two rules.
///
/// - By default, as many low bits as the layout has node bits (all 32 if it has more). At
///   Sonyflake v1's 16 machine bits (`Layout::SONYFLAKE`, `Layout::SONYFLAKE_V2`) that is
///   exactly v1's and v2's `lower16BitPrivateIP`, `ip[2]<<8 + ip[3]`; at other widths it is
///   snowmint's rule, not Sonyflake's: 10 node bits take the low 10 bits of any address.
/// - With [`sonyflake_v2`](Self::sonyflake_v2), Sonyflake v2's `New()` for any
///   `BitsMachineID`: the low 16 bits always, and an address whose low 16 bits do not fit the
///   node bits is refused ([`NodeError::AddressOutOfRange`]) where the default rule would
///   cut it; more than 16 node bits still take 16.
///
/// Private means RFC 1918 (`10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`) or link-local
/// (`169.254.0.0/16`), as in Sonyflake's `isPrivateIPv4`; `100.64.0.0/10` (shared address
/// space, used by carrier-grade NAT and by some container networks) only after
/// [`allow_shared`](Self::allow_shared), a snowmint addition. The first private address in the
/// order the operating system lists them wins, link-local or not, as in Sonyflake's
/// `lower16BitPrivateIP`: `169.254.1.2` listed before `10.1.2.3` gives `1 << 8 | 2` = 258.
/// An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) counts as its IPv4 address, as Go's
/// `To4` makes it. A host without any is an error ([`NodeError::NoPrivateIpv4`]), never a
/// silent node 0.
///
/// With [`ipv6_fallback`](Self::ipv6_fallback), a host with no private IPv4 address takes
/// the low bits of its first unique-local IPv6 address (`fc00::/7`) instead, as snowflake_me
/// does (it takes the last two 16-bit groups; it also accepts link-local `fe80::/10`, which
/// every IPv6 interface has, and snowmint does not); then a host with neither is
/// [`NodeError::NoPrivateIp`].
///
/// # What it guarantees, and what not
/// Two hosts get different numbers only if their addresses differ in those low bits: true
/// for hosts of one subnet no larger than the node range (a /16 for Sonyflake's 16 bits, a
/// /22 for Twitter's 10). It does **not** hold across subnets: Kubernetes gives each node a
/// pod range, and pods `10.1.0.5` and `10.2.0.5` share their low 16 bits (sony/sonyflake#63).
/// Link-local addresses are chosen at random and may collide; so may IPv6 interface
/// identifiers, which are random or derived from a MAC address. Prefer a StatefulSet ordinal
/// or a Redis lease for fleets.
///
/// ```
/// use std::net::Ipv4Addr;
/// use snowmint::node::{NodeError, NodeSource, PrivateIpv4};
/// use snowmint::Layout;
///
/// let addrs = [Ipv4Addr::new(8, 8, 8, 8), Ipv4Addr::new(100, 64, 0, 9), Ipv4Addr::new(192, 168, 3, 200)];
/// // 192.168.3.200: the first private one; its low 10 bits for Twitter's layout.
/// let source = PrivateIpv4::new().from_addrs(addrs);
/// assert_eq!(source.node(&Layout::TWITTER)?, (3 << 8 | 200) & 1023);
/// // 100.64.0.9 comes first once shared addresses are accepted.
/// assert_eq!(PrivateIpv4::new().allow_shared(true).from_addrs(addrs).node(&Layout::TWITTER)?, 9);
/// // As Sonyflake: the first private address, even a link-local one.
/// let go = PrivateIpv4::new().from_addrs([Ipv4Addr::new(169, 254, 1, 2), Ipv4Addr::new(10, 1, 2, 3)]);
/// assert_eq!(go.node(&Layout::SONYFLAKE)?, 258);
/// # Ok::<(), NodeError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct PrivateIpv4 {
    allow_shared: bool,
    sonyflake_v2: bool,
    ipv6_fallback: bool,
    addrs: Option<Vec<IpAddr>>,
}

impl PrivateIpv4 {
    /// Reads the host's interfaces; `100.64.0.0/10` not accepted, no IPv6 fallback.
    ///
    /// ```no_run
    /// use snowmint::node::{NodeSource, PrivateIpv4};
    /// let n = PrivateIpv4::new().node(&snowmint::Layout::SONYFLAKE)?;
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    pub fn new() -> PrivateIpv4 {
        PrivateIpv4::default()
    }

    /// Whether `100.64.0.0/10` counts as private (default: no).
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use snowmint::node::{NodeSource, PrivateIpv4};
    /// let only_shared = [Ipv4Addr::new(100, 100, 1, 2)];
    /// assert!(PrivateIpv4::new().from_addrs(only_shared).node(&snowmint::Layout::SONYFLAKE).is_err());
    /// assert!(PrivateIpv4::new().allow_shared(true).from_addrs(only_shared).node(&snowmint::Layout::SONYFLAKE).is_ok());
    /// ```
    pub fn allow_shared(mut self, allow: bool) -> Self {
        self.allow_shared = allow;
        self
    }

    /// Whether the number follows Sonyflake v2's `New()` (default: no): the address's low 16
    /// bits whatever the layout's node bits, refused when they do not fit them. Go's v2
    /// takes `uint16(ip[2])<<8 + uint16(ip[3])` and returns `ErrInvalidMachineID` if that is
    /// `>= 1<<BitsMachineID`; here the error names the address, its number and the range
    /// ([`NodeError::AddressOutOfRange`]). With [`ipv6_fallback`](Self::ipv6_fallback) an
    /// IPv6 address gives its low 16 bits by the same rule.
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use snowmint::node::{NodeError, NodeSource, PrivateIpv4};
    /// use snowmint::Layout;
    /// // Settings{BitsMachineID: 10}: the low 16 bits of 10.1.3.255 are 1023, which fit.
    /// let ten = Layout::SONYFLAKE_V2.to_builder().node_bits(10).time_bits(63 - 8 - 10).build()?;
    /// let fits = PrivateIpv4::new().sonyflake_v2(true).from_addrs([Ipv4Addr::new(10, 1, 3, 255)]);
    /// assert_eq!(fits.node(&ten)?, 1023);
    /// // Those of 10.1.4.0 are 1024: Go's New() fails, and so does this, where the default
    /// // rule would keep the low 10 bits, 0.
    /// let big = PrivateIpv4::new().sonyflake_v2(true).from_addrs([Ipv4Addr::new(10, 1, 4, 0)]);
    /// assert!(matches!(big.node(&ten), Err(NodeError::AddressOutOfRange { value: 1024, max: 1023, .. })));
    /// assert_eq!(PrivateIpv4::new().from_addrs([Ipv4Addr::new(10, 1, 4, 0)]).node(&ten)?, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sonyflake_v2(mut self, v2: bool) -> Self {
        self.sonyflake_v2 = v2;
        self
    }

    /// Whether a host with no private IPv4 address takes the low bits of its first
    /// unique-local IPv6 address (`fc00::/7`) instead (default: no, as Sonyflake).
    ///
    /// ```
    /// use std::net::{IpAddr, Ipv6Addr};
    /// use snowmint::node::{NodeSource, PrivateIpv4};
    /// let v6_only = [IpAddr::V6(Ipv6Addr::new(0xfd12, 0x3456, 0x789a, 1, 0, 0, 0xab, 0xcdef))];
    /// assert!(PrivateIpv4::new().from_ip_addrs(v6_only).node(&snowmint::Layout::SONYFLAKE).is_err());
    /// let fallback = PrivateIpv4::new().ipv6_fallback(true).from_ip_addrs(v6_only);
    /// assert_eq!(fallback.node(&snowmint::Layout::SONYFLAKE)?, 0xcdef);
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    pub fn ipv6_fallback(mut self, fallback: bool) -> Self {
        self.ipv6_fallback = fallback;
        self
    }

    /// Uses these IPv4 addresses, in this order, instead of the host's interfaces.
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use snowmint::node::{NodeError, NodeSource, PrivateIpv4};
    /// let err = PrivateIpv4::new()
    ///     .from_addrs([Ipv4Addr::new(127, 0, 0, 1), Ipv4Addr::new(203, 0, 113, 7)])
    ///     .node(&snowmint::Layout::SONYFLAKE)
    ///     .unwrap_err();
    /// assert!(matches!(err, NodeError::NoPrivateIpv4 { .. }));
    /// assert!(err.to_string().ends_with("seen: 127.0.0.1, 203.0.113.7"));
    /// ```
    pub fn from_addrs(self, addrs: impl IntoIterator<Item = Ipv4Addr>) -> Self {
        self.from_ip_addrs(addrs.into_iter().map(IpAddr::V4))
    }

    /// Uses these addresses, IPv4 and IPv6 in one list in this order, instead of the host's
    /// interfaces.
    ///
    /// ```
    /// use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    /// use snowmint::node::PrivateIpv4;
    /// let addrs = [
    ///     IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 7)),
    ///     IpAddr::V4(Ipv4Addr::new(172, 16, 0, 9)),
    /// ];
    /// // Any private IPv4 address comes before the IPv6 fallback, wherever it is listed.
    /// let a = PrivateIpv4::new().ipv6_fallback(true).from_ip_addrs(addrs).ip_address()?;
    /// assert_eq!(a, IpAddr::V4(Ipv4Addr::new(172, 16, 0, 9)));
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    pub fn from_ip_addrs(mut self, addrs: impl IntoIterator<Item = IpAddr>) -> Self {
        self.addrs = Some(addrs.into_iter().collect());
        self
    }

    /// The first private IPv4 address, or why there is none (the IPv6 fallback aside).
    ///
    /// # Errors
    /// [`NodeError`] if no address of the kind asked for is found (the error lists the addresses
    /// seen).
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use snowmint::node::PrivateIpv4;
    /// let a = PrivateIpv4::new().from_addrs([Ipv4Addr::new(172, 31, 0, 1)]).address()?;
    /// assert_eq!(a, Ipv4Addr::new(172, 31, 0, 1));
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    pub fn address(&self) -> Result<Ipv4Addr, NodeError> {
        let seen = self.seen()?;
        first_private_ipv4(&seen, self.allow_shared).ok_or_else(|| NodeError::NoPrivateIpv4 {
            shared_allowed: self.allow_shared,
            seen: seen.iter().filter_map(|&a| as_ipv4(a)).collect(),
        })
    }

    /// The address the node number comes from: the first private IPv4 address, else, with
    /// [`ipv6_fallback`](Self::ipv6_fallback), the first unique-local IPv6 address; or why
    /// there is none.
    ///
    /// # Errors
    /// [`NodeError`] if no address of the kind asked for is found (the error lists the addresses
    /// seen).
    ///
    /// ```
    /// use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    /// use snowmint::node::{NodeError, PrivateIpv4};
    /// let addrs = [
    ///     IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 1)), // link-local: not taken
    ///     IpAddr::V6(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 2)),
    /// ];
    /// let a = PrivateIpv4::new().ipv6_fallback(true).from_ip_addrs(addrs).ip_address()?;
    /// assert_eq!(a, IpAddr::V6(Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 2)));
    /// let none = PrivateIpv4::new().ipv6_fallback(true).from_ip_addrs([]).ip_address();
    /// assert!(matches!(none, Err(NodeError::NoPrivateIp { .. })));
    /// # Ok::<(), NodeError>(())
    /// ```
    pub fn ip_address(&self) -> Result<IpAddr, NodeError> {
        let seen = self.seen()?;
        if let Some(a) = first_private_ipv4(&seen, self.allow_shared) {
            return Ok(IpAddr::V4(a));
        }
        if !self.ipv6_fallback {
            return Err(NodeError::NoPrivateIpv4 {
                shared_allowed: self.allow_shared,
                seen: seen.iter().filter_map(|&a| as_ipv4(a)).collect(),
            });
        }
        first_unique_local(&seen)
            .map(IpAddr::V6)
            .ok_or(NodeError::NoPrivateIp {
                shared_allowed: self.allow_shared,
                seen,
            })
    }

    /// The given addresses, or the host's.
    fn seen(&self) -> Result<Vec<IpAddr>, NodeError> {
        match &self.addrs {
            Some(list) => Ok(list.clone()),
            None => system_ips(),
        }
    }
}

impl NodeSource for PrivateIpv4 {
    fn read(&self, layout: &Layout) -> Result<u64, NodeError> {
        let address = self.ip_address()?;
        let low_bits = match address {
            IpAddr::V4(a) => u64::from(u32::from(a)),
            // The low 64 bits (the interface identifier); the node takes its low bits.
            IpAddr::V6(a) => u128::from(a) as u64,
        };
        if !self.sonyflake_v2 {
            return Ok(low_bits & layout.max_node());
        }
        // Sonyflake v2's New(): lower16BitPrivateIP, then `machine >= 1<<bitsMachine` fails.
        let value = low_bits & 0xffff;
        if value > layout.max_node() {
            return Err(NodeError::AddressOutOfRange {
                address,
                value,
                max: layout.max_node(),
                node_bits: layout.node_bits(),
            });
        }
        Ok(value)
    }

    fn describe(&self) -> String {
        let bits = if self.sonyflake_v2 {
            "low 16 bits"
        } else {
            "low bits"
        };
        match self.ip_address() {
            Ok(IpAddr::V4(a)) => format!("the {bits} of private IPv4 address {a}"),
            Ok(IpAddr::V6(a)) => format!("the {bits} of unique-local IPv6 address {a}"),
            Err(_) if self.ipv6_fallback => {
                "the low bits of a private IPv4 or unique-local IPv6 address".to_string()
            }
            Err(_) => "the low bits of a private IPv4 address".to_string(),
        }
    }
}

/// The first of `seen` that is a private IPv4 address (or an IPv4-mapped IPv6 one), as
/// Sonyflake's `privateIPv4` picks it.
fn first_private_ipv4(seen: &[IpAddr], shared: bool) -> Option<Ipv4Addr> {
    seen.iter()
        .filter_map(|&a| as_ipv4(a))
        .find(|&a| is_private(a, shared))
}

/// The first of `seen` in `fc00::/7`.
fn first_unique_local(seen: &[IpAddr]) -> Option<Ipv6Addr> {
    seen.iter().find_map(|&a| match a {
        IpAddr::V6(a) if is_unique_local(a) => Some(a),
        _ => None,
    })
}

/// `a` as an IPv4 address, if it is one or an IPv4-mapped IPv6 one (Go's `To4`).
fn as_ipv4(a: IpAddr) -> Option<Ipv4Addr> {
    match a {
        IpAddr::V4(a) => Some(a),
        IpAddr::V6(a) => a.to_ipv4_mapped(),
    }
}

/// RFC 1918, link-local, and 100.64/10 when `shared`: Sonyflake's `isPrivateIPv4`, plus the
/// opt-in.
fn is_private(a: Ipv4Addr, shared: bool) -> bool {
    let [o0, o1, ..] = a.octets();
    a.is_private() || a.is_link_local() || (shared && o0 == 100 && (o1 & 0xc0) == 64)
}

/// `fc00::/7`, unique local addresses (RFC 4193).
fn is_unique_local(a: Ipv6Addr) -> bool {
    a.segments()[0] & 0xfe00 == 0xfc00
}

/// The host's addresses in the order the operating system lists them.
fn system_ips() -> Result<Vec<IpAddr>, NodeError> {
    let ifaces = if_addrs::get_if_addrs().map_err(|e| NodeError::Interfaces {
        reason: e.to_string(),
    })?;
    Ok(ifaces.iter().map(|i| i.ip()).collect())
}

#[cfg(test)]
mod tests {
    use super::{is_private, is_unique_local};
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn private_ranges_have_exact_edges() {
        let yes = [
            [10, 0, 0, 0],
            [10, 255, 255, 255],
            [172, 16, 0, 0],
            [172, 31, 255, 255],
            [192, 168, 0, 0],
            [192, 168, 255, 255],
            [169, 254, 0, 1],
        ];
        let no = [
            [9, 255, 255, 255],
            [11, 0, 0, 0],
            [172, 15, 255, 255],
            [172, 32, 0, 0],
            [192, 167, 255, 255],
            [192, 169, 0, 0],
            [169, 253, 255, 255],
            [127, 0, 0, 1],
            [100, 64, 0, 0],
            [8, 8, 8, 8],
        ];
        for o in yes {
            assert!(is_private(Ipv4Addr::from(o), false), "{o:?}");
        }
        for o in no {
            assert!(!is_private(Ipv4Addr::from(o), false), "{o:?}");
        }
        // 100.64.0.0/10 = 100.64.0.0 to 100.127.255.255, only when asked.
        assert!(is_private(Ipv4Addr::new(100, 64, 0, 0), true));
        assert!(is_private(Ipv4Addr::new(100, 127, 255, 255), true));
        assert!(!is_private(Ipv4Addr::new(100, 63, 255, 255), true));
        assert!(!is_private(Ipv4Addr::new(100, 128, 0, 0), true));
    }

    #[test]
    fn unique_local_is_fc00_slash_7_exactly() {
        let seg = |s0| Ipv6Addr::new(s0, 0, 0, 0, 0, 0, 0, 1);
        for s0 in [0xfc00, 0xfcff, 0xfd00, 0xfdff] {
            assert!(is_unique_local(seg(s0)), "{s0:x}");
        }
        for s0 in [0xfbff, 0xfe00, 0xfe80, 0xff02, 0x2001, 0] {
            assert!(!is_unique_local(seg(s0)), "{s0:x}");
        }
        assert!(!is_unique_local(Ipv6Addr::LOCALHOST));
    }
}
