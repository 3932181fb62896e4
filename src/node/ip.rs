//! [`PrivateIpv4`]: the node number from the low bits of a private IPv4 address.

use std::net::Ipv4Addr;

use super::{NodeError, NodeSource};
use crate::layout::Layout;

/// The low bits of this host's first private IPv4 address, as many as the layout has node
/// bits (all 32 if it has more): Sonyflake's default machine ID.
///
/// Private means RFC 1918 (`10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`) or link-local
/// (`169.254.0.0/16`); `100.64.0.0/10` (shared address space, used by carrier-grade NAT and
/// by some container networks) only after [`allow_shared`](Self::allow_shared). Addresses
/// are taken in the order the operating system lists the interfaces, link-local ones only
/// if there is no other. A host without any is an error ([`NodeError::NoPrivateIpv4`]),
/// never a silent node 0.
///
/// # What it guarantees, and what not
/// Two hosts get different numbers only if their addresses differ in those low bits: true
/// for hosts of one subnet no larger than the node range (a /16 for Sonyflake's 16 bits, a
/// /22 for Twitter's 10). It does **not** hold across subnets: Kubernetes gives each node a
/// pod range, and pods `10.1.0.5` and `10.2.0.5` share their low 16 bits (sony/sonyflake#63).
/// Link-local addresses are chosen at random and may collide. Prefer a StatefulSet ordinal
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
/// # Ok::<(), NodeError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct PrivateIpv4 {
    allow_shared: bool,
    addrs: Option<Vec<Ipv4Addr>>,
}

impl PrivateIpv4 {
    /// Reads the host's interfaces; `100.64.0.0/10` not accepted.
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

    /// Uses these addresses, in this order, instead of the host's interfaces.
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
    pub fn from_addrs(mut self, addrs: impl IntoIterator<Item = Ipv4Addr>) -> Self {
        self.addrs = Some(addrs.into_iter().collect());
        self
    }

    /// The first private address, or why there is none.
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use snowmint::node::PrivateIpv4;
    /// let a = PrivateIpv4::new().from_addrs([Ipv4Addr::new(172, 31, 0, 1)]).address()?;
    /// assert_eq!(a, Ipv4Addr::new(172, 31, 0, 1));
    /// # Ok::<(), snowmint::node::NodeError>(())
    /// ```
    pub fn address(&self) -> Result<Ipv4Addr, NodeError> {
        let seen = match &self.addrs {
            Some(list) => list.clone(),
            None => system_ipv4()?,
        };
        // Link-local addresses are self-assigned per link: a last resort.
        seen.iter()
            .copied()
            .find(|&a| is_private(a, self.allow_shared) && !a.is_link_local())
            .or_else(|| seen.iter().copied().find(|a| a.is_link_local()))
            .ok_or(NodeError::NoPrivateIpv4 {
                shared_allowed: self.allow_shared,
                seen,
            })
    }
}

impl NodeSource for PrivateIpv4 {
    fn read(&self, layout: &Layout) -> Result<u64, NodeError> {
        let addr = u64::from(u32::from(self.address()?));
        Ok(addr & layout.max_node())
    }

    fn describe(&self) -> String {
        match self.address() {
            Ok(a) => format!("the low bits of private IPv4 address {a}"),
            Err(_) => "the low bits of a private IPv4 address".to_string(),
        }
    }
}

/// RFC 1918, link-local, and 100.64/10 when `shared`.
fn is_private(a: Ipv4Addr, shared: bool) -> bool {
    let [o0, o1, ..] = a.octets();
    a.is_private() || a.is_link_local() || (shared && o0 == 100 && (o1 & 0xc0) == 64)
}

/// The host's IPv4 addresses in interface order.
fn system_ipv4() -> Result<Vec<Ipv4Addr>, NodeError> {
    let ifaces = if_addrs::get_if_addrs().map_err(|e| NodeError::Interfaces {
        reason: e.to_string(),
    })?;
    Ok(ifaces
        .iter()
        .filter_map(|i| match i.ip() {
            std::net::IpAddr::V4(a) => Some(a),
            std::net::IpAddr::V6(_) => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::is_private;
    use std::net::Ipv4Addr;

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
}
