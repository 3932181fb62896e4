//! gRPC throughput and per-call cost, side by side in one run (benches/README.md, "ID
//! service over gRPC"):
//!
//! 1. IDs per second through one `StreamIds` stream, and through 16 concurrent streams on
//!    one connection: `snowmint serve --grpc-listen` against `ferroid-tonic-server` 2.x (its
//!    binary at `$FERROID_TONIC_SERVER`, default `/work/tgt-grpc/peer/bin/ferroid-tonic-server`;
//!    `cargo install ferroid-tonic-server --version '^2' --root DIR`), both sending chunks of
//!    4,096 64-bit IDs, both uncompressed (the client advertises no `grpc-accept-encoding`,
//!    so ferroid, which compresses for clients that accept it, sends plain bytes too).
//! 2. The per-call cost of the unary `NextId` against a bare tonic handler of the same
//!    message (a constant ID, same server settings otherwise), sequential calls on one
//!    connection.
//!
//! Rounds are paired (snowmint, then the other, alternating which goes first) and the ratio
//! of each pair printed, with the machine's load (`/proc/loadavg`) before and after. Client
//! and servers share the machine's cores.
//!
//! ```text
//! cargo bench -p snowmint-cli --bench grpc_stream
//! ```
//!
//! Settings (environment): `GRPC_BENCH_IDS` (IDs per stream phase, default 10,000,000),
//! `GRPC_BENCH_CALLS` (unary calls per round, default 20,000), `GRPC_BENCH_PAIRS` (default
//! 5), `GRPC_BENCH_WORKERS` (each server's worker threads, default 2).

