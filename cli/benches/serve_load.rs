//! Load on a running `snowmint serve` over loopback: requests per second and latency
//! percentiles for `GET /id`, IDs per second for `GET /ids?n=1000`, and then `/ids` against
//! a bare axum handler in paired `wrk` rounds, text, JSON and binary ([`paired`]).
//!
//! Starts the release binary (`CARGO_BIN_EXE_snowmint`) on a free port, then drives it from
//! a tokio client with many keep-alive HTTP/1.1 connections, each sending its next request as
//! soon as the last answer arrived (closed loop). Two clients: `hyper` (hyper's HTTP/1.1
//! client connection) and `raw` (a minimal one over `TcpStream`: the request's bytes, then
//! the answer read up to its `content-length`), which leaves more of the shared cores to the
//! server. Every phase is bounded in time
//! and in count, and the server is stopped by SIGTERM at the end (its exit status checked).
//!
//! ```text
//! cargo bench -p snowmint-cli --bench serve_load
//! ```
//!
//! Settings (environment): `SERVE_LOAD_SECONDS` (per phase, default 5),
//! `SERVE_LOAD_CONNECTIONS` (default 32), `SERVE_LOAD_CLIENT_THREADS` (default 1),
//! `SERVE_LOAD_SERVER_ARGS` (more `snowmint serve` flags, split at spaces, e.g.
//! `--workers 4 --lead-ticks 0`),
//! `SERVE_LOAD_BATCH` (n of the `/ids` phase, default 1000), `SERVE_LOAD_CLIENT` (`hyper`,
//! the default, or `raw`).
//! Client and server share the machine's cores: record the load (`uptime`) beside the
//! figures, as benches/README.md does.

#[path = "serve_load/paired.rs"]
mod paired;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::Request;
use hyper_util::rt::TokioIo;

/// The most requests one phase sends, whatever its time: bounds the run on a fast machine.
const MAX_REQUESTS: u64 = 5_000_000;
/// Unmeasured time before each phase (connections open, shards taken, caches warm).
const WARMUP: Duration = Duration::from_millis(500);

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(extra: &[String]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_snowmint"))
            .args(["serve", "--listen", "127.0.0.1:0", "--max-batch", "100000"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn snowmint serve");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let port = loop {
            let line = lines
                .next()
                .expect("the server exited before listening")
                .expect("stderr");
            eprintln!("{line}");
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let addr = rest.split_whitespace().next().unwrap();
                break addr.rsplit(':').next().unwrap().parse().unwrap();
            }
        };
        // Keep draining its stderr so that it never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(|l| drop(l.map(|l| eprintln!("{l}")))));
        Server { child, port }
    }

    fn stop(mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                assert!(status.success(), "server exit status {status:?}");
                return;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not stop within 30 s of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// What one connection measured.
#[derive(Default)]
struct Tally {
    requests: u64,
    ids: u64,
    latencies_ns: Vec<u64>,
}

/// Which HTTP client drives the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Client {
    Hyper,
    Raw,
}

/// One connection's loop with the chosen client.
async fn drive(
    client: Client,
    port: u16,
    path: &'static str,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    budget: u64,
) -> Tally {
    match client {
        Client::Hyper => drive_hyper(port, path, measuring, stop, budget).await,
        Client::Raw => drive_raw(port, path, measuring, stop, budget).await,
    }
}

/// As [`drive_hyper`], with the request written by hand and the answer read up to its
/// `content-length` (the server always sends one).
async fn drive_raw(
    port: u16,
    path: &'static str,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    budget: u64,
) -> Tally {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").into_bytes();
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut tally = Tally::default();
    // Relaxed: flags only end or start the loop; no data is published through them.
    while !stop.load(Ordering::Relaxed) && tally.requests < budget {
        let start = Instant::now();
        stream.write_all(&request).await.expect("send");
        buf.clear();
        let (head_end, body_len) = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = std::str::from_utf8(&buf[..end]).expect("ASCII head");
                assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
                let len = head
                    .split("\r\n")
                    .filter_map(|l| l.split_once(':'))
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
                    .and_then(|(_, v)| v.trim().parse::<usize>().ok())
                    .expect("content-length");
                break (end + 4, len);
            }
            let mut chunk = [0_u8; 16 * 1024];
            let n = stream.read(&mut chunk).await.expect("read");
            assert!(n > 0, "the server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
        };
        while buf.len() < head_end + body_len {
            let mut chunk = vec![0_u8; head_end + body_len - buf.len()];
            let n = stream.read(&mut chunk).await.expect("read");
            assert!(n > 0, "the server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
        }
        let took = start.elapsed();
        if measuring.load(Ordering::Relaxed) {
            tally.requests += 1;
            tally.ids += buf[head_end..].iter().filter(|&&b| b == b'\n').count() as u64;
            tally.latencies_ns.push(took.as_nanos() as u64);
        }
    }
    tally
}

