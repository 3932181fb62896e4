//! The PostgreSQL driver: a primary and a streaming standby (`pg_basebackup -R`), throw-away
//! clusters (`lease/tests/common/pg_cluster.rs`) with `fsync` on, listening on loopback and
//! on the store's address. The servers' URL names both hosts (`postgres://…@A,B/…`), and the
//! lease connects to the read-write one, so that a promoted standby is found as an operator's
//! fail-over would be. `psql` for the wipe; a base backup for the snapshot, copied back over
//! the primary's data directory for the restore (crash recovery on the same system and
//! timeline: what the lease cannot detect, hence the operator's `raise-floor` after it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::pg_cluster::Cluster;
use crate::schedule::Abilities;
use crate::settings::wall_nanos;
use crate::store::StoreDriver;

pub struct Pg {
    primary: Cluster,
    /// Streaming from the primary; none only while it is made again.
    standby: Option<Cluster>,
    /// The base backups taken (their directories deleted at the end).
    backups: Vec<Cluster>,
    /// How many clusters were made, for their directories' names.
    made: u32,
}

impl Pg {
    /// A primary and its standby, or `None` if PostgreSQL is not installed (and not required).
    pub fn start(store_addr: &str) -> Option<Pg> {
        let listen = format!("127.0.0.1,{store_addr}");
        let primary = Cluster::start(
            "nemesis",
            &[("listen_addresses", listen.as_str())],
            "host all all 0.0.0.0/0 trust",
        )?;
        let mut pg = Pg {
            primary,
            standby: None,
            backups: Vec::new(),
            made: 0,
        };
        pg.make_standby(free_port());
        Some(pg)
    }

    /// A new standby of the primary on `port`, started and streaming.
    fn make_standby(&mut self, port: u16) {
        self.made += 1;
        let standby =
            self.primary
                .base_backup_on(&format!("nemesis-standby-{}", self.made), true, port);
        standby.start_again();
        standby.wait_for("SELECT pg_is_in_recovery()", "t");
        self.standby = Some(standby);
    }

    fn ports(&self) -> (u16, u16) {
        let other = self.standby.as_ref().map_or(0, |s| s.port);
        (self.primary.port, other)
    }
}

/// A free loopback port (the store's own address has every port free).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind a loopback port")
}

impl StoreDriver for Pg {
    fn url_on(&self, host: &str) -> String {
        // The two ports in a fixed order, whichever is the primary now.
        let (a, b) = self.ports();
        let (first, second) = (a.min(b), a.max(b));
        format!("postgres://postgres@{host}:{first},{host}:{second}/postgres")
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            leader: false,
            standby: true,
        }
    }

    fn restart(&mut self, down: Duration) -> Option<(u64, u64)> {
        // The primary crashes (kill -9) and is started again from its data after `down`; the
        // standby reconnects by itself.
        self.primary.kill9();
        let from = wall_nanos();
        std::thread::sleep(down);
        let to = wall_nanos();
        self.primary.start_again();
        Some((from, to))
    }

    fn wipe(&mut self) {
        self.primary
            .psql("DELETE FROM snowmint_lease_node; DELETE FROM snowmint_lease_namespace");
    }

    fn snapshot(&mut self) -> PathBuf {
        self.made += 1;
        let backup = self
            .primary
            .base_backup(&format!("nemesis-backup-{}", self.made), false);
        let data = backup.data().to_path_buf();
        self.backups.push(backup);
        data
    }

    fn restore(&mut self, from: &Path) {
        // Both servers stopped; the primary's data replaced by the backup's, started (it
        // replays the backup's WAL and comes up on the backup's timeline); a new standby.
        let standby_port = self.standby.take().map(|s| s.port);
        self.primary.stop("immediate");
        let data = self.primary.data();
        std::fs::remove_dir_all(data).expect("remove the primary's data");
        let out = Command::new("cp")
            .arg("-a")
            .arg(from)
            .arg(data)
            .output()
            .expect("run cp");
        assert!(
            out.status.success(),
            "cp -a {} {}: {}",
            from.display(),
            data.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        self.primary.own(data);
        self.primary.start_again();
        if let Some(port) = standby_port {
            self.make_standby(port);
        }
    }

    fn kill_leader(&mut self) -> Option<usize> {
        None
    }

    fn restart_member(&mut self, _: usize) {}

    fn promote(&mut self) -> Option<(u64, u64)> {
        // The fail-over: the primary dies (kill -9, renewals in flight, commits the standby
        // has not received lost), the standby is promoted (a new timeline), and a new
        // standby is made of it on the dead primary's port.
        let standby = self.standby.take()?;
        self.primary.kill9();
        let from = wall_nanos();
        standby.promote();
        standby.wait_for("SELECT pg_is_in_recovery()", "f");
        let to = wall_nanos();
        let old = std::mem::replace(&mut self.primary, standby);
        let port = old.port;
        drop(old);
        self.make_standby(port);
        Some((from, to))
    }
}
