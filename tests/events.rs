//! Metrics and trace events of the rare paths (issue #12), with a scripted clock: the exact
//! counts a recording `metrics` recorder sees and the events a `tracing` subscriber sees.
#![cfg(all(feature = "metrics", feature = "tracing"))]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use snowmint::{
    Fenced, Generator, Keeper, Layout, ManualClock, MintError, Renewal, Rollback, ShardedGenerator,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id as SpanId, Record};
use tracing::{Event, Level, Metadata, Subscriber};

const T0: u64 = 1_700_000_000_000;

/// Every event's level and message.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<(Level, String)>>>);

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> SpanId {
        SpanId::from_u64(1)
    }
    fn record(&self, _: &SpanId, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &SpanId, _: &SpanId) {}
    fn event(&self, event: &Event<'_>) {
        let mut m = Message(String::new());
        event.record(&mut m);
        self.0
            .lock()
            .unwrap()
            .push((*event.metadata().level(), m.0));
    }
    fn enter(&self, _: &SpanId) {}
    fn exit(&self, _: &SpanId) {}
}

/// A metric: name, labels as `key=value`, value.
type Metric = (String, Vec<String>, DebugValue);

/// Runs `f` under a fresh recorder and subscriber: the metrics (name, labels, value) and
/// the events.
fn observe(f: impl FnOnce()) -> (Vec<Metric>, Vec<(Level, String)>) {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), || {
        metrics::with_local_recorder(&recorder, f)
    });
    let mut metrics: Vec<_> = snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| {
            let key = key.key();
            let labels = key
                .labels()
                .map(|l| format!("{}={}", l.key(), l.value()))
                .collect();
            (key.name().to_string(), labels, value)
        })
        .collect();
    metrics.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let events = capture.0.lock().unwrap().clone();
    (metrics, events)
}

fn counter(m: &[Metric], name: &str, label: &str) -> u64 {
    m.iter()
        .filter(|(n, l, _)| n == name && (label.is_empty() || l.iter().any(|x| x == label)))
        .map(|(_, _, v)| match v {
            DebugValue::Counter(c) => *c,
            other => panic!("{name} is not a counter: {other:?}"),
        })
        .sum()
}

fn histogram(m: &[Metric], name: &str) -> Vec<f64> {
    m.iter()
        .filter(|(n, _, _)| n == name)
        .flat_map(|(_, _, v)| match v {
            DebugValue::Histogram(h) => h.iter().map(|x| x.0).collect::<Vec<_>>(),
            other => panic!("{name} is not a histogram: {other:?}"),
        })
        .collect()
}

/// Nothing on the hot path: a thousand IDs in free ticks record nothing.
#[test]
fn minting_records_nothing() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = Generator::builder(Layout::TWITTER)
        .clock(clock.clone())
        .build()
        .unwrap();
    let (metrics, events) = observe(|| {
        for _ in 0..1_000 {
            gen.next_id().unwrap();
        }
    });
    assert!(metrics.is_empty(), "{metrics:?}");
    assert!(events.is_empty(), "{events:?}");
}

/// A used-up tick: `try_` reports one `exhausted` error; a blocking call records one wait,
/// which ends once the (scripted) clock moves on.
#[test]
fn exhausted_tick() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = Generator::builder(Layout::SONYFLAKE)
        .clock(clock.clone())
        .build()
        .unwrap();
    let (metrics, events) = observe(|| {
        let _used = gen.next_ids(256).unwrap();
        assert!(matches!(
            gen.try_next_id(),
            Err(MintError::Exhausted { .. })
        ));
        let mover = std::thread::spawn({
            let clock = clock.clone();
            move || {
                std::thread::sleep(Duration::from_millis(20));
                clock.advance(Duration::from_millis(10));
            }
        });
        gen.next_id().unwrap();
        mover.join().unwrap();
    });
    assert_eq!(
        counter(&metrics, "snowmint_errors_total", "kind=exhausted"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_errors_total", ""), 1);
    assert_eq!(
        counter(&metrics, "snowmint_waits_total", "reason=exhausted"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 1);
    let waited = histogram(&metrics, "snowmint_wait_seconds");
    assert_eq!(waited.len(), 1);
    assert!(
        waited[0] >= 0.015,
        "the wait lasted until the clock moved: {waited:?}"
    );
    assert!(histogram(&metrics, "snowmint_clock_behind_seconds").is_empty());
    let levels: Vec<Level> = events.iter().map(|e| e.0).collect();
    assert_eq!(levels, [Level::DEBUG, Level::DEBUG], "{events:?}");
    assert!(events[1].1.contains("next tick"), "{events:?}");
}

/// A clock stepped back 5 s, past the 1 s `max_wait`: the call fails at once (no wait), one
/// `clock_behind` error and the amount recorded, an `error` event.
#[test]
fn clock_stepped_far_back() {
    let clock = ManualClock::at_unix_millis(T0);
    let gen = Generator::builder(Layout::SONYFLAKE)
        .clock(clock.clone())
        .on_rollback(Rollback::Wait)
        .build()
        .unwrap();
    gen.next_id().unwrap();
    let (metrics, events) = observe(|| {
        clock.rewind(Duration::from_secs(5));
        assert!(matches!(gen.next_id(), Err(MintError::ClockBehind { .. })));
    });
    assert_eq!(
        counter(&metrics, "snowmint_errors_total", "kind=clock_behind"),
        1
    );
    assert_eq!(counter(&metrics, "snowmint_waits_total", ""), 0);
    let behind = histogram(&metrics, "snowmint_clock_behind_seconds");
    assert_eq!(behind.len(), 1);
    assert!((4.99..=5.01).contains(&behind[0]), "{behind:?}");
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].0, Level::ERROR);
}

