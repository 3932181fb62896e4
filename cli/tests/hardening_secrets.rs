//! Issue 40, item 3: secrets never shown. A password in any store URL is refused (exit 2,
//! before the port is bound), no user part of a URL reaches any output, and password files
//! are read with a bound.

use std::process::{Command, Output};

fn snowmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(args)
        .env_remove("SNOWMINT_LEASE_PASSWORD")
        .output()
        .expect("run snowmint")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_password_in_an_etcd_url_is_refused_and_never_printed() {
    for args in [
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--lease",
            "etcd://bob:hunter2@127.0.0.1:1",
        ][..],
        &["lease", "list", "--lease", "etcd://bob:hunter2@127.0.0.1:1"],
        &[
            "lease",
            "list",
            "--lease",
            "etcd://127.0.0.1:1,bob:hunter2@127.0.0.1:2",
        ],
        &[
            "lease",
            "list",
            "--lease",
            "redis://bob:hunter2@127.0.0.1:1/0",
        ],
    ] {
        let out = snowmint(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("holds a password"), "{args:?}: {err}");
        assert!(
            !err.contains("hunter2") && !err.contains("bob"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("listening"), "refused before binding: {err}");
    }
}

#[test]
fn a_user_name_in_a_url_is_not_printed_either() {
    // Nothing listens on port 1: the call fails, naming the store without its user part.
    for url in [
        "etcd://bob@127.0.0.1:1",
        "redis://bob@127.0.0.1:1/0",
        "mysql://bob@h",
    ] {
        let out = snowmint(&["lease", "list", "--lease", url, "--lease-timeout", "1s"]);
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(0), "{url}: {err}");
        assert!(!err.contains("bob"), "{url}: {err}");
    }
}

#[test]
fn a_password_file_is_read_with_a_bound() {
    let dir = std::env::temp_dir().join(format!("snowmint-hardening-pw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big");
    std::fs::write(&big, "x".repeat(5_000)).unwrap();
    let out = snowmint(&[
        "lease",
        "list",
        "--lease",
        "etcd://127.0.0.1:1",
        "--lease-user",
        "minter",
        "--lease-password-file",
        big.to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("larger than 4096 bytes"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);

    // An endless file: refused after 4 KiB. Run under a 1 GB address-space limit, so that a
    // build that reads without bound fails here instead of taking the machine's memory.
    let out = Command::new("sh")
        .args([
            "-c",
            "ulimit -v 1000000; exec \"$0\" lease list --lease etcd://127.0.0.1:1 \
             --lease-user minter --lease-password-file /dev/zero",
            env!("CARGO_BIN_EXE_snowmint"),
        ])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--lease-password-file '/dev/zero': larger than 4096 bytes"),
        "{err}"
    );
}
