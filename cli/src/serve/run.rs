//! [`run`]: `snowmint serve` from its flags to its exit: the node fixed or its claim
//! prepared (every input checked before the port is bound), the runtime started, the
//! listener bound and served until a stop signal, a lost lease or a failed claim, and the
//! lease released.

use std::io::Write;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use snowmint::clock::TscClock;
use snowmint::fence::Fenced;
use snowmint::{ShardError, ShardedGenerator, ShardedGeneratorBuilder};
use snowmint_lease::{AcquireProgress, Backend, LeaseBuilder, LeaseError};

use super::args::{self, Args, LeaseArgs};
use super::connections::{self, Connections, Limits};
use super::metrics::{self, HttpMetrics};
use super::readiness::{self, Phase, Progress};
use super::shutdown::Signals;
use super::source::{Health, Minter};
use super::{activity, checks, held, pool, routes, transitions, App, LeaseSite};
use crate::error::{with_cause, CliError};
use crate::store_args::{store_kind, StoreKind};
use crate::store_words::{self, Call};
use crate::tls::{Alpn, Tls};

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
    // The TLS files are checked before listening: a mistake exits at once (status 2).
    let tls = match args.tls.files() {
        Some(files) => Some(Arc::new(
            Tls::load(files, Alpn::Http1, "http", args.tls.tls_handshake_timeout)
                .map_err(CliError::input)?,
        )),
        None => None,
    };
    // The gRPC listener's own (ALPN h2), from the same files.
    let grpc_tls = match (args.tls.files(), args.grpc.grpc_listen) {
        (Some(files), Some(_)) => Some(Arc::new(
            Tls::load(files, Alpn::H2, "grpc", args.tls.tls_handshake_timeout)
                .map_err(CliError::input)?,
        )),
        _ => None,
    };
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
            let max_node = layout
                .max_node()
                .checked_shr(shard_bits.into())
                .unwrap_or(0);
            checks::lease_flags(&args.lease, store_kind(url)?, max_node)?;
            let (claim, backend) = match store_kind(url)? {
                StoreKind::Etcd => (claimer(store.etcd(url)?, &args.lease, builder)?, "etcd"),
                StoreKind::Redis => (claimer(store.redis(url)?, &args.lease, builder)?, "redis"),
                StoreKind::Postgres => (
                    claimer(store.postgres(url)?, &args.lease, builder)?,
                    "postgres",
                ),
            };
            let ttl = args.lease.ttl;
            let timeout = match store.lease_timeout {
                Some(t) => format!("--lease-timeout {}", humantime::format_duration(t)),
                None => format!(
                    "{} (a tenth of --ttl {}; --lease-timeout sets it)",
                    humantime::format_duration((ttl / 10).max(Duration::from_millis(1))),
                    humantime::format_duration(ttl)
                ),
            };
            let site = LeaseSite {
                backend,
                namespace: args.lease.store.namespace.clone(),
                url: crate::store_url::shown(url),
                call: Call {
                    store: match backend {
                        "etcd" => "etcd",
                        "postgres" => "PostgreSQL",
                        _ => "Redis",
                    },
                    url: crate::store_url::shown(url),
                    timeout,
                },
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
        layout_spec: super::routes::layout_spec(&layout),
        shard_bits,
        metrics,
        activity: activity::Activity::new(),
        id128: crate::id128::Generators::new(),
        transport: match &tls {
            None => "HTTP (plaintext)",
            Some(tls) if tls.mutual() => "HTTPS (TLS, client certificates required)",
            Some(_) => "HTTPS (TLS)",
        },
    });
    let served = runtime.block_on(serve(
        Arc::clone(&app),
        &args,
        workers,
        claim,
        [tls, grpc_tls],
    ));
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
    [tls, grpc_tls]: [Option<Arc<Tls>>; 2],
) -> Result<(), CliError> {
    let signals = Signals::register()
        .map_err(|e| CliError::system(format_args!("registering SIGTERM/SIGINT handlers: {e}")))?;
    // Before listening: from then on SIGHUP reloads the TLS files instead of ending the process.
    let mut reloads = Vec::new();
    for tls in tls.iter().chain(&grpc_tls) {
        reloads.push(
            tls.watch(say).map_err(|e| {
                CliError::system(format_args!("registering the SIGHUP handler: {e}"))
            })?,
        );
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| CliError::system(format_args!("--listen {}: {e}", args.listen)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::system(format_args!("--listen {}: {e}", args.listen)))?;
    // Bound before anything is said, so that a port in use stops the start as --listen's does.
    let grpc = match args.grpc.grpc_listen {
        Some(at) => Some(
            crate::grpc::bind(at)
                .await
                .map_err(|e| CliError::system(format_args!("--grpc-listen {at}: {e}")))?,
        ),
        None => None,
    };
    let listening = Instant::now();
    let limits = Limits {
        max: args
            .max_connections
            .unwrap_or_else(connections::default_max),
        header: args.header_timeout,
        idle: args.idle_timeout,
    };
    let connections = Arc::new(Connections::new(limits));
    let upkeep = tokio::spawn({
        let app = Arc::clone(&app);
        let connections = Arc::clone(&connections);
        async move {
            let mut every = tokio::time::interval(metrics::UPKEEP_EVERY);
            loop {
                every.tick().await;
                app.metrics.upkeep();
                if let Some(line) = connections.report() {
                    say(format_args!("{line}"));
                }
            }
        }
    });
    let sampler = activity::spawn_sampler(Arc::clone(&app));
    let transitions = transitions::spawn(Arc::clone(&app), say);
    let settings = format!(
        "layout {}, {} shard bits, {workers} workers, --max-batch {}, --max-connections {}",
        app.layout_name, app.shard_bits, app.max_batch, limits.max,
    );
    let grpc_limits = crate::grpc::Limits::of(&args.grpc, app.max_batch);
    if let Some(grpc) = &grpc {
        say(format_args!(
            "gRPC (snowmint.v1.IdService, grpc.health.v1, reflection) listening on {}://{} \
             (--grpc-max-connections {}, --grpc-max-streams {}, --grpc-max-chunk {}, --grpc-timeout {})",
            if grpc_tls.is_some() { "grpcs" } else { "grpc" },
            grpc.local_addr(),
            grpc_limits.max_connections,
            grpc_limits.max_streams,
            grpc_limits.max_chunk,
            humantime::format_duration(grpc_limits.timeout),
        ));
    }
    match (app.minter.get(), &app.lease) {
        (Some(m), _) => say(format_args!(
            "listening on {scheme}://{addr} ({settings}, node {} fixed); ready",
            m.node()
        )),
        (None, Some(site)) => say(format_args!(
            "listening on {scheme}://{addr} ({settings}); claiming a node in {} at {} (GET /readyz says \
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
    // The gRPC side stops with the HTTP side: on the same signal, lost lease or failed claim.
    let grpc_server = {
        let app = Arc::clone(&app);
        let mut stopped = stop.clone();
        async move {
            let Some(grpc) = grpc else { return };
            let stop = async move {
                let _ = stopped.wait_for(Option::is_some).await;
            };
            if let Err(e) = grpc.serve(app, grpc_limits, grpc_tls, stop).await {
                say(format_args!("the gRPC server failed: {e}"));
            }
        }
    };
    let watched = Arc::clone(&app);
    let failed = Arc::clone(&failure);
    let server = connections::serve(
        listener,
        routes::router(Arc::clone(&app)),
        Arc::clone(&connections),
        tls,
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
        ((), ()) = async { tokio::join!(server, grpc_server) } => Ok(()),
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
    transitions.abort();
    for reloads in reloads {
        reloads.abort();
    }
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
                let error = lease_error(&e, app.lease.as_ref());
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

/// A failed claim as the CLI reports it. A store's error names the server (its URL without
/// userinfo), its cause in plain words and what to check ([`store_words`]).
fn lease_error(e: &LeaseError, site: Option<&LeaseSite>) -> CliError {
    let text = match (e, site) {
        (
            LeaseError::Store {
                store: "redis" | "postgres",
                ..
            },
            Some(site),
        ) => format!(
            "--lease {}: {}",
            site.url,
            store_words::explain(&with_cause(e), &site.call)
        ),
        (LeaseError::Store { store: "etcd", .. }, Some(site)) => {
            format!(
                "--lease: {}",
                store_words::explain(&with_cause(e), &site.call)
            )
        }
        _ => format!("--lease: {}", with_cause(e)),
    };
    match e {
        // The input is at fault: the flags, or a namespace made with another TTL or layout
        // (the message names both sides).
        LeaseError::Timing { .. }
        | LeaseError::NodeRange { .. }
        | LeaseError::Mismatch { .. }
        | LeaseError::Build(_) => CliError::input(text),
        _ => CliError::system(text),
    }
}
