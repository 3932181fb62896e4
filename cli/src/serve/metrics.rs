//! `/metrics`: the library's own metrics (waits, errors, lease renewals; see
//! `snowmint::events`) and the service's (requests by route and status, their latency, IDs
//! served), rendered in Prometheus' text format by `metrics-exporter-prometheus`, installed
//! as the process's recorder.
//!
//! Each route's handles are registered on its first request (so that /metrics shows only
//! series that happened) and kept, so recording a request is an atomic addition and a
//! histogram sample: no registry lookup, no allocation.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use metrics::{Counter, Gauge, Histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

const REQUESTS: &str = "snowmint_http_requests_total";
const LATENCY: &str = "snowmint_http_request_duration_seconds";
const IDS: &str = "snowmint_http_ids_total";
const HEALTHY: &str = "snowmint_serve_minting";
const IN_FLIGHT: &str = "snowmint_http_requests_in_flight";
const TICK_USE: &str = "snowmint_serve_tick_use_ratio";
const SECONDS_LEFT: &str = "snowmint_layout_seconds_left";

/// Latency buckets, seconds: 50 µs (a loopback `/id`) to 2.5 s (past `--max-wait`).
const BUCKETS: &[f64] = &[
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5,
];

/// How often histogram samples are folded into their buckets (the exporter leaves it to the
/// application).
pub const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The routes requests are counted under (the discriminant indexes the handle tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Id = 0,
    Ids,
    Uuid7,
    Ulid,
    Decode,
    Livez,
    Readyz,
    Healthz,
    Metrics,
    /// The status page, `/`.
    Status,
    /// Anything else (answered 404 or 405).
    Other,
}

impl Route {
    const ALL: [Route; 11] = [
        Route::Id,
        Route::Ids,
        Route::Uuid7,
        Route::Ulid,
        Route::Decode,
        Route::Livez,
        Route::Readyz,
        Route::Healthz,
        Route::Metrics,
        Route::Status,
        Route::Other,
    ];

    /// The route of a request path.
    pub fn of(path: &str) -> Route {
        match path {
            "/id" => Route::Id,
            "/ids" => Route::Ids,
            "/uuid7" => Route::Uuid7,
            "/ulid" => Route::Ulid,
            "/livez" => Route::Livez,
            "/readyz" => Route::Readyz,
            "/healthz" => Route::Healthz,
            "/metrics" => Route::Metrics,
            "/" => Route::Status,
            p if p.starts_with("/decode/") => Route::Decode,
            _ => Route::Other,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Route::Id => "/id",
            Route::Ids => "/ids",
            Route::Uuid7 => "/uuid7",
            Route::Ulid => "/ulid",
            Route::Decode => "/decode",
            Route::Livez => "/livez",
            Route::Readyz => "/readyz",
            Route::Healthz => "/healthz",
            Route::Metrics => "/metrics",
            Route::Status => "/",
            Route::Other => "other",
        }
    }
}

/// The statuses the service answers with, whose handles are kept; any other is counted
/// through the registry.
const STATUSES: [u16; 6] = [200, 400, 404, 405, 500, 503];

/// The service's metric handles and the exporter.
pub struct HttpMetrics {
    exporter: PrometheusHandle,
    requests: [[OnceLock<Counter>; STATUSES.len()]; Route::ALL.len()],
    latency: [OnceLock<Histogram>; Route::ALL.len()],
    /// 64-bit IDs handed out by `/id` and `/ids` (`kind="snowflake"`).
    pub ids: Counter,
    /// UUIDv7s handed out by `/uuid7`.
    pub uuid7s: Counter,
    /// ULIDs handed out by `/ulid`.
    pub ulids: Counter,
    minting: Gauge,
    in_flight: Gauge,
    tick_use: Gauge,
}

