//! [`TlsFiles`]: the CA and client certificate a PostgreSQL lease connects with, read and
//! checked when set, and the connector made from them.

use super::error::failed;
use crate::{LeaseError, StoreErrorKind};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// The PEM texts of the CA and the client certificate, as given.
#[derive(Clone, Default)]
pub(super) struct TlsFiles {
    pub(super) ca: Option<Vec<u8>>,
    pub(super) client: Option<(Vec<u8>, Vec<u8>)>,
}

impl core::fmt::Debug for TlsFiles {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TlsFiles")
            .field("ca", &self.ca.is_some())
            .field("client_certificate", &self.client.is_some())
            .finish()
    }
}

impl TlsFiles {
    /// The TLS connector for these files, or `None` (no TLS) if no CA was given.
    pub(super) fn connector(&self, servers: &str) -> Result<Option<MakeRustlsConnect>, LeaseError> {
        const ACTION: &str = "set up TLS";
        let Some(ca) = &self.ca else {
            return Ok(None);
        };
        let bad = |e: rustls::Error| {
            failed(
                StoreErrorKind::Settings,
                ACTION,
                servers,
                None,
                e.to_string(),
            )
        };
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca).flatten() {
            roots.add(cert).map_err(bad)?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(bad)?
            .with_root_certificates(roots);
        let config = match &self.client {
            Some((cert, key)) => {
                let chain = CertificateDer::pem_slice_iter(cert)
                    .flatten()
                    .collect::<Vec<_>>();
                let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| {
                    failed(
                        StoreErrorKind::Settings,
                        ACTION,
                        servers,
                        None,
                        format!("the client key: {e}"),
                    )
                })?;
                builder.with_client_auth_cert(chain, key).map_err(bad)?
            }
            None => builder.with_no_client_auth(),
        };
        Ok(Some(MakeRustlsConnect::new(config)))
    }
}

/// At least one certificate, and nothing but PEM blocks, in `pem`.
pub(super) fn check_certificates(pem: &[u8], action: &'static str) -> Result<(), LeaseError> {
    let mut found = 0;
    for cert in CertificateDer::pem_slice_iter(pem) {
        if cert.is_err() {
            return Err(failed(
                StoreErrorKind::Settings,
                action,
                "-",
                None,
                "not a PEM text".to_string(),
            ));
        }
        found += 1;
    }
    if found == 0 {
        return Err(failed(
            StoreErrorKind::Settings,
            action,
            "-",
            None,
            "no CERTIFICATE block in the PEM text".to_string(),
        ));
    }
    Ok(())
}