/// A thread without a shard of its own mints from the overflow shard: counted per such ID
/// (the overflow path is the slow one already).
#[test]
fn overflow_shard_use() {
    let gen = ShardedGenerator::builder(Layout::TWITTER)
        .shard_bits(1)
        .build()
        .unwrap();
    // Every exclusive shard leased: this thread gets none.
    let leases: Vec<_> = std::iter::from_fn(|| gen.lease().ok()).collect();
    assert!(!leases.is_empty());
    let (metrics, _) = observe(|| {
        for _ in 0..3 {
            gen.next_id().unwrap();
        }
    });
    assert_eq!(counter(&metrics, "snowmint_overflow_ids_total", ""), 3);
}

/// A keeper that holds, fails once, then finds its node taken.
struct Scripted(u32);

impl Keeper for Scripted {
    fn renew(&mut self, now: u64) -> Renewal {
        self.0 += 1;
        match self.0 {
            1 | 2 => Renewal::Held {
                limit_unix_millis: now / 1_000_000 + 1_000,
                valid_until_nanos: u64::MAX,
                floor_unix_millis: None,
            },
            3 => Renewal::Failed(Arc::new(std::io::Error::other("unreachable"))),
            _ => Renewal::Lost(Arc::new(std::io::Error::other("taken over"))),
        }
    }
    fn release(&mut self, _: Option<u64>) {}
    fn period(&self, _: bool) -> Duration {
        Duration::from_secs(3_600)
    }
}

/// Renewals by outcome, and a lost fence as one `error` event.
#[test]
fn fence_renewals_and_loss() {
    let (metrics, events) = observe(|| {
        let fenced =
            Fenced::start_manual(Generator::new(Layout::TWITTER, 5).unwrap(), 5, Scripted(0))
                .unwrap();
        fenced.renew(); // held
        fenced.renew(); // failed
        fenced.renew(); // lost
        fenced.renew(); // not asked: lost for good
        assert!(fenced.is_lost());
    });
    let renewals = |o| counter(&metrics, "snowmint_fence_renewals_total", o);
    assert_eq!(renewals("outcome=held"), 2);
    assert_eq!(renewals("outcome=failed"), 1);
    assert_eq!(renewals("outcome=lost"), 1);
    let loud: Vec<_> = events.iter().filter(|e| e.0 <= Level::WARN).collect();
    assert_eq!(loud.len(), 2, "{events:?}");
    assert_eq!(loud[0].0, Level::WARN);
    assert_eq!(loud[1].0, Level::ERROR);
    assert!(loud[1].1.contains("fence lost"), "{events:?}");
}

#[cfg(feature = "redis")]
#[path = "common/redis.rs"]
mod server;

/// Two leases against a real Redis: two acquisitions, the gauge at the second's node, two
/// `info` events.
#[cfg(feature = "redis")]
#[test]
fn redis_lease_acquisitions() {
    let Some(server) = server::RedisServer::start("redis_lease_acquisitions") else {
        return;
    };
    let lease = snowmint::redis::RedisLease::new(&server.url())
        .unwrap()
        .namespace("events")
        .ttl(Duration::from_secs(2));
    let mut second = 0;
    let (metrics, events) = observe(|| {
        let a = lease.acquire(Generator::builder(Layout::TWITTER)).unwrap();
        let b = lease.acquire(Generator::builder(Layout::TWITTER)).unwrap();
        assert_ne!(a.node(), b.node());
        second = b.node();
    });
    let acquired = counter(
        &metrics,
        "snowmint_lease_acquisitions_total",
        "namespace=events",
    );
    assert_eq!(acquired, 2);
    let gauge = metrics
        .iter()
        .find(|(n, _, _)| n == "snowmint_lease_node")
        .map(|(_, _, v)| v);
    assert!(
        matches!(gauge, Some(DebugValue::Gauge(g)) if g.0 == second as f64),
        "{gauge:?}, second node {second}"
    );
    let infos = events
        .iter()
        .filter(|e| e.0 == Level::INFO && e.1.contains("leased a node"))
        .count();
    assert_eq!(infos, 2, "{events:?}");
}
