//! The client with no service to answer: nothing listening, and a peer that accepts and
//! never answers. `next_id()` fails with the typed error, naming each service's failure,
//! within its bound; it never hangs. (The tests against the real service are the command's:
//! `cli/tests/client.rs`.)

use std::net::TcpListener;
use std::time::{Duration, Instant};

use snowmint_client::{AsyncClient, Cause, Client, Error, Expected, Settings};

const SPEC: &str =
    "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";

/// A port nothing listens on: bound, then closed.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn nothing_listening_fails_with_each_services_cause() {
    let urls = [
        format!("http://127.0.0.1:{}", closed_port()),
        format!("http://127.0.0.1:{}", closed_port()),
    ];
    let max_wait = Duration::from_secs(5);
    let client = Client::new(
        Settings::new(&urls, Expected::layout(SPEC))
            .unwrap()
            .max_wait(max_wait),
    )
    .unwrap();
    for _ in 0..3 {
        let started = Instant::now();
        match client.next_id() {
            Err(Error::Unavailable { failures, .. }) => {
                // Within the wait, a round fails: its failures name both services.
                if !failures.is_empty() {
                    assert_eq!(failures.len(), 2);
                    assert!(failures.iter().all(|f| matches!(f.cause, Cause::Io(_))));
                }
            }
            other => panic!("expected Unavailable, got {other:?}"),
        }
        // The bound, with room for a loaded machine.
        assert!(started.elapsed() < max_wait + Duration::from_secs(20));
    }
    assert_eq!(client.buffered(), 0);
}

#[test]
fn a_peer_that_never_answers_is_timed_out() {
    // Accepts (the kernel's backlog does) and never reads or writes.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}", silent.local_addr().unwrap().port());
    let max_wait = Duration::from_secs(10);
    let settings = Settings::new([url], Expected::layout(SPEC))
        .unwrap()
        .request_timeout(Duration::from_millis(200))
        .max_wait(max_wait);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let started = Instant::now();
    let result = runtime.block_on(async { AsyncClient::new(settings).unwrap().next_id().await });
    match result {
        Err(Error::Unavailable { failures, .. }) => {
            // The round ends by the request timeout, well within the wait.
            assert_eq!(failures.len(), 1, "{failures:?}");
            assert_eq!(failures[0].cause, Cause::TimedOut);
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    assert!(started.elapsed() < max_wait + Duration::from_secs(20));
    drop(silent);
}
