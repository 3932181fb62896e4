//! `snowmint serve`: an HTTP ID service (axum on tokio) over a sharded generator, its node
//! number fixed or leased from Redis or etcd.
//!
//! One concept per module: [`args`] the flags, [`source`] minting from tasks, [`routes`] the
//! endpoints, [`pool`] a fixed node's shards, lent to whichever worker runs, [`body`] the ID bodies, [`query`]
//! the query strings, [`problem`] error answers, [`readiness`] what the service waits for,
//! [`held`] a claim on a held range, [`metrics`] the Prometheus side, [`activity`]
//! the counts behind the status page ([`status`]), [`shutdown`] the stop signals.
//!
//! A leased service listens first and claims its node after, on a thread of its own: the
//! claim may wait (the forgetting rule, a mark ahead of the clock), and meanwhile `/livez`
//! answers, `/readyz` says what it waits for, and the minting endpoints refuse with the same
//! answer.

mod activity;
mod args;
mod body;
mod held;
mod metrics;
mod pool;
mod problem;
mod query;
mod readiness;
mod routes;
mod shutdown;
mod source;
mod status;

pub use self::args::Args;
pub use self::source::with_cause;

use std::future::IntoFuture;
use std::io::Write;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::serve::ListenerExt;
use snowmint::{Fenced, Layout, ShardError, ShardedGenerator, ShardedGeneratorBuilder, TscClock};
use snowmint_lease::{AcquireProgress, Backend, LeaseBuilder, LeaseError};

use self::args::LeaseArgs;
use self::metrics::HttpMetrics;
use self::readiness::{Phase, Progress, State};
use self::shutdown::Signals;
use self::source::{Health, Minter};
use crate::error::CliError;
use crate::store_args::{store_kind, StoreKind};

/// What every request handler shares.
pub struct App {
    /// Set once the node is fixed or claimed: the service mints only through it.
    minter: OnceLock<Minter>,
    /// Where the lease's claim stands until then.
    progress: Arc<Progress>,
    /// Where the node is leased from (`None`: a fixed node).
    lease: Option<LeaseSite>,
    layout: Layout,
    max_batch: u64,
    layout_name: &'static str,
    shard_bits: u8,
    metrics: HttpMetrics,
    activity: activity::Activity,
    /// The 128-bit generators of `/uuid7` and `/ulid`.
    id128: crate::id128::Generators,
}

/// Where a leased node comes from.
pub struct LeaseSite {
    /// `redis` or `etcd`.
    pub backend: &'static str,
    pub namespace: String,
    pub url: String,
}

impl App {
    /// The minter, once ready to be asked (it may still refuse while fenced).
    pub fn minter(&self) -> Option<&Minter> {
        self.minter.get()
    }

    /// The readiness state now.
    pub fn state(&self) -> State {
        match self.minter.get() {
            None => State::Starting(self.progress.phase()),
            Some(m) => match m.health() {
                Health::Ok => State::Ready { node: m.node() },
                Health::Fenced => State::Fenced {
                    node: m.node(),
                    cause: m.fence_cause(),
                },
                Health::Lost => State::Lost { node: m.node() },
            },
        }
    }

    /// Where the node is claimed, for messages: `redis namespace "orders"`.
    pub fn place(&self) -> String {
        match &self.lease {
            Some(l) => format!("{} namespace {:?}", l.backend, l.namespace),
            None => "no lease (a fixed node)".to_owned(),
        }
    }

    /// The 503 while not ready, or `None` when ready.
    pub fn not_ready(&self) -> Option<problem::Problem> {
        self.state()
            .problem(&self.place(), readiness::now_unix_millis())
    }
}

/// The claim of a leased node, run on its own thread once the service listens, reporting
/// each step.
type Claim = Box<
    dyn FnOnce(&mut dyn FnMut(AcquireProgress)) -> Result<Fenced<ShardedGenerator>, LeaseError>
        + Send,
>;

/// After the grace period, how long the runtime gives tasks still running to stop.
const RUNTIME_STOP: Duration = Duration::from_secs(1);

/// A line on standard error (never a panic if it is closed).
fn say(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "snowmint serve: {line}");
}

