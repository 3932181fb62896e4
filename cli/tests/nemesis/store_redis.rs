//! The Redis driver: one redis-server without persistence (`tests/common/redis.rs`),
//! listening on loopback and on the store's address; `redis-cli` for the wipe.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::redis_server::RedisServer;
use crate::schedule::Abilities;
use crate::settings::wall_nanos;
use crate::store::StoreDriver;

pub struct Redis(RedisServer);

impl Redis {
    /// A running server, or `None` if redis-server is not installed (and not required).
    pub fn start(store_addr: &str) -> Option<Redis> {
        RedisServer::start_on("nemesis", Some(store_addr)).map(Redis)
    }
}

impl StoreDriver for Redis {
    fn url_on(&self, host: &str) -> String {
        self.0.url_on(host)
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            leader: false,
            standby: false,
        }
    }

    fn restart(&mut self, down: Duration) -> Option<(u64, u64)> {
        // From when the process was gone until its new one was started.
        self.0.kill();
        let from = wall_nanos();
        std::thread::sleep(down);
        let to = wall_nanos();
        self.0.restart();
        Some((from, to))
    }

    fn wipe(&mut self) {
        let out = Command::new("redis-cli")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.0.port().to_string(),
                "FLUSHALL",
            ])
            .stdin(Stdio::null())
            .output()
            .expect("run redis-cli");
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "OK",
            "redis-cli FLUSHALL: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn snapshot(&mut self) -> PathBuf {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        // Relaxed: only the names' uniqueness matters.
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.0.snapshot(&format!("backup-{n}"))
    }

    fn restore(&mut self, from: &Path) {
        self.0.restart_from(from);
    }

    fn kill_leader(&mut self) -> Option<usize> {
        None
    }

    fn restart_member(&mut self, _: usize) {}
}
