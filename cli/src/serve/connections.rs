//! The connections the service can afford: each HTTP/1.1 connection served by hyper on a
//! task of its own, with a header-read timeout (`--header-timeout`), an idle keep-alive
//! timeout (`--idle-timeout`) and a cap on open connections (`--max-connections`).
//!
//! At the cap, a new connection takes the place of the oldest one with no request in flight
//! (an idle or half-open socket: the slowloris case), so that a client holding sockets open
//! never locks the service out. When every open connection has a request in flight, up to
//! [`PROBE_RESERVE`] more are taken that answer only `/livez`, `/readyz`, `/healthz` and
//! `/metrics` (a 503 for the rest), so that probes see the service while it is full; past
//! those, a connection is closed at once. The default cap leaves [`HEADROOM`] descriptors of
//! the process's open-file limit for those, the lease's store and the runtime, so `accept`
//! does not run out of descriptors.
//!
//! With TLS (`--tls-cert`), a connection's handshake runs on its task after it took its place
//! in the table ([`crate::tls::accept`], at most `--tls-handshake-timeout`): while it
//! lasts the connection has no request in flight, so at the cap a stalled handshake is the
//! first to make room; the header timeout counts from its end.
//!
//! Every connection closed or refused for these reasons is counted
//! (`snowmint_http_connections_closed_total{reason}`) and summed up on standard error at most
//! every few seconds ([`Connections::report`]).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, Response, StatusCode};
use axum::response::IntoResponse;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use metrics::{Counter, Gauge};
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify};

use super::problem::Problem;
use crate::tls::{self, Tls};

/// Descriptors the default cap leaves free of the open-file limit: the probe reserve, the
/// lease's store, the runtime's own, and sockets accepted while an evicted one closes.
pub const HEADROOM: u64 = 64;

/// Connections taken past the cap, while every open one has a request in flight, that
/// answer only the probes.
pub const PROBE_RESERVE: usize = 16;

/// The cap when the open-file limit is high or unknown.
pub const DEFAULT_MAX: u64 = 1_024;

/// The routes a probe connection answers.
const PROBES: [&str; 4] = ["/livez", "/readyz", "/healthz", "/metrics"];

/// After `accept` fails (out of descriptors), how long before it is tried again: closing
/// connections frees descriptors meanwhile.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);

const CLOSED: &str = "snowmint_http_connections_closed_total";
const OPEN: &str = "snowmint_http_connections_open";

/// The limits, from the flags.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `--max-connections`.
    pub max: usize,
    /// `--header-timeout`: a new connection's first request head must arrive within it.
    pub header: Duration,
    /// `--idle-timeout`: how long a keep-alive connection may take from an answer to the
    /// next request's whole head (at least `header`).
    pub idle: Duration,
}

/// The default `--max-connections`: [`DEFAULT_MAX`], or the open-file limit less
/// [`HEADROOM`] when that is lower (at least 16).
pub fn default_max() -> usize {
    let cap = match open_file_limit() {
        Some(limit) => DEFAULT_MAX.min(limit.saturating_sub(HEADROOM)),
        None => DEFAULT_MAX,
    };
    usize::try_from(cap.max(16)).unwrap_or(usize::MAX)
}

/// The soft open-file limit of this process (Linux: `/proc/self/limits`), if known.
fn open_file_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Why a connection was closed or refused, as the metric's `reason` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    /// It sent no complete request head within `--header-timeout`.
    Header = 0,
    /// It waited for its next request longer than `--idle-timeout`.
    Idle,
    /// It was the oldest idle one when the cap was reached, and made room.
    Evicted,
    /// The cap and the probe reserve were full, every connection busy.
    Full,
    /// `accept` failed: the process is out of descriptors.
    Descriptors,
}

impl Reason {
    const ALL: [Reason; 5] = [
        Reason::Header,
        Reason::Idle,
        Reason::Evicted,
        Reason::Full,
        Reason::Descriptors,
    ];

