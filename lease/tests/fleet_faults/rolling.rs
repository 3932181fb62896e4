//! A rolling restart of three `snowmint serve` processes under load.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::fleet::Store;
use crate::serve::*;
use crate::settings::*;

/// The servers' lease: a 5 s TTL, so that the forgetting rule's wait a restart must skip
/// (6 s) is far from a restart's own time; each store call may take 1 s (etcd beside a CPU
/// hog passes the default 0.5 s now and then, and a claim that fails so stops the server),
/// and a renewal (every 1.7 s, 1 s margin) is tried again within the hold's 4 s, so a server
/// is not fenced, which would count as not ready.
const SERVE_LEASE: &[&str] = &["--ttl", "5s", "--lease-timeout", "1s"];
/// IDs the clients collect between two restarts.
const BETWEEN: usize = 3_000;

/// Three servers sharing nodes 1–3, clients minting from all three; each in turn gets
/// SIGTERM (it releases its node and exits 0) and is started again at once, and the next
/// waits until it is ready. No restart may report the forgetting rule's wait on `/readyz`
/// (the store vouches for a released node), a sampler polling all three `/readyz` finds at
/// least two ready in every round, and no ID comes twice. Each restart's time from spawn to
/// ready is printed.
pub(crate) fn rolling_restart(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(store) = Store::start(backend, "rolling", None) else {
        return;
    };
    let (url, ns) = (store.url(), "faults-rolling");
    let mut servers: Vec<Serve> = ["s1", "s2", "s3"]
        .iter()
        .map(|name| Serve::start(name, &url, ns, "1-3", SERVE_LEASE))
        .collect();
    for s in &mut servers {
        s.wait_ready(WITHIN);
    }
    let ports: Vec<_> = servers.iter().map(|s| Arc::clone(&s.port)).collect();
    let clients = Clients::start(&ports);

    // The sampler: a round asks each server's /readyz; the fewest ready in any round.
    let stop = Arc::new(AtomicBool::new(false));
    let rounds = Arc::new(Mutex::new(Vec::<Vec<String>>::new()));
    let sampler = {
        let (stop, rounds, ports) = (Arc::clone(&stop), Arc::clone(&rounds), ports.clone());
        std::thread::spawn(move || {
            // Relaxed: a flag polled by the loop; the rounds are read after the join.
            while !stop.load(Ordering::Relaxed) {
                let round: Vec<String> = ports
                    .iter()
                    .map(|p| {
                        let state = get(p.load(Ordering::Relaxed), "/readyz").and_then(|(_, b)| {
                            serde_json::from_str::<serde_json::Value>(&b).ok()?["state"]
                                .as_str()
                                .map(str::to_string)
                        });
                        state.unwrap_or_else(|| "no answer".to_string())
                    })
                    .collect();
                rounds
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(round);
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };

    let mut restarts = Vec::new();
    for server in &mut servers {
        clients.wait_more(clients.count(), BETWEEN, WITHIN);
        let node = server.node();
        let status = server.terminate();
        assert!(
            status.success(),
            "{} exited {status}:\n{}",
            server.name,
            server.stderr()
        );
        let spawned = Instant::now();
        let mut new = Serve::restart_of(server, &url, ns, "1-3", SERVE_LEASE);
        let (states, _) = new.wait_ready(WITHIN);
        let to_ready = spawned.elapsed();
        let log = new.stderr();
        assert!(
            states
                .iter()
                .all(|s| !s.starts_with("waiting for the forgetting rule")),
            "{} waited for the forgetting rule after SIGTERM: {states:?}\n{log}",
            new.name
        );
        assert!(!log.contains("forgetting rule"), "{log}");
        restarts.push(format!(
            "{} (node {node:?} → {:?}) ready {:.3} s after spawn {states:?}",
            new.name,
            new.node(),
            to_ready.as_secs_f64()
        ));
        *server = new;
    }
    clients.wait_more(clients.count(), BETWEEN, WITHIN);
    // Relaxed: see the sampler.
    stop.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    let ids = clients.stop();
    let dups = duplicates(&ids);
    let rounds = std::mem::take(&mut *rounds.lock().unwrap_or_else(PoisonError::into_inner));
    let ready_in = |r: &Vec<String>| r.iter().filter(|s| *s == "ready").count();
    let fewest = rounds.iter().map(ready_in).min().unwrap_or(0);
    say(&format!(
        "fault=rolling-restart backend={} ids={} duplicates={dups} fewest_ready={fewest}",
        backend.name(),
        ids.len()
    ));
    say(&format!(
        "  {} sampled rounds; {}; elapsed {:.1} s",
        rounds.len(),
        restarts.join("; "),
        started.elapsed().as_secs_f64()
    ));
    assert_eq!(dups, 0, "duplicate IDs");
    assert!(!rounds.is_empty(), "no round sampled");
    let worst = rounds.iter().find(|r| ready_in(r) < 2);
    assert!(worst.is_none(), "fewer than two of three ready: {worst:?}");
}
