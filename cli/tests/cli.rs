//! The `snowmint` binary, driven as a user would: arguments in, text and exit status out.

use std::io::{BufRead, BufReader};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use assert_cmd::cargo::{cargo_bin, cargo_bin_cmd};
use assert_cmd::Command;
use serde_json::Value;
use snowmint::layout::TimeGrid;
use snowmint::{Encoding, Id, Layout};

/// Every encoding `--to` writes.
const FORMATS: [&str; 10] = [
    "decimal",
    "base2",
    "base32",
    "base36",
    "base58",
    "base64",
    "hex",
    "json",
    "bwmarrin-base64",
    "bwmarrin-bytes",
];

/// The formats `decode` may detect (bwmarrin's are read only when named).
const DETECTED: [&str; 8] = [
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
                "--to",
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
    for layout in [
        "twitter",
        "sonyflake",
        "sonyflake-v2",
        "discord",
        "mastodon",
        "js53",
    ] {
        for format in FORMATS {
            // Mastodon has no node field.
            let node = if layout == "mastodon" { "0" } else { "5" };
            let text = ok(&[
                "gen", "-n", "40", "-l", layout, "--node", node, "--to", format,
            ]);
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
                assert_eq!(d["node"].to_string(), node, "{layout} {format} {text}");
                assert!(last < Some(id), "{layout} {format}: not increasing");
                last = Some(id);
            }
        }
    }
}

