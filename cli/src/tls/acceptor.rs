//! [`accept`]: one TLS handshake on an accepted connection, with the listener's current
//! configuration and its handshake timeout.

use std::fmt;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use super::reload::{Failure, Tls};

/// Why a handshake did not complete. Either is counted in
/// `snowmint_tls_handshake_failures_total{listener, reason}`.
#[derive(Debug)]
pub enum HandshakeError {
    /// The client did not complete it within the handshake timeout (it may never have sent
    /// its hello).
    Timeout(Duration),
    /// It failed: no client certificate when one is required, one from another CA, no
    /// common protocol version or ALPN protocol, not TLS at all, or the client went away.
    Failed(std::io::Error),
}

impl fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandshakeError::Timeout(limit) => write!(
                f,
                "TLS handshake not complete within --tls-handshake-timeout {}",
                humantime::format_duration(*limit)
            ),
            HandshakeError::Failed(e) => write!(f, "TLS handshake failed: {e}"),
        }
    }
}

impl std::error::Error for HandshakeError {}

/// Runs the server side of a TLS handshake on `io` (an accepted TCP connection) with `tls`'s
/// current configuration, for at most its handshake timeout.
///
/// # Errors
///
/// [`HandshakeError::Timeout`] past the timeout, [`HandshakeError::Failed`] when the
/// handshake fails; both counted. The connection is dropped with the error.
pub async fn accept<IO>(tls: &Tls, io: IO) -> Result<TlsStream<IO>, HandshakeError>
where
    IO: AsyncRead + AsyncWrite + Unpin,
{
    let acceptor = TlsAcceptor::from(tls.current());
    let limit = tls.handshake_timeout();
    match tokio::time::timeout(limit, acceptor.accept(io)).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(e)) => {
            tls.count(Failure::Error);
            Err(HandshakeError::Failed(e))
        }
        Err(_) => {
            tls.count(Failure::Timeout);
            Err(HandshakeError::Timeout(limit))
        }
    }
}
