//! The etcd driver: a 3-member cluster (`tests/common/etcd.rs`) whose client ports listen
//! on loopback and on the store's address; `etcdctl` for the wipe, the backup and the
//! restore.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::etcd_cluster::EtcdCluster;
use crate::schedule::Abilities;
use crate::settings::NAMESPACE;
use crate::store::StoreDriver;

pub struct Etcd(EtcdCluster);

impl Etcd {
    /// A running cluster, or `None` if etcd is not installed (and not required).
    pub fn start(store_addr: &str) -> Option<Etcd> {
        EtcdCluster::start_with("nemesis", Some(store_addr)).map(Etcd)
    }
}

impl StoreDriver for Etcd {
    fn url_on(&self, host: &str) -> String {
        self.0.url_on(host)
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            leader: true,
            standby: false,
        }
    }

    fn restart(&mut self, down: Duration) -> Option<(u64, u64)> {
        for i in 0..3 {
            self.0.kill(i);
            std::thread::sleep(down / 3);
            self.0.restart(i);
        }
        None
    }

    fn wipe(&mut self) {
        let out = Command::new("etcdctl")
            .env("ETCDCTL_API", "3")
            .args(["--endpoints", &self.0.endpoints().join(",")])
            .args(["del", "--prefix", &format!("snowmint/{NAMESPACE}/")])
            .stdin(Stdio::null())
            .output()
            .expect("run etcdctl");
        assert!(
            out.status.success(),
            "etcdctl del --prefix: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn snapshot(&mut self) -> PathBuf {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        // Relaxed: only the names' uniqueness matters.
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.snapshot_save(&format!("backup-{n}"))
    }

    fn restore(&mut self, from: &Path) {
        self.0.restore_all_from(from);
    }

    fn kill_leader(&mut self) -> Option<usize> {
        let leader = self.0.leader();
        self.0.kill(leader);
        Some(leader)
    }

    fn restart_member(&mut self, i: usize) {
        self.0.restart(i);
    }
}
