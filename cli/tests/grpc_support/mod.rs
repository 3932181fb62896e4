//! A `snowmint serve --grpc-listen 127.0.0.1:0` and a tonic client of it, for the gRPC
//! tests: the generated code of the published proto (`cli/src/grpc/proto.rs`, the same
//! file the service is built from), the port read from the service's start line.

#![allow(dead_code, unused_imports)]

use std::time::Duration;

use tonic::transport::Channel;

use crate::serve_support::{poll, Server, START_LIMIT};

#[allow(clippy::all, clippy::pedantic)]
#[path = "../../src/grpc/proto.rs"]
pub mod proto;

pub use proto::id_service_client::IdServiceClient;

/// The port of the `listening on grpc://127.0.0.1:PORT` line (`grpcs://` with TLS).
pub fn grpc_port(server: &Server) -> u16 {
    poll(START_LIMIT, "the gRPC start line", || {
        let log = server.stderr();
        let rest = log.split("listening on grpc").nth(1)?;
        let rest = rest.strip_prefix("s://").or(rest.strip_prefix("://"))?;
        let addr = rest.split_whitespace().next()?;
        addr.rsplit(':').next()?.parse().ok()
    })
}

/// A runtime for the client's calls.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A channel to `port` (one HTTP/2 connection).
pub async fn channel(port: u16) -> Channel {
    Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .expect("uri")
        .connect_timeout(Duration::from_secs(30))
        .connect()
        .await
        .expect("connect to the gRPC port")
}
