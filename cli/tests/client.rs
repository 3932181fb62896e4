//! `snowmint-client` against the real `snowmint serve`, and the service's binary bodies:
//! IDs unique and increasing across refills (blocking and async), fail-over to the second
//! service, the buffer served with every service stopped and then a typed error within the
//! bound, a layout or node mismatch refused, binary bodies holding what the text ones
//! would, and 406 for an `Accept` nothing offered matches.
//!
//! No test asserts a duration but the no-hang bound, with a wide margin for a loaded
//! machine.

mod serve_support;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use serve_support::{get, poll, Server};
use snowmint::{Id, Layout, Ulid, Uuid7};
use snowmint_client::{AsyncClient, Client, Declared, Error, Expected, Settings};

/// `snowmint layouts --json`'s spec of the twitter preset, as the service declares it.
const TWITTER: &str =
    "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";
const SONYFLAKE: &str =
    "time=39,node=16,seq=8,unit=10ms,epoch=2014-09-01T00:00:00.000Z,order=tsn,grid=unix,bits=63";

/// One worker and one shard bit: the node's IDs come from two shards (the worker's own and
/// the one it borrows when its own has used its tick up), each minting in increasing order.
fn serve(node: &str) -> Server {
    Server::start(&[
        "--node",
        node,
        "--workers",
        "1",
        "--shard-bits",
        "1",
        "--max-batch",
        "5000",
    ])
}

/// Whether the IDs of each shard (the node field) come in increasing order: the service
/// mints each shard's IDs in order; two shards interleave.
fn increasing_per_shard(ids: impl IntoIterator<Item = u64>) -> bool {
    let mut last = std::collections::HashMap::new();
    ids.into_iter().all(|id| {
        let shard = Layout::TWITTER.decode(Id::from_u64(id)).node();
        last.insert(shard, id).is_none_or(|before| before < id)
    })
}

fn increasing(ids: &[Id]) -> bool {
    increasing_per_shard(ids.iter().map(|id| id.to_u64()))
}

fn url(server: &Server) -> String {
    format!("http://127.0.0.1:{}", server.port)
}

/// Small buffers, so that a few thousand IDs take many refills; generous waits for a
/// loaded machine.
fn settings(urls: &[String], expected: Expected) -> Settings {
    Settings::new(urls, expected)
        .unwrap()
        .capacity(1_000)
        .low_water(200)
        .batch(300)
        .request_timeout(Duration::from_secs(10))
        .max_wait(Duration::from_secs(30))
        .retry(Duration::from_millis(20))
}

/// The service's node of an ID (above its shard bit).
fn node_of(id: Id) -> u64 {
    Layout::TWITTER.decode(id).node() >> 1
}

#[test]
fn ids_are_unique_and_increasing_across_refills() {
    let server = serve("5");
    let client = Client::new(settings(&[url(&server)], Expected::layout(TWITTER).node(5))).unwrap();
    let ids: Vec<Id> = (0..10_000).map(|_| client.next_id().unwrap()).collect();
    assert!(increasing(&ids), "increasing");
    let unique: HashSet<Id> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len());
    assert!(ids.iter().all(|&id| node_of(id) == 5));

    // The async client shares the buffer: its IDs follow.
    let shared = client.to_async();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let more: Vec<Id> = runtime.block_on(async {
        let mut more = Vec::new();
        for _ in 0..5_000 {
            more.push(shared.next_id().await.unwrap());
        }
        more
    });
    let all: Vec<Id> = ids.iter().chain(&more).copied().collect();
    assert!(increasing(&all));

    // Threads sharing one client never get the same ID.
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let c = client.clone();
            std::thread::spawn(move || (0..3_000).map(|_| c.next_id().unwrap()).collect::<Vec<_>>())
        })
        .collect();
    let mut seen: HashSet<Id> = ids.iter().chain(&more).copied().collect();
    for t in threads {
        let got = t.join().unwrap();
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "each thread's in order"
        );
        for id in got {
            assert!(seen.insert(id), "{id} handed out twice");
        }
    }
    assert_eq!(seen.len(), 10_000 + 5_000 + 12_000);
}

