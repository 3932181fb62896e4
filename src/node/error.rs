//! [`NodeError`]: why a node number could not be found or was refused.

use core::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why a [`NodeSource`](super::NodeSource) gave no usable node number.
///
/// Every message names the rule that was broken and what is allowed.
///
/// ```
/// use snowmint::node::{self, NodeError, NodeSource};
/// use snowmint::Layout;
///
/// let err = node::StatefulSetOrdinal::from_hostname("web-7d9f8-x2x4k").node(&Layout::TWITTER).unwrap_err();
/// assert!(matches!(err, NodeError::NoOrdinal { .. }));
/// assert!(err.to_string().contains("expected NAME-ORDINAL with a decimal ORDINAL from 0 to 1023"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeError {
    /// The number does not fit the layout's node bits.
    OutOfRange {
        /// Where the number came from.
        source: String,
        /// The number.
        node: u64,
        /// The largest node number of the layout.
        max: u64,
        /// The layout's node bits.
        node_bits: u8,
    },
    /// The environment variable is not set.
    EnvMissing {
        /// The variable's name.
        name: String,
        /// The largest node number of the layout.
        max: u64,
    },
    /// The environment variable does not hold a node number as
    /// the canonical decimal rule reads it (no sign, no leading zero, no spaces).
    EnvInvalid {
        /// The variable's name.
        name: String,
        /// What it holds (lossily decoded if not Unicode).
        value: String,
        /// The largest node number of the layout.
        max: u64,
    },
    /// No interface has a private IPv4 address.
    NoPrivateIpv4 {
        /// Whether 100.64.0.0/10 (shared address space) was accepted too.
        shared_allowed: bool,
        /// The IPv4 addresses that were seen (none of them private).
        seen: Vec<Ipv4Addr>,
    },
    /// No interface has a private IPv4 address nor a unique-local IPv6 one (`fc00::/7`), with
    /// `PrivateIpv4::ipv6_fallback` (feature `ip`).
    ///
    /// ```
    /// use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    /// use snowmint::node::NodeError;
    /// let err = NodeError::NoPrivateIp {
    ///     shared_allowed: false,
    ///     seen: vec![IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7)), IpAddr::V6(Ipv6Addr::LOCALHOST)],
    /// };
    /// assert!(err.to_string().contains("or else an IPv6 one in fc00::/7 (unique local)"));
    /// assert!(err.to_string().ends_with("seen: 203.0.113.7, ::1"));
    /// ```
    NoPrivateIp {
        /// Whether 100.64.0.0/10 (shared address space) was accepted too.
        shared_allowed: bool,
        /// The addresses that were seen (none of them private or unique-local).
        seen: Vec<IpAddr>,
    },
    /// By Sonyflake v2's rule (`PrivateIpv4::sonyflake_v2`, feature `ip`), the address's low
    /// 16 bits do not fit the layout's node bits: Go's `New()` refuses such an address
    /// (`ErrInvalidMachineID`) rather than cut it.
    ///
    /// ```
    /// use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    /// use snowmint::node::NodeError;
    /// let err = NodeError::AddressOutOfRange {
    ///     address: IpAddr::V4(Ipv4Addr::new(10, 1, 4, 0)),
    ///     value: 1024,
    ///     max: 1023,
    ///     node_bits: 10,
    /// };
    /// assert_eq!(
    ///     err.to_string(),
    ///     "private IPv4 address 10.1.4.0 gives node 1024 (its low 16 bits, as Sonyflake v2 takes \
    ///      them), out of range: allowed 0 to 1023 (the layout's 10 node bits), which the \
    ///      addresses 10.1.0.0 to 10.1.3.255 give"
    /// );
    /// ```
    AddressOutOfRange {
        /// The address the number comes from.
        address: IpAddr,
        /// Its low 16 bits.
        value: u64,
        /// The largest node number of the layout.
        max: u64,
        /// The layout's node bits.
        node_bits: u8,
    },
    /// The interfaces could not be listed.
    Interfaces {
        /// The operating system's error.
        reason: String,
    },
    /// The hostname could not be read.
    Hostname {
        /// What went wrong.
        reason: String,
    },
    /// The hostname does not end in `-ORDINAL`.
    NoOrdinal {
        /// The hostname (its first label).
        hostname: String,
        /// The largest node number of the layout.
        max: u64,
    },
    /// A check hook added with [`NodeSource::with_check`](super::NodeSource::with_check)
    /// refused the number.
    Rejected {
        /// Where the number came from.
        source: String,
        /// The number.
        node: u64,
        /// The hook's reason.
        reason: String,
    },
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeError::OutOfRange {
                source,
                node,
                max,
                node_bits,
            } => write!(
                f,
                "node {node} from {source} is out of range: allowed 0 to {max} (the layout's {node_bits} node bits)"
            ),
            NodeError::EnvMissing { name, max } => write!(
                f,
                "environment variable {name} is not set: it must hold this process's node number, 0 to {max}"
            ),
            NodeError::EnvInvalid { name, value, max } => {
                write!(f, "environment variable {name} is ")?;
                quoted_prefix(f, value)?;
                write!(
                    f,
                    ", not a node number: it must be plain decimal digits (no sign, spaces or leading zeros) from 0 to {max}"
                )
            }
            NodeError::NoPrivateIpv4 {
                shared_allowed,
                seen,
            } => {
                f.write_str(
                    "no private IPv4 address on any interface: a node number from an address needs one in ",
                )?;
                ipv4_rule(f, *shared_allowed)?;
                seen_list(f, seen, "no IPv4 address was seen")
            }
            NodeError::NoPrivateIp {
                shared_allowed,
                seen,
            } => {
                f.write_str(
                    "no private IPv4 address nor unique-local IPv6 address on any interface: a node \
                     number from an address needs an IPv4 one in ",
                )?;
                ipv4_rule(f, *shared_allowed)?;
                f.write_str(", or else an IPv6 one in fc00::/7 (unique local)")?;
                seen_list(f, seen, "no address was seen")
            }
            NodeError::AddressOutOfRange {
                address,
                value,
                max,
                node_bits,
            } => {
                let (kind, first, last) = fitting_range(*address, *max);
                write!(
                    f,
                    "{kind} address {address} gives node {value} (its low 16 bits, as Sonyflake v2 takes them), \
                     out of range: allowed 0 to {max} (the layout's {node_bits} node bits), which the \
                     addresses {first} to {last} give"
                )
            }
            NodeError::Interfaces { reason } => {
                write!(f, "could not list network interfaces for a private IPv4 address: {reason}")
            }
            NodeError::Hostname { reason } => {
                write!(f, "could not read the hostname for a StatefulSet ordinal: {reason}")
            }
            NodeError::NoOrdinal { hostname, max } => {
                f.write_str("hostname ")?;
                quoted_prefix(f, hostname)?;
                write!(
                    f,
                    " is not a StatefulSet pod name: expected NAME-ORDINAL with a decimal ORDINAL from 0 to {max}"
                )
            }
            NodeError::Rejected {
                source,
                node,
                reason,
            } => write!(
                f,
                "node {node} from {source} was rejected by the check hook: {reason}"
            ),
        }
    }
}

