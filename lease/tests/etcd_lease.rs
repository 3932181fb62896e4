//! etcd leases on a real 3-member cluster (started by the test on loopback ports): distinct
//! nodes for concurrent holders, a fencing token that only grows, a released node continued
//! above its old IDs, the forgetting rule's wait at every start, fail-over when a member
//! (the leader included) dies while minting, and clear errors for bad settings.
#![cfg(feature = "etcd")]

#[path = "common/etcd.rs"]
mod etcd;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use etcd::EtcdCluster;
use snowmint::clock::WallClock;
use snowmint::fence::FenceError;
use snowmint::{Generator, Id, Layout};
use snowmint_lease::etcd::{Etcd, EtcdLease};
use snowmint_lease::{LeaseBuilder, LeaseError};

/// Short enough to keep the file fast, long enough for renewals on a loaded machine.
const TTL: Duration = Duration::from_secs(2);
const MARGIN: Duration = Duration::from_millis(400);

fn lease(cluster: &EtcdCluster, namespace: &str) -> LeaseBuilder<Etcd> {
    EtcdLease::builder(&cluster.url())
        .unwrap()
        .namespace(namespace)
        .ttl(TTL)
        .margin(MARGIN)
}

#[test]
fn holders_get_distinct_nodes_growing_tokens_and_a_released_node_continues_above_its_ids() {
    let Some(cluster) = EtcdCluster::start("etcd-lease-basics") else {
        return;
    };
    let started = Instant::now();
    let a = lease(&cluster, "basics")
        .nodes(0..=1)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    let waited = started.elapsed();
    assert!(
        waited >= TTL + MARGIN,
        "the forgetting rule waits one TTL plus the margin before the first ID, waited {waited:?}"
    );
    let b = lease(&cluster, "basics")
        .nodes(0..=1)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    assert_ne!(a.node(), b.node());
    let (ta, tb) = (a.token().expect("a token"), b.token().expect("a token"));
    assert!(tb > ta, "tokens grow: {ta} then {tb}");

    let full = lease(&cluster, "basics")
        .nodes(0..=1)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(
        matches!(
            full,
            LeaseError::AllTaken {
                first: 0,
                last: 1,
                ..
            }
        ),
        "{full:?}"
    );

    let mut last = a.next_id().unwrap();
    for _ in 0..100_000 {
        let id = a.next_id().unwrap();
        assert!(id > last);
        last = id;
    }
    let node = a.node();
    drop(a);
    let again = lease(&cluster, "basics")
        .nodes(node..=node)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    assert!(
        again.token().unwrap() > tb,
        "a new claim, a new, larger token"
    );
    let first = again.next_id().unwrap();
    assert!(
        first > last,
        "{first} after the released node's last {last}"
    );
    assert!(
        Layout::TWITTER.decode(first).unix_millis() > Layout::TWITTER.decode(last).unix_millis(),
        "in a later tick"
    );
}

