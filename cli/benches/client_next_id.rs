//! `snowmint-client`'s `next_id()` against an in-process `snowmint::Generator::next_id`, in
//! paired rounds of one run (each round both, taking turns to go first), with the machine's
//! load read before and after.
//!
//! Starts the release `snowmint serve` (Twitter layout, node 1, default flags otherwise) on
//! a free loopback port. Each round measures, for both sides:
//! - **burst**: 4,000 calls (within one tick's 4,096 IDs, so the generator never waits for
//!   the clock), with at least as many IDs in the client's buffer: nanoseconds per call, the
//!   cost of the handoff;
//! - **sustained**: 1,000,000 calls in a row: IDs per second, where the generator is held
//!   to its layout's 4,096 IDs per millisecond and the client to what the service refills.
//!
//! ```text
//! cargo bench -p snowmint-cli --bench client_next_id
//! ```
//!
//! Settings (environment): `CLIENT_BENCH_ROUNDS` (default 7).

use std::hint::black_box;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use snowmint::{Generator, Layout};
use snowmint_client::{Client, Expected, Settings};

const TWITTER: &str =
    "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";
const BURST: usize = 4_000;
const SUSTAINED: usize = 1_000_000;
const CAPACITY: usize = 65_536;

fn start_server() -> (Child, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_snowmint"))
        .args(["serve", "--listen", "127.0.0.1:0", "--node", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snowmint serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let port = loop {
        let line = lines
            .next()
            .expect("exited before listening")
            .expect("stderr");
        if let Some(rest) = line.split("listening on http://").nth(1) {
            let addr = rest.split_whitespace().next().unwrap();
            break addr.rsplit(':').next().unwrap().parse().unwrap();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    (child, port)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Nanoseconds per call of `call`, over `n` calls.
fn per_call(n: usize, mut call: impl FnMut() -> u64) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        black_box(call());
    }
    start.elapsed().as_nanos() as f64 / n as f64
}

fn median_range(values: &mut [f64]) -> String {
    values.sort_by(f64::total_cmp);
    format!(
        "{:.2}x ({:.2}-{:.2})",
        values[values.len() / 2],
        values[0],
        values[values.len() - 1]
    )
}

fn main() {
    let rounds: usize = std::env::var("CLIENT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let (mut server, port) = start_server();
    let settings = Settings::new(
        [format!("http://127.0.0.1:{port}")],
        Expected::layout(TWITTER),
    )
    .expect("settings")
    .capacity(CAPACITY)
    .low_water(CAPACITY / 4)
    .batch(8_192);
    let client = Client::new(settings).expect("client");
    let gen = Generator::new(Layout::TWITTER, 2).expect("generator");
    println!("client_next_id: load before {}", load());
    // Enough buffered for a burst that never waits on the network.
    let full = |client: &Client| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while client.buffered() < BURST {
            assert!(
                Instant::now() < deadline,
                "the buffer did not fill: {} IDs; next_id: {:?}",
                client.buffered(),
                client.next_id()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    let (mut burst, mut sustained) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        full(&client);
        // The generator starts on a fresh tick: sleep past the current one.
        std::thread::sleep(Duration::from_millis(2));
        let gen_burst = || per_call(BURST, || gen.next_id().expect("mint").to_u64());
        let client_burst = || per_call(BURST, || client.next_id().expect("client").to_u64());
        let (g, c) = if round % 2 == 1 {
            let g = gen_burst();
            (g, client_burst())
        } else {
            let c = client_burst();
            (gen_burst(), c)
        };
        let gen_rate = || 1e9 / per_call(SUSTAINED, || gen.next_id().expect("mint").to_u64());
        let client_rate =
            || 1e9 / per_call(SUSTAINED, || client.next_id().expect("client").to_u64());
        let (gr, cr) = if round % 2 == 1 {
            let gr = gen_rate();
            (gr, client_rate())
        } else {
            let cr = client_rate();
            (gen_rate(), cr)
        };
        println!(
            "round {round}: burst {BURST}: client {c:>6.1} ns/call, generator {g:>6.1} ns/call ({:.2}x); sustained {SUSTAINED}: client {:>6.2} M IDs/s, generator {:>6.2} M IDs/s ({:.2}x); load {}",
            c / g,
            cr / 1e6,
            gr / 1e6,
            cr / gr,
            load()
        );
        burst.push(c / g);
        sustained.push(cr / gr);
    }
    println!(
        "over {rounds} rounds: burst cost per call, client over generator {}; sustained rate, client over generator {}; load after {}",
        median_range(&mut burst),
        median_range(&mut sustained),
        load()
    );
    // What the rates above handed out: 1,000,000 more IDs, all distinct, with their span.
    let started = Instant::now();
    let ids: Vec<u64> = (0..SUSTAINED)
        .map(|_| client.next_id().expect("client").to_u64())
        .collect();
    let took = started.elapsed();
    let distinct: std::collections::HashSet<u64> = ids.iter().copied().collect();
    let times: Vec<u64> = ids
        .iter()
        .map(|&id| {
            Layout::TWITTER
                .decode(snowmint::Id::from_u64(id))
                .unix_millis()
        })
        .collect();
    println!(
        "check: {} IDs in {took:?}, {} distinct, stamped over {} ms",
        ids.len(),
        distinct.len(),
        times.iter().max().unwrap() - times.iter().min().unwrap()
    );
    assert_eq!(distinct.len(), ids.len(), "an ID handed out twice");
    drop(client);
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();
}
