//! The real `snowmint serve` binary on a free loopback port, and a minimal HTTP/1.1 client
//! over `TcpStream` (one request per connection), for the `serve*` tests.
//!
//! [`Server::start`] returns a server that mints (`/readyz` answered 200): a leased service
//! listens before it claims its node, and may wait seconds for the forgetting rule.
//! [`Server::start_listening`] returns as soon as the port is bound, for the tests of what a
//! starting service answers.
//!
//! Every wait is a bounded poll with a generous limit: a debug build on a loaded 2-core
//! machine may take seconds to start, and nothing here asserts a duration.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a server may take to start listening, and then to be ready (a debug build, a
/// lease's forgetting wait of one TTL plus the margin, a loaded machine): generous, as it
/// bounds a failure, not a success.
pub const START_LIMIT: Duration = Duration::from_secs(90);
/// How long one HTTP exchange may take before the test fails (a million IDs is ~250 ms of
/// minting plus transfer; a loaded machine is many times slower).
const IO_LIMIT: Duration = Duration::from_secs(60);
/// How long a server may take to exit after SIGTERM: its grace period (5 s) and a margin.
pub const EXIT_LIMIT: Duration = Duration::from_secs(30);

/// A running `snowmint serve`.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `snowmint serve --listen 127.0.0.1:0 ARGS` and waits until it mints
    /// (`/readyz` 200).
    pub fn start(args: &[&str]) -> Server {
        Server::try_start(args).unwrap_or_else(|log| panic!("the server did not start:\n{log}"))
    }

    /// As [`start`](Self::start), or the server's standard error if it exited before it was
    /// ready (bad flags, the lease's store unreachable, every node leased).
    pub fn try_start(args: &[&str]) -> Result<Server, String> {
        let mut server = Server::try_start_listening(args)?;
        server.wait_ready(START_LIMIT).map(|_| server)
    }

    /// Starts the server and returns once it listens, ready or not.
    pub fn start_listening(args: &[&str]) -> Server {
        Server::try_start_listening(args)
            .unwrap_or_else(|log| panic!("the server did not listen:\n{log}"))
    }

    /// As [`start_listening`](Self::start_listening), or the server's standard error if it
    /// exited first.
    pub fn try_start_listening(args: &[&str]) -> Result<Server, String> {
        let mut command = Command::new(env!("CARGO_BIN_EXE_snowmint"));
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args);
        Server::try_start_command(command)
    }

    /// Starts `snowmint serve --listen 127.0.0.1:0 ARGS` under a shell that first runs
    /// `setup` (e.g. `ulimit -n 600`), and waits until it mints.
    pub fn start_under(setup: &str, args: &[&str]) -> Server {
        let mut command = Command::new("sh");
        command
            .args([
                "-c",
                &format!("{setup}; exec \"$0\" serve --listen 127.0.0.1:0 \"$@\""),
                env!("CARGO_BIN_EXE_snowmint"),
            ])
            .args(args);
        let mut server = Server::try_start_command(command)
            .unwrap_or_else(|log| panic!("the server did not listen:\n{log}"));
        server
            .wait_ready(START_LIMIT)
            .unwrap_or_else(|log| panic!("the server did not start:\n{log}"));
        server
    }

    /// Spawns `command` (a `snowmint serve`) and returns once it listens.
    fn try_start_command(mut command: Command) -> Result<Server, String> {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn snowmint serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let pipe = child.stderr.take().expect("stderr");
        let log = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(port) = listening_port(&line) {
                    let _ = tx.send(port);
                }
                let mut log = log.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        match rx.recv_timeout(START_LIMIT) {
            Ok(port) => Ok(Server {
                child: Some(child),
                port,
                stderr,
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                // The reader thread has seen everything once the pipe closed.
                std::thread::sleep(Duration::from_millis(100));
                let log = stderr.lock().unwrap().clone();
                Err(log)
            }
        }
    }

    /// Polls `/readyz` until it answers 200 (at most `limit`): how long that took, or the
    /// server's standard error if it exited first. Panics past the limit.
    pub fn wait_ready(&mut self, limit: Duration) -> Result<Duration, String> {
        let started = Instant::now();
        loop {
            if let Some(reply) = try_get(self.port, "/readyz") {
                if reply.status == 200 {
                    return Ok(started.elapsed());
                }
            }
            let exited = self
                .child
                .as_mut()
                .expect("running")
                .try_wait()
                .expect("try_wait");
            if let Some(status) = exited {
                self.child = None;
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return Err(format!(
                    "exited with {status} before it was ready:\n{}",
                    self.stderr()
                ));
            }
            assert!(
                started.elapsed() < limit,
                "not ready within {limit:?}; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the server wrote to standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Reply {
        get(self.port, path, &[])
    }

    /// `GET path` with extra headers.
    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        get(self.port, path, headers)
    }

    /// Sends SIGTERM.
    pub fn signal_term(&self) {
        self.signal("TERM");
    }

    /// Sends a signal by name (`TERM`, `STOP`, `CONT`).
    pub fn signal(&self, name: &str) {
        let pid = self.child.as_ref().expect("running").id().to_string();
        let status = Command::new("kill")
            .args([&format!("-{name}"), &pid])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Waits for the process to exit (at most `limit`), or kills it and fails.
    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let mut child = self.child.take().expect("running");
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = child.try_wait().expect("try_wait") {
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "the server did not exit within {limit:?}; stderr:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM, then the exit status.
    pub fn stop(&mut self) -> ExitStatus {
        self.signal_term();
        self.wait_exit(EXIT_LIMIT)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The port of the server's `listening on http://127.0.0.1:PORT` line (`https://` with TLS).
fn listening_port(line: &str) -> Option<u16> {
    let rest = line
        .split("listening on http://")
        .nth(1)
        .or_else(|| line.split("listening on https://").nth(1))?;
    let addr = rest.split_whitespace().next()?;
    addr.rsplit(':').next()?.parse().ok()
}

/// An HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value (names compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("UTF-8 body")
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The `error` code of a JSON error answer.
    pub fn error_code(&self) -> String {
        self.json()["error"]
            .as_str()
            .expect("error code")
            .to_owned()
    }
}

/// One `GET` on a new connection (`Connection: close`), the whole response read.
pub fn get(port: u16, path: &str, headers: &[(&str, &str)]) -> Reply {
    request(port, "GET", path, headers)
}

/// One `GET`, or `None` if the connection failed (the server exited meanwhile).
pub fn try_get(port: u16, path: &str) -> Option<Reply> {
    let stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    exchange(stream, port, "GET", path, &[]).ok()
}

/// One request of any method.
pub fn request(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    exchange(stream, port, method, path, headers).expect("send the request and read the response")
}

fn exchange(
    mut stream: TcpStream,
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> std::io::Result<Reply> {
    stream.set_read_timeout(Some(IO_LIMIT))?;
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (name, value) in headers {
        req.push_str(&format!("{name}: {value}\r\n"));
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    Ok(parse(&raw, method == "HEAD"))
}

fn parse(raw: &[u8], head: bool) -> Reply {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head_text = std::str::from_utf8(&raw[..end]).expect("ASCII headers");
    let mut lines = head_text.split("\r\n");
    let status_line = lines.next().expect("status line");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if head {
        Vec::new()
    } else if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    let reply = Reply {
        status,
        headers,
        body,
    };
    if let Some(len) = reply.header("content-length") {
        if !head {
            assert_eq!(
                len.parse::<usize>().ok(),
                Some(reply.body.len()),
                "content-length"
            );
        }
    }
    reply
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size line");
        let size_text = std::str::from_utf8(&data[..line_end]).expect("chunk size");
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("hex chunk size");
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// The value of an unlabelled or fully labelled series in Prometheus text (`name{labels}`
/// as written), if present.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let (name, value) = l.rsplit_once(' ')?;
        (name == series).then(|| value.parse().ok())?
    })
}

/// Polls `check` every 20 ms until it returns `Some`, at most `limit`.
pub fn poll<T>(limit: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "gave up after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
