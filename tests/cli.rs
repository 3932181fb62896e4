//! The `snowmint` binary, driven as a user would: arguments in, text and exit status out.
#![cfg(feature = "cli")]

use std::io::{BufRead, BufReader};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use assert_cmd::cargo::{cargo_bin, cargo_bin_cmd};
use assert_cmd::Command;
use serde_json::Value;
use snowmint::{Encoding, Id, Layout};

const FORMATS: [&str; 8] = [
    "decimal", "base2", "base32", "base36", "base58", "base64", "hex", "json",
];

fn snowmint() -> Command {
    let mut cmd = cargo_bin_cmd!("snowmint");
    cmd.env_remove("SNOWMINT_NODE")
        .timeout(Duration::from_secs(60));
    cmd
}

/// Runs to success and returns standard output.
fn ok(args: &[&str]) -> String {
    let out = snowmint().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "snowmint {args:?} failed: {stderr}");
    assert!(
        stderr.is_empty(),
        "snowmint {args:?} wrote to stderr: {stderr}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs to failure with `code` and returns standard error, checking it is one clean message.
fn fails(cmd: &mut Command, code: i32) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{stderr}"
    );
    stderr
}

fn fails_with(args: &[&str], code: i32, expected: &[&str]) {
    let stderr = fails(snowmint().args(args), code);
    for part in expected {
        assert!(
            stderr.contains(part),
            "snowmint {args:?}: {stderr:?} lacks {part:?}"
        );
    }
}

fn unix_millis_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn decode_json(args: &[&str]) -> Vec<Value> {
    let mut full = vec!["decode", "--json"];
    full.extend_from_slice(args);
    ok(&full)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn gen_prints_the_count_of_increasing_ids_of_the_node_and_now() {
    let before = unix_millis_now();
    let text = ok(&["gen", "-n", "20000", "--node", "7"]);
    let after = unix_millis_now();
    let ids: Vec<u64> = text.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ids.len(), 20_000);
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "not strictly increasing"
    );
    for id in [ids[0], ids[ids.len() - 1]] {
        let d = Layout::TWITTER.decode(Id::from_u64(id));
        assert_eq!(d.node(), 7);
        assert!(
            (before..=after).contains(&d.unix_millis()),
            "{} not in {before}..={after}",
            d.unix_millis()
        );
    }
    assert_eq!(ok(&["gen", "-n", "0"]), "");
    assert_eq!(ok(&["gen"]).lines().count(), 1);
}

/// `gen` mints past the cap of many ticks (it writes and sleeps at each used-up tick): the
/// IDs stay unique and increasing across tick changes, no tick holds more than the layout
/// allows, and no ID is stamped after the run ended (no borrowed future ticks).
#[test]
fn gen_across_used_up_ticks_is_unique_increasing_and_never_ahead_of_time() {
    for (layout_name, layout, count) in [
        ("twitter", Layout::TWITTER, 50_000_u64), // 13+ ticks of 4,096
        ("sonyflake", Layout::SONYFLAKE, 700_u64), // 3+ ticks of 256 (10 ms)
    ] {
        for format in ["decimal", "json", "hex"] {
            let text = ok(&[
                "gen",
                "-n",
                &count.to_string(),
                "-l",
                layout_name,
                "--node",
                "3",
                "-f",
                format,
            ]);
            let after = unix_millis_now();
            let from = if format == "hex" {
                Encoding::Hex
            } else {
                Encoding::Decimal
            };
            let ids: Vec<Id> = text
                .lines()
                .map(|l| Id::parse(l.trim_matches('"'), from).unwrap())
                .collect();
            let case = format!("{layout_name} {format}");
            assert_eq!(ids.len() as u64, count, "{case}");
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "{case}: not strictly increasing (so possibly repeated)"
            );
            let mut per_tick = std::collections::BTreeMap::new();
            for &id in &ids {
                let d = layout.decode(id);
                assert_eq!(d.node(), 3, "{case}");
                *per_tick.entry(d.ticks()).or_insert(0_u64) += 1;
            }
            assert!(per_tick.len() >= 3, "{case}: only {} ticks", per_tick.len());
            assert!(
                per_tick.values().all(|&n| n <= layout.ids_per_tick()),
                "{case}: a tick holds more than {} IDs",
                layout.ids_per_tick()
            );
            let last = layout.decode(ids[ids.len() - 1]).unix_millis();
            assert!(
                last <= after,
                "{case}: last ID at {last}, run ended {after}"
            );
        }
    }
}

