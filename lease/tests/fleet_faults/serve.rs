//! `snowmint serve` as the fault tests run it: the CLI's binary (built beside this test
//! binary by `cargo build -p snowmint-cli`, or `$SNOWMINT_BIN`), a leased server on a free
//! loopback port, its `/readyz` state, its signals; and [`Clients`], threads that mint from
//! servers over HTTP and keep every ID they were handed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::settings::*;

/// Each HTTP exchange's bound: a failure past it (a debug build beside a CPU hog answers a
/// probe in milliseconds to a second), never a time the fault must be survived in.
const HTTP_WITHIN: Duration = Duration::from_secs(10);

/// The `snowmint` binary: `$SNOWMINT_BIN`, else the one cargo built beside this test
/// (`target/<profile>/snowmint`; this binary is `target/<profile>/deps/fleet_faults-…`).
pub(crate) fn snowmint_bin() -> PathBuf {
    if let Ok(bin) = std::env::var("SNOWMINT_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("test binary");
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("snowmint"))
        .expect("target/<profile>/");
    assert!(
        bin.exists(),
        "{} is missing: build it first (cargo build -p snowmint-cli --all-features) or set \
         SNOWMINT_BIN",
        bin.display()
    );
    bin
}

/// A running `snowmint serve --lease` (killed on drop).
pub(crate) struct Serve {
    pub(crate) name: String,
    child: Option<Child>,
    /// Shared with the clients minting from it, who follow it across restarts.
    pub(crate) port: Arc<AtomicU16>,
    log: Arc<Mutex<String>>,
}

impl Serve {
    /// Starts `snowmint serve` on the store at `url`, in `namespace`, on `nodes`, with the
    /// lease's timing `flags` (`--ttl`, `--lease-timeout`), and returns once it listens
    /// (ready or not).
    pub(crate) fn start(
        name: &str,
        url: &str,
        namespace: &str,
        nodes: &str,
        flags: &[&str],
    ) -> Serve {
        let mut child = Command::new(snowmint_bin())
            .args(["serve", "--listen", "127.0.0.1:0", "--workers", "2"])
            .args(["--lease", url, "--namespace", namespace, "--nodes", nodes])
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn snowmint serve");
        let (tx, rx) = std::sync::mpsc::channel();
        let pipe = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        {
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    if let Some(port) = listening_port(&line) {
                        let _ = tx.send(port);
                    }
                    let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
                    log.push_str(&line);
                    log.push('\n');
                }
            });
        }
        let Ok(port) = rx.recv_timeout(WITHIN) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "server {name} did not listen within {WITHIN:?}:\n{}",
                log.lock().unwrap_or_else(PoisonError::into_inner)
            );
        };
        Serve {
            name: name.to_string(),
            child: Some(child),
            port: Arc::new(AtomicU16::new(port)),
            log,
        }
    }

    /// As [`start`](Self::start), on `old`'s port slot: its clients follow the new process.
    pub(crate) fn restart_of(
        old: &Serve,
        url: &str,
        namespace: &str,
        nodes: &str,
        flags: &[&str],
    ) -> Serve {
        let mut new = Serve::start(&old.name, url, namespace, nodes, flags);
        // Relaxed: clients read it at each request; nothing else rides on it.
        old.port
            .store(new.port.load(Ordering::Relaxed), Ordering::Relaxed);
        new.port = Arc::clone(&old.port);
        new
    }

    /// What it wrote to standard error so far.
    pub(crate) fn stderr(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The `/readyz` state (`ready`, `claiming`, `waiting for the forgetting rule until …`,
    /// …), or `None` if it did not answer.
    pub(crate) fn state(&self) -> Option<String> {
        // Relaxed: see `restart_of`.
        let (_, body) = get(self.port.load(Ordering::Relaxed), "/readyz")?;
        let json: serde_json::Value = serde_json::from_str(&body).ok()?;
        json["state"].as_str().map(str::to_string)
    }

    /// The node it mints on, once ready.
    pub(crate) fn node(&self) -> Option<u64> {
        let (_, body) = get(self.port.load(Ordering::Relaxed), "/readyz")?;
        serde_json::from_str::<serde_json::Value>(&body).ok()?["node"].as_u64()
    }

    /// Polls `/readyz` every 10 ms until `ready`; returns every distinct state seen on the
    /// way, in order, and how long it took. Panics (with its log) past `within` or if the
    /// process exits first.
    pub(crate) fn wait_ready(&mut self, within: Duration) -> (Vec<String>, Duration) {
        let started = Instant::now();
        let mut seen: Vec<String> = Vec::new();
        loop {
            let state = self.state().unwrap_or_else(|| "no answer".to_string());
            if seen.last() != Some(&state) {
                seen.push(state.clone());
            }
            if state == "ready" {
                return (seen, started.elapsed());
            }
            let exited = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten());
            assert!(
                exited.is_none(),
                "server {} exited ({exited:?}) before it was ready; states {seen:?}:\n{}",
                self.name,
                self.stderr()
            );
            assert!(
                started.elapsed() < within,
                "server {} not ready within {within:?}; states {seen:?}:\n{}",
                self.name,
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// SIGKILL: a crash, nothing released.
    pub(crate) fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM, then its exit status (it releases its node and exits 0).
    pub(crate) fn terminate(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        let ok = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "kill -TERM {}", child.id());
        let end = Instant::now() + WITHIN;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return status;
            }
            if Instant::now() > end {
                let _ = child.kill();
                let _ = child.wait();
                panic!("server {} ignored SIGTERM:\n{}", self.name, self.stderr());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        self.kill9();
    }
}

fn listening_port(line: &str) -> Option<u16> {
    let rest = line.split("listening on http://").nth(1)?;
    rest.split_whitespace()
        .next()?
        .rsplit(':')
        .next()?
        .parse()
        .ok()
}

/// One `GET` on a new connection: the status and the body, or `None` (refused, timed out).
pub(crate) fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(HTTP_WITHIN)).ok()?;
    s.set_write_timeout(Some(HTTP_WITHIN)).ok()?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8(raw).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    Some((
        status,
        if chunked {
            dechunk(body)?
        } else {
            body.to_string()
        },
    ))
}

