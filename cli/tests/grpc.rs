//! `snowmint serve --grpc-listen` through a tonic client built from the published proto, as
//! a separate process: every method, the stream's order, uniqueness and chunk limits, the
//! INVALID_ARGUMENT texts, back-pressure on a reader that stops, the health service
//! following readiness (against a real `redis-server`, a new namespace's forgetting wait
//! making the service not ready for seconds), reflection, the metrics and a graceful stop.
//!
//! No bound here is a speed: every wait is a poll with a generous limit (a debug build
//! beside a CPU hog).

mod grpc_support;
#[path = "../../lease/tests/common/redis.rs"]
mod redis_server;
mod serve_support;

use std::collections::HashSet;
use std::time::Duration;

use grpc_support::proto::{
    DecodeRequest, Kind, NextId128Request, NextIdRequest, NextIds128Request, NextIdsRequest,
    StreamIdsRequest,
};
use grpc_support::{channel, grpc_port, runtime, IdServiceClient};
use redis_server::RedisServer;
use serve_support::{metric, poll, Server, START_LIMIT};
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

fn start(extra: &[&str]) -> (Server, u16) {
    let mut args = vec![
        "--grpc-listen",
        "127.0.0.1:0",
        "--node",
        "5",
        "--workers",
        "2",
    ];
    args.extend_from_slice(extra);
    let server = Server::start(&args);
    let port = grpc_port(&server);
    (server, port)
}

