//! The TLS flags of `snowmint serve`, shared by its listeners.

use std::path::PathBuf;
use std::time::Duration;

use crate::escape::quoted;
use crate::value::{self, duration};

use super::files::TlsFiles;

/// TLS on the listener (plaintext without these flags).
#[derive(Debug, Clone, clap::Args)]
pub struct TlsArgs {
    /// Serve HTTPS with this certificate chain (PEM, the server's certificate first; with
    /// --tls-key). Reloaded on SIGHUP and when the file changes
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Mutual TLS: require a client certificate signed by this CA (PEM, one or more
    /// certificates); a client without one, or with one from another CA, is refused in the
    /// handshake
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,

    /// How long a new connection may take to complete its TLS handshake; past it the
    /// connection is closed (a client that never sends its hello holds no slot for long)
    #[arg(long, value_name = "DURATION", default_value = "10s", requires = "tls_cert", value_parser = value::text(handshake_timeout))]
    pub tls_handshake_timeout: Duration,
}

impl TlsArgs {
    /// The files to serve with, or `None` for plaintext.
    pub fn files(&self) -> Option<TlsFiles> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: self.tls_client_ca.clone(),
            }),
            _ => None,
        }
    }
}

/// A handshake timeout: 1 ms to 1 hour.
fn handshake_timeout(text: &str) -> Result<Duration, String> {
    let d = duration(text)?;
    if d < Duration::from_millis(1) || d > Duration::from_secs(3600) {
        return Err(format!(
            "{} is not a timeout: allowed 1ms to 1h",
            quoted(text)
        ));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_timeout_is_bounded() {
        assert_eq!(handshake_timeout("2s"), Ok(Duration::from_secs(2)));
        assert!(handshake_timeout("0s").unwrap_err().contains("1ms to 1h"));
        assert!(handshake_timeout("2h").is_err());
    }
}