pub fn run(args: Args) -> Result<(), CliError> {
    let layout = args.layout.layout;
    let workers = args
        .workers
        .unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(1, |n| n.get()));
    let shard_bits = args
        .shard_bits
        .unwrap_or_else(|| args::default_shard_bits(workers, layout.node_bits()));
    if layout.node_bits() == 0 {
        return Err(CliError::input(format_args!(
            "layout {} has no node bits: the service needs at least 1 for its shards (one per worker)",
            args.layout
        )));
    }
    // First, so that the lease's own metrics (the node it took) are recorded.
    let metrics = HttpMetrics::install().map_err(CliError::system)?;
    let builder = ShardedGenerator::builder(layout)
        .shard_bits(shard_bits)
        .lead_ticks(args.lead_ticks)
        .max_wait(args.max_wait);
    let minter = OnceLock::new();
    let (lease, claim) = match &args.lease.lease {
        None => {
            let node = args.node.resolve(&layout)?;
            let gen = builder.node(node).build().map_err(|e| shard_error(&e))?;
            let pool = pool::Pool::take(&gen);
            let _ = minter.set(Minter::Fixed(gen, pool));
            (None, None)
        }
        Some(url) => {
            // The URL and flags are checked now, before listening: a mistake exits at once.
            let store = &args.lease.store;
            let (claim, backend) = match store_kind(url)? {
                StoreKind::Etcd => (claimer(store.etcd(url)?, &args.lease, builder)?, "etcd"),
                StoreKind::Redis => (claimer(store.redis(url)?, &args.lease, builder)?, "redis"),
            };
            let site = LeaseSite {
                backend,
                namespace: args.lease.store.namespace.clone(),
                url: url.clone(),
            };
            (Some(site), Some(claim))
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("snowmint-worker")
        .enable_all()
        .build()
        .map_err(|e| CliError::system(format_args!("starting the async runtime: {e}")))?;
    let app = Arc::new(App {
        minter,
        progress: Arc::new(Progress::new()),
        lease,
        layout,
        max_batch: args.max_batch,
        layout_name: args.layout.name,
        shard_bits,
        metrics,
        activity: activity::Activity::new(),
        id128: crate::id128::Generators::new(),
    });
    let served = runtime.block_on(serve(Arc::clone(&app), &args, workers, claim));
    // Tasks still running after the grace period are dropped with the runtime; then ours is
    // the last reference and dropping it releases the lease, writing its mark.
    runtime.shutdown_timeout(RUNTIME_STOP);
    // A lost lease is someone else's now: nothing to release.
    let released = match (app.minter.get(), &app.lease) {
        (Some(Minter::Leased { gen, namespace, .. }), _) if !gen.is_lost() => {
            Some((gen.node(), namespace.clone()))
        }
        _ => None,
    };
    match Arc::try_unwrap(app) {
        Ok(app) => {
            drop(app);
            if let Some((node, namespace)) = released {
                say(format_args!(
                    "released node {node} in namespace {namespace:?}"
                ));
            }
        }
        Err(_) => say(format_args!(
            "a request outlived the runtime: the lease is not released and lapses after its TTL"
        )),
    }
    served
}

/// Binds, claims the lease's node (if any) while serving, serves until a stop signal, and
/// drains for at most the grace period.
async fn serve(
    app: Arc<App>,
    args: &Args,
    workers: usize,
    claim: Option<Claim>,
) -> Result<(), CliError> {
    let signals = Signals::register()
        .map_err(|e| CliError::system(format_args!("registering SIGTERM/SIGINT handlers: {e}")))?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| CliError::system(format_args!("--listen {}: {e}", args.listen)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::system(format_args!("--listen {}: {e}", args.listen)))?;
    let listening = Instant::now();
    let upkeep = tokio::spawn({
        let app = Arc::clone(&app);
        async move {
            let mut every = tokio::time::interval(metrics::UPKEEP_EVERY);
            loop {
                every.tick().await;
                app.metrics.upkeep();
            }
        }
    });
    let sampler = activity::spawn_sampler(Arc::clone(&app));
    let settings = format!(
        "layout {}, {} shard bits, {workers} workers, --max-batch {}",
        app.layout_name, app.shard_bits, app.max_batch,
    );
    match (app.minter.get(), &app.lease) {
        (Some(m), _) => say(format_args!(
            "listening on http://{addr} ({settings}, node {} fixed); ready",
            m.node()
        )),
        (None, Some(site)) => say(format_args!(
            "listening on http://{addr} ({settings}); claiming a node in {} at {} (GET /readyz says \
             what it waits for)",
            app.place(),
            site.url
        )),
        (None, None) => unreachable!("a fixed node's minter is made before serving"),
    }
    // The claim's outcome, for the stop below: an error stops the service.
    let (failed_tx, failed_rx) = tokio::sync::oneshot::channel::<CliError>();
    if let Some(claim) = claim {
        spawn_claim(Arc::clone(&app), claim, listening, failed_tx)?;
    }
    let failure = Arc::new(std::sync::Mutex::new(None::<CliError>));
    let (stopping, mut stop) = tokio::sync::watch::channel(None::<Stop>);
    // Responses go out at once, not held back by Nagle's algorithm for a following write.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let watched = Arc::clone(&app);
    let failed = Arc::clone(&failure);
    let server = axum::serve(listener, routes::router(Arc::clone(&app))).with_graceful_shutdown(
        async move {
            let claim_failed = async {
                match failed_rx.await {
                    Ok(e) => e,
                    // A fixed node: no claim, so never.
                    Err(_) => std::future::pending().await,
                }
            };
            let why = tokio::select! {
                name = signals.recv() => Stop::Signal(name),
                () = lost(&watched) => Stop::Lost,
                e = claim_failed => {
                    *failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(e);
                    Stop::Failed
                }
            };
            match why {
                Stop::Signal(name) if watched.minter.get().is_none() => say(format_args!(
                    "{name} while claiming a node: no new connections; a node claimed meanwhile is \
                     not released and lapses after its TTL"
                )),
                Stop::Signal(name) => say(format_args!(
                    "{name}: no new connections; finishing requests in flight"
                )),
                Stop::Lost => say(format_args!(
                    "node {} was taken over by another process: no new connections; finishing requests in flight",
                    watched.state().node().unwrap_or_default()
                )),
                Stop::Failed => say(format_args!(
                    "no node could be leased: no new connections; stopping"
                )),
            }
            let _ = stopping.send(Some(why));
        },
    );
    let grace = args.grace;
    let result = tokio::select! {
        result = server.into_future() => result.map_err(|e| CliError::system(format_args!("serving: {e}"))),
        () = async {
            let _ = stop.wait_for(Option::is_some).await;
            tokio::time::sleep(grace).await;
        } => {
            say(format_args!("requests still in flight after --grace {}: closing them", humantime::format_duration(grace)));
            Ok(())
        }
    };
    upkeep.abort();
    sampler.abort();
    let stopped_by = *stop.borrow();
    match stopped_by {
        Some(Stop::Lost) => Err(CliError::system(format_args!(
            "the lease on node {} was lost: another process holds it now (this one was paused, or cut \
             off from the lease's store past its TTL), so this one can never mint again; start the \
             service anew to lease another node",
            app.state().node().unwrap_or_default()
        ))),
        Some(Stop::Failed) => match failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            Some(e) => Err(e),
            None => Err(CliError::system("--lease: the claim failed")),
        },
        _ => result,
    }
}

