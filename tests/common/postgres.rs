//! A real PostgreSQL for tests and benches: `$DATABASE_URL` if set, else a throw-away
//! cluster made with `initdb` and started with `pg_ctl` on a free loopback port, its data and
//! socket in a scratch directory, one per process (test binary), stopped and deleted when the
//! process ends.
//!
//! The binaries are looked up in `$SNOWMINT_PG_BIN`, on `PATH`, then in Debian's
//! `/usr/lib/postgresql/<newest>/bin`. `initdb` and `pg_ctl` refuse to run as root, so as root
//! they run as the `postgres` user (`runuser`). Without them, a test is skipped with a message
//! written straight to stderr (past the test harness's capture), unless
//! `SNOWMINT_REQUIRE_POSTGRES=1` (CI sets it), when it fails.
//!
//! Stopping: statics are never dropped, so a watchdog shell started with the cluster waits
//! for its stdin, a pipe this process holds open, to close (which the kernel does when this
//! process exits, however it exits), then stops the server and deletes the directory. It runs
//! in its own process group, so a Ctrl-C to the test run does not kill it first.

#![allow(dead_code)]

#[path = "server.rs"]
mod server;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// A running cluster (or the server `$DATABASE_URL` names).
pub struct Postgres {
    url: String,
    /// The watchdog, never waited for: the cluster lives as long as its stdin is open.
    watchdog: Option<Mutex<Child>>,
    dir: Option<PathBuf>,
}

impl Postgres {
    /// `postgres://user@127.0.0.1:PORT/postgres`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The scratch directory (data in `data/`, socket in `sock/`, log in `log`), or `None`
    /// for `$DATABASE_URL`.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }
}

/// The database URL shared by every test of this process, or `None` (after a message on
/// stderr) when no server can be had and none is required.
pub fn url(test: &str) -> Option<String> {
    static SHARED: OnceLock<Option<Postgres>> = OnceLock::new();
    SHARED
        .get_or_init(|| start(&[("fsync", "off"), ("full_page_writes", "off")]))
        .as_ref()
        .map(|pg| pg.url.clone())
        .or_else(|| {
            server::skip(
                test,
                "no PostgreSQL (set DATABASE_URL, or install Debian's postgresql so that \
                 initdb and pg_ctl are in /usr/lib/postgresql/*/bin, or set SNOWMINT_PG_BIN)",
                "SNOWMINT_REQUIRE_POSTGRES",
            );
            None
        })
}

/// `$DATABASE_URL`, else a new cluster with these `postgres -c` settings; `None` when the
/// binaries are missing. Panics when they are there but the cluster does not start.
pub fn start(settings: &[(&str, &str)]) -> Option<Postgres> {
    if let Ok(url) = std::env::var("DATABASE_URL") {
        return Some(Postgres {
            url,
            watchdog: None,
            dir: None,
        });
    }
    let bin = bin_dir()?;
    let as_root = is_root();
    let dir = server::scratch_dir("pg", "cluster");
    std::fs::create_dir_all(dir.join("sock")).expect("scratch dir");
    if as_root {
        for d in [dir.clone(), dir.join("sock")] {
            std::os::unix::fs::chown(&d, Some(postgres_uid()), None)
                .expect("chown the scratch dir to the postgres user");
        }
    }
    let data = dir.join("data");
    let log = dir.join("log");

    // The watchdog first, so that the directory goes even if initdb fails.
    let stop = format!(
        "cat >/dev/null; {} -D '{}' stop -m immediate -w >/dev/null 2>&1; rm -rf '{}'",
        run_as_cmd(as_root, &bin.join("pg_ctl")),
        data.display(),
        dir.display()
    );
    let watchdog = Command::new("sh")
        .args(["-c", &stop])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("spawn the cluster's watchdog");
    let pg = Postgres {
        url: String::new(),
        watchdog: Some(Mutex::new(watchdog)),
        dir: Some(dir.clone()),
    };

    let out = run_as(as_root, &bin.join("initdb"))
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
        .arg(&data)
        .output()
        .expect("run initdb");
    assert!(
        out.status.success(),
        "initdb failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    // A port can be taken between asking and binding: try a few.
    for _ in 0..5 {
        let port = server::free_port();
        let mut opts = format!(
            "-c port={port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={}",
            dir.join("sock").display()
        );
        for (k, v) in settings {
            opts.push_str(&format!(" -c {k}={v}"));
        }
        let status = run_as(as_root, &bin.join("pg_ctl"))
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(&data)
            .arg("-l")
            .arg(&log)
            .args(["-o", &opts])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run pg_ctl");
        if status.success() {
            return Some(Postgres {
                url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
                ..pg
            });
        }
    }
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    panic!("PostgreSQL did not start; its log:\n{log}");
}

/// The directory holding `initdb` and `pg_ctl`.
fn bin_dir() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Ok(d) = std::env::var("SNOWMINT_PG_BIN") {
        return Some(PathBuf::from(d)).filter(|d| has(d));
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    if let Some(d) = on_path.into_iter().find(|d| has(d)) {
        return Some(d);
    }
    // Debian: /usr/lib/postgresql/<major>/bin, the newest major first.
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let major = e.file_name().to_str()?.parse().ok()?;
            Some((major, e.path().join("bin")))
        })
        .filter(|(_, d)| has(d))
        .collect();
    debian.sort();
    debian.pop().map(|(_, d)| d)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn postgres_uid() -> u32 {
    let out = Command::new("id")
        .args(["-u", "postgres"])
        .output()
        .expect("run id");
    assert!(
        out.status.success(),
        "running as root, and there is no `postgres` user to run initdb/pg_ctl as"
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("uid")
}

/// `bin`, as the `postgres` user when we are root.
fn run_as(as_root: bool, bin: &Path) -> Command {
    if as_root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    }
}

fn run_as_cmd(as_root: bool, bin: &Path) -> String {
    if as_root {
        format!("runuser -u postgres -- '{}'", bin.display())
    } else {
        format!("'{}'", bin.display())
    }
}
