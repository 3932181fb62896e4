//! `GET /`: the status page, one self-contained HTML document (no scripts, styles or images
//! from elsewhere) that reloads itself every few seconds: the readiness state (what a
//! starting service waits for, and until when), the node and where it came from, the fence, IDs per second over the last minutes as an inline SVG chart, waits and errors,
//! the layout and the years it has left.

use std::fmt::Write;
use std::time::SystemTime;

use super::source::Health;
use super::App;
use crate::lifetime;
use crate::time::{self, Precision};

/// How often the page reloads itself, seconds.
pub const REFRESH_SECONDS: u32 = 5;

/// What the page shows, gathered from the service at one moment.
pub struct Snapshot<'a> {
    /// `None` until the lease's claim took one.
    pub node: Option<u64>,
    /// The readiness state, as `/readyz` names it.
    pub state: String,
    pub layout: &'a str,
    /// How the listener speaks: plaintext HTTP or HTTPS (with client certificates or not).
    pub transport: &'a str,
    pub years_left: f64,
    pub source: &'a str,
    pub backend: Option<&'a str>,
    pub namespace: Option<&'a str>,
    pub token: Option<u64>,
    pub fence: &'a str,
    /// Until when the hold is proven without another renewal.
    pub fence_deadline_unix_millis: Option<u64>,
    /// The latest time the IDs may carry, recorded in the store.
    pub fence_limit_unix_millis: Option<u64>,
    pub served: u64,
    pub waits: f64,
    pub errors: f64,
    /// Requests answered 4xx (the client's fault) and 5xx (the service's, or unavailable).
    pub answered_4xx: f64,
    pub answered_5xx: f64,
    /// IDs per second, oldest first.
    pub history: Vec<u64>,
}