#[test]
fn every_format_round_trips_through_decode() {
    for layout in ["twitter", "sonyflake", "discord", "js53"] {
        for format in FORMATS {
            let text = ok(&["gen", "-n", "40", "-l", layout, "--node", "5", "-f", format]);
            let texts: Vec<&str> = text.lines().collect();
            assert_eq!(texts.len(), 40);
            let mut args = vec!["-l", layout, "--from", format];
            args.extend(&texts);
            let decoded = decode_json(&args);
            assert_eq!(decoded.len(), 40);
            let mut last = None;
            for (text, d) in texts.iter().zip(&decoded) {
                let id: u64 = d["id"].as_str().unwrap().parse().unwrap();
                let encoding = if format == "json" {
                    Encoding::Decimal
                } else {
                    format.parse().unwrap()
                };
                let bare = text.trim_matches('"');
                assert_eq!(
                    Id::parse(bare, encoding),
                    Ok(Id::from_u64(id)),
                    "{layout} {format} {text}"
                );
                assert_eq!(d["input"], *text);
                assert_eq!(d["node"], 5, "{layout} {format} {text}");
                assert!(last < Some(id), "{layout} {format}: not increasing");
                last = Some(id);
            }
        }
    }
}

#[test]
fn detection_reads_the_right_id_or_asks_for_from() {
    let mut unambiguous = 0;
    for format in FORMATS {
        let text = ok(&["gen", "-n", "30", "-f", format]);
        for t in text.lines() {
            let id = Id::parse(
                t.trim_matches('"'),
                if format == "json" {
                    Encoding::Decimal
                } else {
                    format.parse().unwrap()
                },
            )
            .unwrap();
            let out = snowmint().args(["decode", "--json", t]).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            if out.status.success() {
                let d: Value = serde_json::from_slice(&out.stdout).unwrap();
                let decimal = t.bytes().all(|b| b.is_ascii_digit()) && t.parse::<u64>().is_ok();
                if decimal {
                    // Documented: digits that fit in 64 bits are decimal, whatever wrote them.
                    assert_eq!(d["encoding"], "decimal", "{format} {t}");
                } else {
                    assert_eq!(
                        d["id"],
                        id.to_string(),
                        "{format} {t}: detected as {}",
                        d["encoding"]
                    );
                    assert_eq!(d["encoding"], format, "{t}");
                    unambiguous += 1;
                }
            } else {
                // Never a wrong guess: ambiguity is an error listing the right reading too.
                assert_eq!(out.status.code(), Some(2));
                assert!(
                    stderr.contains("ambiguous") && stderr.contains("--from"),
                    "{stderr}"
                );
                assert!(
                    stderr.contains(&format!("{format} {id}")),
                    "{format} {t}: {stderr}"
                );
                assert!(
                    !matches!(format, "decimal" | "json" | "hex" | "base2"),
                    "{format} {t}: {stderr}"
                );
            }
        }
    }
    // Decimal, JSON and binary (and hex but for rare all-digit IDs) are always detected.
    assert!(unambiguous >= 60, "{unambiguous}");
}

