//! Issue 43, item 3: TLS on `snowmint serve`'s listener. HTTPS with the CA trusted; mutual
//! TLS (a client certificate from the CA served, none or one from another CA refused); the
//! certificate reloaded on SIGHUP and when the files change, a bad replacement refused with
//! the old certificate kept; a client that never sends its hello dropped after the handshake
//! timeout, and unable to keep `/livez` from answering at the connection cap; TLS flags that
//! make no sense refused before listening (exit status 2). Certificates are made at test time
//! with rcgen.

mod serve_support;
mod tls_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use serve_support::{metric, poll, Server, START_LIMIT};
use tls_support::{Ca, Leaf};

/// How long one exchange may take: generous, it bounds a failure only.
const IO_LIMIT: Duration = Duration::from_secs(30);

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Puts `from`'s certificate and key in place of `to`'s files, each by a rename (a reader
/// never sees half a file).
fn replace(from: &Leaf, to: &Leaf) {
    for (src, dst) in [(&from.key, &to.key), (&from.cert, &to.cert)] {
        let tmp = dst.with_extension("tmp");
        std::fs::copy(src, &tmp).expect("copy");
        std::fs::rename(&tmp, dst).expect("rename");
    }
}

/// A rustls client trusting `ca`, presenting `client` if given.
fn client(ca: &Path, client: Option<&Leaf>) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).expect("CA file") {
        roots.add(cert.expect("CA PEM")).expect("a CA");
    }
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_root_certificates(roots);
    let mut config = match client {
        None => builder.with_no_client_auth(),
        Some(leaf) => builder
            .with_client_auth_cert(
                vec![CertificateDer::from_pem_file(&leaf.cert).expect("client cert")],
                PrivateKeyDer::from_pem_file(&leaf.key).expect("client key"),
            )
            .expect("client auth"),
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// One keep-alive HTTPS connection.
struct Https {
    stream: BufReader<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>,
}

impl Https {
    /// Connects and completes the handshake.
    fn connect(port: u16, config: &Arc<rustls::ClientConfig>) -> Result<Https, String> {
        let tcp = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
        tcp.set_read_timeout(Some(IO_LIMIT)).unwrap();
        tcp.set_write_timeout(Some(IO_LIMIT)).unwrap();
        let name = ServerName::try_from("127.0.0.1").unwrap();
        let conn =
            rustls::ClientConnection::new(Arc::clone(config), name).map_err(|e| e.to_string())?;
        let mut stream = rustls::StreamOwned::new(conn, tcp);
        while stream.conn.is_handshaking() {
            stream
                .conn
                .complete_io(&mut stream.sock)
                .map_err(|e| e.to_string())?;
        }
        Ok(Https {
            stream: BufReader::new(stream),
        })
    }

    /// The server's certificate (DER).
    fn peer(&self) -> Vec<u8> {
        self.stream
            .get_ref()
            .conn
            .peer_certificates()
            .expect("a server certificate")[0]
            .to_vec()
    }

    /// `GET path` on this connection: the status and the body, or why it failed.
    fn get(&mut self, path: &str) -> Result<(u16, String), String> {
        let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        let stream = self.stream.get_mut();
        stream
            .write_all(request.as_bytes())
            .and_then(|()| stream.flush())
            .map_err(|e| e.to_string())?;
        let mut status_line = String::new();
        self.stream
            .read_line(&mut status_line)
            .map_err(|e| e.to_string())?;
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("no status line: {status_line:?}"))?;
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stream
                .read_line(&mut line)
                .map_err(|e| e.to_string())?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().map_err(|_| line.clone())?;
                }
            }
        }
        let mut body = vec![0; length];
        self.stream
            .read_exact(&mut body)
            .map_err(|e| e.to_string())?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }
}

/// `GET path` on a new connection.
fn get(port: u16, config: &Arc<rustls::ClientConfig>, path: &str) -> Result<(u16, String), String> {
    Https::connect(port, config)?.get(path)
}