impl<'a> Snapshot<'a> {
    /// The service's state now.
    pub fn of(app: &'a App) -> Snapshot<'a> {
        let state = app.state();
        let minter = app.minter();
        let fence = match minter.map(|m| m.health()) {
            None => "not held yet",
            Some(Health::Ok) if app.lease.is_none() => "none (fixed node)",
            Some(Health::Ok) => "held",
            Some(Health::Fenced) => "fenced",
            Some(Health::Lost) => "lost",
        };
        Snapshot {
            node: state.node(),
            state: state.name(),
            layout: app.layout_name,
            transport: app.transport,
            years_left: lifetime::years_left(&app.layout, SystemTime::now()),
            source: if app.lease.is_some() {
                "lease"
            } else {
                "fixed"
            },
            backend: app.lease.as_ref().map(|l| l.backend),
            namespace: app.lease.as_ref().map(|l| l.namespace.as_str()),
            token: minter.and_then(|m| m.token()),
            fence,
            fence_deadline_unix_millis: minter
                .and_then(|m| m.deadline_unix_millis())
                .filter(|&d| d != 0),
            fence_limit_unix_millis: minter.and_then(|m| m.fence_limit_unix_millis()),
            served: app.activity.total(),
            waits: app.metrics.sum("snowmint_waits_total"),
            errors: app.metrics.sum("snowmint_errors_total"),
            answered_4xx: app.metrics.answered(b'4'),
            answered_5xx: app.metrics.answered(b'5'),
            history: app.activity.history(),
        }
    }
}

/// The page's title: the node, or what the service does before it has one.
fn title(s: &Snapshot<'_>) -> String {
    match s.node {
        Some(node) => format!("snowmint node {node}"),
        None => "snowmint (claiming a node)".to_owned(),
    }
}

/// The mean IDs per second over the last `seconds` (of the history there is).
fn mean_rate(history: &[u64], seconds: usize) -> f64 {
    let recent = &history[history.len().saturating_sub(seconds)..];
    if recent.is_empty() {
        0.0
    } else {
        recent.iter().sum::<u64>() as f64 / recent.len() as f64
    }
}

/// `text` with `&`, `<`, `>` and `"` escaped for HTML.
fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 120.0;

/// Room left of the plot for the rate axis' labels, and below it for the time axis'.
const LEFT: f64 = 64.0;
const BELOW: f64 = 20.0;
const TOP: f64 = 6.0;

/// The history as an SVG polyline, the newest second at the right edge, with axes: IDs per
/// second up the left (0 and the peak), minutes before now along the bottom.
fn chart(history: &[u64]) -> String {
    let peak = history.iter().copied().max().unwrap_or(0).max(1) as f64;
    let slots = super::activity::SECONDS as f64;
    let start = slots - history.len() as f64;
    let mut points = String::new();
    for (i, &count) in history.iter().enumerate() {
        let x = (start + i as f64) / (slots - 1.0) * WIDTH;
        let y = HEIGHT - count as f64 / peak * (HEIGHT - 4.0);
        let _ = write!(points, "{x:.1},{y:.1} ");
    }
    let minutes = super::activity::SECONDS / 60;
    let mut ticks = String::new();
    for m in 0..=minutes {
        let x = LEFT + WIDTH - m as f64 / minutes as f64 * WIDTH;
        let label = if m == 0 {
            "now".to_owned()
        } else {
            format!("-{m} min")
        };
        let _ = write!(
            ticks,
            "<line x1=\"{x:.1}\" y1=\"{b:.1}\" x2=\"{x:.1}\" y2=\"{t:.1}\" stroke=\"#57606a\"/>\
             <text x=\"{x:.1}\" y=\"{l:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#57606a\">{label}</text>",
            b = TOP + HEIGHT,
            t = TOP + HEIGHT + 4.0,
            l = TOP + HEIGHT + 15.0,
        );
    }
    format!(
        "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"IDs per second, last {minutes} minutes\">\
         <rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#f6f8fa\"/>\
         <g transform=\"translate({LEFT},{TOP})\">\
         <polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\" points=\"{p}\"/></g>\
         <line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{bottom}\" stroke=\"#57606a\"/>\
         <line x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{right}\" y2=\"{bottom}\" stroke=\"#57606a\"/>\
         <text x=\"{lx}\" y=\"{py}\" font-size=\"10\" text-anchor=\"end\" fill=\"#57606a\">{peak}</text>\
         <text x=\"{lx}\" y=\"{bottom}\" font-size=\"10\" text-anchor=\"end\" fill=\"#57606a\">0</text>\
         <text x=\"{lx}\" y=\"{my}\" font-size=\"10\" text-anchor=\"end\" fill=\"#57606a\">IDs/s</text>\
         {ticks}\
         <text x=\"{tx}\" y=\"{ty}\" font-size=\"11\" fill=\"#57606a\">peak {peak} IDs/s</text></svg>",
        w = LEFT + WIDTH + 24.0,
        h = TOP + HEIGHT + BELOW,
        bottom = TOP + HEIGHT,
        right = LEFT + WIDTH,
        lx = LEFT - 4.0,
        py = TOP + 8.0,
        my = TOP + HEIGHT / 2.0,
        tx = LEFT + 4.0,
        ty = TOP + 12.0,
        p = points.trim_end(),
    )
}

/// The page.
pub fn render(s: &Snapshot<'_>) -> String {
    let row = |out: &mut String, id: &str, name: &str, value: &str| {
        let _ = write!(
            out,
            "<tr><th>{name}</th><td id=\"{id}\">{}</td></tr>",
            html(value)
        );
    };
    let mut rows = String::new();
    row(&mut rows, "state", "State", &s.state);
    let node = s
        .node
        .map_or_else(|| "none yet".to_owned(), |n| n.to_string());
    row(&mut rows, "node", "Node", &node);
    row(&mut rows, "source", "Node from", s.source);
    if let Some(backend) = s.backend {
        row(&mut rows, "backend", "Lease backend", backend);
    }
    if let Some(ns) = s.namespace {
        row(&mut rows, "namespace", "Lease namespace", ns);
    }
    if let Some(token) = s.token {
        row(&mut rows, "token", "Fencing token", &token.to_string());
    }
    row(&mut rows, "fence", "Fence", s.fence);
    if let Some(deadline) = s.fence_deadline_unix_millis {
        row(
            &mut rows,
            "fence-deadline",
            "Fence deadline",
            &time::display_millis(deadline),
        );
    }
    if let Some(limit) = s.fence_limit_unix_millis {
        row(
            &mut rows,
            "fence-limit",
            "IDs stamped up to",
            &time::display_millis(limit),
        );
    }
    row(&mut rows, "layout", "Layout", s.layout);
    row(&mut rows, "transport", "Listening", s.transport);
    row(
        &mut rows,
        "years-left",
        "Years left",
        &format!("{:.1}", s.years_left),
    );
    row(
        &mut rows,
        "rate",
        "IDs/s, last minute",
        &format!("{:.0}", mean_rate(&s.history, 60)),
    );
    row(
        &mut rows,
        "rate-5s",
        "IDs/s, last 5 s",
        &format!("{:.0}", mean_rate(&s.history, 5)),
    );
    row(&mut rows, "served", "IDs served", &s.served.to_string());
    row(&mut rows, "waits", "Waits", &format!("{:.0}", s.waits));
    row(
        &mut rows,
        "errors",
        "Minting errors",
        &format!("{:.0}", s.errors),
    );
    row(
        &mut rows,
        "http-4xx",
        "Answers 4xx (bad requests)",
        &format!("{:.0}", s.answered_4xx),
    );
    row(
        &mut rows,
        "http-5xx",
        "Answers 5xx (unavailable, failed)",
        &format!("{:.0}", s.answered_5xx),
    );
    let now = time::display(SystemTime::now(), Precision::Millis);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"refresh\" content=\"{REFRESH_SECONDS}\">\
         <title>{title}</title>\
         <style>body{{font:14px system-ui,sans-serif;margin:2em;color:#1f2328}}\
         table{{border-collapse:collapse;margin:1em 0}}th,td{{text-align:left;padding:3px 12px 3px 0}}\
         th{{color:#57606a;font-weight:normal}}td{{font-variant-numeric:tabular-nums}}</style></head>\
         <body><h1>{title}</h1>\
         <p>IDs per second, last {m} minutes</p>{chart}\
         <table>{rows}</table>\
         <p><small>{now}; reloads every {REFRESH_SECONDS} s; also \
         <a href=\"/readyz\">/readyz</a>, <a href=\"/healthz\">/healthz</a>, \
         <a href=\"/metrics\">/metrics</a></small></p></body></html>\n",
        title = html(&title(s)),
        m = super::activity::SECONDS / 60,
        chart = chart(&s.history),
        now = html(&now),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(history: Vec<u64>) -> Snapshot<'static> {
        Snapshot {
            node: Some(5),
            state: "ready".to_owned(),
            layout: "twitter",
            transport: "HTTPS (TLS)",
            years_left: 53.6,
            source: "lease",
            backend: Some("etcd"),
            namespace: Some("<ns>"),
            token: Some(42),
            fence: "held",
            fence_deadline_unix_millis: Some(1_700_000_000_000),
            fence_limit_unix_millis: Some(1_700_000_001_000),
            served: 1_000,
            waits: 3.0,
            errors: 0.0,
            answered_4xx: 0.0,
            answered_5xx: 0.0,
            history,
        }
    }

