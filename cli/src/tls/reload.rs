//! [`Tls`]: a listener's current TLS configuration, shared by its connections, swapped when
//! the files are reloaded (on SIGHUP, or when their contents change, looked at every
//! [`POLL_EVERY`]). New files that cannot be served with keep the configuration in use, and
//! the refusal is logged.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use metrics::Counter;
use rustls::ServerConfig;

use super::config::{server_config, Alpn};
use super::error::TlsError;
use super::files::{Pems, TlsFiles};

/// How often the files are read to see whether they changed.
pub const POLL_EVERY: Duration = Duration::from_secs(2);

const FAILURES: &str = "snowmint_tls_handshake_failures_total";
const RELOADS: &str = "snowmint_tls_reloads_total";

/// Why a handshake failed, as the metric's `reason` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Failure {
    /// Not complete within the handshake timeout.
    Timeout = 0,
    /// Refused by either side or cut off: no common protocol, a bad or missing client
    /// certificate, not TLS at all.
    Error,
}

/// Why the files were read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// SIGHUP: read and applied even if unchanged.
    Hangup,
    /// The periodic look found different contents.
    Changed,
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Trigger::Hangup => "on SIGHUP",
            Trigger::Changed => "the files changed",
        })
    }
}

/// One listener's TLS: its files, its ALPN protocol and the configuration in use.
pub struct Tls {
    files: TlsFiles,
    alpn: Alpn,
    /// The listener's name in log lines and metrics (`http`, `grpc`).
    listener: &'static str,
    handshake_timeout: Duration,
    current: RwLock<Arc<ServerConfig>>,
    /// The contents last read (served, or refused), so that a poll retries only on change.
    tried: Mutex<Pems>,
    failures: [Counter; 2],
    loaded: Counter,
    refused: Counter,
}

impl Tls {
    /// Reads `files` and builds the configuration for a listener named `listener` (`http`,
    /// `grpc`) that speaks `alpn`; each handshake may take at most `handshake_timeout`. Its
    /// metrics are registered (the recorder must be installed first).
    ///
    /// # Errors
    ///
    /// A [`TlsError`] naming the file and what is wrong with it: to be refused before the
    /// listener is bound.
    pub fn load(
        files: TlsFiles,
        alpn: Alpn,
        listener: &'static str,
        handshake_timeout: Duration,
    ) -> Result<Tls, TlsError> {
        let pems = files.read()?;
        let config = server_config(&files, &pems, alpn)?;
        metrics::describe_counter!(
            FAILURES,
            metrics::Unit::Count,
            "TLS handshakes that failed, by listener and reason: timeout (not complete within \
             --tls-handshake-timeout), error (refused by either side: no client certificate, \
             one from another CA, no common protocol, not TLS)"
        );
        metrics::describe_counter!(
            RELOADS,
            metrics::Unit::Count,
            "Reloads of the TLS files, by listener and outcome: loaded, refused (the \
             configuration in use kept)"
        );
        let counter = |reason: &'static str| metrics::counter!(FAILURES, "listener" => listener, "reason" => reason);
        Ok(Tls {
            files,
            alpn,
            listener,
            handshake_timeout,
            current: RwLock::new(Arc::new(config)),
            tried: Mutex::new(pems),
            failures: [counter("timeout"), counter("error")],
            loaded: metrics::counter!(RELOADS, "listener" => listener, "outcome" => "loaded"),
            refused: metrics::counter!(RELOADS, "listener" => listener, "outcome" => "refused"),
        })
    }

    /// The configuration for the next handshake.
    pub fn current(&self) -> Arc<ServerConfig> {
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The longest a handshake may take.
    pub fn handshake_timeout(&self) -> Duration {
        self.handshake_timeout
    }

    /// Whether client certificates are required (mutual TLS).
    pub fn mutual(&self) -> bool {
        self.files.client_ca.is_some()
    }

    pub(super) fn count(&self, failure: Failure) {
        self.failures[failure as usize].increment(1);
    }

    /// Reads the files again and, if they can be served with, makes them current for new
    /// connections (those open keep theirs). On [`Trigger::Changed`] nothing is done when the
    /// contents are those last read: `None`. Otherwise the line to log.
    pub fn reload(&self, trigger: Trigger) -> Option<String> {
        let who = format!("TLS ({} listener)", self.listener);
        let outcome = self.files.read().and_then(|pems| {
            let mut tried = self.tried.lock().unwrap_or_else(PoisonError::into_inner);
            if trigger == Trigger::Changed && *tried == pems {
                return Ok(None);
            }
            *tried = pems.clone();
            drop(tried);
            server_config(&self.files, &pems, self.alpn).map(Some)
        });
        match outcome {
            Ok(None) => None,
            Ok(Some(config)) => {
                *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(config);
                self.loaded.increment(1);
                Some(format!(
                    "{who}: reloaded --tls-cert {} and --tls-key {} ({trigger}); new connections \
                     get them, open ones keep theirs",
                    self.files.cert.display(),
                    self.files.key.display()
                ))
            }
            Err(e) => {
                self.refused.increment(1);
                Some(format!(
                    "{who}: the files are refused ({trigger}), still serving the certificate \
                     loaded before: {e}"
                ))
            }
        }
    }

    /// Reloads on SIGHUP and when the files change, until the task is aborted, saying each
    /// outcome with `say`. The SIGHUP handler is registered before this returns, so from then
    /// on SIGHUP no longer ends the process. Within a tokio runtime.
    ///
    /// # Errors
    ///
    /// The signal handler could not be registered.
    pub fn watch(
        self: &Arc<Self>,
        say: fn(fmt::Arguments<'_>),
    ) -> std::io::Result<tokio::task::JoinHandle<()>> {
        #[cfg(unix)]
        let mut hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
        let tls = Arc::clone(self);
        Ok(tokio::spawn(async move {
            let mut every = tokio::time::interval(POLL_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                #[cfg(unix)]
                let trigger = tokio::select! {
                    _ = hangup.recv() => Trigger::Hangup,
                    _ = every.tick() => Trigger::Changed,
                };
                #[cfg(not(unix))]
                let trigger = {
                    every.tick().await;
                    Trigger::Changed
                };
                // Off the workers: a file on a stalled mount blocks this thread, no request.
                let tried = Arc::clone(&tls);
                let outcome = tokio::task::spawn_blocking(move || tried.reload(trigger)).await;
                if let Ok(Some(line)) = outcome {
                    say(format_args!("{line}"));
                }
            }
        }))
    }
}
