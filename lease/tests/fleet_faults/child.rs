//! The child: acquire a node, mint batches, print them (this test binary run again).

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use snowmint::fence::{FenceError, Fenced};
use snowmint::{Generator, Layout};
use snowmint_lease::redis::RedisLease;
use snowmint_lease::AcquireProgress;

#[cfg(feature = "etcd")]
use crate::fleet::ChildTls;
use crate::settings::*;
use crate::stepped_clock::{SteppedClock, CLOCK_FILE};

/// The body of the minter processes the fault tests start; returns at once unless run by
/// one of them.
pub(crate) fn run() {
    let Ok(backend) = std::env::var(CHILD_BACKEND) else {
        return;
    };
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"));
    let url = var("SNOWMINT_FAULT_URL");
    let namespace = var("SNOWMINT_FAULT_NAMESPACE");
    let nodes = var("SNOWMINT_FAULT_NODES");
    let (first, last) = nodes
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .expect("SNOWMINT_FAULT_NODES is FIRST-LAST");
    let millis = |name: &str| Duration::from_millis(var(name).parse().expect("milliseconds"));
    let (ttl, margin) = (
        millis("SNOWMINT_FAULT_TTL_MS"),
        millis("SNOWMINT_FAULT_MARGIN_MS"),
    );
    let io_timeout = millis("SNOWMINT_FAULT_IO_TIMEOUT_MS");
    let pace = Duration::from_micros(var("SNOWMINT_FAULT_PACE_US").parse().expect("µs"));
    let batch: u64 = var("SNOWMINT_FAULT_BATCH").parse().expect("batch size");
    let threads: usize = var("SNOWMINT_FAULT_THREADS").parse().expect("threads");

    // The parent closes our stdin to stop us (or dies, which closes it too).
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
            // Relaxed: a flag polled by the minting loop; nothing else is published with it.
            stop.store(true, Ordering::Relaxed);
        });
    }
    let mut out = std::io::stdout().lock();
    // The harness may have written "test child_minter ... " without a newline.
    let _ = writeln!(out);

    // The TSC clock, shifted by the offset in the file the parent may name and rewrite.
    let clock = match std::env::var_os(CLOCK_FILE) {
        Some(file) => SteppedClock::watching(file.into()),
        None => SteppedClock::unstepped(),
    };
    let started = Instant::now();
    let mut last_error = String::new();
    let acquired = loop {
        let builder = Generator::builder(Layout::TWITTER).clock(clock.clone());
        // Each wait the claim begins, as `snowmint serve` names it on `/readyz`.
        let progress = |step: AcquireProgress| {
            let until = step.waits_until_unix_millis().unwrap_or(0);
            let kind = match step {
                AcquireProgress::Forgetting { .. } => "forgetting",
                AcquireProgress::PastMark { .. } => "past-mark",
                _ => "claiming",
            };
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "PROGRESS {kind} {until}");
            let _ = out.flush();
        };
        let attempt: Result<(Fenced<Generator<SteppedClock>>, String), String> =
            match backend.as_str() {
                "redis" => RedisLease::builder(&url)
                    .map_err(|e| e.to_string())
                    .and_then(|l| {
                        l.namespace(&namespace)
                            .ttl(ttl)
                            .margin(margin)
                            .io_timeout(io_timeout)
                            .nodes(first..=last)
                            .build()
                            .and_then(|l| l.acquire_with(builder, progress))
                            .map_err(|e| with_sources(&e))
                    })
                    .map(|g| (g, "-".to_string())),
                #[cfg(feature = "etcd")]
                "etcd" => snowmint_lease::etcd::EtcdLease::builder(&url)
                    .map_err(|e| e.to_string())
                    .and_then(secured)
                    .and_then(|l| {
                        l.namespace(&namespace)
                            .ttl(ttl)
                            .margin(margin)
                            .io_timeout(io_timeout)
                            .nodes(first..=last)
                            .build()
                            .and_then(|l| l.acquire_with(builder, progress))
                            .map_err(|e| with_sources(&e))
                    })
                    .map(|g| {
                        let token = format!("{:?}", g.token());
                        (g, token)
                    }),
                #[cfg(not(feature = "etcd"))]
                "etcd" => panic!("this test binary was built without feature `etcd`"),
                #[cfg(feature = "postgres")]
                "postgres" => snowmint_lease::postgres::PostgresLease::builder(&url)
                    .map_err(|e| e.to_string())
                    .and_then(|l| {
                        l.namespace(&namespace)
                            .ttl(ttl)
                            .margin(margin)
                            .io_timeout(io_timeout)
                            .nodes(first..=last)
                            .build()
                            .and_then(|l| l.acquire_with(builder, progress))
                            .map_err(|e| with_sources(&e))
                    })
                    .map(|g| {
                        let token = format!("{:?}", g.token());
                        (g, token)
                    }),
                #[cfg(not(feature = "postgres"))]
                "postgres" => panic!("this test binary was built without feature `postgres`"),
                other => panic!("unknown backend {other}"),
            };
        match attempt {
            Ok(got) => break got,
            Err(e) => {
                // Every node taken (the normal case while a takeover waits), or the store
                // unreachable: try again until the bound.
                if e != last_error {
                    let _ = writeln!(std::io::stderr(), "acquire: {e}");
                    last_error = e;
                }
                if started.elapsed() > ACQUIRE_WITHIN || stop.load(Ordering::Relaxed) {
                    let _ = writeln!(out, "NOLEASE {last_error}");
                    let _ = out.flush();
                    std::process::exit(EXIT_NO_LEASE);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    let (gen, token) = acquired;
    let node = gen.node();
    let _ = writeln!(out, "ACQUIRED {node} {token} {}", wall_nanos());
    let _ = out.flush();
    // The minting threads write a line at a time.
    drop(out);
    let (batches, fenced, mint_errors) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let last_cause = Mutex::new(String::new());
    // Relaxed (all counters): read for the report after the threads are joined.
    let counts = || {
        format!(
            "batches={} fenced={} mint_errors={}",
            batches.load(Ordering::Relaxed),
            fenced.load(Ordering::Relaxed),
            mint_errors.load(Ordering::Relaxed)
        )
    };
    // Several threads, as a server has: after a pause each is a chance to mint before
    // the process notices the pause.
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut line = String::with_capacity(32 * batch as usize);
                // Relaxed: see the stdin thread.
                while !stop.load(Ordering::Relaxed) && started.elapsed() < CHILD_LIFETIME {
                    let before = wall_nanos();
                    match gen.next_ids(batch) {
                        Ok(ids) => {
                            let after = wall_nanos();
                            if !ids.is_empty() {
                                use std::fmt::Write as _;
                                line.clear();
                                let _ = write!(line, "B {node} {before} {after}");
                                for id in ids {
                                    let _ = write!(line, " {}", id.to_u64());
                                }
                                // The end mark: a line cut short by a kill is told apart.
                                line.push_str(" .\n");
                                // One write per batch, flushed: a child killed -9 leaves every
                                // batch it was handed before its last write.
                                let mut out = std::io::stdout().lock();
                                let _ = out.write_all(line.as_bytes());
                                let _ = out.flush();
                                batches.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        Err(FenceError::Lost { .. }) => {
                            let mut out = std::io::stdout().lock();
                            let _ = writeln!(out, "LOST {} {}", wall_nanos(), counts());
                            let _ = out.flush();
                            std::process::exit(EXIT_LOST);
                        }
                        // Expected during faults: the hold is not confirmed, minting resumes
                        // by itself. Each new cause goes to stderr with its time, so that a
                        // test that fails shows what the child was waiting for.
                        Err(FenceError::Fenced { cause, .. }) => {
                            fenced.fetch_add(1, Ordering::Relaxed);
                            // Told apart by their words, not their figures (times, nodes).
                            let cause = cause.to_string();
                            let kind: String =
                                cause.chars().filter(|c| !c.is_ascii_digit()).collect();
                            let mut last =
                                last_cause.lock().unwrap_or_else(PoisonError::into_inner);
                            if *last != kind {
                                let _ = writeln!(
                                    std::io::stderr(),
                                    "fenced at {:.3}: {cause}",
                                    wall_nanos() as f64 / 1e9
                                );
                                *last = kind;
                            }
                        }
                        Err(e) => {
                            if mint_errors.fetch_add(1, Ordering::Relaxed) == 0 {
                                let _ = writeln!(std::io::stderr(), "mint: {e}");
                            }
                        }
                    }
                    std::thread::sleep(pace);
                }
            });
        }
    });
    drop(gen);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "STATS {}", counts());
    let _ = out.flush();
}

/// The etcd lease with the CA, client certificate and user the parent named
/// (`Fleet::secured`), or as it is when it named none.
#[cfg(feature = "etcd")]
fn secured(
    lease: snowmint_lease::LeaseBuilder<snowmint_lease::etcd::Etcd>,
) -> Result<snowmint_lease::LeaseBuilder<snowmint_lease::etcd::Etcd>, String> {
    let Some(tls) = ChildTls::from_env() else {
        return Ok(lease);
    };
    let read = |p: &std::path::Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let lease = lease
        .ca_pem(&read(&tls.ca)?)
        .map_err(|e| e.to_string())?
        .client_cert_pem(&read(&tls.cert)?, &read(&tls.key)?)
        .map_err(|e| e.to_string())?;
    if tls.user.is_empty() {
        // The certificate's common name is the user.
        return Ok(lease);
    }
    Ok(lease.user(&tls.user, snowmint_lease::Password::new(tls.password)))
}