    #[test]
    fn the_page_names_everything_and_escapes_text() {
        let page = render(&snapshot(vec![10, 20, 30]));
        assert!(page.contains(r#"<td id="node">5</td>"#), "{page}");
        assert!(page.contains(r#"<td id="namespace">&lt;ns&gt;</td>"#));
        assert!(page.contains(r#"<td id="backend">etcd</td>"#));
        assert!(page.contains(r#"<td id="token">42</td>"#));
        assert!(page.contains(r#"<td id="fence-deadline">2023-11-14T22:13:20.000Z</td>"#));
        assert!(page.contains(r#"<td id="fence-limit">2023-11-14T22:13:21.000Z</td>"#));
        assert!(page.contains(r#"<td id="years-left">53.6</td>"#));
        assert!(page.contains(r#"<td id="rate">20</td>"#));
        assert!(page.contains(r#"<td id="waits">3</td>"#));
        assert!(page.contains(r#"<td id="transport">HTTPS (TLS)</td>"#));
        assert!(page.contains("http-equiv=\"refresh\""));
        assert!(page.contains(r#"<td id="state">ready</td>"#));
        // Self-contained: nothing loaded from elsewhere.
        assert!(!page.contains("<script") && !page.contains("src=") && !page.contains("<link"));
    }

    #[test]
    fn a_starting_service_shows_what_it_waits_for() {
        let mut s = snapshot(Vec::new());
        s.node = None;
        s.state = "claiming".to_owned();
        let page = render(&s);
        assert!(
            page.contains("<title>snowmint (claiming a node)</title>"),
            "{page}"
        );
        assert!(page.contains(r#"<td id="state">claiming</td>"#));
        assert!(page.contains(r#"<td id="node">none yet</td>"#));
    }

    #[test]
    fn the_chart_puts_the_newest_second_at_the_right_edge() {
        let svg = chart(&[0, 50, 100]);
        assert!(svg.ends_with("</svg>"));
        assert!(svg.contains("600.0,4.0\""), "{svg}");
        assert!(svg.contains("peak 100 IDs/s"));
        // Axes with units: the rate up the left, minutes before now along the bottom.
        assert!(
            svg.contains(">IDs/s</text>")
                && svg.contains(">-5 min</text>")
                && svg.contains(">now</text>"),
            "{svg}"
        );
        assert_eq!(mean_rate(&[], 60), 0.0);
        assert_eq!(mean_rate(&[1, 2, 3, 4], 2), 3.5);
    }
}