/// A consumer woken by a refill that leaves the buffer at its low-water mark or below asks
/// for more (the refill of a batch smaller than the mark), blocking and async; within a
/// generous limit, so that a deadlock fails the test rather than hanging it.
#[test]
fn consumers_woken_below_the_mark_ask_for_more() {
    let server = serve("7");
    let settings = settings(&[url(&server)], Expected::layout(TWITTER))
        .capacity(1_000)
        .low_water(900)
        .batch(50);
    let (done, finished) = std::sync::mpsc::channel();
    let blocking = Client::new(settings.clone()).unwrap();
    let asynchronous = AsyncClient::new(settings).unwrap();
    std::thread::spawn(move || {
        let mut ids: Vec<Id> = (0..3_000).map(|_| blocking.next_id().unwrap()).collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        runtime.block_on(async {
            for _ in 0..3_000 {
                ids.push(asynchronous.next_id().await.unwrap());
            }
        });
        let _ = done.send(ids);
    });
    let ids = finished
        .recv_timeout(Duration::from_secs(120))
        .expect("6,000 IDs within 2 minutes: no deadlock");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 6_000);
}

#[test]
fn a_standalone_async_client_mints() {
    let server = serve("6");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let ids = runtime.block_on(async {
        let client =
            AsyncClient::new(settings(&[url(&server)], Expected::layout(TWITTER))).unwrap();
        let mut ids = Vec::new();
        for _ in 0..3_000 {
            ids.push(client.next_id().await.unwrap());
        }
        ids
    });
    assert!(increasing(&ids));
    assert!(ids.iter().all(|&id| node_of(id) == 6));
}

#[test]
fn fails_over_to_the_second_service() {
    let first = serve("1");
    let second = serve("2");
    let client = Client::new(settings(
        &[url(&first), url(&second)],
        Expected::layout(TWITTER),
    ))
    .unwrap();
    let before: Vec<Id> = (0..2_000).map(|_| client.next_id().unwrap()).collect();
    assert!(
        before.iter().all(|&id| node_of(id) == 1),
        "the first URL first"
    );
    drop(first);
    // What was buffered from the first, then the second's.
    let after: Vec<Id> = (0..5_000).map(|_| client.next_id().unwrap()).collect();
    let from_second = after.iter().filter(|&&id| node_of(id) == 2).count();
    assert!(
        from_second >= 5_000 - 1_000,
        "{from_second} of 5000 from the second"
    );
    let unique: HashSet<Id> = before.iter().chain(&after).copied().collect();
    assert_eq!(unique.len(), 7_000);
    drop(second);
}

#[test]
fn with_every_service_stopped_the_buffer_is_served_then_a_typed_error() {
    let server = serve("5");
    let max_wait = Duration::from_secs(3);
    let client = Client::new(
        settings(&[url(&server)], Expected::layout(TWITTER))
            .capacity(600)
            .low_water(100)
            .batch(600)
            .max_wait(max_wait),
    )
    .unwrap();
    poll(Duration::from_secs(60), "a full buffer", || {
        (client.buffered() == 600).then_some(())
    });
    drop(server);
    // Full, so the refill thread asks nothing until the buffer falls to its mark.
    let held = client.buffered();
    assert_eq!(held, 600);
    let ids: Vec<Id> = (0..held).map(|_| client.next_id().unwrap()).collect();
    assert!(increasing(&ids));
    for _ in 0..3 {
        let started = Instant::now();
        let err = client.next_id().unwrap_err();
        let waited = started.elapsed();
        assert!(
            matches!(err, Error::Unavailable { .. }),
            "the typed error: {err}"
        );
        assert!(err.to_string().starts_with("no ID"), "{err}");
        // The bound, with room for a loaded machine: no hang.
        assert!(waited < max_wait + Duration::from_secs(20), "{waited:?}");
    }
}

#[test]
fn a_layout_or_node_mismatch_is_refused() {
    let server = serve("5");
    for (expected, field, declared) in [
        (Expected::layout(SONYFLAKE), Declared::Layout, TWITTER),
        (Expected::layout(TWITTER).node(9), Declared::Node, "5"),
    ] {
        let client = Client::new(settings(&[url(&server)], expected)).unwrap();
        match client.next_id() {
            Err(Error::Mismatch(m)) => {
                assert_eq!(m.field, field);
                assert_eq!(m.declared, declared);
                assert_eq!(m.url, url(&server));
            }
            other => panic!("expected a mismatch, got {other:?}"),
        }
        assert_eq!(client.buffered(), 0, "no refused ID is buffered");
    }
    // The keys' order does not matter.
    let reordered = "bits=63,grid=epoch,order=tns,epoch=2010-11-04T01:42:54.657Z,unit=1ms,seq=12,node=10,time=41";
    let client = Client::new(settings(
        &[url(&server)],
        Expected::layout(reordered).node(5),
    ))
    .unwrap();
    assert_eq!(node_of(client.next_id().unwrap()), 5);
}

fn ids_of(lines: &str) -> Vec<u64> {
    lines.lines().map(|l| l.parse().unwrap()).collect()
}