/// Starts `snowmint serve --listen 127.0.0.1:0 ARGS` and waits until `/readyz` answers 200
/// over HTTPS with `config`.
fn start(args: &[&str], config: &Arc<rustls::ClientConfig>) -> Server {
    let server = Server::start_listening(args);
    // The log's reader hands the port over before it keeps the line: wait for it.
    poll(START_LIMIT, "the https:// start line", || {
        server
            .stderr()
            .contains("listening on https://127.0.0.1:")
            .then_some(())
    });
    poll(START_LIMIT, "/readyz over HTTPS", || {
        matches!(get(server.port, config, "/readyz"), Ok((200, _))).then_some(())
    });
    server
}

/// Waits until the server counted at least `at_least` handshakes failed for `reason` (the
/// client may see the refusal before the server counts it).
fn handshake_failures(port: u16, config: &Arc<rustls::ClientConfig>, reason: &str, at_least: f64) {
    let series =
        format!("snowmint_tls_handshake_failures_total{{listener=\"http\",reason=\"{reason}\"}}");
    poll(
        IO_LIMIT,
        &format!("{at_least} handshake failures ({reason})"),
        || {
            let (_, text) = get(port, config, "/metrics").ok()?;
            (metric(&text, &series).unwrap_or(0.0) >= at_least).then_some(())
        },
    );
}

