//! What a test of the rare paths observes: a recording `metrics` recorder and a `tracing`
//! subscriber that keeps every event, with lookups by name. Shared by `tests/events.rs` (the
//! core's rare paths under a scripted clock) and `lease/tests/events.rs` (the lease's, against
//! a real redis-server), each of which uses a part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id as SpanId, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// One trace event: its level, message and other fields (as their `Debug` text).
#[derive(Clone, Debug)]
pub struct Ev {
    pub level: Level,
    pub message: String,
    pub fields: BTreeMap<String, String>,
}

impl Ev {
    pub fn field(&self, name: &str) -> &str {
        self.fields.get(name).map_or("<none>", String::as_str)
    }
}

/// Every event.
#[derive(Clone, Default)]
pub struct Capture(Arc<Mutex<Vec<Ev>>>);

#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
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
        assert_eq!(event.metadata().target(), "snowmint");
        let mut f = Fields::default();
        event.record(&mut f);
        let message = f.0.remove("message").unwrap_or_default();
        self.0.lock().unwrap().push(Ev {
            level: *event.metadata().level(),
            message,
            fields: f.0,
        });
    }
    fn enter(&self, _: &SpanId) {}
    fn exit(&self, _: &SpanId) {}
}

/// A metric: name, labels as `key=value`, value.
pub type Metric = (String, Vec<String>, DebugValue);

/// Runs `f` under a fresh recorder and subscriber: the metrics (name, labels, value) and
/// the events.
pub fn observe(f: impl FnOnce()) -> (Vec<Metric>, Vec<Ev>) {
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

pub fn counter(m: &[Metric], name: &str, label: &str) -> u64 {
    m.iter()
        .filter(|(n, l, _)| n == name && (label.is_empty() || l.iter().any(|x| x == label)))
        .map(|(_, _, v)| match v {
            DebugValue::Counter(c) => *c,
            other => panic!("{name} is not a counter: {other:?}"),
        })
        .sum()
}

pub fn histogram(m: &[Metric], name: &str) -> Vec<f64> {
    m.iter()
        .filter(|(n, _, _)| n == name)
        .flat_map(|(_, _, v)| match v {
            DebugValue::Histogram(h) => h.iter().map(|x| x.0).collect::<Vec<_>>(),
            other => panic!("{name} is not a histogram: {other:?}"),
        })
        .collect()
}

pub fn gauge(m: &[Metric], name: &str) -> Option<f64> {
    m.iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, _, v)| match v {
            DebugValue::Gauge(g) => g.0,
            other => panic!("{name} is not a gauge: {other:?}"),
        })
}

/// Each event's level and message, for comparing a whole sequence at once.
pub fn outline(events: &[Ev]) -> Vec<(Level, &str)> {
    events
        .iter()
        .map(|e| (e.level, e.message.as_str()))
        .collect()
}