#[test]
fn minting_goes_on_through_the_loss_and_return_of_a_member_and_of_the_leader() {
    let Some(mut cluster) = EtcdCluster::start("etcd-lease-failover") else {
        return;
    };
    let gen = lease(&cluster, "failover")
        .io_timeout(Duration::from_millis(300))
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap();
    let mut seen = HashSet::new();
    let mint_for = |d: Duration, seen: &mut HashSet<Id>| {
        let end = Instant::now() + d;
        let (mut ok, mut fenced) = (0, 0);
        while Instant::now() < end {
            match gen.next_ids(100) {
                Ok(batch) => {
                    for id in batch {
                        assert!(seen.insert(id), "{id} twice");
                        ok += 1;
                    }
                }
                Err(FenceError::Fenced { .. }) => fenced += 1,
                Err(e) => panic!("{e}"),
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        (ok, fenced)
    };
    let (before, _) = mint_for(Duration::from_secs(1), &mut seen);
    assert!(before > 0);
    // The first endpoint, which the client tried first, goes away: renewals fail over.
    cluster.kill(0);
    let (during, _) = mint_for(TTL * 2, &mut seen);
    assert!(during > 0, "no ID while one member of three was down");
    assert!(
        !gen.is_fenced(),
        "the lease was renewed through the other members"
    );
    cluster.restart(0);
    let leader = cluster.leader();
    cluster.kill(leader);
    let (without_leader, _) = mint_for(TTL * 2, &mut seen);
    assert!(without_leader > 0, "no ID after the leader was lost");
    cluster.restart(leader);
    let (after, _) = mint_for(Duration::from_secs(1), &mut seen);
    assert!(after > 0);
    assert!(!gen.is_lost());
}

#[test]
fn bad_settings_are_clear_errors() {
    let err = EtcdLease::builder("etcd://127.0.0.1:2379,nohost").unwrap_err();
    assert!(
        err.to_string().contains("\"nohost\" is not HOST:PORT"),
        "{err}"
    );
    let err = EtcdLease::builder("etcd://127.0.0.1:1")
        .unwrap()
        .ttl(Duration::from_millis(500))
        .build()
        .unwrap_err();
    assert!(matches!(err, LeaseError::Timing { .. }), "{err:?}");
    assert!(
        err.to_string().contains("the TTL must be 1s to 1 day"),
        "{err}"
    );
    // Nothing listens on port 1: every endpoint fails, and the error says so.
    let err = EtcdLease::builder("etcd://127.0.0.1:1")
        .unwrap()
        .io_timeout(Duration::from_millis(200))
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER))
        .unwrap_err();
    assert!(
        matches!(err, LeaseError::Store { store: "etcd", .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("could not grant a lease in etcd: 127.0.0.1:1: connect"),
        "{err}"
    );
}

/// A TCP proxy in front of one etcd member's gRPC port that can go silent (it forwards
/// nothing, either way, on any connection, until the client gives up on it) and can drop the
/// reply to the next claim after etcd applied it: the claim is the transaction conditioned on
/// node 5's holder key not existing (`create_revision` 0, protobuf field 5 with the value 0
/// right after the key), and once it has gone up, nothing comes back on that connection,
/// which is cut a moment later.
struct Proxy {
    port: u16,
    silent: Arc<AtomicBool>,
    drop_next_claim: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

/// The bytes that end the claim's condition: the key, then `create_revision = 0`.
const CLAIM: &[u8] = b"/holder/5\x28\x00";

impl Proxy {
    fn start(member_port: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let silent = Arc::new(AtomicBool::new(false));
        let drop_next_claim = Arc::new(AtomicBool::new(false));
        let dropped = Arc::new(AtomicBool::new(false));
        let (s, d, dd) = (silent.clone(), drop_next_claim.clone(), dropped.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (s, d, dd) = (s.clone(), d.clone(), dd.clone());
                std::thread::spawn(move || Proxy::serve(conn, member_port, s, d, dd));
            }
        });
        Proxy {
            port,
            silent,
            drop_next_claim,
            dropped,
        }
    }

    /// One connection: bytes pumped both ways until either side closes.
    fn serve(
        conn: TcpStream,
        member_port: u16,
        silent: Arc<AtomicBool>,
        drop_next_claim: Arc<AtomicBool>,
        dropped: Arc<AtomicBool>,
    ) {
        // Relaxed (every flag here): each is a switch read once per chunk of bytes.
        if silent.load(Ordering::Relaxed) {
            // Hold the connection unanswered until the client gives up on it.
            let mut sink = Vec::new();
            let _ = (&conn).read_to_end(&mut sink);
            return;
        }
        let Ok(up) = TcpStream::connect(("127.0.0.1", member_port)) else {
            return;
        };
        // Set once this connection went silent or carried the dropped claim: it forwards
        // nothing more.
        let dead = Arc::new(AtomicBool::new(false));
        let (Ok(conn2), Ok(up2)) = (conn.try_clone(), up.try_clone()) else {
            return;
        };
        let (dead2, silent2) = (dead.clone(), silent.clone());
        let down = std::thread::spawn(move || Proxy::pump(up2, conn2, &silent2, &dead2, |_| false));
        let (mut conn3, mut up3) = (conn.try_clone().ok(), up.try_clone().ok());
        let dead3 = dead.clone();
        let mut window: Vec<u8> = Vec::new();
        Proxy::pump(conn, up, &silent, &dead, |chunk| {
            window.extend_from_slice(chunk);
            let seen = window.windows(CLAIM.len()).any(|w| w == CLAIM);
            let keep = window.len().saturating_sub(CLAIM.len());
            window.drain(..keep);
            if seen && drop_next_claim.swap(false, Ordering::Relaxed) {
                dropped.store(true, Ordering::Relaxed);
                dead3.store(true, Ordering::Relaxed);
                // Forwarded (below); the reply is not. Cut once etcd surely applied it.
                let (c, u) = (conn3.take(), up3.take());
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(500));
                    for s in [c, u].into_iter().flatten() {
                        let _ = s.shutdown(std::net::Shutdown::Both);
                    }
                });
                return true;
            }
            false
        });
        let _ = down.join();
    }

    /// Copies `from` to `to` until either closes; nothing once `dead` or `silent` (which
    /// makes the connection dead). `watch` sees each chunk first: `true` forwards that chunk
    /// even though it made the connection dead.
    fn pump(
        mut from: TcpStream,
        mut to: TcpStream,
        silent: &AtomicBool,
        dead: &AtomicBool,
        mut watch: impl FnMut(&[u8]) -> bool,
    ) {
        let mut buf = [0_u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if silent.load(Ordering::Relaxed) {
                dead.store(true, Ordering::Relaxed);
            }
            let forced = watch(&buf[..n]);
            if (forced || !dead.load(Ordering::Relaxed)) && to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(std::net::Shutdown::Write);
    }
}

