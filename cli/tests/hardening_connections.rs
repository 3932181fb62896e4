//! Issue 40, item 1: connections the service can afford. A server under `ulimit -n 600`
//! keeps answering `/id` and `/readyz` while 650 idle or half-open connections are held
//! against it; silent, half-sent and idle keep-alive connections are closed after their
//! timeouts, counted and logged.

mod serve_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serve_support::{metric, poll, Server};

/// The most a probe may take while the flood is held: the bound.
const ANSWER_WITHIN: Duration = Duration::from_secs(1);

fn closed(text: &str, reason: &str) -> f64 {
    let series = format!("snowmint_http_connections_closed_total{{reason=\"{reason}\"}}");
    metric(text, &series).unwrap_or(0.0)
}

#[test]
fn a_low_descriptor_limit_and_650_held_connections_do_not_lock_the_service_out() {
    let server = Server::start_under("ulimit -n 600", &["--node", "1"]);
    let mut held = Vec::new();
    for i in 0..650 {
        let mut tcp = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
        if i % 2 == 1 {
            // Half a request head, never finished.
            let _ = tcp.write_all(b"GET /id HTTP/1.1\r\nHost: x\r\n");
        }
        held.push(tcp);
    }
    for round in 0..5 {
        for path in ["/id", "/readyz"] {
            let started = Instant::now();
            let reply = server.get(path);
            let took = started.elapsed();
            assert_eq!(reply.status, 200, "round {round}, {path}: {}", reply.text());
            assert!(took < ANSWER_WITHIN, "round {round}, {path} took {took:?}");
        }
    }
    let m = server.get("/metrics").text();
    assert!(closed(&m, "evicted_at_cap") > 0.0, "{m}");
    // The summary line comes with the metrics' upkeep, every 5 s.
    poll(
        Duration::from_secs(30),
        "the log line on closed connections",
        || {
            server
                .stderr()
                .contains("idle ones closed to make room (--max-connections 536 reached)")
                .then_some(())
        },
    );
    drop(held);
}

/// Sends `request` (if any) on a new connection and reads until the server closes it (at
/// most 30 s): the bytes read, or `None` if it was still open then.
fn read_until_closed(port: u16, request: &[u8]) -> Option<Vec<u8>> {
    let mut tcp = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    tcp.write_all(request).unwrap();
    let mut out = Vec::new();
    tcp.read_to_end(&mut out).ok().map(|_| out)
}

#[test]
fn silent_half_sent_and_idle_keep_alive_connections_are_closed() {
    let server = Server::start(&[
        "--node",
        "1",
        "--header-timeout",
        "1s",
        "--idle-timeout",
        "2s",
    ]);
    let port = server.port;
    let silent = std::thread::spawn(move || read_until_closed(port, b""));
    let half =
        std::thread::spawn(move || read_until_closed(port, b"GET /id HTTP/1.1\r\nHost: x\r\n"));
    let kept = std::thread::spawn(move || {
        read_until_closed(port, b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")
    });
    assert_eq!(
        silent.join().unwrap(),
        Some(Vec::new()),
        "a silent connection is closed"
    );
    assert!(half.join().unwrap().is_some(), "a half-sent head is closed");
    let answered = kept
        .join()
        .unwrap()
        .expect("an idle keep-alive connection is closed");
    assert!(
        answered.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answered)
    );
    let m = server.get("/metrics").text();
    assert!(closed(&m, "header_timeout") >= 2.0, "{m}");
    assert!(closed(&m, "idle_timeout") >= 1.0, "{m}");
}

#[test]
fn connection_flags_are_checked() {
    for args in [
        &["--max-connections", "0"][..],
        &["--header-timeout", "0s"],
        &["--idle-timeout", "2h"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_snowmint"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