/// Runs `claim` on a thread of its own (it blocks on the store and may wait seconds),
/// recording its progress in `app` and saying each wait on standard error; once it returns,
/// sets the minter (the service is ready) or sends the error to `failed`.
fn spawn_claim(
    app: Arc<App>,
    claim: Claim,
    listening: Instant,
    failed: tokio::sync::oneshot::Sender<CliError>,
) -> Result<(), CliError> {
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let progress = Arc::clone(&app.progress);
    std::thread::Builder::new()
        .name("snowmint-claim".to_owned())
        .spawn(move || {
            let claimed = claim(&mut |step| {
                let phase = Phase::of(step);
                if let Some(line) = phase.log_line(readiness::now_unix_millis()) {
                    say(format_args!("{line}"));
                }
                progress.set(phase);
            });
            // The service stopped meanwhile: dropping the source releases the node.
            if let Err(Ok(gen)) = done_tx.send(claimed) {
                drop(gen);
            }
        })
        .map_err(|e| CliError::system(format_args!("starting the lease's claim thread: {e}")))?;
    tokio::spawn(async move {
        let outcome = match done_rx.await {
            Ok(outcome) => outcome,
            Err(_) => {
                let _ = failed.send(CliError::system(
                    "--lease: the claim thread stopped before it claimed a node",
                ));
                return;
            }
        };
        match outcome {
            Ok(gen) => {
                let node = gen.node();
                let site = app.lease.as_ref().expect("a claim has a lease");
                let minter = Minter::Leased {
                    gen,
                    namespace: site.namespace.clone(),
                    backend: site.backend,
                };
                if app.minter.set(minter).is_ok() {
                    say(format_args!(
                        "ready: node {node} leased from {} in namespace {:?}, {:.3} s after listening",
                        site.url,
                        site.namespace,
                        listening.elapsed().as_secs_f64()
                    ));
                }
            }
            Err(e) => {
                let url = app.lease.as_ref().map(|site| site.url.as_str());
                let error = lease_error(&e, url);
                app.progress.set(Phase::Failed(with_cause(&e)));
                let _ = failed.send(error);
            }
        }
    });
    Ok(())
}