#[test]
fn every_unary_method_answers_and_bad_input_names_the_range() {
    let (server, port) = start(&["--max-batch", "1000"]);
    runtime().block_on(async {
        let mut client = IdServiceClient::new(channel(port).await);
        let one = client
            .next_id(NextIdRequest {})
            .await
            .unwrap()
            .into_inner()
            .id;
        let decoded = client
            .decode(DecodeRequest {
                id: one.to_string(),
                from: String::new(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(decoded.id, one.to_string());
        assert_eq!(decoded.layout, "twitter");
        assert_eq!(decoded.encoding, "decimal");
        // Node 5 above the shard bits (2 workers: 2 shard bits).
        assert_eq!(decoded.node >> 2, 5, "{decoded:?}");

        let ids = client
            .next_ids(NextIdsRequest { count: 1000 })
            .await
            .unwrap()
            .into_inner()
            .ids;
        assert_eq!(ids.len(), 1000);
        let unique: HashSet<_> = ids.iter().chain([&one]).collect();
        assert_eq!(unique.len(), 1001, "an ID came twice");
        for count in [0, 1001] {
            let refused = client.next_ids(NextIdsRequest { count }).await.unwrap_err();
            assert_eq!(refused.code(), Code::InvalidArgument);
            assert_eq!(
                refused.message(),
                format!("count {count} is out of range: 1 to 1000 (--max-batch)")
            );
        }

        let uuid = client
            .next_uuid7(NextId128Request {})
            .await
            .unwrap()
            .into_inner();
        assert_eq!(uuid.value.len(), 16);
        assert_eq!(uuid.value[6] >> 4, 7, "version 7");
        let hex: String = uuid.value.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(uuid.text.replace('-', ""), hex, "the bytes are the text's");
        let uuids = client
            .next_uuid7s(NextIds128Request { count: 500 })
            .await
            .unwrap()
            .into_inner()
            .ids;
        assert_eq!(uuids.len(), 500);
        assert!(uuids.windows(2).all(|w| w[0].value < w[1].value));
        assert!(uuids[0].value > uuid.value);

        let ulid = client
            .next_ulid(NextId128Request {})
            .await
            .unwrap()
            .into_inner();
        assert_eq!((ulid.value.len(), ulid.text.len()), (16, 26));
        let ulids = client
            .next_ulids(NextIds128Request { count: 500 })
            .await
            .unwrap()
            .into_inner()
            .ids;
        assert!(ulids.windows(2).all(|w| w[0].value < w[1].value));
        let refused = client
            .next_ulids(NextIds128Request { count: 0 })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument);

        for (text, kind) in [(&uuid.text, "uuid7"), (&ulid.text, "ulid")] {
            let decoded = client
                .decode(DecodeRequest {
                    id: text.clone(),
                    from: String::new(),
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(
                (decoded.encoding.as_str(), decoded.layout.as_str()),
                (kind, "")
            );
            assert!(decoded.unix_ms > 1_700_000_000_000, "{decoded:?}");
        }
        let bad = client
            .decode(DecodeRequest {
                id: "not an id".into(),
                from: String::new(),
            })
            .await
            .unwrap_err();
        assert_eq!(bad.code(), Code::InvalidArgument, "{bad:?}");
        let bad_from = client
            .decode(DecodeRequest {
                id: "5".into(),
                from: "roman".into(),
            })
            .await
            .unwrap_err();
        assert_eq!(bad_from.code(), Code::InvalidArgument);
        assert!(bad_from.message().starts_with("from: "), "{bad_from:?}");
    });
    // Counted by method and code in the one registry /metrics renders.
    let text = server.get("/metrics").text();
    for (series, at_least) in [
        (
            r#"snowmint_grpc_requests_total{method="NextId",code="OK"}"#,
            1.0,
        ),
        (
            r#"snowmint_grpc_requests_total{method="NextIds",code="OK"}"#,
            1.0,
        ),
        (
            r#"snowmint_grpc_requests_total{method="NextIds",code="INVALID_ARGUMENT"}"#,
            2.0,
        ),
        (
            r#"snowmint_grpc_requests_total{method="Decode",code="INVALID_ARGUMENT"}"#,
            2.0,
        ),
        (r#"snowmint_grpc_ids_total{kind="snowflake"}"#, 1001.0),
        (r#"snowmint_grpc_ids_total{kind="uuid7"}"#, 501.0),
    ] {
        let value = metric(&text, series).unwrap_or_else(|| panic!("no {series} in\n{text}"));
        assert!(value >= at_least, "{series} = {value}");
    }
}

/// The 64-bit values of packed chunks, big-endian.
fn unpack(chunk: &[u8]) -> impl Iterator<Item = u64> + '_ {
    chunk
        .chunks_exact(8)
        .map(|b| u64::from_be_bytes(b.try_into().unwrap()))
}

#[test]
fn streams_are_chunked_as_asked_unique_and_128_bit_ones_ascend() {
    let (_server, port) = start(&["--grpc-max-chunk", "8192"]);
    runtime().block_on(async {
        let mut client = IdServiceClient::new(channel(port).await);
        let mut stream = client
            .stream_ids(StreamIdsRequest {
                kind: Kind::Snowflake as i32,
                chunk_size: 4096,
                count: 100_000,
            })
            .await
            .unwrap()
            .into_inner();
        let mut sizes = Vec::new();
        let mut ids = Vec::new();
        while let Some(chunk) = stream.message().await.unwrap() {
            sizes.push(chunk.packed.len());
            ids.extend(unpack(&chunk.packed));
        }
        assert_eq!(ids.len(), 100_000);
        // 24 full chunks, then the 1,696 left.
        assert_eq!(sizes.len(), 25, "{sizes:?}");
        assert!(sizes[..24].iter().all(|&s| s == 4096 * 8));
        assert_eq!(sizes[24], 1_696 * 8);
        // Unique, and every one of node 5 (above 2 shard bits, below 12 sequence bits).
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
        assert!(ids.iter().all(|id| ((id >> 12) & 0x3ff) >> 2 == 5));

        for kind in [Kind::Uuid7, Kind::Ulid] {
            let mut stream = client
                .stream_ids(StreamIdsRequest {
                    kind: kind as i32,
                    chunk_size: 1000,
                    count: 10_000,
                })
                .await
                .unwrap()
                .into_inner();
            let mut values: Vec<Vec<u8>> = Vec::new();
            while let Some(chunk) = stream.message().await.unwrap() {
                assert_eq!(chunk.packed.len(), 16_000, "{kind:?}");
                values.extend(chunk.packed.chunks_exact(16).map(<[u8]>::to_vec));
            }
            assert_eq!(values.len(), 10_000);
            assert!(
                values.windows(2).all(|w| w[0] < w[1]),
                "{kind:?} not ascending"
            );
        }

        // The default chunk: 4,096.
        let mut stream = client
            .stream_ids(StreamIdsRequest {
                kind: Kind::Snowflake as i32,
                chunk_size: 0,
                count: 5_000,
            })
            .await
            .unwrap()
            .into_inner();
        let first = stream.message().await.unwrap().unwrap();
        assert_eq!(first.packed.len(), 4096 * 8);

        let too_big = client
            .stream_ids(StreamIdsRequest {
                kind: Kind::Snowflake as i32,
                chunk_size: 8193,
                count: 0,
            })
            .await
            .unwrap_err();
        assert_eq!(too_big.code(), Code::InvalidArgument);
        assert_eq!(
            too_big.message(),
            "chunk_size 8193 is out of range: 1 to 8192 (--grpc-max-chunk), or 0 for 4096"
        );
        let no_kind = client
            .stream_ids(StreamIdsRequest {
                kind: 9,
                chunk_size: 0,
                count: 1,
            })
            .await
            .unwrap_err();
        assert_eq!(no_kind.code(), Code::InvalidArgument);
        assert!(
            no_kind.message().contains("0 (KIND_SNOWFLAKE)"),
            "{no_kind:?}"
        );
    });
}

/// The IDs minted for gRPC calls so far, from /metrics.
fn minted(server: &Server) -> f64 {
    let text = server.get("/metrics").text();
    metric(&text, r#"snowmint_grpc_ids_total{kind="snowflake"}"#).unwrap_or(0.0)
}

#[test]
fn a_reader_that_stops_stops_the_minting() {
    let (server, port) = start(&[]);
    runtime().block_on(async {
        let mut client = IdServiceClient::new(channel(port).await);
        let mut stream = client
            .stream_ids(StreamIdsRequest {
                kind: Kind::Snowflake as i32,
                chunk_size: 4096,
                count: 0,
            })
            .await
            .unwrap()
            .into_inner();
        let first = stream.message().await.unwrap().unwrap();
        assert_eq!(first.packed.len(), 4096 * 8);
        // The client reads no more. The server mints until HTTP/2's windows and the
        // sockets' buffers are full, then not at all: the count settles.
        let mut last = minted(&server);
        let settled = poll(START_LIMIT, "the minting to stop", || {
            std::thread::sleep(Duration::from_millis(500));
            let now = minted(&server);
            let same = now == last;
            last = now;
            same.then_some(now)
        });
        std::thread::sleep(Duration::from_secs(2));
        assert_eq!(
            minted(&server),
            settled,
            "minting went on for a reader that stopped"
        );
        // What it holds: the client's windows (2 MiB per stream in tonic's client) and the
        // loopback sockets' buffers, a few MiB; nowhere near unbounded.
        let ahead = settled - 4096.0;
        println!(
            "minted ahead of a stopped reader: {ahead} IDs ({} MiB)",
            ahead * 8.0 / 1048576.0
        );
        assert!(
            ahead <= 4.0 * 1024.0 * 1024.0,
            "{ahead} IDs minted ahead of the reader"
        );
        // Reading again resumes it.
        stream.message().await.unwrap().unwrap();
        drop(stream);
    });
    let text = poll(START_LIMIT, "the cancelled stream counted", || {
        let text = server.get("/metrics").text();
        metric(
            &text,
            r#"snowmint_grpc_requests_total{method="StreamIds",code="CANCELLED"}"#,
        )
        .map(|_| text)
    });
    assert_eq!(
        metric(&text, "snowmint_grpc_streams_open"),
        Some(0.0),
        "{text}"
    );
}

async fn health(port: u16, service: &str) -> ServingStatus {
    let mut client = HealthClient::new(channel(port).await);
    let status = client
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await
        .unwrap()
        .into_inner()
        .status;
    ServingStatus::try_from(status).unwrap()
}

#[test]
fn health_follows_readiness_and_minting_is_refused_with_the_delay_meanwhile() {
    let Some(redis) = RedisServer::start("grpc-health") else {
        return;
    };
    let url = redis.url();
    // A new namespace: the forgetting rule's wait (a TTL plus the margin) before it mints.
    let server = Server::start_listening(&[
        "--grpc-listen",
        "127.0.0.1:0",
        "--workers",
        "2",
        "--lease",
        &url,
        "--namespace",
        "grpc",
        "--ttl",
        "5s",
    ]);
    let port = grpc_port(&server);
    let rt = runtime();
    rt.block_on(async {
        let ready = server.get("/readyz").status == 200;
        assert!(!ready, "ready before the forgetting wait");
        for service in ["", "snowmint.v1.IdService"] {
            let status = health(port, service).await;
            // Not serving, unless the wait ended meanwhile on a slow machine.
            if status == ServingStatus::Serving {
                assert_eq!(server.get("/readyz").status, 200);
            }
            assert_ne!(status, ServingStatus::Unknown);
        }
        let mut client = IdServiceClient::new(channel(port).await);
        match client.next_id(NextIdRequest {}).await {
            Err(refused) => {
                assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
                let secs: u64 = refused
                    .metadata()
                    .get("retry-after")
                    .expect("retry-after")
                    .to_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!((1..=7).contains(&secs), "{secs}");
                assert!(
                    refused.message().contains(&format!("retry after {secs} s")),
                    "{refused:?}"
                );
                assert!(refused.metadata().get("snowmint-state").is_some());
            }
            Ok(_) => assert_eq!(server.get("/readyz").status, 200),
        }
        // Then serving, once /readyz says ready.
        let mut seen_not_serving = false;
        loop {
            let status = health(port, "snowmint.v1.IdService").await;
            if status == ServingStatus::Serving {
                break;
            }
            seen_not_serving = true;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(server.get("/readyz").status, 200);
        println!("NOT_SERVING seen while claiming: {seen_not_serving}");
        assert!(client.next_id(NextIdRequest {}).await.is_ok());
    });
    drop(server);
}

#[test]
fn reflection_lists_the_services() {
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::ServerReflectionRequest;

    let (_server, port) = start(&[]);
    runtime().block_on(async {
        let mut client = ServerReflectionClient::new(channel(port).await);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut answers = client
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .unwrap()
            .into_inner();
        let answer = answers.message().await.unwrap().unwrap();
        let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
            panic!("{answer:?}")
        };
        let names: Vec<_> = list.service.into_iter().map(|s| s.name).collect();
        for wanted in ["snowmint.v1.IdService", "grpc.health.v1.Health"] {
            assert!(names.iter().any(|n| n == wanted), "{names:?}");
        }
    });
}

#[test]
fn a_stop_ends_open_streams_and_the_process_exits_cleanly() {
    let (mut server, port) = start(&[]);
    runtime().block_on(async {
        let mut client = IdServiceClient::new(channel(port).await);
        let mut stream = client
            .stream_ids(StreamIdsRequest {
                kind: Kind::Snowflake as i32,
                chunk_size: 64,
                count: 0,
            })
            .await
            .unwrap()
            .into_inner();
        stream.message().await.unwrap().unwrap();
        server.signal_term();
        let ended = loop {
            match stream.message().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("an unbounded stream ended with OK"),
                Err(status) => break status,
            }
        };
        assert_eq!(ended.code(), Code::Unavailable, "{ended:?}");
        assert!(ended.message().contains("stopping"), "{ended:?}");
    });
    let status = server.wait_exit(serve_support::EXIT_LIMIT);
    assert!(status.success(), "{status}\n{}", server.stderr());
}

#[test]
fn grpc_flags_are_checked_before_binding() {
    for args in [
        &["--grpc-listen", "127.0.0.1:0", "--grpc-max-chunk", "0"][..],
        &["--grpc-listen", "127.0.0.1:0", "--grpc-max-chunk", "131073"][..],
        &["--grpc-listen", "127.0.0.1:0", "--grpc-max-streams", "0"][..],
        &["--grpc-listen", "localhost:1"][..],
        &["--grpc-max-chunk", "100"][..],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_snowmint"))
            .args(["serve", "--listen", "127.0.0.1:0", "--node", "1"])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("listening"), "{args:?}: {stderr}");
    }
}

#[test]
fn past_max_connections_a_new_connection_waits_for_one_to_close() {
    let (_server, port) = start(&["--grpc-max-connections", "1"]);
    runtime().block_on(async {
        let mut first = IdServiceClient::new(channel(port).await);
        first.next_id(NextIdRequest {}).await.unwrap();
        // A second connection is not taken while the first is open: its call is not answered.
        let lazy = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
            .unwrap()
            .connect_lazy();
        let mut second = IdServiceClient::new(lazy);
        let call = tokio::spawn(async move { second.next_id(NextIdRequest {}).await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(
            !call.is_finished(),
            "a second connection was served at the cap"
        );
        // Once the first closes, it is.
        drop(first);
        let answered = tokio::time::timeout(START_LIMIT, call)
            .await
            .expect("the waiting connection was taken once the first closed")
            .unwrap();
        assert!(answered.is_ok(), "{answered:?}");
    });
}
