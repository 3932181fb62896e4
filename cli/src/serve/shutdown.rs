//! Graceful shutdown: [`Signals`] waits for SIGTERM or Ctrl-C (SIGINT); the server then stops
//! accepting, lets requests in flight finish for at most the grace period, and only then is
//! the lease released (see [`super::run`]).

use std::io;

/// The stop signals, registered when made: a signal that arrives before the server waits
/// for it is kept, not lost to the default action (which would kill the process without
/// releasing its lease).
pub struct Signals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl Signals {
    /// Registers the handlers (within a tokio runtime).
    pub fn register() -> io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Signals {
                term: signal(SignalKind::terminate())?,
                int: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// Resolves with the name of the first stop signal received.
    pub async fn recv(mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.term.recv() => "SIGTERM",
                _ = self.int.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}