#[test]
fn decode_reads_standard_input_and_reports_every_field() {
    let ids = ok(&["gen", "-n", "5", "-l", "sonyflake", "--node", "300"]);
    let out = snowmint()
        .args(["decode", "-l", "sonyflake"])
        .write_stdin(ids.clone())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 5);
    for (line, id) in text.lines().zip(ids.lines()) {
        let d = Layout::SONYFLAKE.decode(id.parse().unwrap());
        let time = humantime::format_rfc3339_millis(d.time()).to_string();
        for part in [
            format!("id={id} "),
            format!("time={time} "),
            format!("unix_ms={} ", d.unix_millis()),
            "node=300 ".to_owned(),
            format!("sequence={} ", d.sequence()),
            "layout=sonyflake".to_owned(),
        ] {
            assert!(line.contains(&part), "{line} lacks {part}");
        }
    }
}

#[test]
fn compose_then_decode_gives_back_the_time_node_and_sequence() {
    // Expected Unix milliseconds from `date -u -d TIME +%s`, floored to the layout's tick.
    let cases: [(&str, &str, u64, &str, &str); 5] = [
        (
            "twitter",
            "2026-01-01T00:00:00Z",
            1_767_225_600_000,
            "7",
            "9",
        ),
        (
            "twitter",
            "2026-01-01T09:00:00.123+09:00",
            1_767_225_600_123,
            "1023",
            "4095",
        ),
        (
            "sonyflake",
            "2020-02-29T12:34:56.789Z",
            1_582_979_696_780,
            "65535",
            "255",
        ),
        ("discord", "1767225600000", 1_767_225_600_000, "0", "0"),
        (
            "js53",
            "2030-06-01T00:00:00Z",
            1_906_502_400_000,
            "15",
            "511",
        ),
    ];
    for (layout, time, unix_ms, node, seq) in cases {
        let id = ok(&[
            "compose",
            "-l",
            layout,
            "--time",
            time,
            "--node",
            node,
            "--sequence",
            seq,
        ]);
        let d = &decode_json(&["-l", layout, id.trim()])[0];
        assert_eq!(d["unix_ms"], unix_ms, "{layout} {time}");
        assert_eq!(d["node"].to_string(), node);
        assert_eq!(d["sequence"].to_string(), seq);
    }
    // The first and last IDs of one tick span every node and sequence.
    let first: u64 = ok(&["compose", "--time", "2026-01-01T00:00:00Z"])
        .trim()
        .parse()
        .unwrap();
    let last: u64 = ok(&["compose", "--time", "2026-01-01T00:00:00Z", "--last"])
        .trim()
        .parse()
        .unwrap();
    assert_eq!(last - first, (1 << 22) - 1);
    // Every ID minted now is at least the first ID of a moment ago.
    let floor: u64 = ok(&["compose", "--time", "now"]).trim().parse().unwrap();
    let minted: u64 = ok(&["gen"]).trim().parse().unwrap();
    assert!(minted >= floor);
    // Other formats, read back by the library.
    let b58 = ok(&["compose", "--time", "2026-01-01T00:00:00Z", "-f", "base58"]);
    assert_eq!(Id::parse_base58(b58.trim()), Ok(Id::from_u64(first)));
}

#[test]
fn layouts_lists_every_preset_with_its_expiry() {
    let table = ok(&["layouts"]);
    assert_eq!(table.lines().count(), Layout::PRESETS.len() + 1);
    for (name, layout) in Layout::PRESETS {
        let expiry = humantime::format_rfc3339_millis(layout.expiry()).to_string();
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing"));
        assert!(line.contains(&expiry), "{line} lacks {expiry}");
        assert!(line.contains(&format!(" {} ", layout.max_bits())), "{line}");
    }
    let json: Value = serde_json::from_str(&ok(&["layouts", "--json"])).unwrap();
    let items = json.as_array().unwrap();
    assert_eq!(items.len(), Layout::PRESETS.len());
    for (item, (name, layout)) in items.iter().zip(Layout::PRESETS) {
        assert_eq!(item["name"], name);
        assert_eq!(item["expiry_unix_ms"], layout.expiry_unix_millis());
        assert_eq!(item["nodes"], layout.max_node() + 1);
        assert_eq!(
            item["ids_per_second_per_node"],
            layout.capacity_per_second()
        );
        // The spec rebuilds the preset.
        let again: Value =
            serde_json::from_str(&ok(&["layouts", "--json", item["spec"].as_str().unwrap()]))
                .unwrap();
        assert_eq!(again[0]["name"], name);
    }
}

