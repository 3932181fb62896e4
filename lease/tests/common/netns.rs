//! A network namespace joined to this one by a veth pair, for partition tests: a child run
//! inside it reaches this machine only through the pair's host-side address, and
//! [`cut`](NetNs::cut) takes the link down (every packet between the two is dropped) until
//! [`heal`](NetNs::heal).
//!
//! The pair's addresses are a /30 of 10.231.0.0/16 not in use on this machine; the namespace
//! has no other route, so a child inside it can send only to the host side. The link is cut
//! on the namespace's side: the host side keeps its route to the /30 (flagged `linkdown`),
//! so replies to the cut-off child are dropped at the pair instead of taking another route.
//!
//! Needs root and `ip` (iproute2). Without them, a test is skipped with a message written
//! straight to stderr, unless `SNOWMINT_REQUIRE_NETNS=1` (CI sets it), when it fails. The
//! namespace and the pair are deleted on drop, also when the test panics.

#![allow(dead_code)]

#[path = "../../../tests/common/server.rs"]
mod server;

use std::ffi::OsStr;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

pub struct NetNs {
    name: String,
    host_if: String,
    ns_if: String,
    host_addr: String,
    ns_addr: String,
}

/// Runs `ip ARGS`; its stderr on failure.
fn ip<I, S>(args: I) -> Result<(), String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<S> = args.into_iter().collect();
    let out = Command::new("ip")
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        Err(format!(
            "ip {}: {}",
            shown.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn has_ip() -> bool {
    Command::new("ip")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn skip(test: &str, why: &str) -> Option<NetNs> {
    server::skip(
        test,
        &format!("{why} (network namespaces need root and iproute2)"),
        "SNOWMINT_REQUIRE_NETNS",
    );
    None
}

/// The IPv4 addresses on this machine's interfaces, as `ip -o -4 addr` prints them.
fn addresses_in_use() -> String {
    Command::new("ip")
        .args(["-o", "-4", "addr", "show"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

impl NetNs {
    /// A namespace with the pair up and addressed, or `None` (skipped) without root or `ip`.
    pub fn create(test: &str) -> Option<NetNs> {
        if !has_ip() {
            return skip(test, "`ip` is not installed");
        }
        if !is_root() {
            return skip(test, "not running as root");
        }
        static COUNT: AtomicU32 = AtomicU32::new(0);
        // Relaxed: only the values' uniqueness in this process matters.
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        // Interface names have at most 15 bytes: "sm" + up to 7 digits + a letter + a digit.
        let tag = format!("{}{}", pid % 10_000_000, n % 10);
        // A /30 of 10.231.0.0/16 picked from the process and the count, moved on while its
        // addresses are in use here (another test run, or anything else).
        let in_use = addresses_in_use();
        let mut block = (pid.wrapping_mul(7).wrapping_add(n.wrapping_mul(13))) % 16_384;
        let (host_addr, ns_addr) = loop {
            let base = block * 4;
            let (hi, lo) = (base / 256, base % 256);
            let host = format!("10.231.{hi}.{}", lo + 1);
            let ns = format!("10.231.{hi}.{}", lo + 2);
            if !in_use.contains(&format!("inet {host}/"))
                && !in_use.contains(&format!("inet {ns}/"))
            {
                break (host, ns);
            }
            block = (block + 1) % 16_384;
        };
        let net = NetNs {
            name: format!("snowmint-{tag}"),
            host_if: format!("sm{tag}h"),
            ns_if: format!("sm{tag}n"),
            host_addr,
            ns_addr,
        };
        // Built before the first command, so that a failure half-way is cleaned up.
        if let Err(e) = net.set_up() {
            let why = format!("could not set up a network namespace: {e}");
            drop(net);
            return skip(test, &why);
        }
        Some(net)
    }

    fn set_up(&self) -> Result<(), String> {
        let (name, host_if, ns_if) = (&self.name, &self.host_if, &self.ns_if);
        ip(["netns", "add", name])?;
        ip([
            "link", "add", host_if, "type", "veth", "peer", "name", ns_if,
        ])?;
        ip(["link", "set", ns_if, "netns", name])?;
        ip([
            "addr",
            "add",
            &format!("{}/30", self.host_addr),
            "dev",
            host_if,
        ])?;
        ip(["link", "set", host_if, "up"])?;
        ip([
            "-n",
            name,
            "addr",
            "add",
            &format!("{}/30", self.ns_addr),
            "dev",
            ns_if,
        ])?;
        ip(["-n", name, "link", "set", ns_if, "up"])?;
        ip(["-n", name, "link", "set", "lo", "up"])?;
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The host side's address: what a child inside the namespace connects to.
    pub fn host_addr(&self) -> &str {
        &self.host_addr
    }

    /// The namespace side's address.
    pub fn ns_addr(&self) -> &str {
        &self.ns_addr
    }

    /// A command running `program` inside the namespace (`ip netns exec NAME program`,
    /// which execs it: the child's pid is the program's).
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.name]).arg(program);
        c
    }

    /// Takes the link down: nothing passes between the namespace and this machine.
    pub fn cut(&self) {
        ip(["-n", &self.name, "link", "set", &self.ns_if, "down"]).expect("cut the link");
    }

    /// Brings the link up again.
    pub fn heal(&self) {
        ip(["-n", &self.name, "link", "set", &self.ns_if, "up"]).expect("heal the link");
    }
}

impl Drop for NetNs {
    fn drop(&mut self) {
        // Deleting the namespace destroys its end of the pair, and with it the host's end;
        // the second command covers a namespace that never got its end.
        let _ = ip(["netns", "del", &self.name]);
        let _ = ip(["link", "del", &self.host_if]);
    }
}