/// Why the server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// SIGTERM or SIGINT.
    Signal(&'static str),
    /// The lease was taken over: the source never mints again, so the service ends (exit
    /// status 1) for its supervisor to start it anew with a new lease.
    Lost,
    /// No node could be leased (the store refused, every node is held): exit status 1 or 2,
    /// as before listening.
    Failed,
}

/// How often the service checks whether its lease was lost.
const LOST_CHECK: Duration = Duration::from_millis(250);

/// Resolves once the lease is lost (never for a fixed node).
async fn lost(app: &App) {
    if app.lease.is_none() {
        return std::future::pending().await;
    }
    let mut every = tokio::time::interval(LOST_CHECK);
    loop {
        every.tick().await;
        if app.minter.get().is_some_and(|m| m.health() == Health::Lost) {
            return;
        }
    }
}

fn shard_error(e: &ShardError) -> CliError {
    match e {
        ShardError::NodeOutOfRange { .. } => CliError::input(format_args!(
            "{e}; with fewer --shard-bits (or --workers) more node numbers are left"
        )),
        _ => CliError::input(e),
    }
}

/// Applies the lease flags to `lease`: the claim of a node for `builder`, to run later.
fn claimer<B: Backend + Send + 'static>(
    lease: LeaseBuilder<B>,
    flags: &LeaseArgs,
    builder: ShardedGeneratorBuilder<TscClock>,
) -> Result<Claim, CliError> {
    let mut lease = lease
        .namespace(&flags.store.namespace)
        .ttl(flags.ttl)
        .max_wait(flags.lease_wait);
    if let Some(nodes) = &flags.nodes {
        lease = lease.nodes(nodes.clone());
    }
    if let Some(margin) = flags.margin {
        lease = lease.margin(margin);
    }
    if let Some(timeout) = flags.store.lease_timeout {
        lease = lease.io_timeout(timeout);
    }
    let lease = lease.build().map_err(|e| lease_error(&e, None))?;
    let ttl = flags.ttl;
    Ok(Box::new(move |on_progress| {
        held::claim_when_free(
            ttl,
            || lease.acquire_with(builder.clone(), &mut *on_progress),
            |line| say(format_args!("{line}")),
        )
    }))
}

/// A failed claim as the CLI reports it. A Redis error names the server (`url`, which never
/// holds a password: one in the URL is refused), as etcd's errors name their endpoints.
fn lease_error(e: &LeaseError, url: Option<&str>) -> CliError {
    let text = match (e, url) {
        (LeaseError::Store { store: "redis", .. }, Some(url)) => {
            format!("--lease {url}: {}", with_cause(e))
        }
        _ => format!("--lease: {}", with_cause(e)),
    };
    match e {
        LeaseError::Timing { .. } | LeaseError::NodeRange { .. } | LeaseError::Build(_) => {
            CliError::input(text)
        }
        _ => CliError::system(text),
    }
}
