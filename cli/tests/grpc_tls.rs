//! Issue 43, item 3 on the gRPC listener: `--tls-cert`/`--tls-key` serve gRPC over TLS (ALPN
//! `h2`) from the same files as HTTPS; with `--tls-client-ca` a client certificate from that
//! CA is required: a client with one mints, a client without one or with one from another CA
//! is refused, and a plaintext client is not served. Certificates are made at test time.

mod grpc_support;
mod serve_support;
mod tls_support;

use std::time::Duration;

use grpc_support::proto::NextIdRequest;
use grpc_support::{grpc_port, runtime, IdServiceClient};
use serve_support::{poll, Server, START_LIMIT};
use tls_support::{Ca, Leaf};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

/// How long one connection attempt may take: generous, it bounds a failure only.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);

fn s(p: &std::path::Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// One `NextId` call over a fresh connection to `port`: over TLS trusting `ca` and presenting
/// `client` if given, or plaintext when `ca` is `None`.
async fn next_id(port: u16, ca: Option<&Ca>, client: Option<&Leaf>) -> Result<u64, String> {
    let scheme = if ca.is_some() { "https" } else { "http" };
    let mut endpoint = Channel::from_shared(format!("{scheme}://127.0.0.1:{port}"))
        .expect("uri")
        .connect_timeout(CONNECT_LIMIT)
        .timeout(CONNECT_LIMIT);
    if let Some(ca) = ca {
        let mut tls = ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(std::fs::read(&ca.pem).unwrap()))
            .domain_name("127.0.0.1");
        if let Some(leaf) = client {
            tls = tls.identity(Identity::from_pem(
                std::fs::read(&leaf.cert).unwrap(),
                std::fs::read(&leaf.key).unwrap(),
            ));
        }
        endpoint = endpoint.tls_config(tls).expect("TLS config");
    }
    let channel = endpoint.connect().await.map_err(|e| format!("{e:?}"))?;
    let mut ids = IdServiceClient::new(channel);
    ids.next_id(NextIdRequest {})
        .await
        .map(|r| r.into_inner().id)
        .map_err(|e| format!("{e:?}"))
}

fn start(server_cert: &Leaf, client_ca: Option<&Ca>) -> (Server, u16) {
    let mut args = vec![
        "--grpc-listen",
        "127.0.0.1:0",
        "--node",
        "5",
        "--workers",
        "2",
        "--tls-cert",
        s(&server_cert.cert),
        "--tls-key",
        s(&server_cert.key),
    ];
    if let Some(client_ca) = client_ca {
        args.extend(["--tls-client-ca", s(&client_ca.pem)]);
    }
    let server = Server::start_listening(&args);
    let port = grpc_port(&server);
    (server, port)
}

/// The first ID a trusted client gets, trying again until the service answers (a debug build
/// on a loaded machine may take seconds to serve its first call).
fn first_id(rt: &tokio::runtime::Runtime, port: u16, ca: &Ca, client: Option<&Leaf>) -> u64 {
    poll(START_LIMIT, "a NextId over TLS", || {
        rt.block_on(next_id(port, Some(ca), client)).ok()
    })
}

#[test]
fn grpc_is_served_over_tls_to_a_client_trusting_the_ca_and_not_in_plaintext() {
    let ca = Ca::new("grpc-tls", "snowmint test CA");
    let server_cert = ca.leaf("server", true);
    let (server, port) = start(&server_cert, None);
    assert!(
        server.stderr().contains("listening on grpcs://"),
        "{}",
        server.stderr()
    );
    let rt = runtime();
    let a = first_id(&rt, port, &ca, None);
    let b = rt.block_on(next_id(port, Some(&ca), None)).unwrap();
    assert_ne!(a, b, "two calls, two IDs");
    // A plaintext HTTP/2 client is not served by the TLS listener.
    let plain = rt.block_on(next_id(port, None, None));
    assert!(plain.is_err(), "a plaintext client was served: {plain:?}");
    // A client trusting another CA refuses the server.
    let other = Ca::new("grpc-tls", "another CA");
    let foreign = rt.block_on(next_id(port, Some(&other), None));
    assert!(foreign.is_err(), "{foreign:?}");
}

#[test]
fn mutual_tls_on_grpc_serves_clients_of_the_ca_only() {
    let ca = Ca::new("grpc-mtls", "snowmint test CA");
    let other = Ca::new("grpc-mtls", "another CA");
    let server_cert = ca.leaf("server", true);
    let good = ca.leaf("client", false);
    let foreign = other.leaf("foreign-client", false);
    let (_server, port) = start(&server_cert, Some(&ca));
    let rt = runtime();
    let id = first_id(&rt, port, &ca, Some(&good));
    assert!(id > 0);
    let none = rt.block_on(next_id(port, Some(&ca), None));
    assert!(
        none.is_err(),
        "a client without a certificate was served: {none:?}"
    );
    let wrong = rt.block_on(next_id(port, Some(&ca), Some(&foreign)));
    assert!(
        wrong.is_err(),
        "a client of another CA was served: {wrong:?}"
    );
    // The good client is still served after the refusals.
    rt.block_on(next_id(port, Some(&ca), Some(&good))).unwrap();
}
