//! `--node N` and `--node-from env|ip|hostname`: the node number of minted or composed IDs.
//!
//! Kept in the binary on purpose: the library is to grow node-ID providers of its own, and
//! this module is the one to swap for them then.

use std::net::Ipv4Addr;

use clap::ValueEnum;

use crate::error::CliError;
use crate::layout_arg::NamedLayout;

/// The environment variable `--node-from env` reads.
pub const NODE_ENV: &str = "SNOWMINT_NODE";

/// Where the node number comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NodeFrom {
    /// The decimal number in the SNOWMINT_NODE environment variable.
    Env,
    /// The low node bits of the machine's first private IPv4 address (10/8, 172.16/12,
    /// 192.168/16, 100.64/10; else link-local 169.254/16), as Sonyflake does. Unique only
    /// among machines whose addresses differ in those bits (one /22 for Twitter's 10).
    Ip,
    /// The trailing number of the host name, as a Kubernetes StatefulSet's pod `web-3` has.
    Hostname,
}

/// The node options shared by `gen` and `compose`.
#[derive(Debug, Clone, clap::Args)]
pub struct NodeArgs {
    /// The node (machine, worker, shard) number: 0 to the layout's largest (1023 for
    /// twitter) [default: 0]
    #[arg(long, value_name = "N", conflicts_with = "node_from")]
    pub node: Option<u64>,

    /// Take the node number from the environment, the network or the host name
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub node_from: Option<NodeFrom>,
}

impl NodeArgs {
    /// The node number, checked against the layout.
    pub fn resolve(&self, layout: &NamedLayout) -> Result<u64, CliError> {
        let max = layout.layout.max_node();
        let (node, source) = match (self.node, self.node_from) {
            (Some(node), _) => (node, "--node".to_owned()),
            (None, None) => (0, "--node".to_owned()),
            (None, Some(NodeFrom::Env)) => {
                (from_env(std::env::var_os(NODE_ENV))?, NODE_ENV.to_owned())
            }
            (None, Some(NodeFrom::Ip)) => {
                let ip = private_ipv4()?;
                // The low bits only: `max` is 2^node_bits - 1, a mask.
                (
                    u64::from(u32::from(ip)) & max,
                    format!("--node-from ip ({ip})"),
                )
            }
            (None, Some(NodeFrom::Hostname)) => {
                let name = gethostname::gethostname();
                let name = name.to_string_lossy();
                (ordinal(&name)?, format!("--node-from hostname ({name})"))
            }
        };
        if node > max {
            return Err(CliError::input(format_args!(
                "{source}: node {node} is out of range: allowed 0 to {max} ({layout} has {} node bits)",
                layout.layout.node_bits()
            )));
        }
        Ok(node)
    }
}

fn from_env(value: Option<std::ffi::OsString>) -> Result<u64, CliError> {
    let value = value.ok_or_else(|| {
        CliError::input(format_args!(
            "--node-from env: {NODE_ENV} is not set: set it to the node number"
        ))
    })?;
    let text = value.to_string_lossy();
    text.trim().parse::<u64>().map_err(|_| {
        CliError::input(format_args!(
            "--node-from env: {NODE_ENV}='{text}' is not a node number: expected a decimal integer from 0"
        ))
    })
}

/// The first private IPv4 address of the machine's interfaces.
fn private_ipv4() -> Result<Ipv4Addr, CliError> {
    let interfaces = if_addrs::get_if_addrs().map_err(|e| {
        CliError::system(format_args!(
            "--node-from ip: cannot list network interfaces: {e}"
        ))
    })?;
    let v4 = interfaces.iter().filter_map(|i| match i.ip() {
        std::net::IpAddr::V4(ip) => Some(ip),
        std::net::IpAddr::V6(_) => None,
    });
    let all: Vec<Ipv4Addr> = v4.collect();
    pick_private(&all).ok_or_else(|| {
        let seen: Vec<String> = all.iter().map(ToString::to_string).collect();
        CliError::system(format_args!(
            "--node-from ip: no private IPv4 address (10/8, 172.16/12, 192.168/16, 100.64/10 or \
             169.254/16) on this machine (found: {}): use --node or --node-from env",
            if seen.is_empty() {
                "none".to_owned()
            } else {
                seen.join(", ")
            }
        ))
    })
}

/// The first RFC 1918 or RFC 6598 (100.64/10, carrier-grade NAT, used by some clusters)
/// address, else the first link-local one (assigned per link, so a last resort).
fn pick_private(addrs: &[Ipv4Addr]) -> Option<Ipv4Addr> {
    let shared = |ip: &Ipv4Addr| ip.octets()[0] == 100 && (ip.octets()[1] & 0xc0) == 64;
    addrs
        .iter()
        .find(|ip| ip.is_private() || shared(ip))
        .or_else(|| addrs.iter().find(|ip| ip.is_link_local()))
        .copied()
}

/// The StatefulSet ordinal: the digits after the last `-` of a host name (`web-3` is 3).
fn ordinal(hostname: &str) -> Result<u64, CliError> {
    let fail = |why: &str| {
        CliError::system(format_args!(
            "--node-from hostname: host name '{hostname}' {why}: expected NAME-N as a StatefulSet pod has (web-3 is node 3)"
        ))
    };
    // A fully qualified name (web-3.web.default.svc) carries the ordinal in its first label.
    let label = hostname.split('.').next().unwrap_or(hostname);
    let digits = label
        .rsplit_once('-')
        .map(|(_, d)| d)
        .ok_or_else(|| fail("has no '-'"))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(fail("does not end in a number"));
    }
    digits
        .parse()
        .map_err(|_| fail("ends in a number too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_addresses_win_over_link_local_and_public_ones_never() {
        let ip = |s: &str| s.parse::<Ipv4Addr>().unwrap();
        let public = ip("192.0.2.2");
        let link = ip("169.254.1.2");
        assert_eq!(
            pick_private(&[public, link, ip("10.1.2.3")]),
            Some(ip("10.1.2.3"))
        );
        assert_eq!(
            pick_private(&[ip("172.20.0.5"), ip("192.168.1.9")]),
            Some(ip("172.20.0.5"))
        );
        assert_eq!(
            pick_private(&[public, ip("100.100.0.1")]),
            Some(ip("100.100.0.1"))
        );
        assert_eq!(pick_private(&[public, link]), Some(link));
        assert_eq!(
            pick_private(&[public, ip("127.0.0.1"), ip("100.128.0.1"), ip("172.32.0.1")]),
            None
        );
        assert_eq!(pick_private(&[]), None);
    }

    #[test]
    fn statefulset_ordinals_come_from_the_first_label() {
        assert_eq!(ordinal("web-3").unwrap(), 3);
        assert_eq!(ordinal("my-app-db-12").unwrap(), 12);
        assert_eq!(ordinal("web-7.web.default.svc.cluster.local").unwrap(), 7);
        for bad in [
            "vm",
            "web-",
            "web-x",
            "web-3a",
            "web-99999999999999999999999",
        ] {
            assert!(ordinal(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn env_values_are_decimal_numbers() {
        assert_eq!(from_env(Some("42".into())).unwrap(), 42);
        assert_eq!(from_env(Some(" 7\n".into())).unwrap(), 7);
        assert!(from_env(None).is_err());
        assert!(from_env(Some("-1".into())).is_err());
        assert!(from_env(Some("seven".into())).is_err());
    }
}
