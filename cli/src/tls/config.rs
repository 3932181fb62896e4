//! The rustls [`ServerConfig`] of a listener: its certificate and key, client certificates
//! required when a client CA is given, and the ALPN protocol the listener speaks.

use std::sync::Arc;

use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};

use super::error::TlsError;
use super::files::{Pems, TlsFiles};

/// The application protocol a listener speaks, offered in ALPN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alpn {
    /// `http/1.1`: the HTTP listener.
    Http1,
    /// `h2`: a gRPC listener (HTTP/2).
    H2,
}

impl Alpn {
    /// The protocol's ALPN identifier.
    pub fn id(self) -> &'static [u8] {
        match self {
            Alpn::Http1 => b"http/1.1",
            Alpn::H2 => b"h2",
        }
    }
}

/// The configuration for `pems` (read from `files`), offering `alpn`.
///
/// # Errors
///
/// A file without the certificate or key it should hold, a key that is not the certificate's,
/// a client CA that cannot verify anything: a [`TlsError`] naming the file.
pub fn server_config(files: &TlsFiles, pems: &Pems, alpn: Alpn) -> Result<ServerConfig, TlsError> {
    let chain = files.chain(pems)?;
    let key = files.private_key(pems)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let refused = |cause: rustls::Error| match cause {
        rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
            TlsError::KeyMismatch {
                cert: files.cert.clone(),
                key: files.key.clone(),
            }
        }
        cause => TlsError::Refused {
            cert: files.cert.clone(),
            key: files.key.clone(),
            cause,
        },
    };
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(refused)?;
    let builder = match files.client_roots(pems)? {
        None => builder.with_no_client_auth(),
        Some(cas) => {
            let path = files.client_ca.clone().unwrap_or_default();
            let mut roots = RootCertStore::empty();
            for ca in cas {
                roots.add(ca).map_err(|e| TlsError::ClientCa {
                    path: path.clone(),
                    cause: e.to_string(),
                })?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|e| TlsError::ClientCa {
                    path,
                    cause: e.to_string(),
                })?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder.with_single_cert(chain, key).map_err(refused)?;
    config.alpn_protocols = vec![alpn.id().to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::super::test_certs::TestCerts;
    use super::*;

    #[test]
    fn the_alpn_protocol_is_the_callers_and_a_foreign_key_is_named() {
        let certs = TestCerts::make("config");
        let pems = certs.files.read().unwrap();
        let h2 = server_config(&certs.files, &pems, Alpn::H2).unwrap();
        assert_eq!(h2.alpn_protocols, vec![b"h2".to_vec()]);
        let http = server_config(&certs.files, &pems, Alpn::Http1).unwrap();
        assert_eq!(http.alpn_protocols, vec![b"http/1.1".to_vec()]);

        let mut mutual = certs.files.clone();
        mutual.client_ca = Some(certs.ca.clone());
        let pems = mutual.read().unwrap();
        assert!(server_config(&mutual, &pems, Alpn::Http1).is_ok());

        let mut foreign = certs.files.clone();
        foreign.key = certs.other_key.clone();
        let pems = foreign.read().unwrap();
        let e = server_config(&foreign, &pems, Alpn::Http1).unwrap_err();
        assert!(matches!(e, TlsError::KeyMismatch { .. }), "{e}");
        assert!(e
            .to_string()
            .contains("other-key.pem is not the private key of --tls-cert"));
    }
}