fn dechunk(mut data: &str) -> Option<String> {
    let mut out = String::new();
    loop {
        let (size, rest) = data.split_once("\r\n")?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        out.push_str(rest.get(..size)?);
        data = rest.get(size + 2..)?;
    }
}

/// Client threads, one per server port, each asking `/ids?n=BATCH` in a loop and keeping
/// every ID of every 200 answer (a 503 or a refused connection while a server restarts is
/// asked again).
pub(crate) struct Clients {
    stop: Arc<AtomicBool>,
    ids: Arc<Mutex<Vec<u64>>>,
    threads: Vec<JoinHandle<()>>,
}

impl Clients {
    pub(crate) fn start(ports: &[Arc<AtomicU16>]) -> Clients {
        let stop = Arc::new(AtomicBool::new(false));
        let ids = Arc::new(Mutex::new(Vec::new()));
        let threads = ports
            .iter()
            .map(|port| {
                let (port, stop, ids) = (Arc::clone(port), Arc::clone(&stop), Arc::clone(&ids));
                std::thread::spawn(move || {
                    // Relaxed: a flag polled by the loop, and a port read at each request.
                    while !stop.load(Ordering::Relaxed) {
                        let path = format!("/ids?n={BATCH}");
                        match get(port.load(Ordering::Relaxed), &path) {
                            Some((200, body)) => {
                                let got: Vec<u64> = body
                                    .lines()
                                    .map(|l| l.parse().expect("decimal ID"))
                                    .collect();
                                ids.lock()
                                    .unwrap_or_else(PoisonError::into_inner)
                                    .extend(got);
                            }
                            _ => std::thread::sleep(Duration::from_millis(10)),
                        }
                        std::thread::sleep(PACE);
                    }
                })
            })
            .collect();
        Clients { stop, ids, threads }
    }

    /// How many IDs the clients hold so far.
    pub(crate) fn count(&self) -> usize {
        self.ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Waits until the clients hold `more` IDs beyond `from`; panics past `within`.
    pub(crate) fn wait_more(&self, from: usize, more: usize, within: Duration) {
        let end = Instant::now() + within;
        while self.count() < from + more {
            assert!(
                Instant::now() < end,
                "the clients got no {more} more IDs within {within:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Stops the threads; every ID they were handed.
    pub(crate) fn stop(mut self) -> Vec<u64> {
        // Relaxed: see `start`.
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        std::mem::take(&mut *self.ids.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// How many of `ids` come more than once.
pub(crate) fn duplicates(ids: &[u64]) -> usize {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    sorted.dedup();
    n - sorted.len()
}
