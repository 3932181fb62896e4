//! `--node N` and `--node-from env|ip|ip-sonyflake-v2|hostname`: the node number of minted or
//! composed IDs.
//!
//! Every rule (decimal variable, private address ranges, StatefulSet ordinal, the layout's
//! node range) is the library's, in `snowmint::node`; this module picks the provider, names
//! the flag in its errors and chooses the exit status.

use clap::ValueEnum;
use snowmint::node::{self, NodeError, NodeSource, PrivateIpv4};
use snowmint::Layout;

use crate::error::CliError;
use crate::escape::quoted;
use crate::value;

/// The environment variable `--node-from env` reads.
pub const NODE_ENV: &str = "SNOWMINT_NODE";

/// Where the node number comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NodeFrom {
    /// The decimal number in the SNOWMINT_NODE environment variable.
    Env,
    /// The low node bits of the machine's first private IPv4 address, as Sonyflake does:
    /// the first listed in RFC 1918 (10/8, 172.16/12, 192.168/16) or link-local 169.254/16;
    /// 100.64/10 only with --allow-shared. Unique only among machines whose addresses differ in those bits
    /// (one /22 for Twitter's 10).
    Ip,
    /// Sonyflake v2's New(): the low 16 bits of that address whatever the layout's node
    /// bits, refused (exit 2) when they do not fit fewer, where ip would cut them
    IpSonyflakeV2,
    /// The trailing number of the host name, as a Kubernetes StatefulSet's pod `web-3` has.
    Hostname,
}

/// The node options shared by `gen` and `compose`.
#[derive(Debug, Clone, clap::Args)]
pub struct NodeArgs {
    /// The node (machine, worker, shard) number: plain decimal digits, 0 to the layout's
    /// largest (1023 for twitter) [default: 0]
    #[arg(long, value_name = "N", conflicts_with = "node_from", value_parser = value::text(node_number))]
    pub node: Option<u64>,

    /// Take the node number from the environment, the network or the host name
    #[arg(long, value_name = "SOURCE", value_parser = value::choice::<NodeFrom>())]
    pub node_from: Option<NodeFrom>,

    /// With --node-from ip: accept 100.64.0.0/10 too (RFC 6598 shared address space, which
    /// some clusters give pods)
    #[arg(long, requires = "node_from")]
    pub allow_shared: bool,
}

impl NodeArgs {
    /// The node number, checked against the layout.
    pub fn resolve(&self, layout: &Layout) -> Result<u64, CliError> {
        let from_ip = matches!(self.node_from, Some(NodeFrom::Ip | NodeFrom::IpSonyflakeV2));
        if self.allow_shared && !from_ip {
            return Err(CliError::input(
                "--allow-shared applies only to --node-from ip or ip-sonyflake-v2",
            ));
        }
        let (flag, result) = match self.node_from {
            // The source's description names the flag already.
            None => ("", NodeFlag(self.node.unwrap_or(0)).node(layout)),
            Some(NodeFrom::Env) => (
                "--node-from env: ",
                node::EnvVar::new(NODE_ENV).node(layout),
            ),
            Some(NodeFrom::Ip) => ("--node-from ip: ", self.ip_source().node(layout)),
            Some(NodeFrom::IpSonyflakeV2) => (
                "--node-from ip-sonyflake-v2: ",
                self.ip_source().sonyflake_v2(true).node(layout),
            ),
            Some(NodeFrom::Hostname) => (
                "--node-from hostname: ",
                node::StatefulSetOrdinal::new().node(layout),
            ),
        };
        result.map_err(|err| cli_error(flag, &err))
    }

    fn ip_source(&self) -> PrivateIpv4 {
        node::PrivateIpv4::new().allow_shared(self.allow_shared)
    }
}

/// A node number as `--node` takes it: the one rule ([`value::parse_number`]), the
/// same as for `SNOWMINT_NODE`.
fn node_number(text: &str) -> Result<u64, String> {
    value::parse_number(text).ok_or_else(|| {
        format!(
            "{} is not a node number: expected plain decimal digits (no sign, spaces or leading zeros)",
            quoted(text)
        )
    })
}

