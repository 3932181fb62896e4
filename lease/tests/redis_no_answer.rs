//! A Redis server that accepts connections but never answers (a listening socket the test
//! holds without accepting: the kernel completes the handshake, nothing is ever read or
//! written back): a call fails within the lease's I/O timeout, connection and handshake
//! included, and its error names the store, the call, the timeout and its value, and what
//! to check.
#![cfg(feature = "redis")]

use std::net::TcpListener;
use std::time::{Duration, Instant};

use snowmint_lease::redis::RedisLease;

#[test]
fn a_silent_redis_fails_within_the_io_timeout_and_says_which() {
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = silent.local_addr().expect("its port").port();
    let timeout = Duration::from_millis(1_500);
    // Database 3: the client's handshake has a `SELECT`, a reply to wait for besides the
    // calls' own.
    let lease = RedisLease::builder(&format!("redis://127.0.0.1:{port}/3"))
        .expect("url")
        .namespace("silent")
        .ttl(Duration::from_secs(30))
        .io_timeout(timeout)
        .build()
        .expect("build");
    for call in ["list the namespace", "raise the namespace's floor"] {
        let started = Instant::now();
        let err = match call {
            "list the namespace" => lease.list().map(drop),
            _ => lease.raise_floor(1).map(drop),
        }
        .expect_err("nothing answers");
        let took = started.elapsed();
        // A read times out no earlier than asked; the bound is the timeout twice over (the
        // handshake's reply and the call's share one timeout), far below the ~10 s each
        // reply's full wait added up to before.
        assert!(took >= timeout * 9 / 10, "{call}: failed after {took:?}");
        assert!(
            took < timeout * 2,
            "{call}: failed after {took:?}, past twice the I/O timeout {timeout:?}: {err}"
        );
        let text = err.to_string();
        for part in [
            call,
            "Redis",
            "no answer within the I/O timeout (1.5s) while connecting",
            "check that the Redis server runs",
        ] {
            assert!(text.contains(part), "{call}: {part:?} missing in: {text}");
        }
        assert!(!text.contains("os error"), "{text}");
    }
    drop(silent);
}