    fn label(self) -> &'static str {
        match self {
            Reason::Header => "header_timeout",
            Reason::Idle => "idle_timeout",
            Reason::Evicted => "evicted_at_cap",
            Reason::Full => "refused_at_cap",
            Reason::Descriptors => "accept_failed",
        }
    }
}

/// One open connection, as the table sees it.
struct Slot {
    /// Requests in flight on it.
    busy: AtomicUsize,
    /// Told when it is evicted.
    close: Notify,
}

/// The open connections, oldest first.
#[derive(Default)]
struct Table {
    next: u64,
    open: BTreeMap<u64, Arc<Slot>>,
    probes: usize,
}

/// How a new connection is taken.
enum Admission {
    /// Under the cap (perhaps after evicting an idle one): served in full.
    Full(u64, Arc<Slot>),
    /// Over the cap, in the probe reserve.
    Probe,
    /// Closed at once.
    Refused,
}

/// The connection table, its limits and its counters.
pub struct Connections {
    limits: Limits,
    table: Mutex<Table>,
    closed: [Counter; Reason::ALL.len()],
    /// The same counts, for [`report`](Self::report)'s deltas.
    counts: [AtomicU64; Reason::ALL.len()],
    reported: [AtomicU64; Reason::ALL.len()],
    open: Gauge,
}

impl Connections {
    /// The table for `limits`, its metrics registered (the recorder must be installed).
    pub fn new(limits: Limits) -> Connections {
        metrics::describe_counter!(
            CLOSED,
            metrics::Unit::Count,
            "HTTP connections closed or refused by the service, by reason: header_timeout, \
             idle_timeout, evicted_at_cap (the oldest idle one, to make room), refused_at_cap, \
             accept_failed (out of descriptors)"
        );
        metrics::describe_gauge!(OPEN, metrics::Unit::Count, "HTTP connections open");
        Connections {
            limits,
            table: Mutex::new(Table::default()),
            closed: Reason::ALL.map(|r| metrics::counter!(CLOSED, "reason" => r.label())),
            counts: Default::default(),
            reported: Default::default(),
            open: metrics::gauge!(OPEN),
        }
    }