/// `--node N`: a fixed number whose errors name the flag.
struct NodeFlag(u64);

impl NodeSource for NodeFlag {
    fn read(&self, _layout: &Layout) -> Result<u64, NodeError> {
        Ok(self.0)
    }

    fn describe(&self) -> String {
        "--node".to_owned()
    }
}

/// A provider's error as the CLI reports it: exit status 2 when the number given is wrong
/// (out of range, not a number, not set), 1 when the machine lacks what the source needs.
fn cli_error(flag: &str, err: &NodeError) -> CliError {
    match err {
        NodeError::OutOfRange { .. }
        | NodeError::EnvMissing { .. }
        | NodeError::EnvInvalid { .. }
        | NodeError::Rejected { .. } => CliError::input(format_args!("{flag}{err}")),
        NodeError::AddressOutOfRange { .. } => CliError::input(format_args!(
            "{flag}{err}; a layout with 16 node bits or more takes it, --node-from ip takes \
             the low node bits instead"
        )),
        NodeError::NoPrivateIpv4 {
            shared_allowed: false,
            ..
        } => CliError::system(format_args!(
            "{flag}{err}; --allow-shared accepts 100.64.0.0/10, or use --node N or --node-from env"
        )),
        // NoPrivateIpv4, Interfaces, Hostname, NoOrdinal, and any later variant.
        _ => CliError::system(format_args!(
            "{flag}{err}; use --node N or --node-from env instead"
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use clap::Parser;

    use super::*;
    use crate::error::Kind;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        node: NodeArgs,
    }

    fn args(list: &[&str]) -> Result<NodeArgs, clap::Error> {
        let argv = std::iter::once("test").chain(list.iter().copied());
        Cli::try_parse_from(argv).map(|cli| cli.node)
    }

    #[test]
    fn the_node_flag_defaults_to_zero_and_names_itself_when_out_of_range() {
        assert_eq!(args(&[]).unwrap().resolve(&Layout::TWITTER).unwrap(), 0);
        let max = args(&["--node", "1023"]).unwrap();
        assert_eq!(max.resolve(&Layout::TWITTER).unwrap(), 1023);
        let err = args(&["--node", "1024"])
            .unwrap()
            .resolve(&Layout::TWITTER)
            .unwrap_err();
        assert_eq!(err.kind(), Kind::Input);
        assert_eq!(
            err.message(),
            "node 1024 from --node is out of range: allowed 0 to 1023 (the layout's 10 node bits)"
        );
        // The same number fits Sonyflake's 16 node bits.
        let wide = args(&["--node", "1024"]).unwrap();
        assert_eq!(wide.resolve(&Layout::SONYFLAKE).unwrap(), 1024);
    }

    #[test]
    fn node_numbers_follow_one_rule() {
        assert_eq!(args(&["--node", "7"]).unwrap().node, Some(7));
        assert_eq!(args(&["--node", "0"]).unwrap().node, Some(0));
        for bad in ["+7", " 7", "07", "7 ", "-1", "0x7", ""] {
            let flag = format!("--node={bad}");
            let err = args(&[&flag]).unwrap_err().to_string();
            assert!(err.contains("is not a node number"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn flag_combinations_are_checked() {
        assert!(args(&["--node", "1", "--node-from", "env"]).is_err());
        assert!(args(&["--allow-shared"]).is_err(), "needs --node-from");
        for from in ["env", "hostname"] {
            let err = args(&["--node-from", from, "--allow-shared"])
                .unwrap()
                .resolve(&Layout::TWITTER)
                .unwrap_err();
            assert_eq!(err.kind(), Kind::Input, "{from}");
            assert!(
                err.message()
                    .contains("only to --node-from ip or ip-sonyflake-v2"),
                "{from}"
            );
        }
    }

    #[test]
    fn allow_shared_reaches_the_ip_provider() {
        let shared = [Ipv4Addr::new(203, 0, 113, 1), Ipv4Addr::new(100, 100, 7, 9)];
        let on = args(&["--node-from", "ip", "--allow-shared"]).unwrap();
        let from_shared = on.ip_source().from_addrs(shared).node(&Layout::SONYFLAKE);
        assert_eq!(from_shared, Ok(7 << 8 | 9));
        let off = args(&["--node-from", "ip"]).unwrap();
        let err = off
            .ip_source()
            .from_addrs(shared)
            .node(&Layout::SONYFLAKE)
            .unwrap_err();
        let cli = cli_error("--node-from ip: ", &err);
        assert_eq!(cli.kind(), Kind::System);
        assert!(cli.message().starts_with("--node-from ip: no private IPv4"));
        assert!(cli
            .message()
            .contains("--allow-shared accepts 100.64.0.0/10"));
    }

    #[test]
    fn the_sonyflake_v2_rule_takes_16_bits_and_refuses_what_does_not_fit() {
        let v2 = args(&["--node-from", "ip-sonyflake-v2"]).unwrap();
        assert_eq!(v2.node_from, Some(NodeFrom::IpSonyflakeV2));
        let bits = |n: u8| {
            Layout::SONYFLAKE_V2
                .to_builder()
                .node_bits(n)
                .time_bits(63 - 8 - n)
                .build()
                .unwrap()
        };
        let source = |addr: Ipv4Addr| v2.ip_source().sonyflake_v2(true).from_addrs([addr]);
        // Go's New() with BitsMachineID 10: 10.1.3.255 is 1023, 10.1.4.0 (1024) is refused,
        // where --node-from ip keeps its low 10 bits (0).
        let ten = bits(10);
        assert_eq!(source(Ipv4Addr::new(10, 1, 3, 255)).node(&ten), Ok(1023));
        let err = source(Ipv4Addr::new(10, 1, 4, 0)).node(&ten).unwrap_err();
        let cli = cli_error("--node-from ip-sonyflake-v2: ", &err);
        assert_eq!(cli.kind(), Kind::Input);
        assert!(
            cli.message().contains("16 node bits or more"),
            "{}",
            cli.message()
        );
        let cut = v2.ip_source().from_addrs([Ipv4Addr::new(10, 1, 4, 0)]);
        assert_eq!(cut.node(&ten), Ok(0));
        // With 20 machine bits Go still takes 16: 10.17.4.1 is 0x0401, not 0x10401.
        let wide = source(Ipv4Addr::new(10, 17, 4, 1)).node(&bits(20));
        assert_eq!(wide, Ok(0x0401));
        let err = args(&["--node-from", "ip-sonyflake-v2", "--allow-shared"])
            .unwrap()
            .resolve(&Layout::TWITTER);
        assert!(
            !matches!(&err, Err(e) if e.message().contains("applies only")),
            "--allow-shared goes with it"
        );
    }

    #[test]
    fn bad_numbers_exit_2_and_missing_machine_facts_exit_1() {
        let twitter = Layout::TWITTER;
        let input = [
            node::Fixed(5_000).node(&twitter).unwrap_err(),
            node::EnvVar::new("SNOWMINT_CLI_TEST_NEVER_SET")
                .node(&twitter)
                .unwrap_err(),
            NodeError::EnvInvalid {
                name: NODE_ENV.to_owned(),
                value: "five".to_owned(),
                max: 1023,
            },
        ];
        let system = [
            node::StatefulSetOrdinal::from_hostname("vm")
                .node(&twitter)
                .unwrap_err(),
            node::PrivateIpv4::new()
                .from_addrs([Ipv4Addr::LOCALHOST])
                .node(&twitter)
                .unwrap_err(),
            NodeError::Interfaces {
                reason: "denied".to_owned(),
            },
            NodeError::Hostname {
                reason: "unset".to_owned(),
            },
        ];
        for (errors, kind) in [(&input[..], Kind::Input), (&system[..], Kind::System)] {
            for err in errors {
                let cli = cli_error("--node-from x: ", err);
                assert_eq!(cli.kind(), kind, "{err}");
                // The library's message, naming the rule, follows the flag unchanged.
                assert!(
                    cli.message().starts_with(&format!("--node-from x: {err}")),
                    "{}",
                    cli.message()
                );
            }
        }
    }
}
