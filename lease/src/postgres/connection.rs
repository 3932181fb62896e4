//! [`Conn`]: one session with the read-write server of a lease's hosts, driven by a
//! current-thread tokio runtime of its own, every call bounded by the lease's I/O timeout;
//! it creates the lease's tables on first use when the role may.

use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tokio_postgres::{Client, Config, NoTls};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::error::{failed, pg_error};
use super::schema;
use crate::{LeaseError, StoreErrorKind};

/// What failed in a call: the session's start, the first-use schema, or the call itself.
enum Step {
    Schema(tokio_postgres::Error),
    Call(tokio_postgres::Error),
    /// The task starting the session ended without one (it panicked or was cancelled).
    Start(String),
    /// The session started with less than a quarter of the call's timeout left: kept for the
    /// next call rather than begun with too little time to finish (and then thrown away).
    Late,
}

/// A session start in progress: the task making it, and when it began.
type Starting = (
    Instant,
    JoinHandle<Result<(Client, JoinHandle<()>), tokio_postgres::Error>>,
);

/// How many I/O timeouts a session start may take across calls before a fresh one replaces
/// it: on a loaded server a start (TCP, TLS, authentication, the session's settings) can take
/// longer than one call's timeout, and a start thrown away with every timed-out call would
/// never finish; a start much older than that is likely stuck behind a lost SYN's back-off.
const START_PATIENCE: u32 = 5;

/// A session with the read-write server, reconnecting after an error, and after a second
/// timeout in a row (see [`Conn::run`]).
pub(super) struct Conn {
    config: Config,
    tls: Option<MakeRustlsConnect>,
    timeout: Duration,
    runtime: Runtime,
    client: Option<Client>,
    /// The task that drives `client`'s connection.
    task: Option<JoinHandle<()>>,
    /// A session start that a call's timeout cut short, carried on by the next calls.
    starting: Option<Starting>,
    /// Whether the tables were seen (or made) in this process's first session.
    schema_checked: bool,
    /// Calls in a row that timed out on an established session.
    timeouts: u32,
    /// The hosts and ports, for messages.
    pub(super) servers: String,
}

