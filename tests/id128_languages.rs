//! Interop with other languages' packages, run for real: Node's `uuidv7` (1.0.2) and
//! Python's `uuid6` (2025.0.1) and `python-ulid` (3.0.0) read the same millisecond from
//! snowmint's UUIDv7s and ULIDs as snowmint does, and snowmint reads theirs' as they do.
//!
//! The packages are installed into `target/interop/` (`node/` by `npm install --prefix`,
//! `py/` by `pip install --target`), as `.ci/run` does; without them the test is skipped,
//! or fails under `SNOWMINT_REQUIRE_INTEROP=1`. About a second: two `node` and two
//! `python3` processes.

use std::path::PathBuf;
use std::process::Command;

use snowmint::{Ulid, UlidGenerator, Uuid7, Uuid7Generator};

/// Where the packages are, if they are.
fn interop_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/interop");
    let ready = dir.join("node/node_modules/uuidv7").is_dir()
        && dir.join("py/uuid6").is_dir()
        && dir.join("py/ulid").is_dir();
    if ready {
        return Some(dir);
    }
    assert!(
        std::env::var_os("SNOWMINT_REQUIRE_INTEROP").is_none(),
        "SNOWMINT_REQUIRE_INTEROP is set but {} lacks the packages (see .ci/run)",
        dir.display()
    );
    eprintln!("skipped: no packages in {}", dir.display());
    None
}

/// Runs `program` with `args`; its standard output's lines.
fn run(program: &str, args: &[&str], env: (&str, PathBuf)) -> Vec<String> {
    let out = Command::new(program)
        .args(args)
        .env(env.0, env.1)
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Node (`node -e SCRIPT ARGS`: the arguments are `process.argv` after the first): the
/// millisecond of each UUID given (by `UUID.parse`), then five of its own
/// `uuidv7()`s, each with the millisecond it reads from it.
const NODE: &str = r#"
const { UUID, uuidv7 } = require("uuidv7");
const ms = (s) => UUID.parse(s).bytes.slice(0, 6).reduce((a, b) => a * 256 + b, 0);
for (const s of process.argv.slice(1)) console.log(ms(s));
for (let i = 0; i < 5; i++) { const s = uuidv7(); console.log(s + " " + ms(s)); }
"#;

/// Python: the millisecond of each UUID (`uuid6.UUID(...).time`) and ULID
/// (`ulid.ULID.from_str(...).milliseconds`) given, then five of its own of each kind with
/// their milliseconds.
const PYTHON: &str = r#"
import sys, uuid6, ulid
for s in sys.argv[1:]:
    print(uuid6.UUID(s).time if "-" in s else ulid.ULID.from_str(s).milliseconds)
for _ in range(5):
    u = uuid6.uuid7(); print(str(u), u.time)
for _ in range(5):
    x = ulid.ULID(); print(str(x), x.milliseconds)
"#;

#[test]
fn node_and_python_read_our_time_and_we_read_theirs() {
    let Some(dir) = interop_dir() else {
        return;
    };
    let (uuids, ulids) = (Uuid7Generator::new(), UlidGenerator::new());
    let ours_u: Vec<Uuid7> = (0..5).map(|_| uuids.next_uuid()).collect();
    let ours_l: Vec<Ulid> = (0..5).map(|_| ulids.next_ulid()).collect();
    let texts_u: Vec<String> = ours_u.iter().map(Uuid7::to_string).collect();
    let texts_l: Vec<String> = ours_l.iter().map(Ulid::to_string).collect();

    let mut node_args = vec!["-e", NODE];
    node_args.extend(texts_u.iter().map(String::as_str));
    let node = run(
        "node",
        &node_args,
        ("NODE_PATH", dir.join("node/node_modules")),
    );
    for (line, id) in node.iter().zip(&ours_u) {
        assert_eq!(
            line.parse::<u64>().unwrap(),
            id.unix_millis(),
            "node read {id}"
        );
    }
    for line in &node[5..] {
        let (text, ms) = line.split_once(' ').unwrap();
        let id: Uuid7 = text
            .parse()
            .unwrap_or_else(|e| panic!("node's {text}: {e}"));
        assert_eq!(
            id.unix_millis(),
            ms.parse::<u64>().unwrap(),
            "we read node's {text}"
        );
    }
    assert_eq!(node.len(), 10);

    let mut py_args = vec!["-c", PYTHON];
    py_args.extend(texts_u.iter().chain(&texts_l).map(String::as_str));
    let python = run("python3", &py_args, ("PYTHONPATH", dir.join("py")));
    assert_eq!(python.len(), 20);
    let ours_ms = ours_u
        .iter()
        .map(|u| u.unix_millis())
        .chain(ours_l.iter().map(|l| l.unix_millis()));
    for (line, ms) in python.iter().zip(ours_ms) {
        assert_eq!(line.parse::<u64>().unwrap(), ms, "python read our ID");
    }
    for line in &python[10..15] {
        let (text, ms) = line.split_once(' ').unwrap();
        let id: Uuid7 = text
            .parse()
            .unwrap_or_else(|e| panic!("uuid6's {text}: {e}"));
        assert_eq!(
            id.unix_millis(),
            ms.parse::<u64>().unwrap(),
            "we read uuid6's {text}"
        );
    }
    for line in &python[15..] {
        let (text, ms) = line.split_once(' ').unwrap();
        let id: Ulid = text
            .parse()
            .unwrap_or_else(|e| panic!("python-ulid's {text}: {e}"));
        assert_eq!(
            id.unix_millis(),
            ms.parse::<u64>().unwrap(),
            "we read python-ulid's {text}"
        );
    }
}
