//! Issue 40, item 2 (the command line's side): `snowmint lease raise-floor` refuses a floor
//! past the layout's expiry and one further ahead than `--max-ahead` (unless `--force`),
//! prints what it will do and changes nothing without `--yes`; `lease list` prints the
//! record's layout in the spec form `--layout` takes and each holder's fencing token.

#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use redis_server::RedisServer;
use serve_support::Server;

fn snowmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(args)
        .output()
        .expect("run snowmint")
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn floor_of(url: &str) -> serde_json::Value {
    let out = snowmint(&[
        "lease",
        "list",
        "--lease",
        url,
        "--namespace",
        "f",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    listed["record"]["floor_unix_millis"].clone()
}

#[test]
fn a_bricking_floor_is_refused_and_nothing_changes_without_yes() {
    let Some(redis) = RedisServer::start("hardening-floor") else {
        return;
    };
    let url = redis.url();
    let mut holder = Server::start(&[
        "--workers",
        "2",
        "--lease",
        &url,
        "--namespace",
        "f",
        "--ttl",
        "3s",
    ]);
    let raise = |extra: &[&str]| {
        let mut args = vec!["lease", "raise-floor", "--lease", &url, "--namespace", "f"];
        args.extend(extra);
        snowmint(&args)
    };
    // Microseconds typed as milliseconds: the year 58,900, past twitter's expiry.
    let out = raise(&["--to", "1796503041214000", "--yes", "--force"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("past the namespace's layout expiry"), "{err}");
    // Two hours ahead: past the default --max-ahead of 1h.
    let ahead = (now_ms() + 2 * 3_600_000).to_string();
    let out = raise(&["--to", &ahead, "--yes"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--max-ahead 1h") && err.contains("--force"),
        "{err}"
    );
    assert!(floor_of(&url).is_null(), "nothing was raised");
    // Without --yes: the plan, and nothing changed.
    let out = raise(&["--to", "now"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("raised to it"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert!(floor_of(&url).is_null(), "nothing was raised without --yes");
    let out = raise(&["--to", "now", "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(floor_of(&url).is_u64());
    // The listing: the layout as --layout takes it, and the holder's fencing token (or that
    // the store keeps none).
    let out = snowmint(&["lease", "list", "--lease", &url, "--namespace", "f"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("layout time=41,node=10,seq=12,unit=1ms,"),
        "{text}"
    );
    assert!(text.contains("fencing token"), "{text}");
    holder.stop();
}