impl HttpMetrics {
    /// Installs the Prometheus recorder for the whole process and registers the handles.
    pub fn install() -> Result<HttpMetrics, String> {
        let exporter = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(LATENCY.to_owned()), BUCKETS)
            .and_then(PrometheusBuilder::install_recorder)
            .map_err(|e| format!("installing the Prometheus recorder: {e}"))?;
        snowmint::integrations::describe_metrics();
        metrics::describe_counter!(
            REQUESTS,
            metrics::Unit::Count,
            "HTTP requests answered, by route and status"
        );
        metrics::describe_histogram!(
            LATENCY,
            metrics::Unit::Seconds,
            "Time from a request's arrival to its response, by route"
        );
        metrics::describe_counter!(
            IDS,
            metrics::Unit::Count,
            "IDs handed out, by kind: snowflake (/id, /ids), uuid7 (/uuid7), ulid (/ulid)"
        );
        metrics::describe_gauge!(
            IN_FLIGHT,
            metrics::Unit::Count,
            "Requests received and not yet answered (including this scrape)"
        );
        metrics::describe_gauge!(
            TICK_USE,
            "The fullest tick of the last second: the highest sequence a reservation reached over the layout's IDs per tick (0 to 1)"
        );
        metrics::describe_gauge!(
            HEALTHY,
            "1 while the service mints, 0 while it claims its node, or its lease is fenced or lost"
        );
        Ok(HttpMetrics {
            exporter,
            requests: Default::default(),
            latency: Default::default(),
            ids: metrics::counter!(IDS, "kind" => "snowflake"),
            uuid7s: metrics::counter!(IDS, "kind" => "uuid7"),
            ulids: metrics::counter!(IDS, "kind" => "ulid"),
            minting: metrics::gauge!(HEALTHY),
            in_flight: metrics::gauge!(IN_FLIGHT),
            tick_use: metrics::gauge!(TICK_USE),
        })
    }

    fn record(&self, route: Route, status: StatusCode, took: Duration) {
        let r = route as usize;
        match STATUSES.iter().position(|&s| s == status.as_u16()) {
            Some(s) => self.requests[r][s]
                .get_or_init(|| {
                    metrics::counter!(REQUESTS, "route" => route.label(), "status" => status.as_u16().to_string())
                })
                .increment(1),
            None => metrics::counter!(
                REQUESTS,
                "route" => route.label(),
                "status" => status.as_u16().to_string()
            )
            .increment(1),
        }
        self.latency[r]
            .get_or_init(|| metrics::histogram!(LATENCY, "route" => route.label()))
            .record(took);
    }

    /// The Prometheus text, with the health gauge brought up to date.
    pub fn render(&self, minting: bool) -> String {
        self.minting.set(if minting { 1.0 } else { 0.0 });
        self.exporter.render()
    }

    /// The gauges sampled once a second: the fullest tick's use, and the time the layout
    /// has left (the library sets it when the generator is built; this keeps it current).
    pub fn sampled(&self, layout: &snowmint::Layout, fullest: f64) {
        self.tick_use.set(fullest);
        let left = crate::lifetime::seconds_left(layout, std::time::SystemTime::now());
        metrics::gauge!(SECONDS_LEFT, "layout" => crate::lifetime::label(layout)).set(left);
    }

    /// The sum of every series of the counter `name` in the Prometheus text (for the status
    /// page: the facade gives no way to read a counter back).
    pub fn sum(&self, name: &str) -> f64 {
        sum_of(&self.exporter.render(), name)
    }

    /// Requests answered with a status of the class `class` (`b'4'`: 4xx), over every route.
    pub fn answered(&self, class: u8) -> f64 {
        self.exporter
            .render()
            .lines()
            .filter(|line| line.starts_with(REQUESTS) && line[REQUESTS.len()..].starts_with('{'))
            .filter(|line| {
                line.split("status=\"")
                    .nth(1)
                    .is_some_and(|rest| rest.as_bytes().first() == Some(&class))
            })
            .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
            .fold(0.0, |total, x| total + x)
    }

    /// Folds histogram samples into their buckets.
    pub fn upkeep(&self) {
        self.exporter.run_upkeep();
    }
}

/// The sum of the samples of `name` (with any labels) in Prometheus text.
fn sum_of(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        // From +0: an empty `sum()` of floats is -0, shown as "-0".
        .fold(0.0, |total, x| total + x)
}

/// One request being counted and timed: in the in-flight gauge until dropped (also when the
/// client goes away and the request's future is dropped), recorded by [`finish`](Self::finish).
pub struct Tracking<'a> {
    metrics: &'a HttpMetrics,
    route: Route,
    start: Instant,
    in_flight: InFlight<'a>,
}

impl HttpMetrics {
    /// A request for `path` arrived.
    pub fn start(&self, path: &str) -> Tracking<'_> {
        Tracking {
            metrics: self,
            route: Route::of(path),
            start: Instant::now(),
            in_flight: InFlight::enter(&self.in_flight),
        }
    }
}

impl Tracking<'_> {
    /// The request was answered with `status`.
    pub fn finish(self, status: StatusCode) {
        let Tracking {
            metrics,
            route,
            start,
            in_flight,
        } = self;
        drop(in_flight);
        metrics.record(route, status, start.elapsed());
    }
}

/// One request in the in-flight gauge, taken out when dropped.
struct InFlight<'a>(&'a Gauge);

impl<'a> InFlight<'a> {
    fn enter(gauge: &'a Gauge) -> InFlight<'a> {
        gauge.increment(1.0);
        InFlight(gauge)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handle_tables_follow_the_route_order() {
        for (i, route) in Route::ALL.iter().enumerate() {
            assert_eq!(*route as usize, i);
        }
    }

    #[test]
    fn counters_are_summed_over_their_labels_only() {
        let text = "# HELP snowmint_waits_total x\n# TYPE snowmint_waits_total counter\n\
            snowmint_waits_total{reason=\"exhausted\"} 7\n\
            snowmint_waits_total{reason=\"fenced\"} 2\n\
            snowmint_waits_total_other 100\n\
            snowmint_errors_total 1\n";
        assert_eq!(sum_of(text, "snowmint_waits_total"), 9.0);
        assert_eq!(sum_of(text, "snowmint_errors_total"), 1.0);
        assert!(sum_of(text, "snowmint_missing").to_string() == "0");
    }

    #[test]
    fn routes_of_paths() {
        assert_eq!(Route::of("/id"), Route::Id);
        assert_eq!(Route::of("/ids"), Route::Ids);
        assert_eq!(Route::of("/uuid7"), Route::Uuid7);
        assert_eq!(Route::of("/ulid"), Route::Ulid);
        assert_eq!(Route::of("/decode/123"), Route::Decode);
        assert_eq!(Route::of("/decode"), Route::Other);
        assert_eq!(Route::of("/idz"), Route::Other);
        assert_eq!(Route::of("/"), Route::Status);
        assert_eq!(Route::of("/readyz"), Route::Readyz);
        assert_eq!(Route::of("/livez"), Route::Livez);
        assert_eq!(Route::of("/index.html"), Route::Other);
    }
}
