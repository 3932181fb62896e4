//! kill -9, then `snowmint serve` restarted at once held to the dead process's node, or
//! with a free node beside it.

use std::time::Instant;

use crate::fleet::Store;
use crate::serve::*;
use crate::settings::*;

/// The servers' lease: the suite's TTL (2 s; the forgetting rule's wait is 2.4 s) and its
/// store-call timeout (the default, a tenth of the TTL, is often passed by etcd beside a CPU
/// hog; see `settings::IO_TIMEOUT`).
const SERVE_LEASE: &[&str] = &["--ttl", "2s", "--lease-timeout", "500ms"];
/// IDs the clients collect from each lifetime.
const PER_LIFETIME: usize = 5_000;

fn forgetting(states: &[String]) -> bool {
    states
        .iter()
        .any(|s| s.starts_with("waiting for the forgetting rule"))
}

/// A server on node 5 killed -9 and started again at once with `--nodes 5-5`: it claims
/// again until the dead holder's key lapses (`claiming`, its log saying the node is held),
/// never waits for the forgetting rule (the store vouches for the node's mark), and mints
/// above every ID the dead one handed out. Killed again and started with `--nodes 5-6`, it
/// takes node 6 at once, without waiting for node 5. No ID comes twice.
pub(crate) fn kill9_same_node(backend: Backend) {
    let _one = one_at_a_time();
    let started = Instant::now();
    let Some(store) = Store::start(backend, "kill9_same_node", None) else {
        return;
    };
    let (url, ns) = (store.url(), "faults-kill9-same-node");
    let mut a = Serve::start("a", &url, ns, "5-5", SERVE_LEASE);
    let (first_states, first_ready) = a.wait_ready(WITHIN);
    assert!(
        forgetting(&first_states),
        "a new namespace waits: {first_states:?}"
    );
    let clients = Clients::start(&[a.port.clone()]);
    clients.wait_more(0, PER_LIFETIME, WITHIN);
    let ids_a = clients.stop();
    a.kill9();

    // Held to the dead process's node.
    let mut a2 = Serve::start("a2", &url, ns, "5-5", SERVE_LEASE);
    let (states, to_ready) = a2.wait_ready(WITHIN);
    let log = a2.stderr();
    assert!(
        !forgetting(&states),
        "waited for the forgetting rule: {states:?}\n{log}"
    );
    assert!(
        states.iter().all(|s| s == "claiming"
            || s == "ready"
            || s == "no answer"
            || s.starts_with("waiting past the mark")),
        "{states:?}"
    );
    assert!(
        log.contains("every node from 5 to 5 is held"),
        "it did not wait for the dead holder's key:\n{log}"
    );
    assert_eq!(a2.node(), Some(5));
    let clients = Clients::start(&[a2.port.clone()]);
    clients.wait_more(0, PER_LIFETIME, WITHIN);
    let ids_a2 = clients.stop();
    let (max_a, min_a2) = (ids_a.iter().max(), ids_a2.iter().min());
    assert!(
        max_a < min_a2,
        "A's IDs reach {max_a:?}, A2's start at {min_a2:?}"
    );
    a2.kill9();

    // A free node beside the dead one's.
    let mut a3 = Serve::start("a3", &url, ns, "5-6", SERVE_LEASE);
    let (free_states, free_ready) = a3.wait_ready(WITHIN);
    let log = a3.stderr();
    assert!(
        !forgetting(&free_states),
        "waited for the forgetting rule: {free_states:?}\n{log}"
    );
    assert!(
        free_states
            .iter()
            .all(|s| s == "claiming" || s == "ready" || s == "no answer"),
        "{free_states:?}\n{log}"
    );
    assert!(!log.contains("is held"), "it waited for node 5:\n{log}");
    assert_eq!(a3.node(), Some(6));
    let clients = Clients::start(&[a3.port.clone()]);
    clients.wait_more(0, PER_LIFETIME, WITHIN);
    let ids_a3 = clients.stop();

    let all: Vec<u64> = [ids_a, ids_a2, ids_a3].concat();
    let dups = duplicates(&all);
    say(&format!(
        "fault=kill9-same-node backend={} ids={} duplicates={dups}",
        backend.name(),
        all.len()
    ));
    say(&format!(
        "  new namespace ready in {:.2} s ({first_states:?}); after kill -9 held to node 5 \
         ready in {:.2} s ({states:?}); with node 6 free ready in {:.2} s ({free_states:?}); \
         elapsed {:.1} s",
        first_ready.as_secs_f64(),
        to_ready.as_secs_f64(),
        free_ready.as_secs_f64(),
        started.elapsed().as_secs_f64()
    ));
    assert_eq!(dups, 0, "duplicate IDs");
}