impl Conn {
    pub(super) fn new(
        config: Config,
        tls: Option<MakeRustlsConnect>,
        timeout: Duration,
        servers: String,
    ) -> Result<Conn, LeaseError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| {
                failed(
                    StoreErrorKind::Unexpected,
                    "start the lease's I/O runtime",
                    &servers,
                    None,
                    e.to_string(),
                )
            })?;
        Ok(Conn {
            config,
            tls,
            timeout,
            runtime,
            client: None,
            task: None,
            starting: None,
            schema_checked: false,
            timeouts: 0,
            servers,
        })
    }

    /// Runs `f` on the session while `action`, starting one first if needed (and creating the
    /// tables at the first session if they are missing), all within the I/O timeout. A start
    /// cut short by the timeout goes on in the next calls (up to [`START_PATIENCE`] timeouts).
    ///
    /// A call the timeout cuts short keeps the session, once: the session stays consistent
    /// (tokio-postgres reads a late answer and drops it, and a transaction dropped unfinished
    /// queues its `ROLLBACK`, sent before this returns), so a slow server costs that call
    /// only, not also a new session's start, which on a loaded server takes as long as a call.
    /// A second timeout in a row (the server or the path to it may be gone), an error, or a
    /// closed connection ends the session: the next call starts another.
    pub(super) fn run<T>(
        &mut self,
        action: &'static str,
        f: impl AsyncFnOnce(&mut Client) -> Result<T, tokio_postgres::Error>,
    ) -> Result<T, LeaseError> {
        let Conn {
            config,
            tls,
            timeout,
            runtime,
            client,
            task,
            starting,
            schema_checked,
            timeouts,
            servers,
        } = self;
        let limit = *timeout;
        let began = Instant::now();
        // The timer is made inside the runtime, which it needs.
        let call = async {
            if client.is_none() {
                if starting
                    .as_ref()
                    .is_some_and(|(since, _)| since.elapsed() > limit * START_PATIENCE)
                {
                    if let Some((_, stale)) = starting.take() {
                        stale.abort();
                    }
                }
                let (_, start) = starting.get_or_insert_with(|| {
                    let (config, tls) = (config.clone(), tls.clone());
                    let start =
                        tokio::spawn(async move { connect(&config, tls.as_ref(), limit).await });
                    (Instant::now(), start)
                });
                let started = start.await;
                *starting = None;
                let (c, t) = match started {
                    Ok(started) => started.map_err(Step::Call)?,
                    Err(e) => return Err(Step::Start(e.to_string())),
                };
                *client = Some(c);
                *task = Some(t);
                if began.elapsed() > limit * 3 / 4 {
                    return Err(Step::Late);
                }
            }
            let Some(c) = client.as_mut() else {
                unreachable!("connected just above")
            };
            if !*schema_checked {
                ensure_schema(c).await.map_err(Step::Schema)?;
                *schema_checked = true;
            }
            f(c).await.map_err(Step::Call)
        };
        let outcome = runtime.block_on(async { tokio::time::timeout(limit, call).await });
        let timed_out_in_session = outcome.is_err() && client.is_some();
        *timeouts = if timed_out_in_session {
            *timeouts + 1
        } else {
            0
        };
        if timed_out_in_session && *timeouts == 1 {
            // Lets the connection's task send what the cut-short call left queued (a dropped
            // transaction's ROLLBACK), so that a row it locked is freed now.
            runtime.block_on(tokio::task::yield_now());
        }
        let keep = match &outcome {
            Ok(Ok(_)) | Ok(Err(Step::Late)) => true,
            Err(_) => *timeouts == 1,
            Ok(Err(_)) => false,
        };
        if (!keep || client.as_ref().is_some_and(Client::is_closed)) && client.is_some() {
            // Close the socket now, not at the next call: the server then rolls back a
            // transaction left open (and frees the namespace's row it may have locked).
            *client = None;
            if let Some(t) = task.take() {
                t.abort();
                runtime.block_on(async { drop(t.await) });
            }
        }
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(Step::Schema(e))) => Err(pg_error(
                "create the lease's tables (or have a DBA run the script of `snowmint lease schema --postgres`)",
                servers,
                &e,
            )),
            Ok(Err(Step::Call(e))) => Err(pg_error(action, servers, &e)),
            Ok(Err(Step::Start(why))) => Err(failed(
                StoreErrorKind::Unexpected,
                action,
                servers,
                None,
                format!("the task starting a session ended without one: {why}"),
            )),
            Ok(Err(Step::Late)) => Err(failed(
                StoreErrorKind::Unreachable,
                action,
                servers,
                None,
                format!(
                    "the session started {:?} into the I/O timeout ({limit:?}), too late to \
                     begin the call; the next call uses it",
                    began.elapsed()
                ),
            )),
            Err(_) => Err(failed(
                StoreErrorKind::Unreachable,
                action,
                servers,
                None,
                format!("no answer within the I/O timeout ({limit:?})"),
            )),
        }
    }
}

/// A session with the first read-write server of `config`'s hosts, its commits flushed before
/// they are acknowledged (`synchronous_commit = on`, whatever the server's default) and its
/// statements and lock waits bounded by `timeout`; and the task that drives it.
async fn connect(
    config: &Config,
    tls: Option<&MakeRustlsConnect>,
    timeout: Duration,
) -> Result<(Client, JoinHandle<()>), tokio_postgres::Error> {
    let (client, task) = match tls {
        Some(tls) => {
            let (client, connection) = config.connect(tls.clone()).await?;
            (client, tokio::spawn(async move { drop(connection.await) }))
        }
        None => {
            let (client, connection) = config.connect(NoTls).await?;
            (client, tokio::spawn(async move { drop(connection.await) }))
        }
    };
    let ms = timeout.as_millis().max(4);
    // A lock wait ends before the call's own timeout, so that PostgreSQL says why (SQLSTATE
    // 55P03); a holder frozen inside a claim's transaction (holding the namespace's row) is
    // cut off after twice the timeout.
    client
        .batch_execute(&format!(
            "SET synchronous_commit = on; SET statement_timeout = {ms}; SET lock_timeout = {}; \
             SET idle_in_transaction_session_timeout = {}",
            ms * 3 / 4,
            ms.saturating_mul(2)
        ))
        .await?;
    Ok((client, task))
}

/// Creates the lease's tables if they are missing (the role needs `CREATE` on its schema; a
/// DBA can run [`schema::schema`]'s script instead).
async fn ensure_schema(client: &mut Client) -> Result<(), tokio_postgres::Error> {
    let row = client
        .query_one(
            &format!(
                "SELECT to_regclass('{}') IS NOT NULL AND to_regclass('{}') IS NOT NULL",
                schema::NAMESPACES,
                schema::NODES
            ),
            &[],
        )
        .await?;
    if row.get::<_, bool>(0) {
        return Ok(());
    }
    let tx = client.transaction().await?;
    tx.batch_execute(&schema::create()).await?;
    tx.commit().await
}
