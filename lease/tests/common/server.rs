//! What the real servers the tests start have in common: finding the binary, skipping a test
//! (or failing it, when CI requires the server) if it is missing, a free loopback port and a
//! scratch directory of the test's own.
//!
//! A skip is a message written straight to stderr, past the test harness's capture; with
//! `SNOWMINT_REQUIRE_<NAME>=1` (CI sets them) it is a panic instead.

#![allow(dead_code)]

use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Skips `test` because `missing` (what is not there, and how to get it), or panics if
/// `$require` is `1`.
pub fn skip(test: &str, missing: &str, require: &str) {
    let msg = format!("SKIPPED {test}: {missing}; set {require}=1 to make this a failure");
    if std::env::var(require).is_ok_and(|v| v == "1") {
        panic!("{msg}");
    }
    // Straight to the process's stderr: the harness captures only print macros.
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// `$env`, else `default`, if that binary runs `--version`; else the test is skipped (see
/// [`skip`]) with `install` as the hint, and `None`.
pub fn binary(
    test: &str,
    env: &str,
    default: &str,
    install: &str,
    require: &str,
) -> Option<String> {
    let bin = std::env::var(env).unwrap_or_else(|_| default.to_string());
    let runs = Command::new(&bin)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if runs {
        return Some(bin);
    }
    skip(
        test,
        &format!("`{bin}` is not installed ({install}, or set {env})"),
        require,
    );
    None
}

/// A free loopback port (free when asked; the server binds it right after).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind a loopback port")
}

/// A new directory under the system's temporary one, named for the server, the test, the
/// process and the time, so that runs side by side never share one.
pub fn scratch_dir(server: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "snowmint-{server}-{test}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