/// The holder's etcd lease lapses (the store silent past the TTL), and when it takes its
/// node back, etcd applies the claim but the reply is lost: its next try must find the key
/// its own (its token, on its lease) and go on minting, not take itself for someone else and
/// give the node up as lost.
#[test]
fn a_claim_whose_reply_was_lost_is_recognised_as_our_own() {
    let Some(cluster) = EtcdCluster::start("lost-reply") else {
        return;
    };
    let proxy = Proxy::start(cluster.client_port(0));
    let gen = EtcdLease::builder(&format!("etcd://127.0.0.1:{}", proxy.port))
        .unwrap()
        .namespace("lost-reply")
        .ttl(TTL)
        .margin(MARGIN)
        .io_timeout(Duration::from_millis(300))
        .nodes(5..=5)
        .build()
        .unwrap()
        .acquire(Generator::builder(Layout::TWITTER).clock(WallClock))
        .expect("acquire");
    let first = gen.next_id().expect("held");
    // Silent for twice the TTL: etcd expires the lease, and the holder key with it.
    proxy.silent.store(true, Ordering::Relaxed);
    std::thread::sleep(2 * TTL);
    assert!(gen.next_id().is_err(), "fenced while the store is silent");
    proxy.drop_next_claim.store(true, Ordering::Relaxed);
    proxy.silent.store(false, Ordering::Relaxed);
    // The take-back's wait (a TTL and the margin) and a loaded machine fit many times over.
    let end = Instant::now() + Duration::from_secs(60);
    let again = loop {
        match gen.next_id() {
            Ok(id) => break id,
            Err(FenceError::Fenced { .. }) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("the node must be taken back, not lost: {e}"),
        }
        assert!(Instant::now() < end, "never minted again");
    };
    assert!(
        proxy.dropped.load(Ordering::Relaxed),
        "a claim's reply was dropped"
    );
    assert!(again > first && !gen.is_lost());
}
