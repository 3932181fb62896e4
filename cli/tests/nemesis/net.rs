//! The network of a run: the store listens on one address of its own (on an interface of its own,
//! besides loopback), and each server slot runs in a network namespace of its own
//! (`tests/common/netns.rs`: a veth pair) with a route to that address. Cutting a slot off
//! replaces its route with a blackhole: its packets to the store are dropped while the
//! clients still reach it over the pair. Everything is deleted on drop, also on a panic.

use std::process::{Command, Stdio};
use std::sync::Mutex;

use crate::netns::NetNs;

/// Runs `ip ARGS`; its stderr on failure.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The store's own address: a /32 on an interface of this run.
pub struct StoreAddr {
    link: String,
    pub addr: String,
}

impl StoreAddr {
    /// A free address of 10.232.0.0/16 on a new interface, or why not.
    pub fn create() -> Result<StoreAddr, String> {
        let pid = std::process::id();
        let in_use = String::from_utf8_lossy(
            &Command::new("ip")
                .args(["-o", "-4", "addr", "show"])
                .output()
                .map_err(|e| e.to_string())?
                .stdout,
        )
        .into_owned();
        let mut n = pid % 60_000;
        let addr = loop {
            let a = format!("10.232.{}.{}", n / 250, n % 250 + 1);
            if !in_use.contains(&format!("inet {a}/")) {
                break a;
            }
            n = (n + 1) % 60_000;
        };
        let store = StoreAddr {
            link: format!("smd{}", pid % 10_000_000),
            addr,
        };
        // A veth pair with both ends here (this kernel may lack the dummy device): the
        // address on one end, both up.
        let peer = format!("{}p", store.link);
        ip(&[
            "link",
            "add",
            &store.link,
            "type",
            "veth",
            "peer",
            "name",
            &peer,
        ])?;
        ip(&[
            "addr",
            "add",
            &format!("{}/32", store.addr),
            "dev",
            &store.link,
        ])?;
        ip(&["link", "set", &store.link, "up"])?;
        ip(&["link", "set", &peer, "up"])?;
        Ok(store)
    }
}

impl Drop for StoreAddr {
    fn drop(&mut self) {
        let _ = ip(&["link", "del", &self.link]);
    }
}

/// One slot's namespace: its route to the store, cut while any fault holds it cut.
pub struct Cell {
    pub net: NetNs,
    store: String,
    /// How many faults hold the route cut now (a partition and a restore may overlap).
    cuts: Mutex<u32>,
}

impl Cell {
    /// A namespace routed to `store`, or why not.
    pub fn create(test: &str, store: &StoreAddr) -> Result<Cell, String> {
        let net = NetNs::create(test).ok_or("no network namespace (root and iproute2)")?;
        let cell = Cell {
            net,
            store: format!("{}/32", store.addr),
            cuts: Mutex::new(0),
        };
        cell.route()?;
        Ok(cell)
    }

    fn route(&self) -> Result<(), String> {
        ip(&[
            "-n",
            self.net.name(),
            "route",
            "replace",
            &self.store,
            "via",
            self.net.host_addr(),
        ])
    }

    /// One more fault cuts the slot off (the route blackholed from the first).
    pub fn cut(&self) {
        let mut cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
        *cuts += 1;
        if *cuts == 1 {
            ip(&[
                "-n",
                self.net.name(),
                "route",
                "replace",
                "blackhole",
                &self.store,
            ])
            .expect("blackhole the route to the store");
        }
    }

    /// One fault fewer: the route back once none holds it.
    pub fn heal(&self) {
        let mut cuts = self.cuts.lock().unwrap_or_else(|e| e.into_inner());
        *cuts = cuts.saturating_sub(1);
        if *cuts == 0 {
            self.route().expect("route to the store again");
        }
    }
}