    fn count(&self, reason: Reason) {
        self.closed[reason as usize].increment(1);
        // Relaxed: a tally read only for the log's summary.
        self.counts[reason as usize].fetch_add(1, Ordering::Relaxed);
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn admit(&self) -> Admission {
        let mut table = self.table();
        if table.open.len() >= self.limits.max {
            // Relaxed: a request that starts meanwhile is dropped with its connection, as when
            // the client itself goes away; the evicted one is chosen among idle ones.
            let idle = table
                .open
                .iter()
                .find(|(_, slot)| slot.busy.load(Ordering::Relaxed) == 0)
                .map(|(&key, _)| key);
            match idle {
                Some(key) => {
                    if let Some(slot) = table.open.remove(&key) {
                        slot.close.notify_one();
                    }
                    self.count(Reason::Evicted);
                }
                None if table.probes < PROBE_RESERVE => {
                    table.probes += 1;
                    return Admission::Probe;
                }
                None => {
                    self.count(Reason::Full);
                    return Admission::Refused;
                }
            }
        }
        let key = table.next;
        table.next += 1;
        let slot = Arc::new(Slot {
            busy: AtomicUsize::new(0),
            close: Notify::new(),
        });
        table.open.insert(key, Arc::clone(&slot));
        self.open.set(table.open.len() as f64);
        Admission::Full(key, slot)
    }

    fn release(&self, key: Option<u64>) {
        let mut table = self.table();
        match key {
            Some(key) => {
                table.open.remove(&key);
            }
            None => table.probes -= 1,
        }
        self.open.set(table.open.len() as f64);
    }

    /// One line on what was closed or refused since the last call, or `None` if nothing.
    pub fn report(&self) -> Option<String> {
        let mut parts = Vec::new();
        for reason in Reason::ALL {
            let i = reason as usize;
            // Relaxed: see `count`.
            let now = self.counts[i].load(Ordering::Relaxed);
            let before = self.reported[i].swap(now, Ordering::Relaxed);
            if now > before {
                parts.push(format!("{} {}", now - before, self.words(reason)));
            }
        }
        (!parts.is_empty()).then(|| format!("connections: {}", parts.join(", ")))
    }

    fn words(&self, reason: Reason) -> String {
        let l = &self.limits;
        match reason {
            Reason::Header => format!(
                "closed sending no request head within --header-timeout {}",
                humantime::format_duration(l.header)
            ),
            Reason::Idle => format!(
                "closed idle past --idle-timeout {}",
                humantime::format_duration(l.idle)
            ),
            Reason::Evicted => format!(
                "idle ones closed to make room (--max-connections {} reached)",
                l.max
            ),
            Reason::Full => format!(
                "refused: --max-connections {} reached with a request in flight on each, and \
                 the {PROBE_RESERVE} kept for probes taken",
                l.max
            ),
            Reason::Descriptors => {
                "refused: accept failed, out of descriptors (raise `ulimit -n` or lower \
                 --max-connections)"
                    .to_owned()
            }
        }
    }
}

/// Serves `router` on `listener` until `shutdown` resolves; then accepts no more, asks each
/// connection to finish its request in flight and close, and resolves once all have.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    connections: Arc<Connections>,
    tls: Option<Arc<Tls>>,
    shutdown: impl Future<Output = ()>,
) {
    let (stopping, stop) = watch::channel(false);
    let live = Arc::new(AtomicUsize::new(0));
    let all_closed = Arc::new(Notify::new());
    tokio::pin!(shutdown);
    loop {
        let tcp = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                Err(_) => {
                    // Out of descriptors (or a connection reset before it was taken).
                    connections.count(Reason::Descriptors);
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        let (key, slot) = match connections.admit() {
            Admission::Full(key, slot) => (Some(key), Some(slot)),
            Admission::Probe => (None, None),
            Admission::Refused => continue,
        };
        // Responses go out at once, not held back by Nagle's algorithm for a following write.
        let _ = tcp.set_nodelay(true);
        // Relaxed: the count only decides when the last task has gone; `Notify` orders it.
        live.fetch_add(1, Ordering::Relaxed);
        let task = Conn {
            connections: Arc::clone(&connections),
            router: router.clone(),
            key,
            slot,
            stop: stop.clone(),
            tls: tls.clone(),
        };
        let (live, all_closed) = (Arc::clone(&live), Arc::clone(&all_closed));
        tokio::spawn(async move {
            task.run(tcp).await;
            if live.fetch_sub(1, Ordering::AcqRel) == 1 {
                all_closed.notify_one();
            }
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    // Acquire: pairs with the tasks' AcqRel decrement, so a zero seen here is final.
    while live.load(Ordering::Acquire) > 0 {
        // `notify_one` keeps a permit when nobody waits yet, so no wake-up is lost.
        let _ = tokio::time::timeout(Duration::from_millis(100), all_closed.notified()).await;
    }
}

/// One connection's task.
struct Conn {
    connections: Arc<Connections>,
    router: Router,
    /// Its key in the table (`None`: a probe connection).
    key: Option<u64>,
    slot: Option<Arc<Slot>>,
    stop: watch::Receiver<bool>,
    /// TLS, if the listener speaks HTTPS.
    tls: Option<Arc<Tls>>,
}

impl Conn {
    async fn run(mut self, tcp: tokio::net::TcpStream) {
        let probe = self.slot.is_none();
        let slot = self.slot.clone().unwrap_or_else(|| {
            Arc::new(Slot {
                busy: AtomicUsize::new(0),
                close: Notify::new(),
            })
        });
        match self.tls.clone() {
            None => self.serve(tcp, &slot).await,
            Some(tls) => {
                // The handshake holds the connection's slot (idle: the first to go when the
                // cap is reached) for at most --tls-handshake-timeout; a stop abandons it.
                let stream = tokio::select! {
                    handshake = tls::accept(&tls, tcp) => handshake.ok(),
                    () = slot.close.notified(), if !probe => None,
                    _ = self.stop.changed() => None,
                };
                if let Some(stream) = stream {
                    self.serve(stream, &slot).await;
                }
            }
        }
        self.connections.release(self.key.take());
    }

    /// Serves HTTP/1.1 on `io` (the TCP connection, or the TLS stream over it) until it
    /// closes, times out, is evicted, or the service stops.
    async fn serve<I>(&mut self, io: I, slot: &Arc<Slot>)
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let limits = self.connections.limits;
        let probe = self.slot.is_none();
        // Milliseconds since `born` of the last request's end (`u64::MAX`: none yet).
        let born = Instant::now();
        let last_end = Arc::new(AtomicU64::new(u64::MAX));
        let inner = TowerToHyperService::new(self.router.clone());
        let service = {
            let (slot, last_end) = (Arc::clone(slot), Arc::clone(&last_end));
            hyper::service::service_fn(move |request: Request<Incoming>| {
                // Relaxed: the count is read only to pick an idle connection to close.
                slot.busy.fetch_add(1, Ordering::Relaxed);
                let refused = probe && !PROBES.contains(&request.uri().path());
                let answer = (!refused).then(|| hyper::service::Service::call(&inner, request));
                let (slot, last_end) = (Arc::clone(&slot), Arc::clone(&last_end));
                async move {
                    let response = match answer {
                        Some(answer) => answer.await.unwrap_or_else(|e: Infallible| match e {}),
                        None => full_answer(),
                    };
                    let at = u64::try_from(born.elapsed().as_millis()).unwrap_or(u64::MAX - 1);
                    // Relaxed, both: read only by this connection's own watchdog.
                    last_end.store(at, Ordering::Relaxed);
                    slot.busy.fetch_sub(1, Ordering::Relaxed);
                    Ok::<_, Infallible>(response)
                }
            })
        };
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            // hyper's timer runs from the end of one answer to the next head: the idle
            // timeout once a request was answered; the first head's deadline is the
            // watchdog's below.
            .header_read_timeout(limits.header.max(limits.idle))
            .keep_alive(!probe);
        let conn = builder.serve_connection(TokioIo::new(io), service);
        tokio::pin!(conn);
        let mut stopping = false;
        loop {
            // The watchdog: a connection with nothing in flight has until this to send a
            // request head (its first within --header-timeout, the next within
            // --idle-timeout of the last answer).
            // Relaxed: this task's own bookkeeping.
            let seen = last_end.load(Ordering::Relaxed);
            let (since, limit, reason) = match seen {
                u64::MAX => (0, limits.header, Reason::Header),
                at => (at, limits.idle, Reason::Idle),
            };
            let deadline = born + Duration::from_millis(since) + limit;
            tokio::select! {
                done = conn.as_mut() => {
                    if done.is_err_and(|e| e.is_timeout()) {
                        self.connections.count(reason);
                    }
                    break;
                }
                () = slot.close.notified(), if !probe => break,
                changed = self.stop.changed(), if !stopping => {
                    stopping = true;
                    if changed.is_ok() {
                        conn.as_mut().graceful_shutdown();
                    }
                }
                () = tokio::time::sleep_until(deadline.into()) => {
                    // Relaxed: see above.
                    let idle = slot.busy.load(Ordering::Relaxed) == 0
                        && last_end.load(Ordering::Relaxed) == seen;
                    if idle {
                        self.connections.count(reason);
                        break;
                    }
                    if slot.busy.load(Ordering::Relaxed) > 0 {
                        // A request in flight: look again after another period.
                        last_end.store(
                            u64::try_from(born.elapsed().as_millis()).unwrap_or(u64::MAX - 1),
                            Ordering::Relaxed,
                        );
                    }
                }
            }
        }
    }
}

/// The answer of a probe connection to anything but a probe.
fn full_answer() -> Response<Body> {
    Problem {
        status: StatusCode::SERVICE_UNAVAILABLE,
        code: "connections_full",
        message: "every connection the service keeps (--max-connections) has a request in \
                  flight; this one answers only /livez, /readyz, /healthz and /metrics: try \
                  again shortly"
            .to_owned(),
        retry_after: Some(Duration::from_secs(1)),
        state: None,
    }
    .into_response()
}