#[test]
fn detection_reads_the_right_id_or_asks_for_from() {
    let mut unambiguous = 0;
    for format in DETECTED {
        let text = ok(&["gen", "-n", "30", "--to", format]);
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
    let b58 = ok(&[
        "compose",
        "--time",
        "2026-01-01T00:00:00Z",
        "--to",
        "base58",
    ]);
    assert_eq!(
        Id::parse(b58.trim(), Encoding::Base58),
        Ok(Id::from_u64(first))
    );
}

#[test]
fn layouts_lists_every_preset_with_its_expiry() {
    let table = ok(&["layouts"]);
    assert_eq!(table.lines().count(), Layout::PRESETS.len() + 1);
    for (name, layout) in Layout::PRESETS {
        // RFC 3339 has 4-digit years: Mastodon's expiry (year 10889) is described instead.
        let expiry = if layout.expiry_unix_millis() >= 253_402_300_800_000 {
            "after 9999-12-31T23:59:59Z".to_owned()
        } else {
            humantime::format_rfc3339_millis(layout.expiry()).to_string()
        };
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing"));
        assert!(line.contains(&expiry), "{line} lacks {expiry}");
        assert!(line.contains(&format!(" {} ", layout.max_bits())), "{line}");
        let grid = match layout.time_grid() {
            TimeGrid::Epoch => " epoch ",
            TimeGrid::Unix => " unix ",
        };
        assert!(line.contains(grid), "{line} lacks {grid}");
    }
    assert!(table.lines().next().unwrap().contains(" GRID "));
    let json: Value = serde_json::from_str(&ok(&["layouts", "--json"])).unwrap();
    let items = json.as_array().unwrap();
    assert_eq!(items.len(), Layout::PRESETS.len());
    for (item, (name, layout)) in items.iter().zip(Layout::PRESETS) {
        assert_eq!(item["name"], name);
        assert_eq!(item["expiry_unix_ms"], layout.expiry_unix_millis());
        let grid = if name.starts_with("sonyflake") {
            "unix"
        } else {
            "epoch"
        };
        assert_eq!(item["time_grid"], grid, "{name}");
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
        .order(snowmint::layout::Order::TimeNodeSequence)
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
        &["length 3 bytes, expected exactly 11 characters"],
    );
    fails_with(
        &["decode", "18446744073709551616"],
        2,
        &[
            "not an ID in any encoding",
            "as decimal: value exceeds the maximum 18446744073709551615",
        ],
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
        &["gen", "-l", "epoch=2199-01-01T00:00:00Z"],
        2,
        &["in the future"],
    );
    fails_with(
        &["gen", "-l", "epoch=2999-01-01T00:00:00Z"],
        2,
        &["epoch 32472144000000 ms (Unix) is too late", "2554-07-21"],
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
    fails_with(&["gen", "-n", "lots"], 2, &["'lots' is not a number"]);
    fails_with(&["gen", "-n", "+5"], 2, &["'+5' is not a number"]);
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
    for part in ["layouts --help", "SNOWMINT_NODE", "StatefulSet", "base58"] {
        assert!(gen.contains(part), "gen --help lacks {part}");
    }
    // The layout syntax is explained once, in `layouts --help`; the others refer to it.
    let layouts = ok(&["layouts", "--help"]);
    for part in [
        "time=BITS",
        "order=tns|tsn",
        "grid=epoch|unix",
        "base=PRESET",
    ] {
        assert!(layouts.contains(part), "layouts --help lacks {part}");
    }
    for command in ["gen", "decode", "compose", "serve"] {
        let help = ok(&[command, "--help"]);
        assert!(
            help.contains("see `snowmint layouts --help`"),
            "{command} --help"
        );
        assert!(
            !help.contains("time=BITS"),
            "{command} --help repeats the syntax"
        );
    }
    let decode = ok(&["decode", "--help"]);
    assert!(
        decode.contains("ambiguous") || decode.contains("several encodings"),
        "{decode}"
    );
    assert!(ok(&["--version"]).contains(env!("CARGO_PKG_VERSION")));
}

// ---------------------------------------------------------------------------------------
// Interop: upstream vectors through the command line.

#[test]
fn bwmarrin_forms_are_named_encodings_never_guessed() {
    // bwmarrin/snowflake's README: Base64() of 1283328784765816832.
    let classic = "MTI4MzMyODc4NDc2NTgxNjgzMg==";
    let d = &decode_json(&["--from", "bwmarrin-base64", classic])[0];
    assert_eq!(d["id"], "1283328784765816832");
    assert_eq!(d["encoding"], "bwmarrin-base64");
    // Its TestBase64 and TestBytes texts.
    let d = &decode_json(&["--from", "bwmarrin-base64", "MTExNjgxOTQ5NDY2MDk5NzEyMA=="])[0];
    assert_eq!(d["id"], "1116819494660997120");
    let d = &decode_json(&["--from", "bwmarrin-bytes", "1116821679570419712"])[0];
    assert_eq!(d["id"], "1116821679570419712");
    fails_with(
        &[
            "decode",
            "--from",
            "bwmarrin-base64",
            "MTExNjgxOTQ5NDY2MDk5NzEyMA",
        ],
        2,
        &["not a multiple of 4"],
    );
    // Not detected, nor read as the value's base64, but named in the error.
    for args in [
        vec!["decode", classic],
        vec!["decode", "--from", "base64", classic],
    ] {
        fails_with(&args, 2, &["--from bwmarrin-base64", "1283328784765816832"]);
    }
    // Written, as bwmarrin writes them.
    let t = "2020-07-15T09:13:20.041Z";
    let text = ok(&[
        "compose",
        "--time",
        t,
        "--node",
        "1",
        "--to",
        "bwmarrin-base64",
    ]);
    assert_eq!(text.trim(), classic);
    let text = ok(&[
        "compose",
        "--time",
        t,
        "--node",
        "1",
        "--to",
        "bwmarrin-bytes",
    ]);
    assert_eq!(text.trim(), "1283328784765816832");
}

#[test]
fn upstream_vectors_decode_and_compose() {
    // Discord's docs: 175928847299117063 is 2016-04-30T11:18:25.796Z, worker 1, process 0,
    // increment 7 (node = worker << 5 | process).
    let d = &decode_json(&["-l", "discord", "175928847299117063"])[0];
    assert_eq!(d["time"], "2016-04-30T11:18:25.796Z");
    assert_eq!(
        (d["node"].as_u64(), d["sequence"].as_u64()),
        (Some(32), Some(7))
    );
    let again = ok(&[
        "compose",
        "-l",
        "discord",
        "--time",
        "2016-04-30T11:18:25.796Z",
        "--node",
        "32",
        "--sequence",
        "7",
    ]);
    assert_eq!(again.trim(), "175928847299117063");
    // Twitter: a tweet ID, and IdWorkerSpec's masks (datacenter bits 17..21, worker bits
    // 12..16; node = datacenter << 5 | worker).
    let d = &decode_json(&["1541815603606036480"])[0];
    assert_eq!(d["time"], "2022-06-28T16:07:40.105Z");
    assert_eq!(
        (d["node"].as_u64(), d["sequence"].as_u64()),
        (Some(378), Some(0))
    );
    let id: u64 = ok(&[
        "compose",
        "--time",
        "1700000000000",
        "--node",
        &(31 << 5).to_string(),
    ])
    .trim()
    .parse()
    .unwrap();
    assert_eq!(((id & 0x3E_0000) >> 17, (id & 0x1_F000) >> 12), (31, 0));
    assert_eq!(id >> 22, 1_700_000_000_000 - 1_288_834_974_657);
    // Mastodon: unix_ms << 16 | sequence.
    let id = ok(&[
        "compose",
        "-l",
        "mastodon",
        "--time",
        "1575776913849",
        "--sequence",
        "40911",
    ]);
    assert_eq!(
        id.trim(),
        (1_575_776_913_849_u64 << 16 | 40_911).to_string()
    );
    // sonyflake with a start time 5 ms off its 10 ms grid: Go's elapsed time is
    // t/unit - start/unit = 1304640000; counting from the start would give 1304639999.
    let spec = "base=sonyflake,epoch=2023-01-01T00:00:00.005Z";
    let id = ok(&[
        "compose",
        "-l",
        spec,
        "--time",
        "2023-06-01T00:00:00Z",
        "--node",
        "300",
    ]);
    let d = &decode_json(&["-l", spec, id.trim()])[0];
    assert_eq!(d["ticks"], 1_304_640_000_u64);
    assert_eq!(d["time"], "2023-06-01T00:00:00.000Z");
    assert_eq!(d["node"], 300);
    let epoch_grid = format!("{spec},grid=epoch");
    let id = ok(&[
        "compose",
        "-l",
        &epoch_grid,
        "--time",
        "2023-06-01T00:00:00Z",
    ]);
    let d = &decode_json(&["-l", &epoch_grid, id.trim()])[0];
    assert_eq!(d["ticks"], 1_304_639_999_u64);
    // sonyflake v2's default start time.
    let d = &decode_json(&["-l", "sonyflake-v2", "--from", "hex", "0"])[0];
    assert_eq!(d["time"], "2025-01-01T00:00:00.000Z");
}

#[test]
fn an_expired_layout_fails_to_mint_by_name_and_its_ids_still_decode() {
    // 28 bits of seconds from 2016-05-20 (Baidu's uid-generator): full since 2024-11-20.
    let spec = "time=28,node=22,seq=13,unit=1s,epoch=2016-05-20T00:00:00Z";
    fails_with(
        &["gen", "-l", spec],
        2,
        &[
            "layout custom expired on 2024-11-20T21:24:16.000Z",
            "still decode",
        ],
    );
    let id = ok(&[
        "compose",
        "-l",
        spec,
        "--time",
        "2020-01-01T00:00:00Z",
        "--node",
        "3",
    ]);
    let d = &decode_json(&["-l", spec, id.trim()])[0];
    assert_eq!(d["time"], "2020-01-01T00:00:00.000Z");
    assert_eq!(d["node"], 3);
}

#[test]
fn node_numbers_follow_one_rule_everywhere() {
    for bad in [" 7", "07", "+7", "7 ", "0x7"] {
        let stderr = fails(
            snowmint()
                .env("SNOWMINT_NODE", bad)
                .args(["gen", "--node-from", "env"]),
            2,
        );
        assert!(stderr.contains("not a node number"), "{bad:?}: {stderr}");
        fails_with(&["gen", "--node", bad], 2, &["is not a node number"]);
    }
    let out = snowmint()
        .env("SNOWMINT_NODE", "7")
        .args(["gen", "--node-from", "env"])
        .output()
        .unwrap();
    assert!(out.status.success());
}

/// Checks a stderr of bad-ID reports: valid UTF-8, no control characters but line ends,
/// every line an `error: line N:` report, and small.
fn check_reports(stderr: &[u8], max_bytes: usize) -> String {
    let text = String::from_utf8(stderr.to_vec()).expect("stderr is UTF-8");
    assert!(text.len() <= max_bytes, "{} bytes of stderr", text.len());
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "raw control characters in {text:?}"
    );
    for line in text.lines() {
        assert!(line.starts_with("error: line "), "{line}");
    }
    text
}

#[test]
fn decode_survives_binary_control_bytes_and_huge_lines() {
    let good = ok(&["gen", "-n", "2"]);
    let (first, second) = good.trim().split_once('\n').unwrap();
    let mut input = Vec::new();
    input.extend_from_slice(first.as_bytes());
    input.push(b'\n');
    // Line 2: not UTF-8. Line 3: terminal escapes. Line 4: 10 MB without a break. Line 5:
    // every byte value. Line 6: a good ID after all that.
    input.extend_from_slice(b"\xff\xfe\xfd garbage\xc3\n");
    input.extend_from_slice(b"\x1b[2J\x1b]0;pwned\x07 \x1b[31mred\n");
    input.extend(std::iter::repeat_n(b'7', 10_000_000));
    input.push(b'\n');
    input.extend((0..=255_u8).filter(|&b| b != b'\n'));
    input.push(b'\n');
    input.extend_from_slice(second.as_bytes());
    input.push(b'\n');
    let out = snowmint()
        .arg("decode")
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Both good IDs decoded, in order, around the bad lines.
    let stdout = String::from_utf8(out.stdout).unwrap();
    let ids: Vec<&str> = stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ids, [format!("id={first}"), format!("id={second}")]);
    let stderr = check_reports(&out.stderr, 16 * 1024);
    for (line, part) in [
        (2, r"'\xff\xfe\xfd' is not an ID"),
        (2, "byte 0xff at offset 0 is not UTF-8"),
        (2, r"'garbage\xc3'"),
        (3, r"'\u{1b}[2J\u{1b}]0;pwned\u{7}'"),
        (3, r"'\u{1b}[31mred'"),
        (4, "(10000000 bytes) is too long to be an ID"),
        (5, r"'\0\u{1}\u{2}"),
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(&format!("error: line {line}: ")) && l.contains(part)),
            "no line {line} report with {part:?} in {stderr}"
        );
    }
    // No report echoes more than a short, cut piece of its input.
    assert!(stderr.lines().all(|l| l.len() < 600), "{stderr}");
}

