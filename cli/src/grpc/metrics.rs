//! The gRPC calls in the service's Prometheus registry (the one `/metrics` renders): every
//! call counted by method and final status code (`snowmint_grpc_requests_total`), the IDs
//! handed out by kind (`snowmint_grpc_ids_total`, counted as they are minted, streamed
//! chunks included) and the streams open (`snowmint_grpc_streams_open`).
//!
//! A method's counters are registered on its first call with that code and kept, so
//! counting a call is an atomic addition.

use std::sync::OnceLock;

use metrics::{Counter, Gauge};
use tonic::Code;

const REQUESTS: &str = "snowmint_grpc_requests_total";
const IDS: &str = "snowmint_grpc_ids_total";
const STREAMS: &str = "snowmint_grpc_streams_open";

/// The methods of `snowmint.v1.IdService`, by the name the metrics carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    NextId = 0,
    NextIds,
    NextUuid7,
    NextUuid7s,
    NextUlid,
    NextUlids,
    StreamIds,
    Decode,
}

impl Method {
    const COUNT: usize = 8;

    fn name(self) -> &'static str {
        match self {
            Method::NextId => "NextId",
            Method::NextIds => "NextIds",
            Method::NextUuid7 => "NextUuid7",
            Method::NextUuid7s => "NextUuid7s",
            Method::NextUlid => "NextUlid",
            Method::NextUlids => "NextUlids",
            Method::StreamIds => "StreamIds",
            Method::Decode => "Decode",
        }
    }
}

/// gRPC's 17 status codes, 0 (OK) to 16.
const CODES: usize = 17;

/// The kinds of IDs counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Snowflake = 0,
    Uuid7,
    Ulid,
}

/// The gRPC side's metric handles.
pub struct GrpcMetrics {
    requests: [[OnceLock<Counter>; CODES]; Method::COUNT],
    ids: [Counter; 3],
    streams: Gauge,
}

impl GrpcMetrics {
    /// Registers the handles in the process's recorder (installed by `serve` first).
    pub fn new() -> GrpcMetrics {
        metrics::describe_counter!(
            REQUESTS,
            metrics::Unit::Count,
            "gRPC calls finished, by method and status code (a stream when it ends)"
        );
        metrics::describe_counter!(
            IDS,
            metrics::Unit::Count,
            "IDs minted for gRPC calls, by kind (a stream's as each chunk is minted)"
        );
        metrics::describe_gauge!(STREAMS, metrics::Unit::Count, "StreamIds calls open");
        GrpcMetrics {
            requests: std::array::from_fn(|_| std::array::from_fn(|_| OnceLock::new())),
            ids: [
                metrics::counter!(IDS, "kind" => "snowflake"),
                metrics::counter!(IDS, "kind" => "uuid7"),
                metrics::counter!(IDS, "kind" => "ulid"),
            ],
            streams: metrics::gauge!(STREAMS),
        }
    }

    /// Counts one finished call of `method` with `code`.
    pub fn finished(&self, method: Method, code: Code) {
        let index = (code as usize).min(CODES - 1);
        self.requests[method as usize][index]
            .get_or_init(|| {
                metrics::counter!(REQUESTS, "method" => method.name(), "code" => code_name(code))
            })
            .increment(1);
    }

    /// Counts `n` IDs of `kind` handed out.
    pub fn ids(&self, kind: IdKind, n: u64) {
        self.ids[kind as usize].increment(n);
    }

    /// A stream opened (`1.0`) or ended (`-1.0`).
    pub fn streams(&self, delta: f64) {
        self.streams.increment(delta);
    }
}

/// A code as gRPC's documentation spells it (`OK`, `INVALID_ARGUMENT`, ...).
fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}
