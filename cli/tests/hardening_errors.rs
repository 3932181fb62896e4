//! Issue 40, item 5 (the command line's side): a store's errors in the operator's words:
//! the store and the call, the cause in plain words (no OS error numbers or client type
//! names), and what to check, with the timeout in force and where it came from.

mod serve_support;

use std::net::TcpListener;
use std::process::{Command, Output};

use serve_support::Server;

fn snowmint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(args)
        .output()
        .expect("run snowmint")
}

/// A port that takes connections and never answers; the listener lives as long as the
/// returned value (accepted sockets wait in its backlog).
fn silent_port() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

#[test]
fn a_store_that_does_not_answer_names_the_timeout_in_force() {
    let (_listener, port) = silent_port();
    let url = format!("redis://127.0.0.1:{port}/");
    let out = snowmint(&["lease", "list", "--lease", &url, "--lease-timeout", "1s"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("did not answer within the timeout of each call, --lease-timeout 1s"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");

    let out = snowmint(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--lease",
        &url,
        "--ttl",
        "2s",
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("200ms (a tenth of --ttl 2s; --lease-timeout sets it)"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
}

#[test]
fn a_port_that_speaks_another_protocol_is_named_so() {
    let http = Server::start(&["--node", "1"]);
    let url = format!("redis://127.0.0.1:{}/", http.port);
    let out = snowmint(&["lease", "list", "--lease", &url, "--lease-timeout", "2s"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("does not speak Redis's protocol"), "{err}");
    assert!(!err.contains("Incompatible type"), "{err}");
}

#[test]
fn nothing_listening_says_what_to_check() {
    let out = snowmint(&["lease", "list", "--lease", "redis://127.0.0.1:1/"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.contains("nothing accepts connections at redis://127.0.0.1:1/"),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
}
