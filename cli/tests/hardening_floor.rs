//! Issue 40, item 2 (the command line's side): `snowmint lease raise-floor` refuses a floor
//! past the layout's expiry and one further ahead than `--max-ahead` (unless `--force`),
//! prints what it will do and changes nothing without `--yes`; `lease list` prints the
//! record's layout in the spec form `--layout` takes and each holder's fencing token.

#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::process::{Command, Output};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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

/// `lease list --json`'s record floor and node `node`'s mark and its owner.
fn listed(url: &str, ns: &str, node: u64) -> (Option<u64>, Option<u64>, String) {
    let out = snowmint(&["lease", "list", "--lease", url, "--namespace", ns, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = listed["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|n| n["node"].as_u64() == Some(node)))
        .cloned()
        .unwrap_or_default();
    (
        listed["record"]["floor_unix_millis"].as_u64(),
        entry["mark_unix_millis"].as_u64(),
        entry["mark_owner"].as_str().unwrap_or("").to_owned(),
    )
}

/// An ID from `server`, asked again while it answers 503 (a renewal late on a loaded
/// machine fences it for a moment; a holder that gave its node up never answers again).
fn id_of(server: &Server) -> u64 {
    serve_support::poll(Duration::from_secs(60), "an ID from the holder", || {
        let reply = server.get("/id");
        match reply.status {
            200 => Some(reply.text().trim_end().parse().expect("a decimal ID")),
            503 => {
                std::thread::sleep(Duration::from_millis(50));
                None
            }
            other => panic!("GET /id answered {other}: {}", server.stderr()),
        }
    })
}

/// The issue's scenario end to end: a floor forced far ahead while a holder mints. The
/// holder keeps its node, mints on and reports the floor (`/metrics`); its graceful stop leaves the raised mark (a release
/// never lowers it); `reset-floor` changes nothing without --i-know, then lowers the floor
/// with an audit line; a new holder claims, mints, and every ID it gives is above every ID
/// given before.
#[test]
fn a_forced_far_floor_keeps_the_holder_and_reset_floor_recovers_the_namespace() {
    let Some(redis) = RedisServer::start("hardening-reset") else {
        return;
    };
    let url = redis.url();
    let ns = "r";
    let args = [
        "--workers",
        "2",
        "--lease",
        &url,
        "--namespace",
        ns,
        "--ttl",
        "3s",
    ];
    let mut holder = Server::start(&args);
    let mut before = vec![id_of(&holder)];
    // Forty years ahead: inside twitter's expiry, far past --max-ahead.
    let far = now_ms() + 40 * 365 * 86_400_000;
    let far_text = far.to_string();
    let out = snowmint(&[
        "lease",
        "raise-floor",
        "--lease",
        &url,
        "--namespace",
        ns,
        "--to",
        &far_text,
        "--yes",
        "--force",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("the record keeps the floor"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Several renewals (every second) over the raised mark: the holder keeps minting.
    let until = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < until {
        before.push(id_of(&holder));
        std::thread::sleep(Duration::from_millis(250));
    }
    assert!(before.windows(2).all(|w| w[0] < w[1]), "{before:?}");
    // The holder reports the floor it saw.
    let metrics = holder.get("/metrics").text();
    assert_eq!(
        serve_support::metric(&metrics, "snowmint_lease_floor_ahead_unix_millis"),
        Some(far as f64),
        "{metrics}"
    );
    // A graceful stop releases node 0, and leaves its mark at the floor.
    let status = holder.stop();
    assert!(status.success(), "{status}: {}", holder.stderr());
    let log = holder.stderr();
    assert!(!log.contains("taken over"), "{log}");
    let (floor, mark, _) = listed(&url, ns, 0);
    assert_eq!(floor, Some(far));
    assert!(
        mark >= Some(far),
        "the release lowered the raised mark: {mark:?} < {far}"
    );

    let reset = |extra: &[&str]| {
        let mut a = vec!["lease", "reset-floor", "--lease", &url, "--namespace", ns];
        a.extend(extra);
        snowmint(&a)
    };
    let out = reset(&["--to", "now"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--i-know"));
    assert_eq!(
        listed(&url, ns, 0).0,
        Some(far),
        "nothing changed without --i-know"
    );
    let out = reset(&["--to", "now", "--i-know"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("reset-floor") && err.contains(&far_text),
        "{err}"
    );
    let (floor, mark, owner) = listed(&url, ns, 0);
    let floor = floor.expect("a floor");
    assert!(floor < far && floor <= now_ms(), "{floor}");
    assert!(mark.is_some_and(|m| m < far), "{mark:?}");
    assert!(owner.starts_with("reset-floor:by="), "{owner}");

    // The namespace mints again, above everything given before.
    let after = Server::start(&args);
    let first = id_of(&after);
    let last_before = *before.iter().max().unwrap();
    assert!(first > last_before, "{first} <= {last_before}");
}
