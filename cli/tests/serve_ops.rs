//! `snowmint serve` as an operator sees it (issue #24): metrics that mean what they say, one
//! query grammar on every endpoint, the layout's years left, the status page's HTML, and a
//! Grafana dashboard that asks only for metrics the service exports.

mod serve_support;

use std::collections::BTreeSet;

use serve_support::{metric, Server};

/// 16 IDs per 1 ms tick and shard, no borrowed ticks: a batch of 64 waits for 3 ticks.
const AT_THE_CAP: &[&str] = &[
    "--layout",
    "time=41,node=10,seq=4,unit=1ms",
    "--workers",
    "1",
    "--lead-ticks",
    "0",
    "--node",
    "3",
];

/// The sum of every series of `name` (any labels), 0 when it has none.
fn sum(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
        })
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

#[test]
fn at_the_sequence_cap_requests_wait_and_no_error_is_counted() {
    let mut server = Server::start(AT_THE_CAP);
    let before = server.get("/metrics").text();
    assert_eq!(sum(&before, "snowmint_waits_total"), 0.0, "{before}");
    let port = server.port;
    let clients: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                (0..25)
                    .map(|_| serve_support::get(port, "/ids?n=64", &[]).status)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let statuses: Vec<u16> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    assert_eq!(statuses.len(), 100);
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    let m = server.get("/metrics").text();
    // A request needs 4 ticks, and 4 clients share the one shard: most reservations after a
    // request's first wait for a tick (about 300 in all; a quarter of 100 leaves room for a
    // loaded machine, where a tick may pass while a request is formatted). Waits, not errors.
    let waits = metric(&m, r#"snowmint_waits_total{reason="exhausted"}"#).unwrap_or(0.0);
    assert!(waits >= 25.0, "{m}");
    assert_eq!(sum(&m, "snowmint_errors_total"), 0.0, "{m}");
    assert!(
        m.contains(r#"snowmint_wait_seconds_count{reason="exhausted"}"#)
            || m.contains(r#"snowmint_wait_seconds{reason="exhausted",quantile="#),
        "{m}"
    );
    assert_eq!(
        metric(&m, r#"snowmint_http_ids_total{kind="snowflake"}"#),
        Some(6_400.0)
    );
    // Every family has its HELP line.
    let families: BTreeSet<&str> = m
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert!(families.len() >= 8, "{families:?}");
    for family in &families {
        assert!(
            m.contains(&format!("# HELP {family} ")),
            "{family} has no HELP line:\n{m}"
        );
    }
    // The gauges sampled each second: the fullest tick was full, the layout has decades.
    let full = serve_support::poll(
        std::time::Duration::from_secs(30),
        "the tick-use gauge",
        || {
            // Keep a tick full while the sampler looks.
            serve_support::get(port, "/ids?n=64", &[]);
            let m = server.get("/metrics").text();
            metric(&m, "snowmint_serve_tick_use_ratio").filter(|&r| r > 0.0)
        },
    );
    assert_eq!(full, 1.0);
    let m = server.get("/metrics").text();
    let left = metric(&m, r#"snowmint_layout_seconds_left{layout="custom"}"#).expect(&m);
    assert!(left > 50.0 * 365.0 * 86_400.0, "{left}");
    server.stop();
}

#[test]
fn every_endpoint_reads_its_query_the_same_way() {
    let mut server = Server::start(&["--workers", "1", "--node", "2"]);
    // Percent-decoded, as the path of /decode is.
    let five = server.get("/ids?n=%35");
    assert_eq!(five.status, 200, "{}", five.text());
    assert_eq!(five.text().lines().count(), 5);
    let decoded = server.get("/decode/%31%32%33");
    assert_eq!(decoded.status, 200);
    assert_eq!(decoded.json()["id"], "123");
    // Parameters an endpoint does not take are ignored everywhere.
    for path in [
        "/id?_=1",
        "/ids?n=2&_=1",
        "/decode/123?_=1",
        "/healthz?verbose=1",
        "/metrics?x=y",
        "/?refresh=1",
    ] {
        assert_eq!(server.get(path).status, 200, "{path}");
    }
    // A broken escape is a 400 on every endpoint that reads its query.
    let bad = server.get("/ids?n=%3");
    assert_eq!(
        (bad.status, bad.error_code()),
        (400, "bad_query".to_owned())
    );
    server.stop();
}

#[test]
fn healthz_and_the_status_page_tell_the_years_left() {
    let mut server = Server::start(&["--workers", "1", "--node", "4"]);
    let h = server.get("/healthz").json();
    let years = h["years_left"].as_f64().expect("years_left");
    // Twitter's 41 bits of milliseconds from 2010 run out in 2080.
    assert!((40.0..70.0).contains(&years), "{h}");
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = page.text();
    assert!(html.contains(r#"<td id="node">4</td>"#), "{html}");
    assert!(
        html.contains(&format!(r#"<td id="years-left">{years:.1}</td>"#)),
        "{html}"
    );
    assert!(html.contains("<svg"), "{html}");
    server.stop();
}

/// The `snowmint_*` names a dashboard's queries use, histogram suffixes taken off.
fn names_in(expr: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find("snowmint_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..end];
        let base = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .unwrap_or(name);
        names.push(base.to_owned());
        rest = &tail[end..];
    }
    names
}

/// Every `expr` in the dashboard's panels.
fn exprs(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(o) => {
            for (k, v) in o {
                match (k.as_str(), v) {
                    ("expr", serde_json::Value::String(e)) => out.push(e.clone()),
                    _ => exprs(v, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| exprs(v, out)),
        _ => {}
    }
}

#[test]
fn the_grafana_dashboard_asks_only_for_exported_metrics() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/examples/grafana/snowmint.json")).unwrap(),
    )
    .expect("the dashboard is JSON");
    let mut queries = Vec::new();
    exprs(&dashboard, &mut queries);
    assert!(queries.len() >= 8, "{queries:?}");
    let used: BTreeSet<String> = queries.iter().flat_map(|q| names_in(q)).collect();

    // What the service exports after traffic at the cap, and what the docs list (the rare
    // ones: a lease, a fence, a clock stepped back or late).
    let mut server = Server::start(AT_THE_CAP);
    for _ in 0..20 {
        serve_support::get(server.port, "/ids?n=64", &[]);
    }
    serve_support::get(server.port, "/ids?n=0", &[]);
    let m = server.get("/metrics").text();
    server.stop();
    let exported: BTreeSet<String> = m
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .map(str::to_owned)
        .collect();
    let docs = std::fs::read_to_string(format!("{root}/src/docs/servers.md")).unwrap();
    let documented: BTreeSet<String> = docs
        .lines()
        .filter_map(|l| l.strip_prefix("| `snowmint_"))
        .filter_map(|l| l.split('`').next())
        .map(|n| format!("snowmint_{n}"))
        .collect();
    for name in &used {
        assert!(
            exported.contains(name) || documented.contains(name),
            "the dashboard asks for {name}, which the service does not export\n\
             exported: {exported:?}\ndocumented: {documented:?}"
        );
    }
    // And every family the service exported is documented.
    for name in &exported {
        assert!(
            documented.contains(name),
            "{name} is not in docs/servers.md"
        );
    }
}