#[test]
fn decode_reports_at_most_ten_bad_ids_per_line() {
    let line = "x! ".repeat(10_000);
    let out = snowmint()
        .arg("decode")
        .write_stdin(format!("{line}\n1541815603606036480\n"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 1);
    let stderr = check_reports(&out.stderr, 4 * 1024);
    assert_eq!(stderr.lines().count(), 11, "{stderr}");
    assert!(
        stderr.ends_with("error: line 1: 9990 more bad IDs on this line not shown\n"),
        "{stderr}"
    );
}

#[test]
fn decode_arguments_that_are_not_utf8_are_bad_ids_too() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let good = ok(&["gen"]);
    let out = snowmint()
        .arg("decode")
        .arg(OsStr::from_bytes(b"\xff1"))
        .arg(good.trim())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 1);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(r"error: '\xff1' is not an ID"),
        "{stderr}"
    );
    // Other arguments that are not UTF-8 are refused by name, escaped.
    let out = snowmint()
        .args(["gen", "-l"])
        .arg(OsStr::from_bytes(b"\x1b[2J\xff"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(r"'\u{1b}[2J\xff' is not UTF-8 text"),
        "{stderr}"
    );
}

/// Memory is bounded per line: a line far longer than any ID is not held. Checked on
/// Linux by reading the process's peak resident set while it waits for more input after a
/// 64 MiB line.
#[cfg(target_os = "linux")]
#[test]
fn decode_holds_a_bounded_amount_of_any_line() {
    use std::io::Write;

    let mut child = StdCommand::new(cargo_bin!("snowmint"))
        .arg("decode")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let chunk = vec![b'7'; 1 << 20];
    for _ in 0..64 {
        stdin.write_all(&chunk).unwrap();
    }
    stdin.flush().unwrap();
    // The pipe holds at most 64 KiB: the tool has read all but that much of the line.
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("(67108864 bytes) is too long"), "{stderr}");
    // The binary and its libraries take a few MiB; the line was 64 MiB.
    assert!(peak_kib < 32 * 1024, "peak resident set {peak_kib} KiB");
}

