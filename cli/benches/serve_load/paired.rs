//! Paired rounds with `wrk`: `snowmint serve`'s `/ids?n=N` (text, JSON, then binary) against a bare
//! axum handler on the same runtime shape, side by side, one right after the other in each
//! round, so that the machine's load falls on both alike.
//!
//! The bare handler answers `n` values of one atomic counter (from 10^18, so 19 digits, the
//! bytes of a Twitter ID) as decimal lines, a JSON array of strings or big-endian `u64`s, as asked: what
//! `/ids` does minus the generator, the query rule, the readiness check and the metrics, on
//! a listener with the service's socket option (`TCP_NODELAY`).
//!
//! The two go first in turn (snowmint in odd rounds, the bare handler in even ones), so that
//! a load that rises or falls through a round favours neither. Besides each pair's ratio of
//! requests per second, each side's CPU time per request (from `/proc/<pid>/stat`: the
//! server's process, and this one, which runs nothing else while `wrk` runs) and its ratio:
//! the time a request costs, less moved than the rate by what else the machine runs.
//!
//! Settings (environment): `SERVE_LOAD_PAIRS` (rounds, default 7; 0 skips them),
//! `SERVE_LOAD_WRK` (`wrk` flags, default `-t2 -c16 -d5s`), `SERVE_LOAD_BATCH` (n).

use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;

/// The bare handler's server: its port and the runtime that runs it.
pub struct Bare {
    pub port: u16,
    _runtime: tokio::runtime::Runtime,
}

impl Bare {
    /// Starts on a free loopback port with `workers` worker threads (the service's default
    /// is two per CPU).
    pub fn start(workers: usize) -> Bare {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .expect("the bare handler's runtime");
        let counter = Arc::new(AtomicU64::new(1_000_000_000_000_000_000));
        let app = Router::new()
            .route("/ids", get(bare_ids))
            .with_state(counter);
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind");
        let port = listener.local_addr().expect("local address").port();
        // As the service's: responses go out at once, not held back by Nagle's algorithm.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        runtime.spawn(async move { axum::serve(listener, app).await });
        Bare {
            port,
            _runtime: runtime,
        }
    }
}

async fn bare_ids(State(counter): State<Arc<AtomicU64>>, uri: Uri, headers: HeaderMap) -> Response {
    let n: u64 = uri
        .query()
        .and_then(|q| q.strip_prefix("n="))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let accept = headers.get(header::ACCEPT).map(HeaderValue::as_bytes);
    let json = accept == Some(b"application/json");
    // Relaxed: a lone counter, ordered with nothing else.
    let first = counter.fetch_add(n, Ordering::Relaxed);
    if accept == Some(b"application/octet-stream") {
        // The service's binary body: big-endian u64s, 8 bytes each.
        let mut body = Vec::with_capacity(n as usize * 8);
        for i in 0..n {
            body.extend_from_slice(&(first + i).to_be_bytes());
        }
        let content_type = HeaderValue::from_static("application/octet-stream");
        return ([(header::CONTENT_TYPE, content_type)], body).into_response();
    }
    let mut body = Vec::with_capacity(n as usize * 23 + 2);
    let mut digits = itoa::Buffer::new();
    if json {
        body.push(b'[');
    }
    for i in 0..n {
        let text = digits.format(first + i).as_bytes();
        if json {
            if i > 0 {
                body.push(b',');
            }
            body.push(b'"');
            body.extend_from_slice(text);
            body.push(b'"');
        } else {
            body.extend_from_slice(text);
            body.push(b'\n');
        }
    }
    let content_type = if json {
        body.push(b']');
        HeaderValue::from_static("application/json")
    } else {
        HeaderValue::from_static("text/plain; charset=utf-8")
    };
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// What one `wrk` run measured.
struct Round {
    /// Requests per second.
    rate: f64,
    /// The server's CPU time per request, microseconds.
    cpu_us: f64,
}

/// The CPU time (user and system) the process `pid` (`self` for this one) has used so far,
/// in clock ticks.
fn cpu_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/stat: {e}"));
    // The fields after the command's closing parenthesis, from the third (the state):
    // utime and stime are the 14th and 15th.
    let after = stat.rsplit_once(") ").expect("a stat line").1;
    let fields: Vec<u64> = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .map(|f| f.parse().expect("a tick count"))
        .collect();
    fields.iter().sum()
}

