//! Throw-away PostgreSQL clusters the lease's tests can crash, restart, copy and promote:
//! `initdb` and `pg_ctl` (as the `postgres` user when root), on a free loopback port, the
//! data, socket and log in a scratch directory removed when the cluster is dropped. Unlike
//! `postgres.rs`'s shared server, each test makes its own, with `fsync` on (the lease
//! vouches only for a server that flushes).
//!
//! Without the binaries a test is skipped (a message on stderr), or fails when
//! `SNOWMINT_REQUIRE_POSTGRES=1`.

#![allow(dead_code)]

#[path = "../../../tests/common/server.rs"]
mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One cluster, stopped (`-m immediate`) and deleted when dropped.
pub struct Cluster {
    dir: PathBuf,
    data: PathBuf,
    bin: PathBuf,
    as_root: bool,
    pub port: u16,
    /// The `postgres -c` settings it is started with.
    opts: String,
}

/// The directory holding `initdb`, `pg_ctl`, `psql`, `pg_basebackup`: `$SNOWMINT_PG_BIN`, else
/// Debian's newest `/usr/lib/postgresql/*/bin`.
fn bin_dir() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_basebackup").is_file();
    if let Ok(d) = std::env::var("SNOWMINT_PG_BIN") {
        return Some(PathBuf::from(d)).filter(|d| has(d));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, d)| has(d))
        .collect();
    found.sort();
    found.pop().map(|(_, d)| d)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

impl Cluster {
    /// A new cluster for `test` with these settings and `pg_hba.conf` lines (local socket
    /// connections are always trusted), started; `None` (skipped) without the binaries.
    pub fn start(test: &str, settings: &[(&str, &str)], hba: &str) -> Option<Cluster> {
        let Some(bin) = bin_dir() else {
            server::skip(
                test,
                "no PostgreSQL binaries (install Debian's postgresql, or set SNOWMINT_PG_BIN)",
                "SNOWMINT_REQUIRE_POSTGRES",
            );
            return None;
        };
        let dir = server::scratch_dir("pg-lease", test);
        let cluster = Cluster::empty(bin, dir, settings, server::free_port());
        cluster.make_dir(&cluster.dir);
        cluster.make_dir(&cluster.dir.join("sock"));
        cluster.make_dir(&cluster.dir.join("archive"));
        let out = cluster
            .cmd("initdb")
            .args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(&cluster.data)
            .output()
            .expect("run initdb");
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        cluster.write_hba(hba);
        cluster.start_again();
        Some(cluster)
    }

    fn empty(bin: PathBuf, dir: PathBuf, settings: &[(&str, &str)], port: u16) -> Cluster {
        let mut opts = format!(
            "-c port={port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={}",
            dir.join("sock").display()
        );
        for (k, v) in settings {
            opts.push_str(&format!(" -c {k}={v}"));
        }
        Cluster {
            data: dir.join("data"),
            dir,
            bin,
            as_root: is_root(),
            port,
            opts,
        }
    }

    fn make_dir(&self, d: &Path) {
        std::fs::create_dir_all(d).expect("scratch dir");
        self.own(d);
    }

    /// Gives `path` to the `postgres` user when we are root.
    pub fn own(&self, path: &Path) {
        if self.as_root {
            let ok = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(path)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown {}", path.display());
        }
    }

