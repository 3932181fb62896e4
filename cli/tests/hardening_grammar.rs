//! Issue 40, item 7: one grammar for the command line. One output flag, `--json` writing
//! objects, on every subcommand that writes; `--from`/`--to` wherever an encoding is read or
//! written (the old `-f/--format` gone); `encode` reads and writes UUIDv7 and ULID.

use std::process::{Command, Output};

fn snowmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(args)
        .env_remove("SNOWMINT_NODE")
        .output()
        .expect("run snowmint")
}

fn stdout(args: &[&str]) -> String {
    let out = snowmint(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn objects(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn every_writing_subcommand_takes_json_and_writes_objects() {
    for sub in [
        &["gen"][..],
        &["decode"],
        &["encode"],
        &["compose"],
        &["layouts"],
        &["lease", "list"],
        &["lease", "raise-floor"],
    ] {
        let mut args = sub.to_vec();
        args.push("--help");
        let help = stdout(&args);
        assert!(help.contains("--json"), "{sub:?}: {help}");
        assert!(!help.contains("--format"), "{sub:?}: {help}");
    }
    let gen = objects(&stdout(&["gen", "-n", "2", "--to", "base58", "--json"]));
    assert_eq!(gen.len(), 2);
    assert!(gen[0]["id"].is_string(), "{gen:?}");
    let ulids = objects(&stdout(&["gen", "--kind", "ulid", "-n", "2", "--json"]));
    assert_eq!(ulids[0]["id"].as_str().unwrap().len(), 26);
    let composed = objects(&stdout(&[
        "compose",
        "--time",
        "2026-01-01T00:00:00Z",
        "--to",
        "hex",
        "--json",
    ]));
    assert_eq!(composed[0]["encoding"], "hex");
    let encoded = objects(&stdout(&[
        "encode",
        "--to",
        "base36",
        "--json",
        "1541815603606036480",
    ]));
    assert_eq!(encoded[0]["input"], "1541815603606036480");
    assert_eq!(encoded[0]["encoding"], "base36");
}

#[test]
fn the_old_format_flag_is_gone_and_to_names_the_encoding() {
    for args in [
        &["gen", "-f", "hex"][..],
        &["gen", "--format", "hex"],
        &["compose", "--time", "now", "-f", "hex"],
    ] {
        assert_eq!(snowmint(args).status.code(), Some(2), "{args:?}");
    }
    let hex = stdout(&["compose", "--time", "2026-01-01T00:00:00Z", "--to", "hex"]);
    let decimal = stdout(&["compose", "--time", "2026-01-01T00:00:00Z"]);
    let back = stdout(&["encode", "--from", "hex", "--to", "decimal", hex.trim()]);
    assert_eq!(back, decimal);
}

#[test]
fn encode_reads_and_writes_uuid7_and_ulid() {
    let uuid = "018f3a5c-7d2e-7abc-8def-0123456789ab";
    let ulid = stdout(&["encode", "--to", "ulid", uuid]);
    assert_eq!(ulid.trim().len(), 26, "{ulid}");
    let back = stdout(&["encode", "--from", "ulid", "--to", "uuid7", ulid.trim()]);
    assert_eq!(back.trim(), uuid);
    let out = snowmint(&["encode", "--to", "decimal", uuid]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--to uuid7 or --to ulid"));
}