/// Every form `encode --to` writes.
const TO: [&str; 13] = [
    "decimal",
    "base2",
    "base32",
    "base36",
    "base58",
    "base64",
    "hex",
    "json",
    "json-number",
    "js-bigint",
    "int-bytes",
    "bwmarrin-base64",
    "bwmarrin-bytes",
];

#[test]
fn encode_writes_every_form_and_reads_each_back() {
    let ids = [0_u64, 1, 1_541_815_603_606_036_480, u64::MAX];
    for id in ids {
        let decimal = id.to_string();
        for to in TO {
            let text = ok(&["encode", "--to", to, &decimal]);
            let text = text.strip_suffix('\n').unwrap();
            assert!(!text.contains('\n'), "{to}: {text:?}");
            // The library's encoding where there is one; the CLI's own forms by their rule.
            let expected = match to {
                "json" => format!("\"{id}\""),
                "json-number" => id.to_string(),
                "js-bigint" => format!("{id}n"),
                "int-bytes" => format!("{id:016x}"),
                other => Id::from_u64(id)
                    .encode(other.parse::<Encoding>().unwrap())
                    .to_string(),
            };
            assert_eq!(text, expected, "{id} --to {to}");
            // And back, named.
            let back = ok(&["encode", "--from", to, "--to", "decimal", text]);
            assert_eq!(back, format!("{id}\n"), "{id} --from {to}");
        }
    }
    // bwmarrin's README example, from its Base64() to the 8 bytes.
    assert_eq!(
        ok(&[
            "encode",
            "--from",
            "bwmarrin-base64",
            "--to",
            "int-bytes",
            "MTI4MzMyODc4NDc2NTgxNjgzMg=="
        ]),
        format!("{:016x}\n", 1_283_328_784_765_816_832_u64)
    );
}