    fn cmd(&self, name: &str) -> Command {
        let bin = self.bin.join(name);
        if self.as_root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(bin);
            c
        } else {
            Command::new(bin)
        }
    }

    /// The scratch directory (`data/`, `sock/`, `archive/`, `log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The data directory.
    pub fn data(&self) -> &Path {
        &self.data
    }

    /// `postgres://USER@127.0.0.1:PORT/postgres`.
    pub fn url(&self, user: &str) -> String {
        format!("postgres://{user}@127.0.0.1:{}/postgres", self.port)
    }

    /// Replaces `pg_hba.conf` with the socket trusted and `hba`'s lines.
    pub fn write_hba(&self, hba: &str) {
        std::fs::write(
            self.data.join("pg_hba.conf"),
            format!("local all all trust\nlocal replication all trust\n{hba}\n"),
        )
        .expect("pg_hba.conf");
    }

    /// `pg_ctl start`, waiting until it accepts connections.
    pub fn start_again(&self) {
        let status = self
            .cmd("pg_ctl")
            .args(["start", "-w", "-t", "120", "-D"])
            .arg(&self.data)
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-o", &self.opts])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("pg_ctl");
        assert!(
            status.success(),
            "PostgreSQL did not start:\n{}",
            self.log()
        );
    }

    /// The server's log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    /// `pg_ctl stop` in `mode` (`fast`, `immediate`).
    pub fn stop(&self, mode: &str) {
        let _ = self
            .cmd("pg_ctl")
            .args(["stop", "-w", "-m", mode, "-D"])
            .arg(&self.data)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// SIGKILL to the postmaster (its children exit when they see it gone), and waits until
    /// the port is closed.
    pub fn kill9(&self) {
        let pid =
            std::fs::read_to_string(self.data.join("postmaster.pid")).expect("postmaster.pid");
        let pid = pid.lines().next().expect("a pid").trim().to_string();
        let ok = Command::new("kill")
            .args(["-9", &pid])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill -9 {pid}");
        let end = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(Instant::now() < end, "the port stayed open after kill -9");
            std::thread::sleep(Duration::from_millis(20));
        }
        // The postmaster's parent may not reap it (a container's init): a zombie keeps its
        // pid, which the next start would take for a running postmaster. Once it is dead,
        // its lock file goes, as an operator would remove it.
        loop {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next());
            if matches!(state, None | Some("Z") | Some("X")) {
                break;
            }
            assert!(Instant::now() < end, "the postmaster survived kill -9");
            std::thread::sleep(Duration::from_millis(20));
        }
        // The backends go when they notice the postmaster's death: before a restart the
        // shared memory must be free.
        std::thread::sleep(Duration::from_millis(500));
        let _ = std::fs::remove_file(self.data.join("postmaster.pid"));
        for lock in std::fs::read_dir(self.dir.join("sock"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if lock.file_name().to_string_lossy().ends_with(".lock") {
                let _ = std::fs::remove_file(lock.path());
            }
        }
    }

    /// Runs `sql` as `postgres` over the socket: its rows (`psql -At`), or a panic.
    pub fn psql(&self, sql: &str) -> String {
        let out = self.try_psql(sql);
        out.unwrap_or_else(|e| panic!("psql {sql:?}: {e}"))
    }

    /// As [`psql`](Self::psql), the error's text on failure.
    pub fn try_psql(&self, sql: &str) -> Result<String, String> {
        let out = self
            .cmd("psql")
            .arg("-h")
            .arg(self.dir.join("sock"))
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-d",
                "postgres",
            ])
            .args(["-v", "ON_ERROR_STOP=1", "-Atq", "-c", sql])
            .output()
            .expect("psql");
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).to_string())
        }
    }

    /// This cluster's current timeline, as the lease reads it.
    pub fn timeline(&self) -> String {
        self.psql("SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)")
    }

    /// A base backup of this running cluster (`pg_basebackup`, WAL streamed) in a new
    /// directory, not started; `standby`: with `standby.signal` and the primary's address.
    pub fn base_backup(&self, name: &str, standby: bool) -> Cluster {
        self.base_backup_on(name, standby, server::free_port())
    }

    /// As [`base_backup`](Self::base_backup), the copy to be started on `port` (a standby
    /// made again where the fleet's URL names one).
    pub fn base_backup_on(&self, name: &str, standby: bool, port: u16) -> Cluster {
        let dir = server::scratch_dir("pg-lease", name);
        let mut copy = Cluster::empty(self.bin.clone(), dir, &[], port);
        // The copy keeps the settings, on a port of its own.
        let opts = self.opts.replace(
            &format!("-c port={} ", self.port),
            &format!("-c port={} ", copy.port),
        );
        let opts = opts.replace(
            &self.dir.join("sock").display().to_string(),
            &copy.dir.join("sock").display().to_string(),
        );
        copy.opts = opts;
        copy.make_dir(&copy.dir);
        copy.make_dir(&copy.dir.join("sock"));
        let mut c = self.cmd("pg_basebackup");
        c.arg("-h")
            .arg(self.dir.join("sock"))
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-X",
                "stream",
                "-c",
                "fast",
                "-D",
            ])
            .arg(&copy.data);
        if standby {
            c.arg("-R");
        }
        let out = c.output().expect("pg_basebackup");
        assert!(
            out.status.success(),
            "pg_basebackup: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        copy
    }

    /// Writes `settings` into `postgresql.auto.conf` and `recovery.signal`: the next start
    /// recovers from the archive to the target those settings name.
    pub fn recover_with(&self, settings: &str) {
        let auto = self.data.join("postgresql.auto.conf");
        let mut text = std::fs::read_to_string(&auto).unwrap_or_default();
        text.push_str(settings);
        std::fs::write(&auto, text).expect("postgresql.auto.conf");
        std::fs::write(self.data.join("recovery.signal"), "").expect("recovery.signal");
        self.own(&self.data);
    }

    /// `pg_ctl promote`, waiting until the server accepts writes.
    pub fn promote(&self) {
        let status = self
            .cmd("pg_ctl")
            .args(["promote", "-w", "-t", "120", "-D"])
            .arg(&self.data)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("pg_ctl promote");
        assert!(status.success(), "promote:\n{}", self.log());
    }

    /// Waits until `sql` returns `want`.
    pub fn wait_for(&self, sql: &str, want: &str) {
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            if self.try_psql(sql).as_deref() == Ok(want) {
                return;
            }
            assert!(
                Instant::now() < end,
                "{sql} never gave {want}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop("immediate");
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