/// The address's kind and the addresses of its /16 (IPv4) or /112 (IPv6) whose low 16 bits
/// are 0 to `max`.
fn fitting_range(address: IpAddr, max: u64) -> (&'static str, IpAddr, IpAddr) {
    let max = max.min(0xffff) as u16;
    match address {
        IpAddr::V4(a) => {
            let high = u32::from(a) & 0xffff_0000;
            (
                "private IPv4",
                IpAddr::V4(Ipv4Addr::from(high)),
                IpAddr::V4(Ipv4Addr::from(high | u32::from(max))),
            )
        }
        IpAddr::V6(a) => {
            let high = u128::from(a) & !0xffff;
            (
                "unique-local IPv6",
                IpAddr::V6(Ipv6Addr::from(high)),
                IpAddr::V6(Ipv6Addr::from(high | u128::from(max))),
            )
        }
    }
}

/// The IPv4 ranges a node number from an address accepts.
fn ipv4_rule(f: &mut fmt::Formatter<'_>, shared_allowed: bool) -> fmt::Result {
    f.write_str(
        "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918) or 169.254.0.0/16 (link-local)",
    )?;
    if shared_allowed {
        f.write_str(" or 100.64.0.0/10 (shared address space)")
    } else {
        f.write_str(" (100.64.0.0/10 only when asked: PrivateIpv4::allow_shared)")
    }
}

/// `; seen: a, b` (or `; {none}` for an empty list).
fn seen_list<A: fmt::Display>(f: &mut fmt::Formatter<'_>, seen: &[A], none: &str) -> fmt::Result {
    if seen.is_empty() {
        return write!(f, "; {none}");
    }
    f.write_str("; seen: ")?;
    for (i, a) in seen.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

/// The longest part of a value a message quotes, in characters.
const QUOTE_CHARS: usize = 64;

/// `value` quoted and escaped as a Rust string, cut after [`QUOTE_CHARS`] characters (with
/// the full length said), so that no value floods or rewrites a terminal.
fn quoted_prefix(f: &mut fmt::Formatter<'_>, value: &str) -> fmt::Result {
    match value.char_indices().nth(QUOTE_CHARS) {
        None => write!(f, "{value:?}"),
        Some((cut, _)) => write!(f, "{:?}... ({} bytes in all)", &value[..cut], value.len()),
    }
}

impl std::error::Error for NodeError {}
