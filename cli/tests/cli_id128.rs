//! `snowmint gen --kind uuid7|ulid` and `snowmint decode` of 128-bit IDs, the real binary:
//! canonical texts strictly increasing, the 64-bit flags refused by name, a UUIDv7 or ULID
//! recognised by its shape (any case) with its time in text and JSON, and an input that
//! reads both as a ULID and as a 64-bit ID refused as ambiguous.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use assert_cmd::cargo::cargo_bin_cmd;
use assert_cmd::Command;
use snowmint::{Ulid, Uuid7};

fn snowmint() -> Command {
    let mut cmd = cargo_bin_cmd!("snowmint");
    cmd.env_remove("SNOWMINT_NODE")
        .timeout(Duration::from_secs(60));
    cmd
}

fn ok(args: &[&str]) -> String {
    let out = snowmint().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs to exit status 2 and returns standard error.
fn refused(args: &[&str]) -> String {
    let out = snowmint().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    String::from_utf8(out.stderr).unwrap()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn gen_mints_canonical_128_bit_ids_in_order() {
    let before = now_ms();
    // More than one reservation of 4,096.
    let uuids: Vec<Uuid7> = ok(&["gen", "--kind", "uuid7", "-n", "10000"])
        .lines()
        .map(|l| {
            let id: Uuid7 = l.parse().unwrap();
            assert_eq!(id.to_string(), l);
            id
        })
        .collect();
    let ulids: Vec<Ulid> = ok(&["gen", "-k", "ulid", "-n", "10000"])
        .lines()
        .map(|l| {
            let id: Ulid = l.parse().unwrap();
            assert_eq!(id.to_string(), l);
            id
        })
        .collect();
    let after = now_ms();
    assert_eq!((uuids.len(), ulids.len()), (10_000, 10_000));
    assert!(uuids.windows(2).all(|w| w[0].to_u128() < w[1].to_u128()));
    assert!(ulids.windows(2).all(|w| w[0].to_u128() < w[1].to_u128()));
    // The clock is the wall clock's (a tick's carry may run a few ms ahead).
    for ms in [uuids[0].unix_millis(), ulids[0].unix_millis()] {
        assert!(
            before <= ms + 1 && ms <= after + 1_000,
            "{before} {ms} {after}"
        );
    }
    // The default kind is still the 64-bit one.
    let id: u64 = ok(&["gen"]).trim().parse().unwrap();
    assert!(id > 0);
    assert_eq!(
        ok(&["gen", "--kind", "snowflake", "-n", "3"])
            .lines()
            .count(),
        3
    );
}

#[test]
fn gen_refuses_the_64_bit_flags_for_128_bit_kinds() {
    for (flag, args) in [
        ("--layout", &["--layout", "sonyflake"][..]),
        ("--node", &["--node", "3"][..]),
        ("--node-from", &["--node-from", "env"][..]),
        ("--to", &["--to", "decimal"][..]),
    ] {
        for kind in ["uuid7", "ulid"] {
            let mut all = vec!["gen", "--kind", kind];
            all.extend_from_slice(args);
            let err = refused(&all);
            assert!(
                err.contains(&format!("{flag} does not apply to --kind {kind}")),
                "{err}"
            );
        }
    }
    let err = refused(&["gen", "--kind", "uuid8"]);
    assert!(
        err.contains("'uuid8' is not one of: snowflake, uuid7, ulid"),
        "{err}"
    );
}

#[test]
fn decode_recognises_uuid7_and_ulid_by_shape() {
    let uuid = Uuid7::from_fields(1_656_432_460_105, 0x123, 0x0456_789a_bcde_f012);
    let ulid = Ulid::from_parts(1_656_432_460_105, 0x1234_5678_9abc_def0);
    let (u, l) = (uuid.to_string(), ulid.to_string());
    let out = ok(&["decode", &u, &u.to_uppercase(), &l, &l.to_lowercase()]);
    let lines: Vec<&str> = out.lines().collect();
    let time = "time=2022-06-28T16:07:40.105Z unix_ms=1656432460105";
    assert_eq!(lines[0], format!("id={u} {time} encoding=uuid7"));
    assert_eq!(lines[1], lines[0], "any case reads the same");
    assert_eq!(lines[2], format!("id={l} {time} encoding=ulid"));
    assert_eq!(lines[3], lines[2]);

    let json: serde_json::Value = serde_json::from_str(&ok(&["decode", "--json", &l])).unwrap();
    assert_eq!(json["input"], l.as_str());
    assert_eq!(json["encoding"], "ulid");
    assert_eq!(json["id"], l.as_str());
    assert_eq!(json["time"], "2022-06-28T16:07:40.105Z");
    assert_eq!(json["unix_ms"], 1_656_432_460_105u64);

    // Mixed with 64-bit IDs on standard input, each read as what it is.
    let out = snowmint()
        .arg("decode")
        .write_stdin(format!("{u}\n1541815603606036480 {l}\n"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| l.rsplit('=').next().unwrap())
        .collect();
    assert_eq!(kinds, ["uuid7", "decimal", "ulid"]);

    // Bad ones: the library's reason, the rest still decoded, exit status 2.
    let v4 = "018f3a5c-7d2e-4abc-8def-0123456789ab";
    let out = snowmint().args(["decode", v4, &u]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("'{v4}' is not a uuid7 ID")), "{err}");
    assert!(err.contains("is 4, expected 7"), "{err}");
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 1);
    let err = refused(&["decode", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"]);
    assert!(err.contains("is not a ulid ID"), "{err}");
}

#[test]
fn a_text_that_is_a_ulid_and_a_64_bit_id_is_refused_unless_picked() {
    let both = "10101010101010101010101010";
    let err = refused(&["decode", both]);
    assert!(
        err.contains(&format!(
            "'{both}' is ambiguous: it reads as ulid {both} and as base2 44739242"
        )) && err.contains("pass --from ulid or --from base2"),
        "{err}"
    );
    assert!(ok(&["decode", "--from", "ulid", both]).ends_with("encoding=ulid\n"));
    assert!(ok(&["decode", "--from", "base2", both]).contains("id=44739242 "));
    // --from uuid7 reads only UUIDs.
    let err = refused(&["decode", "--from", "uuid7", both]);
    assert!(err.contains("is not a uuid7 ID"), "{err}");
}
