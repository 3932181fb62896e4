//! `snowmint serve`'s 128-bit endpoints, `/uuid7?n=` and `/ulid?n=`, over loopback with the
//! real binary: the same query rules, limits, shapes and errors as `/ids`, IDs strictly
//! increasing within a response and unique across concurrent requests. (Their readiness
//! 503 is checked beside `/ids`'s in `serve_ready.rs`.)

mod serve_support;

use std::collections::HashSet;

use serve_support::{get, metric, Server};
use snowmint::{Ulid, Uuid7};

const FIXED: &[&str] = &["--workers", "2", "--node", "5", "--max-batch", "5000"];

/// The 128-bit values of a response's text lines, checked for their kind.
fn values(path: &str, text: &str) -> Vec<u128> {
    text.lines()
        .map(|line| {
            if path.starts_with("/uuid7") {
                let id: Uuid7 = line.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(id.to_string(), line, "canonical lowercase");
                id.to_u128()
            } else {
                let id: Ulid = line.parse().unwrap_or_else(|e| panic!("{line}: {e}"));
                assert_eq!(id.to_string(), line, "canonical uppercase");
                id.to_u128()
            }
        })
        .collect()
}

fn strictly_increasing(v: &[u128]) -> bool {
    v.windows(2).all(|w| w[0] < w[1])
}

#[test]
fn both_kinds_answer_as_ids_does() {
    let server = Server::start(FIXED);
    for path in ["/uuid7", "/ulid"] {
        // More than one reservation's 4,096, at the --max-batch.
        let reply = server.get(&format!("{path}?n=5000"));
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(reply.header("cache-control"), Some("no-store"));
        let text = reply.text();
        assert!(text.ends_with('\n'));
        let ids = values(path, &text);
        assert_eq!(ids.len(), 5000, "{path}");
        assert!(strictly_increasing(&ids), "{path}");

        let json = server.get_with(&format!("{path}?n=3"), &[("Accept", "application/json")]);
        assert_eq!(json.status, 200);
        assert_eq!(json.header("content-type"), Some("application/json"));
        let lines: Vec<String> = json
            .json()
            .as_array()
            .expect("an array")
            .iter()
            .map(|v| v.as_str().expect("IDs as strings").to_owned())
            .collect();
        let later = values(path, &lines.join("\n"));
        assert_eq!(later.len(), 3);
        assert!(
            strictly_increasing(&later) && later[0] > ids[4999],
            "{path}"
        );

        // The grammar and limits of /ids, with the path named where it helps.
        for (query, code) in [
            ("", "n_missing"),
            ("?n=0", "n_out_of_range"),
            ("?n=5001", "n_out_of_range"),
            ("?n=05", "n_not_a_number"),
            ("?n=1&n=2", "n_repeated"),
            ("?n=%zz", "bad_query"),
        ] {
            let bad = server.get(&format!("{path}{query}"));
            assert_eq!(bad.status, 400, "{path}{query}");
            assert_eq!(bad.error_code(), code, "{path}{query}");
            assert_eq!(bad.header("content-type"), Some("application/json"));
        }
        let missing = server.get(path).json();
        let message = missing["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("{path} needs n")), "{message}");
        let over = server.get(&format!("{path}?n=5001")).json();
        assert_eq!(
            over["message"],
            "n=5001 is out of range: allowed 1 to 5000 (the server's --max-batch)"
        );
        // Percent-decoded, other parameters ignored, as everywhere.
        let ok = server.get(&format!("{path}?_=1&n=%32"));
        assert_eq!(values(path, &ok.text()).len(), 2);
    }
    let post = serve_support::request(server.port, "POST", "/ulid?n=1", &[]);
    assert_eq!(post.status, 405);
    let metrics = server.get("/metrics").text();
    for route in ["/uuid7", "/ulid"] {
        let series = format!("snowmint_http_requests_total{{route=\"{route}\",status=\"200\"}}");
        assert!(
            metric(&metrics, &series).unwrap_or(0.0) >= 3.0,
            "{series}\n{metrics}"
        );
    }
}

#[test]
fn concurrent_requests_never_share_an_id() {
    let server = Server::start(FIXED);
    let port = server.port;
    for path in ["/uuid7?n=1000", "/ulid?n=1000"] {
        // 8 clients x 10 requests on fresh connections, all at once.
        let answers: Vec<Vec<u128>> = std::thread::scope(|s| {
            let clients: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(move || {
                        (0..10)
                            .map(|_| {
                                let reply = get(port, path, &[]);
                                assert_eq!(reply.status, 200, "{}", reply.text());
                                values(path, &reply.text())
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            clients
                .into_iter()
                .flat_map(|c| c.join().expect("a client"))
                .collect()
        });
        assert_eq!(answers.len(), 80);
        let mut seen = HashSet::new();
        for ids in &answers {
            assert_eq!(ids.len(), 1000);
            assert!(strictly_increasing(ids), "{path}: within one response");
            for &id in ids {
                assert!(seen.insert(id), "{path}: {id:x} handed out twice");
            }
        }
    }
}
