//! Options (arguments and environment variables) and the output: the table, the paired
//! ratios, the load average.

use snowmint::Layout;

use crate::cases::{Case, Unit};
use crate::entries::Entry;
use crate::CAPPED;

pub(crate) struct Options {
    pub(crate) ids: u64,
    pub(crate) runs: usize,
    pub(crate) filters: Vec<String>,
}

pub(crate) fn options() -> Options {
    let env_num = |key: &str, default: u64| -> u64 {
        std::env::var(key)
            .ok()
            .map(|v| {
                v.replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| panic!("{key}={v}: expected a whole number"))
            })
            .unwrap_or(default)
    };
    let mut o = Options {
        ids: env_num("TIGHT_IDS", 10_000_000),
        runs: env_num("TIGHT_RUNS", 5) as usize,
        filters: std::env::var("TIGHT_FILTER")
            .map(|f| f.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |what: &str| -> u64 {
            let v = args
                .next()
                .unwrap_or_else(|| panic!("{what} needs a value"));
            v.replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("{what} {v}: expected a whole number"))
        };
        match arg.as_str() {
            "--ids" => o.ids = number("--ids"),
            "--runs" => o.runs = number("--runs") as usize,
            // cargo bench passes --bench; other harness flags mean nothing here.
            a if a.starts_with("--") => {}
            _ => o.filters.push(arg),
        }
    }
    assert!(o.ids >= 2, "--ids must be at least 2 (one per thread)");
    assert!(o.runs >= 1, "--runs must be at least 1");
    o
}

pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// `median (min–max)` of an entry in the case's unit, or `—` if it did not run.
pub(crate) fn figure(unit: Unit, e: &Entry) -> Option<(f64, String)> {
    let ns = e.ns_per_id();
    if ns.is_empty() {
        return None;
    }
    let shown: Vec<f64> = ns.iter().map(|&x| unit.show(x)).collect();
    let (lo, hi) = shown
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let m = unit.show(median(ns));
    // Three decimals below 1 ns: a slice fill's figures are around 0.1.
    let digits = |x: f64| match x {
        x if x >= 100.0 => 0,
        x if x < 1.0 => 3,
        _ => 2,
    };
    let text = if shown.len() == 1 {
        format!("{m:.*} {}", digits(m), unit.suffix())
    } else {
        format!(
            "{m:.*} {} ({lo:.*}–{hi:.*})",
            digits(m),
            unit.suffix(),
            digits(lo),
            digits(hi)
        )
    };
    Some((m, text))
}

/// The peer's time over snowmint's in each round (both units: ns per ID is the inverse of
/// the throughput), as `median× (min–max)`: a slow phase of the machine that hits both
/// entries of a round cancels out, where the ratio of two medians keeps it.
pub(crate) fn paired_ratios(ours: &Entry, peer: &Entry) -> String {
    let ratios: Vec<f64> = ours
        .ns_per_id()
        .iter()
        .zip(peer.ns_per_id())
        .map(|(o, p)| p / o)
        .collect();
    if ratios.is_empty() {
        return "—".to_owned();
    }
    let (lo, hi) = ratios
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let m = median(ratios);
    format!("{m:.2}× ({lo:.2}–{hi:.2})")
}

/// A 64-bit layout as `time/node/sequence`; a 128-bit case has none.
pub(crate) fn layout_name(l: Option<&Layout>) -> String {
    l.map_or_else(
        || "128-bit".to_owned(),
        |l| format!("{}/{}/{}", l.time_bits(), l.node_bits(), l.sequence_bits()),
    )
}

pub(crate) fn check_text(e: &Entry) -> String {
    match &e.check {
        None => "not checked".to_owned(),
        Some(Ok(_)) if e.baseline => "ok".to_owned(),
        Some(Ok(0)) => "ok".to_owned(),
        Some(Ok(t)) => format!("ok; {t} ticks used up"),
        Some(Err(e)) => format!("FAILED: {e}"),
    }
}

pub(crate) fn report(cases: &[Case], o: &Options, floor_ns: f64, load_start: &str, load_end: &str) {
    println!();
    println!(
        "tight loop: {} IDs per run and case (two threads: half each), median of {} run(s) (min–max); \
         ratio > 1: snowmint ahead (`ratio`: of the medians; `paired`: the median, min–max, of \
         the ratios within each round, where the two ran side by side)",
        o.ids, o.runs
    );
    println!("load average (1, 5, 15 min): at start {load_start}; at end {load_end}");
    println!("floor (loop + black_box, no minting): {floor_ns:.2} ns/ID");
    println!();
    println!(
        "| case | layout | snowmint | best peer | peer | ratio | paired | cap (closest entry) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for c in cases {
        let ours = c.snowmint.as_ref().and_then(|e| figure(c.unit, e));
        let best = c
            .peers
            .iter()
            .filter(|e| !e.baseline)
            .filter_map(|e| figure(c.unit, e).map(|f| (e, f)))
            .reduce(|a, b| {
                let better = match c.unit {
                    Unit::NsPerId => b.1 .0 < a.1 .0,
                    Unit::MIdsPerSec => b.1 .0 > a.1 .0,
                };
                if better {
                    b
                } else {
                    a
                }
            });
        let ratio = match (&ours, &best) {
            (Some((o, _)), Some((_, (p, _)))) => match c.unit {
                Unit::NsPerId => format!("{:.2}×", p / o),
                Unit::MIdsPerSec => format!("{:.2}×", o / p),
            },
            _ => "—".to_owned(),
        };
        let paired = match (&c.snowmint, &best) {
            (Some(o), Some((p, _))) => paired_ratios(o, p),
            _ => "—".to_owned(),
        };
        let closest = c
            .snowmint
            .iter()
            .chain(&c.peers)
            .filter(|e| !e.samples.is_empty() && !e.baseline && e.has_layout)
            .max_by(|a, b| a.max_cap_use().total_cmp(&b.max_cap_use()));
        let cap = match closest {
            Some(e) => {
                let used = e.max_cap_use();
                let up = match e.check {
                    Some(Ok(t)) => t,
                    _ => 0,
                };
                format!(
                    "{}{} {:.0}%, {} ticks used up",
                    if used >= CAPPED { "CAPPED: " } else { "" },
                    e.name,
                    used * 100.0,
                    up
                )
            }
            None => "—".to_owned(),
        };
        println!(
            "| {} ({}) | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            c.what,
            layout_name(c.layout.as_ref()),
            ours.map_or("—".to_owned(), |o| o.1),
            best.as_ref().map_or("—", |b| b.0.name.as_str()),
            best.as_ref().map_or("—".to_owned(), |b| b.1 .1.clone()),
            ratio,
            paired,
            cap
        );
    }
    println!();
    println!("every entry:");
    println!();
    println!("| case | entry | figure | paired (snowmint over it) | max cap use | check pass |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for c in cases {
        for e in c.snowmint.iter().chain(&c.peers) {
            let Some((_, text)) = figure(c.unit, e) else {
                continue;
            };
            let paired = match &c.snowmint {
                Some(ours) if !std::ptr::eq(ours, e) => paired_ratios(ours, e),
                _ => "—".to_owned(),
            };
            // A baseline's values are not IDs of a tick, nor a 128-bit ID's: no cap.
            let cap = if e.baseline || !e.has_layout {
                "—".to_owned()
            } else {
                format!("{:.1}%", e.max_cap_use() * 100.0)
            };
            println!(
                "| {} | {} | {} | {} | {cap} | {} |",
                c.name,
                e.name,
                text,
                paired,
                check_text(e)
            );
        }
    }
}