#[test]
fn encode_reads_standard_input_and_reports_bad_ids_as_decode_does() {
    let out = snowmint()
        .args(["encode", "--to", "base58"])
        .write_stdin("1428076403798048768 no-pe!\n\n13d18bec48800000\n12n\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "4jgmnx8Js8A\n4jgmnx8Js8A\n"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("error: line 1: 'no-pe!' is not an ID"),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with("error: line 4: '12n' is ambiguous: it reads as base36 1391, js-bigint 12; pass --from base36 or --from js-bigint"),
        "{stderr}"
    );
    // The same input, decoded, fails on the same tokens with the same messages.
    let decoded = snowmint()
        .args(["decode"])
        .write_stdin("1428076403798048768 no-pe!\n\n13d18bec48800000\n12n\n")
        .output()
        .unwrap();
    assert_eq!(decoded.status.code(), Some(2));
    assert_eq!(String::from_utf8(decoded.stderr).unwrap(), stderr);
    // A layout narrows the width, and so detection.
    fails_with(
        &["encode", "-l", "js53", "--to", "hex", "9007199254740992"],
        2,
        &["allowed 0 to 9007199254740991"],
    );
    fails_with(
        &["encode", "--to", "base2", "--from", "json", "123"],
        2,
        &["unquoted JSON number", "--from json-number"],
    );
    fails_with(
        &["encode", "--to", "rot13", "1"],
        2,
        &["'rot13' is not one of"],
    );
    assert_eq!(
        ok(&["encode", "--to", "decimal", "--from", "json-number", "123"]),
        "123\n"
    );
    assert_eq!(ok(&["encode", "--to", "hex", "\"255\""]), "ff\n");
}