#[test]
fn ids_are_served_over_https_to_a_client_trusting_the_ca() {
    let ca = Ca::new("plain", "snowmint test CA");
    let server_cert = ca.leaf("server", true);
    let trusting = client(&ca.pem, None);
    let server = start(
        &[
            "--node",
            "1",
            "--tls-cert",
            s(&server_cert.cert),
            "--tls-key",
            s(&server_cert.key),
        ],
        &trusting,
    );
    // ureq (rustls), trusting the CA.
    let ca_cert = ureq::tls::Certificate::from_pem(&std::fs::read(&ca.pem).unwrap()).unwrap();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .tls_config(
            ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::new_with_certs(&[ca_cert]))
                .build(),
        )
        .timeout_global(Some(IO_LIMIT))
        .build()
        .into();
    let mut reply = agent
        .get(format!("https://127.0.0.1:{}/id", server.port))
        .call()
        .expect("GET /id over HTTPS");
    assert_eq!(reply.status(), 200);
    let id = reply.body_mut().read_to_string().unwrap();
    assert!(id.trim().parse::<u64>().is_ok(), "{id:?}");
    // The status page says so; plaintext HTTP gets no answer.
    let (status, page) = get(server.port, &trusting, "/").unwrap();
    assert_eq!(status, 200);
    assert!(
        page.contains(r#"<td id="transport">HTTPS (TLS)</td>"#),
        "{page}"
    );
    let mut tcp = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    tcp.set_read_timeout(Some(IO_LIMIT)).unwrap();
    tcp.write_all(b"GET /id HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = Vec::new();
    let _ = tcp.read_to_end(&mut answer);
    assert!(!answer.starts_with(b"HTTP/1.1 200"), "plaintext was served");
    // A client trusting another CA refuses the server.
    let other = Ca::new("plain", "another CA");
    assert!(Https::connect(server.port, &client(&other.pem, None)).is_err());
    handshake_failures(server.port, &trusting, "error", 2.0);
}

#[test]
fn mutual_tls_serves_clients_of_the_ca_only() {
    let ca = Ca::new("mutual", "snowmint test CA");
    let other = Ca::new("mutual", "another CA");
    let server_cert = ca.leaf("server", true);
    let good = ca.leaf("client", false);
    let foreign = other.leaf("foreign-client", false);
    let with_cert = client(&ca.pem, Some(&good));
    let server = start(
        &[
            "--node",
            "1",
            "--tls-cert",
            s(&server_cert.cert),
            "--tls-key",
            s(&server_cert.key),
            "--tls-client-ca",
            s(&ca.pem),
        ],
        &with_cert,
    );
    let (status, id) = get(server.port, &with_cert, "/id").expect("a client of the CA");
    assert_eq!(status, 200, "{id}");
    assert!(id.trim().parse::<u64>().is_ok(), "{id:?}");
    // TLS 1.3: the client's side of the handshake ends before the server has read its
    // certificate, so the refusal may come at the first read.
    for (who, config) in [
        ("no certificate", client(&ca.pem, None)),
        ("another CA's", client(&ca.pem, Some(&foreign))),
    ] {
        let answer = get(server.port, &config, "/id");
        assert!(answer.is_err(), "{who}: served {answer:?}");
    }
    handshake_failures(server.port, &with_cert, "error", 2.0);
    let (_, page) = get(server.port, &with_cert, "/").unwrap();
    assert!(
        page.contains("HTTPS (TLS, client certificates required)"),
        "{page}"
    );
}

#[test]
fn certificates_are_reloaded_on_sighup_and_on_change_and_a_bad_one_is_refused() {
    let ca = Ca::new("reload", "snowmint test CA");
    let first = ca.leaf("first", true);
    let second = ca.leaf("second", true);
    let third = ca.leaf("third", true);
    let live = ca.leaf("live", true);
    replace(&first, &live);
    let trusting = client(&ca.pem, None);
    let server = start(
        &[
            "--node",
            "1",
            "--tls-cert",
            s(&live.cert),
            "--tls-key",
            s(&live.key),
        ],
        &trusting,
    );
    let mut old = Https::connect(server.port, &trusting).unwrap();
    assert_eq!(old.peer(), first.der);
    assert_eq!(old.get("/id").unwrap().0, 200);

    // SIGHUP: new connections get the new certificate, the open one goes on.
    replace(&second, &live);
    server.signal("HUP");
    poll(IO_LIMIT, "the reload on SIGHUP", || {
        server
            .stderr()
            .contains("reloaded --tls-cert")
            .then_some(())
    });
    poll(IO_LIMIT, "the log line of the reload on SIGHUP", || {
        server.stderr().contains("(on SIGHUP)").then_some(())
    });
    let fresh = Https::connect(server.port, &trusting).unwrap();
    assert_eq!(fresh.peer(), second.der);
    assert_eq!(old.get("/id").unwrap().0, 200, "the old connection goes on");
    assert_eq!(old.peer(), first.der);

    // A bad replacement (a key that is not the certificate's) is refused: the second
    // certificate stays, and the service serves. (Counted: `replace` swaps two files, and a
    // look between the two may have refused the half-replaced pair before.)
    let refusals = || {
        server
            .stderr()
            .matches("still serving the certificate loaded before")
            .count()
    };
    let before = refusals();
    std::fs::copy(&first.key, &live.key).unwrap();
    server.signal("HUP");
    poll(IO_LIMIT, "the refusal", || {
        (refusals() > before).then_some(())
    });
    assert!(
        server
            .stderr()
            .contains("is not the private key of --tls-cert"),
        "{}",
        server.stderr()
    );
    let mut after = Https::connect(server.port, &trusting).unwrap();
    assert_eq!(after.peer(), second.der);
    assert_eq!(after.get("/id").unwrap().0, 200);

    // Garbage in place of the certificate: refused too.
    let before = refusals();
    std::fs::write(&live.cert, "not a certificate\n").unwrap();
    server.signal("HUP");
    poll(IO_LIMIT, "the second refusal", || {
        (refusals() > before).then_some(())
    });
    poll(IO_LIMIT, "the refusal of garbage", || {
        server
            .stderr()
            .contains("no certificate in PEM form")
            .then_some(())
    });
    assert_eq!(
        Https::connect(server.port, &trusting).unwrap().peer(),
        second.der
    );

    // Without a signal: a change of the files is seen within a few seconds.
    replace(&third, &live);
    poll(IO_LIMIT, "the third certificate, without a signal", || {
        let peer = Https::connect(server.port, &trusting).ok()?.peer();
        (peer == third.der).then_some(())
    });
    poll(IO_LIMIT, "the log line of the reload on change", || {
        server
            .stderr()
            .contains("(the files changed)")
            .then_some(())
    });
    assert_eq!(get(server.port, &trusting, "/id").unwrap().0, 200);
    let (_, m) = get(server.port, &trusting, "/metrics").unwrap();
    let reloads = |outcome: &str| {
        let series =
            format!("snowmint_tls_reloads_total{{listener=\"http\",outcome=\"{outcome}\"}}");
        metric(&m, &series).unwrap_or(0.0)
    };
    assert!(reloads("loaded") >= 2.0, "{m}");
    assert!(reloads("refused") >= 2.0, "{m}");
}

#[test]
fn a_client_that_never_says_hello_is_dropped_after_the_handshake_timeout() {
    let ca = Ca::new("silent", "snowmint test CA");
    let server_cert = ca.leaf("server", true);
    let trusting = client(&ca.pem, None);
    let server = start(
        &[
            "--node",
            "1",
            "--tls-cert",
            s(&server_cert.cert),
            "--tls-key",
            s(&server_cert.key),
            "--tls-handshake-timeout",
            "1s",
        ],
        &trusting,
    );
    let mut silent = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    silent.set_read_timeout(Some(IO_LIMIT)).unwrap();
    let mut out = Vec::new();
    let closed = silent.read_to_end(&mut out);
    assert!(
        matches!(closed, Ok(0)),
        "the silent connection was still open after {IO_LIMIT:?}: {closed:?}"
    );
    handshake_failures(server.port, &trusting, "timeout", 1.0);
}

#[test]
fn silent_tls_clients_at_the_cap_do_not_keep_livez_from_answering() {
    let ca = Ca::new("cap", "snowmint test CA");
    let server_cert = ca.leaf("server", true);
    let trusting = client(&ca.pem, None);
    // A handshake timeout far longer than the test: only the cap's eviction can make room.
    let server = start(
        &[
            "--node",
            "1",
            "--tls-cert",
            s(&server_cert.cert),
            "--tls-key",
            s(&server_cert.key),
            "--tls-handshake-timeout",
            "1h",
            "--max-connections",
            "8",
        ],
        &trusting,
    );
    let mut held = Vec::new();
    for _ in 0..40 {
        held.push(TcpStream::connect(("127.0.0.1", server.port)).expect("connect"));
    }
    for round in 0..5 {
        for path in ["/livez", "/id"] {
            let answer = get(server.port, &trusting, path);
            assert!(
                matches!(answer, Ok((200, _))),
                "round {round}, {path}: {answer:?}"
            );
        }
    }
    let (_, m) = get(server.port, &trusting, "/metrics").unwrap();
    let evicted = metric(
        &m,
        "snowmint_http_connections_closed_total{reason=\"evicted_at_cap\"}",
    )
    .unwrap_or(0.0);
    assert!(evicted >= 30.0, "{m}");
    drop(held);
}

#[test]
fn tls_flags_that_make_no_sense_are_refused_before_listening() {
    let ca = Ca::new("flags", "snowmint test CA");
    let one = ca.leaf("one", true);
    let two = ca.leaf("two", true);
    let missing = ca.dir.join("absent.pem");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--tls-cert", s(&one.cert), "--tls-key", s(&two.key)],
            "is not the private key of --tls-cert",
        ),
        (
            vec!["--tls-cert", s(&missing), "--tls-key", s(&one.key)],
            "absent.pem: cannot read it",
        ),
        (
            vec!["--tls-cert", s(&one.key), "--tls-key", s(&one.key)],
            "no certificate in PEM form",
        ),
        (
            vec![
                "--tls-cert",
                s(&one.cert),
                "--tls-key",
                s(&one.key),
                "--tls-client-ca",
                s(&missing),
            ],
            "--tls-client-ca",
        ),
        (vec!["--tls-client-ca", s(&ca.pem)], "--tls-cert"),
        (vec!["--tls-cert", s(&one.cert)], "--tls-key"),
        (vec!["--tls-key", s(&one.key)], "--tls-cert"),
    ];
    for (args, said) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_snowmint"))
            .args(["serve", "--listen", "127.0.0.1:0", "--node", "1"])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
        assert!(!stderr.contains("listening on"), "{args:?}: {stderr}");
    }
}