/// Clock ticks per second (`getconf CLK_TCK`).
fn ticks_per_second() -> f64 {
    let out = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .expect("run getconf");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("CLK_TCK")
}

/// One `wrk` run against the server of process `pid` at `port`; panics unless every answer
/// was a 2xx.
fn wrk(
    flags: &[String],
    pid: &str,
    port: u16,
    path: &str,
    accept: Option<&str>,
    tick_us: f64,
) -> Round {
    let mut cmd = Command::new("wrk");
    cmd.args(flags);
    if let Some(accept) = accept {
        cmd.args(["-H", &format!("Accept: {accept}")]);
    }
    let before = cpu_ticks(pid);
    let out = cmd
        .arg(format!("http://127.0.0.1:{port}{path}"))
        .output()
        .expect("run wrk (Debian package wrk)");
    let ticks = cpu_ticks(pid) - before;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("Non-2xx"),
        "a non-2xx answer from {pid}:\n{text}"
    );
    let rate = text
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no Requests/sec in wrk's output:\n{text}"));
    let requests: f64 = text
        .lines()
        .find_map(|l| l.split_once(" requests in "))
        .and_then(|(n, _)| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no request count in wrk's output:\n{text}"));
    Round {
        rate,
        cpu_us: ticks as f64 * tick_us / requests.max(1.0),
    }
}

/// The median and range of `values`, as `median (low-high)`.
fn summary(values: &mut [f64]) -> String {
    values.sort_by(f64::total_cmp);
    match (values.first(), values.last()) {
        (Some(low), Some(high)) => {
            format!("{:.2}x ({low:.2}-{high:.2})", values[values.len() / 2])
        }
        _ => "none".to_owned(),
    }
}

/// The bodies compared: their name and `Accept` header.
const SHAPES: [(&str, Option<&str>); 3] = [
    ("text", None),
    ("JSON", Some("application/json")),
    ("binary", Some("application/octet-stream")),
];

/// `pairs` rounds of `snowmint` (process `pid`, at `port`) and the bare handler, taking
/// turns to go first, in text, JSON and binary; prints each pair's rates, CPU times per
/// request and ratios, then the median and range of the ratios; and last the service's
/// binary rate over its text rate, round by round.
pub fn run(pairs: usize, pid: u32, port: u16, bare: &Bare, batch: u64) {
    let flags: Vec<String> = std::env::var("SERVE_LOAD_WRK")
        .unwrap_or_else(|_| "-t2 -c16 -d5s".to_owned())
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let tick_us = 1e6 / ticks_per_second();
    let pid = pid.to_string();
    let path = format!("/ids?n={batch}");
    let mut text_rates = Vec::with_capacity(pairs);
    let mut binary_over_text = Vec::with_capacity(pairs);
    for (shape, accept) in SHAPES {
        let mut rates = Vec::with_capacity(pairs);
        let mut cpus = Vec::with_capacity(pairs);
        for round in 1..=pairs {
            let ours = || wrk(&flags, &pid, port, &path, accept, tick_us);
            let theirs = || wrk(&flags, "self", bare.port, &path, accept, tick_us);
            let (ours, theirs) = if round % 2 == 1 {
                let ours = ours();
                (ours, theirs())
            } else {
                let theirs = theirs();
                (ours(), theirs)
            };
            let rate = ours.rate / theirs.rate;
            let cpu = ours.cpu_us / theirs.cpu_us;
            println!(
                "pair {round} {path} {shape}: snowmint {:>9.0} requests/s {:>6.1} us CPU/request, bare axum {:>9.0} {:>6.1} us: {rate:.2}x the rate, {cpu:.2}x the CPU",
                ours.rate, ours.cpu_us, theirs.rate, theirs.cpu_us
            );
            rates.push(rate);
            cpus.push(cpu);
            match shape {
                "text" => text_rates.push(ours.rate),
                "binary" => binary_over_text.push(ours.rate / text_rates[round - 1]),
                _ => {}
            }
        }
        println!(
            "{path} {shape} (wrk {}), over {pairs} pairs: requests/s {} of the bare handler's, median (range); CPU per request {}",
            flags.join(" "),
            summary(&mut rates),
            summary(&mut cpus)
        );
    }
    println!(
        "{path}: snowmint's binary rate over its text rate of the same round, over {pairs} rounds: {}",
        summary(&mut binary_over_text)
    );
}
