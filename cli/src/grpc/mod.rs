//! `snowmint serve --grpc-listen`: the service's gRPC face (tonic, HTTP/2, on a port of its
//! own), answering `snowmint.v1.IdService` from proto/snowmint/v1/snowmint.proto through the
//! same minter, readiness and limits as the HTTP routes, with the standard health service and
//! server reflection.
//!
//! One concept per module: [`listener`] the accepted connections and the server over them
//! (the one place a TLS wrapper slots in), [`service`] the calls, [`chunks`] the stream of
//! packed chunks minted as the client reads, [`status`] refusals as gRPC status codes,
//! [`health`] `grpc.health.v1` following `/readyz`, [`limits`] the listener's limits,
//! [`metrics`] the calls counted by method and code, [`mint`] the IDs of a call, [`proto`] the code generated from the
//! `.proto` (checked in: tools/snowmint-proto).

mod chunks;
mod health;
mod limits;
mod listener;
mod metrics;
mod mint;
#[allow(dead_code, clippy::all, clippy::pedantic)]
mod proto;
mod service;
mod status;

pub use self::limits::Limits;
pub use self::listener::bind;