#[test]
fn custom_layout_specs_mint_and_decode() {
    let spec = "base=sonyflake,epoch=2024-01-01T00:00:00Z,node=8,seq=16,unit=1ms,order=tns";
    let ids = ok(&["gen", "-n", "1000", "-l", spec, "--node", "200"]);
    let layout = Layout::SONYFLAKE
        .to_builder()
        .epoch_unix_millis(1_704_067_200_000)
        .node_bits(8)
        .sequence_bits(16)
        .unit(Duration::from_millis(1))
        .order(snowmint::Order::TimeNodeSequence)
        .build()
        .unwrap();
    for id in ids.lines() {
        assert_eq!(layout.decode(id.parse().unwrap()).node(), 200);
    }
    let d = &decode_json(&["-l", spec, ids.lines().next().unwrap()])[0];
    assert_eq!(d["layout"], "custom");
    assert_eq!(d["node"], 200);
}

#[test]
fn node_from_env_and_the_machine() {
    let out = snowmint()
        .env("SNOWMINT_NODE", "42")
        .args(["gen", "--node-from", "env"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let id: Id = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(Layout::TWITTER.decode(id).node(), 42);

    let stderr = fails(
        snowmint()
            .env("SNOWMINT_NODE", "5000")
            .args(["gen", "--node-from", "env"]),
        2,
    );
    assert!(
        stderr.contains("node 5000 from environment variable SNOWMINT_NODE")
            && stderr.contains("allowed 0 to 1023"),
        "{stderr}"
    );
    let stderr = fails(
        snowmint()
            .env("SNOWMINT_NODE", "five")
            .args(["gen", "--node-from", "env"]),
        2,
    );
    assert!(
        stderr.contains("SNOWMINT_NODE is \"five\"") && stderr.contains("0 to 1023"),
        "{stderr}"
    );
    let stderr = fails(snowmint().args(["gen", "--node-from", "env"]), 2);
    assert!(
        stderr.contains("SNOWMINT_NODE is not set") && stderr.contains("0 to 1023"),
        "{stderr}"
    );

    // The network and the host name depend on the machine: either a node in range or a clean
    // error saying what was missing.
    for (source, missing) in [
        ("ip", "no private IPv4 address"),
        ("hostname", "StatefulSet"),
    ] {
        let out = snowmint()
            .args(["gen", "-l", "sonyflake", "--node-from", source])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            let id: Id = String::from_utf8(out.stdout)
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            assert!(Layout::SONYFLAKE.decode(id).node() <= 65_535);
        } else {
            assert!(matches!(out.status.code(), Some(1 | 2)), "{stderr}");
            assert!(
                stderr.starts_with("error: ") && stderr.contains(missing),
                "{stderr}"
            );
        }
    }
}

#[test]
fn bad_ids_fail_with_a_message_and_status_2() {
    fails_with(
        &["decode", "not-an-id!"],
        2,
        &["'not-an-id!' is not an ID in any encoding"],
    );
    fails_with(
        &["decode", "--from", "hex", "xyz"],
        2,
        &["'xyz' is not a hex ID", "not in the alphabet"],
    );
    fails_with(
        &["decode", "--from", "base64", "abc"],
        2,
        &["expected 11 characters"],
    );
    fails_with(
        &["decode", "18446744073709551616"],
        2,
        &["not an ID in any encoding"],
    );
    fails_with(
        &["decode", "-l", "js53", "9007199254740992"],
        2,
        &["53 bits", "allowed 0 to 9007199254740991"],
    );
    fails_with(
        &["decode", "abc"],
        2,
        &["ambiguous", "base36 13368", "hex 2748", "--from"],
    );
    // A bad ID among good ones: the good ones are still decoded.
    let good = ok(&["gen"]);
    let out = snowmint()
        .args(["decode", good.trim(), "bad!", good.trim()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: 'bad!'"), "{stderr}");
}

#[test]
fn bad_layouts_fail_with_the_allowed_range() {
    fails_with(
        &["gen", "-l", "tweeter"],
        2,
        &["unknown layout 'tweeter'", "twitter, sonyflake"],
    );
    fails_with(
        &["gen", "-l", "time=41,node=10,seq=13"],
        2,
        &["64 bits", "at most 63"],
    );
    fails_with(&["gen", "-l", "node=64"], 2, &["allowed 0 to 63"]);
    fails_with(&["gen", "-l", "time=0"], 2, &["allowed 1 to 64"]);
    fails_with(
        &["gen", "-l", "colour=red"],
        2,
        &["unknown layout key 'colour'", "time, node, seq"],
    );
    fails_with(
        &["gen", "-l", "epoch=2999-01-01T00:00:00Z"],
        2,
        &["in the future"],
    );
    fails_with(
        &["decode", "-l", "order=nts", "1"],
        2,
        &["allowed tns or tsn"],
    );
    fails_with(&["layouts", "unit=0ms"], 2, &["at least 1 ns"]);
}

#[test]
fn out_of_range_values_fail_with_the_allowed_range() {
    fails_with(
        &["gen", "--node", "1024"],
        2,
        &["node 1024 from --node is out of range", "allowed 0 to 1023"],
    );
    fails_with(
        &["gen", "-l", "sonyflake", "--node", "65536"],
        2,
        &["allowed 0 to 65535"],
    );
    fails_with(
        &["gen", "-l", "js53", "--node", "16"],
        2,
        &["allowed 0 to 15"],
    );
    fails_with(
        &["compose", "--time", "now", "--node", "2000"],
        2,
        &["allowed 0 to 1023"],
    );
    fails_with(
        &["compose", "--time", "now", "--sequence", "4096"],
        2,
        &["sequence 4096", "allowed 0 to 4095"],
    );
    fails_with(
        &["compose", "--time", "2000-01-01T00:00:00Z"],
        2,
        &[
            "before the twitter epoch",
            "2010-11-04T01:42:54.657Z",
            "2080-07-10T17:30:30.209Z",
        ],
    );
    fails_with(
        &["compose", "-l", "js53", "--time", "2100-01-01T00:00:00Z"],
        2,
        &["expiry", "2059-11-04"],
    );
    fails_with(
        &["compose", "--time", "yesterday"],
        2,
        &["not a valid time", "2026-01-01T00:00:00Z"],
    );
    fails_with(
        &["compose", "--time", "1969-12-31T00:00:00Z"],
        2,
        &["not a valid time"],
    );
    fails_with(&["gen", "-n", "lots"], 2, &["invalid value 'lots'"]);
}

#[test]
fn a_closed_pipe_ends_gen_quietly_with_success() {
    let mut child = StdCommand::new(cargo_bin!("snowmint"))
        .args(["gen", "-n", "10000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.parse::<u64>().is_ok(), "{first}");
    drop(lines); // what `| head -1` does
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn help_documents_the_layout_spec_detection_and_exit_status() {
    let help = ok(&["--help"]);
    assert!(help.contains("Exit status") && help.contains("gen") && help.contains("layouts"));
    let gen = ok(&["gen", "--help"]);
    for part in ["time=BITS", "SNOWMINT_NODE", "StatefulSet", "base58"] {
        assert!(gen.contains(part), "gen --help lacks {part}");
    }
    let decode = ok(&["decode", "--help"]);
    assert!(
        decode.contains("ambiguous") || decode.contains("several encodings"),
        "{decode}"
    );
    assert!(ok(&["--version"]).contains(env!("CARGO_PKG_VERSION")));
}