/// Sends `path` over one keep-alive hyper connection until `stop`, counting IDs (lines) and,
/// once `measuring`, timing every request.
async fn drive_hyper(
    port: u16,
    path: &'static str,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    budget: u64,
) -> Tally {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(conn);
    let mut tally = Tally::default();
    // Relaxed: flags only end or start the loop; no data is published through them.
    while !stop.load(Ordering::Relaxed) && tally.requests < budget {
        let request = Request::get(path)
            .header(hyper::header::HOST, "127.0.0.1")
            .body(Empty::<Bytes>::new())
            .expect("request");
        let start = Instant::now();
        let response = sender.send_request(request).await.expect("response");
        assert_eq!(response.status(), 200, "{path}");
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        let took = start.elapsed();
        if measuring.load(Ordering::Relaxed) {
            tally.requests += 1;
            tally.ids += body.iter().filter(|&&b| b == b'\n').count() as u64;
            tally.latencies_ns.push(took.as_nanos() as u64);
        }
    }
    tally
}

struct Figures {
    seconds: f64,
    requests: u64,
    ids: u64,
    p50_us: f64,
    p99_us: f64,
    p999_us: f64,
    max_us: f64,
}

fn phase(rt: &tokio::runtime::Runtime, client: Client, port: u16, path: &'static str) -> Figures {
    let connections: usize = env_or("SERVE_LOAD_CONNECTIONS", 32);
    let seconds: f64 = env_or("SERVE_LOAD_SECONDS", 5.0);
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let budget = MAX_REQUESTS / connections as u64;
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            rt.spawn(drive(
                client,
                port,
                path,
                measuring.clone(),
                stop.clone(),
                budget,
            ))
        })
        .collect();
    std::thread::sleep(WARMUP);
    measuring.store(true, Ordering::Relaxed);
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    let mut all = Tally::default();
    for task in tasks {
        let t = rt.block_on(task).expect("client task");
        all.requests += t.requests;
        all.ids += t.ids;
        all.latencies_ns.extend(t.latencies_ns);
    }
    // The measured window ends when the flag is set; requests answered while the tasks
    // wind down (one per connection at most) are within the noise.
    let elapsed = start.elapsed().as_secs_f64().min(seconds + 0.5);
    all.latencies_ns.sort_unstable();
    let pct = |p: f64| {
        let v = &all.latencies_ns;
        if v.is_empty() {
            return 0.0;
        }
        let i = ((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1;
        v[i] as f64 / 1e3
    };
    Figures {
        seconds: elapsed,
        requests: all.requests,
        ids: all.ids,
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        p999_us: pct(0.999),
        max_us: all.latencies_ns.last().map_or(0.0, |&n| n as f64 / 1e3),
    }
}

fn main() {
    let server_args = std::env::var("SERVE_LOAD_SERVER_ARGS").unwrap_or_default();
    let batch: u64 = env_or("SERVE_LOAD_BATCH", 1000);
    let extra: Vec<String> = server_args.split_whitespace().map(str::to_owned).collect();
    let server = Server::start(&extra);
    let client_threads: usize = env_or("SERVE_LOAD_CLIENT_THREADS", 1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(client_threads)
        .enable_all()
        .build()
        .expect("client runtime");
    let connections: usize = env_or("SERVE_LOAD_CONNECTIONS", 32);
    let client = match std::env::var("SERVE_LOAD_CLIENT").as_deref() {
        Ok("raw") => Client::Raw,
        Ok("hyper") | Err(_) => Client::Hyper,
        Ok(other) => panic!("SERVE_LOAD_CLIENT={other:?}: expected hyper or raw"),
    };
    println!(
        "serve_load: {client:?} client, {connections} keep-alive connections, {client_threads} client thread(s), server flags: {server_args:?}"
    );

    let one = phase(&rt, client, server.port, "/id");
    println!(
        "GET /id           {:>10.0} requests/s  p50 {:>7.1} us  p99 {:>7.1} us  p99.9 {:>7.1} us  max {:>8.1} us  ({} requests in {:.2} s)",
        one.requests as f64 / one.seconds,
        one.p50_us,
        one.p99_us,
        one.p999_us,
        one.max_us,
        one.requests,
        one.seconds
    );
    assert_eq!(one.ids, one.requests, "one ID per /id answer");

    let path: &'static str = Box::leak(format!("/ids?n={batch}").into_boxed_str());
    let many = phase(&rt, client, server.port, path);
    println!(
        "GET {path:<14}{:>10.0} requests/s  p50 {:>7.1} us  p99 {:>7.1} us  {:>12.0} IDs/s  ({} IDs in {:.2} s)",
        many.requests as f64 / many.seconds,
        many.p50_us,
        many.p99_us,
        many.ids as f64 / many.seconds,
        many.ids,
        many.seconds
    );
    assert_eq!(many.ids, many.requests * batch, "n IDs per /ids answer");
    drop(rt);
    let pairs: usize = env_or("SERVE_LOAD_PAIRS", 7);
    if pairs > 0 {
        // The service's default runtime: two workers per CPU.
        let workers = 2 * std::thread::available_parallelism().map_or(1, |n| n.get());
        let bare = paired::Bare::start(workers);
        paired::run(pairs, server.child.id(), server.port, &bare, batch);
    }
    server.stop();
}
