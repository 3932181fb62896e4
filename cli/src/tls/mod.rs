//! TLS on the service's listeners (rustls on ring): the certificate chain and key from PEM
//! files, optionally client certificates required and verified against a CA (mutual TLS),
//! reloaded on SIGHUP or when the files change, each handshake bounded in time.
//!
//! Shared by every listener of `snowmint serve`: each makes its own [`Tls`] with the ALPN
//! protocol it speaks ([`Alpn::Http1`] for HTTP/1.1, [`Alpn::H2`] for gRPC) from the same
//! [`TlsArgs`], runs [`Tls::watch`], and turns each accepted socket into a TLS stream with
//! [`accept`] (inside its own connection handling, as the HTTP listener does), or takes the
//! completed connections of a listener from [`incoming`] (as tonic's `serve_with_incoming`
//! wants them).
//!
//! One concept per module: [`args`] the flags, [`error`] what can be wrong with them,
//! [`files`] reading the PEM files, [`config`] the rustls server configuration, [`reload`]
//! the current configuration and its reloads, [`acceptor`] one handshake, [`incoming`] a
//! listener's handshakes, concurrent and bounded.

mod acceptor;
mod args;
mod config;
mod error;
mod files;
mod incoming;
mod reload;
#[cfg(test)]
mod test_certs;

pub use self::acceptor::accept;
pub use self::args::TlsArgs;
pub use self::config::Alpn;
#[allow(unused_imports)] // For the gRPC listener (issue 43), merged beside this one.
pub use self::incoming::incoming;
pub use self::reload::Tls;
