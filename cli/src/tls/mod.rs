//! TLS on the service's listeners (rustls on ring): the certificate chain and key from PEM
//! files, optionally client certificates required and verified against a CA (mutual TLS),
//! reloaded on SIGHUP or when the files change, each handshake bounded in time.
//!
//! Shared by every listener of `snowmint serve`: each makes its own [`Tls`] with the ALPN
//! protocol it speaks ([`Alpn::Http1`] for HTTP/1.1, [`Alpn::H2`] for gRPC) from the same
//! [`TlsArgs`], runs [`Tls::watch`], and turns each accepted socket into a TLS stream with
//! [`accept`] inside its own connection handling (the HTTP listener on the connection's
//! task, the gRPC listener on a task per handshake).
//!
//! One concept per module: [`args`] the flags, [`error`] what can be wrong with them,
//! [`files`] reading the PEM files, [`config`] the rustls server configuration, [`reload`]
//! the current configuration and its reloads, [`acceptor`] one handshake.

mod acceptor;
mod args;
mod config;
mod error;
mod files;
mod reload;
#[cfg(test)]
mod test_certs;

pub use self::acceptor::accept;
pub use self::args::TlsArgs;
pub use self::config::Alpn;
pub use self::reload::Tls;