#[test]
fn binary_bodies_hold_what_the_text_ones_would() {
    let server = serve("5");
    let octet = [("Accept", "application/octet-stream")];
    let text_before = ids_of(&server.get("/ids?n=1000").text());
    let binary = server.get_with("/ids?n=1000", &octet);
    assert_eq!(binary.status, 200);
    assert_eq!(
        binary.header("content-type"),
        Some("application/octet-stream")
    );
    assert_eq!(binary.header("cache-control"), Some("no-store"));
    assert_eq!(binary.header("x-snowmint-layout"), Some(TWITTER));
    assert_eq!(binary.header("x-snowmint-node"), Some("5"));
    assert_eq!(binary.body.len(), 8_000);
    let ids: Vec<u64> = binary
        .body
        .chunks_exact(8)
        .map(|b| u64::from_be_bytes(b.try_into().unwrap()))
        .collect();
    let text_after = ids_of(&server.get("/ids?n=1000").text());
    // Each shard mints in order: the binary IDs follow the text answer before and precede
    // the one after, shard by shard, and none repeats.
    let all: Vec<u64> = text_before
        .iter()
        .chain(&ids)
        .chain(&text_after)
        .copied()
        .collect();
    assert!(increasing_per_shard(all.iter().copied()));
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 3_000);
    for id in [ids[0], ids[999]] {
        let d = server.get(&format!("/decode/{id}")).json();
        assert_eq!(d["node"].as_u64().unwrap() >> 1, 5);
        assert_eq!(d["layout"], "twitter");
    }
    // The text answers declare the same.
    let text = server.get_with("/ids?n=2", &[("Accept", "text/plain")]);
    assert_eq!(text.header("x-snowmint-layout"), Some(TWITTER));

    // 128-bit: the 16 canonical bytes, between the texts before and after.
    for path in ["/uuid7", "/ulid"] {
        let text = |n| server.get(&format!("{path}?n={n}")).text();
        let parse = |line: &str| -> u128 {
            if path == "/uuid7" {
                line.parse::<Uuid7>().unwrap().to_u128()
            } else {
                line.parse::<Ulid>().unwrap().to_u128()
            }
        };
        let before: Vec<u128> = text(10).lines().map(parse).collect();
        let binary = server.get_with(&format!("{path}?n=500"), &octet);
        assert_eq!(binary.status, 200);
        assert_eq!(
            binary.header("content-type"),
            Some("application/octet-stream")
        );
        assert_eq!(binary.body.len(), 500 * 16);
        let values: Vec<u128> = binary
            .body
            .chunks_exact(16)
            .map(|b| {
                let bytes: [u8; 16] = b.try_into().unwrap();
                if path == "/uuid7" {
                    Uuid7::from_bytes(bytes).expect("a UUIDv7").to_u128()
                } else {
                    Ulid::from_bytes(bytes).to_u128()
                }
            })
            .collect();
        let after: Vec<u128> = text(10).lines().map(parse).collect();
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{path}");
        assert!(before[9] < values[0] && values[499] < after[0], "{path}");
        // And /decode reads the canonical text of the bytes.
        let first = if path == "/uuid7" {
            Uuid7::from_u128(values[0]).unwrap().to_string()
        } else {
            Ulid::from_u128(values[0]).to_string()
        };
        let d = server.get(&format!("/decode/{first}")).json();
        assert_eq!(d["encoding"], &path[1..]);
    }
}

#[test]
fn accept_is_negotiated_and_nothing_offered_is_406() {
    let server = serve("5");
    let port = server.port;
    for path in ["/ids?n=3", "/uuid7?n=3", "/ulid?n=3"] {
        let refused = get(port, path, &[("Accept", "image/png, text/html")]);
        assert_eq!(refused.status, 406, "{path}");
        assert_eq!(refused.error_code(), "not_acceptable");
        let message = refused.json()["message"].as_str().unwrap().to_owned();
        for offered in ["text/plain", "application/json", "application/octet-stream"] {
            assert!(message.contains(offered), "{message}");
        }
        let cases = [
            ("*/*", "text/plain; charset=utf-8"),
            ("text/plain;q=0.5, application/json", "application/json"),
            (
                "application/json;q=0.5, application/octet-stream",
                "application/octet-stream",
            ),
            (
                "text/plain, application/json;q=0.9",
                "text/plain; charset=utf-8",
            ),
        ];
        for (accept, chosen) in cases {
            let reply = get(port, path, &[("Accept", accept)]);
            assert_eq!(reply.status, 200, "{path} {accept}");
            assert_eq!(
                reply.header("content-type"),
                Some(chosen),
                "{path} {accept}"
            );
        }
    }
}