#[allow(clippy::all, clippy::pedantic, dead_code)]
#[path = "../src/grpc/proto.rs"]
mod proto;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use proto::id_service_client::IdServiceClient;
use proto::id_service_server::{IdService, IdServiceServer};
use proto::{Kind, NextIdRequest, NextIdResponse, StreamIdsRequest};
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// A server process, killed on drop.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_snowmint(workers: usize) -> (Process, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--grpc-listen",
            "127.0.0.1:0",
        ])
        .args(["--node", "1", "--workers", &workers.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snowmint serve");
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let port = loop {
        let line = lines.next().expect("a start line").expect("stderr");
        if let Some(rest) = line.split("listening on grpc://").nth(1) {
            let addr = rest.split_whitespace().next().unwrap();
            break addr.rsplit(':').next().unwrap().parse().unwrap();
        }
    };
    // Keep draining its standard error.
    std::thread::spawn(move || lines.for_each(drop));
    (Process(child), port)
}

fn start_ferroid(binary: &str, workers: usize) -> (Process, u16) {
    let port = free_port();
    let child = Command::new(binary)
        .args(["--server-addr", &format!("127.0.0.1:{port}")])
        .args([
            "--num-workers",
            &workers.to_string(),
            "--ids-per-chunk",
            "4096",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ferroid-tonic-server");
    (Process(child), port)
}

async fn channel(port: u16) -> Channel {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match Channel::from_shared(format!("http://127.0.0.1:{port}"))
            .unwrap()
            .connect()
            .await
        {
            Ok(channel) => return channel,
            Err(e) if Instant::now() > deadline => panic!("connect to {port}: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// ferroid's messages (package `ferroid`, its proto/ferroid.proto).
#[derive(Clone, PartialEq, prost::Message)]
struct FerroidRequest {
    #[prost(uint64, tag = "1")]
    count: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
struct FerroidChunk {
    #[prost(bytes = "vec", tag = "1")]
    packed_ids: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    Snowmint,
    Ferroid,
}

/// Streams `count` IDs on `channel`; the IDs received (checked: 8 bytes each).
async fn stream(side: Side, channel: Channel, count: u64) -> u64 {
    let mut bytes = 0_u64;
    match side {
        Side::Snowmint => {
            let mut client = IdServiceClient::new(channel).max_decoding_message_size(64 << 20);
            let mut s = client
                .stream_ids(StreamIdsRequest {
                    kind: Kind::Snowflake as i32,
                    chunk_size: 4096,
                    count,
                })
                .await
                .expect("StreamIds")
                .into_inner();
            while let Some(chunk) = s.message().await.expect("a chunk") {
                bytes += chunk.packed.len() as u64;
            }
        }
        Side::Ferroid => {
            let mut grpc = tonic::client::Grpc::new(channel).max_decoding_message_size(64 << 20);
            grpc.ready().await.expect("ready");
            let path = tonic::codegen::http::uri::PathAndQuery::from_static(
                "/ferroid.IdGenerator/StreamIds",
            );
            let codec = tonic_prost::ProstCodec::<FerroidRequest, FerroidChunk>::default();
            let mut s = grpc
                .server_streaming(Request::new(FerroidRequest { count }), path, codec)
                .await
                .expect("ferroid StreamIds")
                .into_inner();
            while let Some(chunk) = s.message().await.expect("a chunk") {
                bytes += chunk.packed_ids.len() as u64;
            }
        }
    }
    assert_eq!(bytes % 8, 0);
    bytes / 8
}

/// IDs per second through `streams` concurrent streams on one connection, `total` in all.
async fn throughput(side: Side, port: u16, streams: u64, total: u64) -> f64 {
    let channel = channel(port).await;
    // Warm-up: connection, shards, caches.
    stream(side, channel.clone(), 100_000).await;
    let started = Instant::now();
    let each = total / streams;
    let tasks: Vec<_> = (0..streams)
        .map(|_| tokio::spawn(stream(side, channel.clone(), each)))
        .collect();
    let mut got = 0;
    for t in tasks {
        got += t.await.unwrap();
    }
    assert_eq!(got, each * streams, "{side:?}");
    got as f64 / started.elapsed().as_secs_f64()
}

/// A bare handler of `NextId`: a constant ID, nothing else.
struct Bare;

#[tonic::async_trait]
impl IdService for Bare {
    async fn next_id(&self, _: Request<NextIdRequest>) -> Result<Response<NextIdResponse>, Status> {
        Ok(Response::new(NextIdResponse {
            id: 1_541_815_603_606_036_480,
        }))
    }
    async fn next_ids(
        &self,
        _: Request<proto::NextIdsRequest>,
    ) -> Result<Response<proto::NextIdsResponse>, Status> {
        Err(Status::unimplemented("bare"))
    }
    async fn next_uuid7(
        &self,
        _: Request<proto::NextId128Request>,
    ) -> Result<Response<proto::Id128>, Status> {
        Err(Status::unimplemented("bare"))
    }
    async fn next_uuid7s(
        &self,
        _: Request<proto::NextIds128Request>,
    ) -> Result<Response<proto::NextIds128Response>, Status> {
        Err(Status::unimplemented("bare"))
    }
    async fn next_ulid(
        &self,
        _: Request<proto::NextId128Request>,
    ) -> Result<Response<proto::Id128>, Status> {
        Err(Status::unimplemented("bare"))
    }
    async fn next_ulids(
        &self,
        _: Request<proto::NextIds128Request>,
    ) -> Result<Response<proto::NextIds128Response>, Status> {
        Err(Status::unimplemented("bare"))
    }
    type StreamIdsStream = tokio_stream::Empty<Result<proto::IdChunk, Status>>;
    async fn stream_ids(
        &self,
        _: Request<StreamIdsRequest>,
    ) -> Result<Response<Self::StreamIdsStream>, Status> {
        Err(Status::unimplemented("bare"))
    }
    async fn decode(
        &self,
        _: Request<proto::DecodeRequest>,
    ) -> Result<Response<proto::DecodeResponse>, Status> {
        Err(Status::unimplemented("bare"))
    }
}

/// Starts the bare server on its own runtime (`workers` threads, as a server process
/// would have); its port.
fn start_bare(workers: usize) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            tonic::transport::Server::builder()
                .add_service(IdServiceServer::new(Bare))
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
                .await
                .unwrap();
        });
    });
    port
}

/// Mean microseconds per sequential `NextId` call, `calls` of them on one connection.
async fn per_call(port: u16, calls: u64) -> f64 {
    let mut client = IdServiceClient::new(channel(port).await);
    for _ in 0..1_000 {
        client.next_id(NextIdRequest {}).await.expect("NextId");
    }
    let started = Instant::now();
    for _ in 0..calls {
        client.next_id(NextIdRequest {}).await.expect("NextId");
    }
    started.elapsed().as_secs_f64() * 1e6 / calls as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let total: u64 = env_or("GRPC_BENCH_IDS", 10_000_000);
    let calls: u64 = env_or("GRPC_BENCH_CALLS", 20_000);
    let pairs: usize = env_or("GRPC_BENCH_PAIRS", 5);
    let workers: usize = env_or("GRPC_BENCH_WORKERS", 2);
    let ferroid_bin = std::env::var("FERROID_TONIC_SERVER")
        .unwrap_or_else(|_| "/work/tgt-grpc/peer/bin/ferroid-tonic-server".into());
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("grpc_stream: {cpus} CPUs, load {} at start", load());
    println!(
        "  {total} IDs per stream phase, {pairs} pairs, {workers} server workers, uncompressed"
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (_snowmint, snowmint_port) = start_snowmint(workers);
    let ferroid = if std::path::Path::new(&ferroid_bin).is_file() {
        Some(start_ferroid(&ferroid_bin, workers))
    } else {
        println!("  no {ferroid_bin}: ferroid's side skipped (set FERROID_TONIC_SERVER)");
        None
    };
    for streams in [1_u64, 16] {
        let mut ratios = Vec::new();
        for pair in 0..pairs {
            let ours_first = pair % 2 == 0;
            let mut ours = 0.0;
            let mut theirs = None;
            for turn in 0..2 {
                let snowmint_turn = (turn == 0) == ours_first;
                if snowmint_turn {
                    ours = rt.block_on(throughput(Side::Snowmint, snowmint_port, streams, total));
                } else if let Some((_, port)) = &ferroid {
                    theirs = Some(rt.block_on(throughput(Side::Ferroid, *port, streams, total)));
                }
            }
            match theirs {
                Some(theirs) => {
                    ratios.push(ours / theirs);
                    println!(
                        "  {streams:>2} stream(s) pair {pair}: snowmint {:.2} M IDs/s, ferroid {:.2} M IDs/s, ratio {:.2} (load {})",
                        ours / 1e6,
                        theirs / 1e6,
                        ours / theirs,
                        load()
                    );
                }
                None => println!(
                    "  {streams:>2} stream(s) pair {pair}: snowmint {:.2} M IDs/s (load {})",
                    ours / 1e6,
                    load()
                ),
            }
        }
        if !ratios.is_empty() {
            println!(
                "  {streams:>2} stream(s): median ratio snowmint/ferroid {:.2} (min {:.2}, max {:.2})",
                median(ratios.clone()),
                ratios.iter().copied().fold(f64::INFINITY, f64::min),
                ratios.iter().copied().fold(0.0, f64::max)
            );
        }
    }
    let bare_port = start_bare(workers);
    let mut ratios = Vec::new();
    for pair in 0..pairs {
        let (ours, bare) = if pair % 2 == 0 {
            let ours = rt.block_on(per_call(snowmint_port, calls));
            (ours, rt.block_on(per_call(bare_port, calls)))
        } else {
            let bare = rt.block_on(per_call(bare_port, calls));
            (rt.block_on(per_call(snowmint_port, calls)), bare)
        };
        ratios.push(ours / bare);
        println!(
            "  NextId pair {pair}: snowmint {ours:.1} µs/call, bare tonic handler {bare:.1} µs/call, ratio {:.2} (load {})",
            ours / bare,
            load()
        );
    }
    println!(
        "  NextId: median ratio snowmint/bare {:.2}; load {} at end",
        median(ratios),
        load()
    );
}
