//! Paired rounds with `wrk`: `snowmint serve`'s `/ids?n=N` (text, then JSON) against a bare
//! axum handler on the same runtime shape, side by side, one right after the other in each
//! round, so that the machine's load falls on both alike.
//!
//! The bare handler answers `n` values of one atomic counter (from 10^18, so 19 digits, the
//! bytes of a Twitter ID) as decimal lines, or as a JSON array of strings when asked: what
//! `/ids` does minus the generator, the query rule, the readiness check and the metrics.
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
    let json = headers
        .get(header::ACCEPT)
        .is_some_and(|v| v.as_bytes() == b"application/json");
    // Relaxed: a lone counter, ordered with nothing else.
    let first = counter.fetch_add(n, Ordering::Relaxed);
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

/// One `wrk` run: requests per second, and whether every answer was a 2xx.
fn wrk(flags: &[String], port: u16, path: &str, json: bool) -> (f64, bool) {
    let mut cmd = Command::new("wrk");
    cmd.args(flags);
    if json {
        cmd.args(["-H", "Accept: application/json"]);
    }
    let out = cmd
        .arg(format!("http://127.0.0.1:{port}{path}"))
        .output()
        .expect("run wrk (Debian package wrk)");
    let text = String::from_utf8_lossy(&out.stdout);
    let rate = text
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no Requests/sec in wrk's output:\n{text}"));
    (rate, !text.contains("Non-2xx"))
}

/// `pairs` rounds of (`snowmint` at `port`, then the bare handler), text and JSON; prints
/// each pair's rates and ratio, then the median and range of the ratios.
pub fn run(pairs: usize, port: u16, bare: &Bare, batch: u64) {
    let flags: Vec<String> = std::env::var("SERVE_LOAD_WRK")
        .unwrap_or_else(|_| "-t2 -c16 -d5s".to_owned())
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let path = format!("/ids?n={batch}");
    for json in [false, true] {
        let shape = if json { "JSON" } else { "text" };
        let mut ratios = Vec::with_capacity(pairs);
        for round in 1..=pairs {
            let (ours, ok) = wrk(&flags, port, &path, json);
            assert!(ok, "snowmint answered a non-2xx status");
            let (theirs, _) = wrk(&flags, bare.port, &path, json);
            let ratio = ours / theirs;
            println!(
                "pair {round} {path} {shape}: snowmint {ours:>9.0} requests/s, bare axum {theirs:>9.0}: {ratio:.2}x"
            );
            ratios.push(ratio);
        }
        ratios.sort_by(f64::total_cmp);
        if let (Some(low), Some(high)) = (ratios.first(), ratios.last()) {
            println!(
                "{path} {shape} (wrk {}): median {:.2}x ({low:.2}-{high:.2}) over {pairs} pairs",
                flags.join(" "),
                ratios[ratios.len() / 2]
            );
        }
    }
}
