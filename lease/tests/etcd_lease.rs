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

/// A proxy in front of one etcd member's JSON gateway that can go silent (it reads requests
/// and answers none) and can drop the reply to the next claim (a transaction conditioned on
/// a key not existing: `"create_revision":"0"`) after etcd applied it.
struct Proxy {
    port: u16,
    silent: Arc<AtomicBool>,
    drop_next_claim: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

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
                std::thread::spawn(move || Proxy::serve(conn, member_port, &s, &d, &dd));
            }
        });
        Proxy {
            port,
            silent,
            drop_next_claim,
            dropped,
        }
    }

    /// One exchange: the request read whole, forwarded, the reply read to its end.
    fn serve(
        mut conn: TcpStream,
        member_port: u16,
        silent: &AtomicBool,
        drop_next_claim: &AtomicBool,
        dropped: &AtomicBool,
    ) {
        let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
        let mut req = Vec::new();
        let mut buf = [0_u8; 4096];
        let whole = loop {
            let Ok(n) = conn.read(&mut buf) else { return };
            if n == 0 {
                return;
            }
            req.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&req).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let len = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length").then_some(value)
                    })
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if body.len() >= len {
                    break text;
                }
            }
        };
        // Relaxed (all three flags): each is a switch read once per request.
        if silent.load(Ordering::Relaxed) {
            // Hold the connection unanswered until the client gives up on it.
            let _ = conn.read(&mut buf);
            return;
        }
        let Ok(mut up) = TcpStream::connect(("127.0.0.1", member_port)) else {
            return;
        };
        // One exchange per connection, both ways: the member closes after its reply.
        let whole = whole.replacen("\r\n", "\r\nConnection: close\r\n", 1);
        let mut reply = Vec::new();
        if up.write_all(whole.as_bytes()).is_err() || up.read_to_end(&mut reply).is_err() {
            return;
        }
        if whole.contains(r#""create_revision":"0""#)
            && drop_next_claim.swap(false, Ordering::Relaxed)
        {
            dropped.store(true, Ordering::Relaxed);
            return;
        }
        let _ = conn.write_all(&reply);
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
