//! `snowmint serve`: an HTTP ID service (axum on tokio) over a sharded generator, its node
//! number fixed or leased from Redis.
//!
//! One concept per module: [`args`] the flags, [`source`] minting from tasks, [`routes`] the
//! endpoints, [`body`] the ID bodies, [`query`] the query strings, [`problem`] error answers,
//! [`metrics`] the Prometheus side, [`activity`] the counts behind the status page
//! ([`status`]), [`shutdown`] the stop signals.

mod activity;
mod args;
mod body;
mod metrics;
mod problem;
mod query;
mod routes;
mod shutdown;
mod source;
mod status;

pub use self::args::Args;

use std::future::IntoFuture;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use snowmint::etcd::EtcdLease;
use snowmint::lease::{Backend, Lease, LeaseError};
use snowmint::redis::RedisLease;
use snowmint::{Fenced, ShardError, ShardedGenerator, ShardedGeneratorBuilder, TscClock};

use self::args::LeaseArgs;
use self::metrics::HttpMetrics;
use self::shutdown::Signals;
use self::source::{with_cause, Health, Minter};
use crate::error::CliError;

/// What every request handler shares.
pub struct App {
    minter: Minter,
    max_batch: u64,
    layout_name: &'static str,
    shard_bits: u8,
    metrics: HttpMetrics,
    activity: activity::Activity,
}

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
    let minter = match &args.lease.lease {
        None => {
            let node = args.node.resolve(&layout)?;
            let gen = builder.node(node).build().map_err(|e| shard_error(&e))?;
            Minter::Fixed(gen)
        }
        Some(url) => {
            let parsed =
                |e: LeaseError| CliError::input(format_args!("--lease: {}", with_cause(&e)));
            let (gen, backend) = if url.starts_with("etcd://") {
                let lease = EtcdLease::new(url).map_err(parsed)?;
                (acquire(lease, &args.lease, builder)?, "etcd")
            } else if url.starts_with("redis://") || url.starts_with("rediss://") {
                let lease = RedisLease::new(url).map_err(parsed)?;
                (acquire(lease, &args.lease, builder)?, "redis")
            } else {
                return Err(CliError::input(format_args!(
                    "--lease: {url:?} is neither a Redis URL (redis://HOST:PORT/DB) nor an etcd cluster \
                     (etcd://HOST:PORT,HOST:PORT,...)"
                )));
            };
            Minter::Leased {
                gen,
                namespace: args.lease.namespace.clone(),
                backend,
            }
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
        max_batch: args.max_batch,
        layout_name: args.layout.name,
        shard_bits,
        metrics,
        activity: activity::Activity::new(),
    });
    let served = runtime.block_on(serve(Arc::clone(&app), &args, workers));
    // Tasks still running after the grace period are dropped with the runtime; then ours is
    // the last reference and dropping it releases the lease, writing its mark.
    runtime.shutdown_timeout(RUNTIME_STOP);
    // A lost lease is someone else's now: nothing to release.
    let released = match &app.minter {
        Minter::Leased { gen, namespace, .. } if !gen.is_lost() => {
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

/// Binds, serves until a stop signal, and drains for at most the grace period.
async fn serve(app: Arc<App>, args: &Args, workers: usize) -> Result<(), CliError> {
    let signals = Signals::register()
        .map_err(|e| CliError::system(format_args!("registering SIGTERM/SIGINT handlers: {e}")))?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| CliError::system(format_args!("--listen {}: {e}", args.listen)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::system(format_args!("--listen {}: {e}", args.listen)))?;
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
    let source = match app.minter.namespace() {
        Some(ns) => format!(
            "leased from {} in namespace {ns:?}",
            args.lease.lease.as_deref().unwrap_or("")
        ),
        None => "fixed".to_owned(),
    };
    say(format_args!(
        "listening on http://{addr} (layout {}, node {} {source}, {} shard bits, {workers} workers, --max-batch {})",
        app.layout_name,
        app.minter.node(),
        app.shard_bits,
        app.max_batch,
    ));
    let (stopping, mut stop) = tokio::sync::watch::channel(None::<Stop>);
    // Responses go out at once, not held back by Nagle's algorithm for a following write.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let watched = Arc::clone(&app);
    let server = axum::serve(listener, routes::router(Arc::clone(&app))).with_graceful_shutdown(
        async move {
            let why = tokio::select! {
                name = signals.recv() => Stop::Signal(name),
                () = lost(&watched) => Stop::Lost,
            };
            match why {
                Stop::Signal(name) => say(format_args!(
                    "{name}: no new connections; finishing requests in flight"
                )),
                Stop::Lost => say(format_args!(
                    "node {} was taken over by another process: no new connections; finishing requests in flight",
                    watched.minter.node()
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
            app.minter.node()
        ))),
        _ => result,
    }
}

/// Why the server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// SIGTERM or SIGINT.
    Signal(&'static str),
    /// The lease was taken over: the source never mints again, so the service ends (exit
    /// status 1) for its supervisor to start it anew with a new lease.
    Lost,
}

/// How often the service checks whether its lease was lost.
const LOST_CHECK: Duration = Duration::from_millis(250);

/// Resolves once the lease is lost (never for a fixed node).
async fn lost(app: &App) {
    if app.minter.namespace().is_none() {
        return std::future::pending().await;
    }
    let mut every = tokio::time::interval(LOST_CHECK);
    loop {
        every.tick().await;
        if app.minter.health() == Health::Lost {
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

/// Applies the lease flags to `lease` and takes a node for `builder`.
fn acquire<B: Backend>(
    lease: Lease<B>,
    flags: &LeaseArgs,
    builder: ShardedGeneratorBuilder<TscClock>,
) -> Result<Fenced<ShardedGenerator>, CliError> {
    let mut lease = lease
        .namespace(&flags.namespace)
        .ttl(flags.ttl)
        .max_wait(flags.lease_wait);
    if let Some(nodes) = &flags.nodes {
        lease = lease.nodes(nodes.clone());
    }
    if let Some(margin) = flags.margin {
        lease = lease.margin(margin);
    }
    if let Some(timeout) = flags.lease_timeout {
        lease = lease.io_timeout(timeout);
    }
    lease.acquire(builder).map_err(|e| lease_error(&e))
}

fn lease_error(e: &LeaseError) -> CliError {
    let text = format!("--lease: {}", with_cause(e));
    match e {
        LeaseError::Timing { .. } | LeaseError::NodeRange { .. } | LeaseError::Build(_) => {
            CliError::input(text)
        }
        _ => CliError::system(text),
    }
}
