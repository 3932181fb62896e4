//! How a PostgreSQL lease reaches a secured server: TLS with the user's CA (rustls on ring),
//! a client certificate, and a SCRAM password given apart from the URL.

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::backend::Postgres;
use super::error::failed;
use crate::{LeaseBuilder, LeaseError, Password, StoreErrorKind};

/// The PEM texts of the CA and the client certificate, as given.
#[derive(Clone, Default)]
pub(super) struct TlsFiles {
    ca: Option<Vec<u8>>,
    client: Option<(Vec<u8>, Vec<u8>)>,
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
fn check_certificates(pem: &[u8], action: &'static str) -> Result<(), LeaseError> {
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

impl LeaseBuilder<Postgres> {
    /// Connects with TLS only (`sslmode=require`, no plain fallback), trusting only the CA
    /// certificates of `pem` (PEM, one or more) for the server's certificate, whose name (or
    /// IP address) must be the host's.
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if `pem` holds no certificate.
    ///
    /// ```
    /// use snowmint_lease::postgres::PostgresLease;
    /// let err = PostgresLease::builder("postgres://u@db1/ids")?.ca_pem(b"not PEM").unwrap_err();
    /// assert!(err.to_string().starts_with("could not read the CA certificates in PostgreSQL"), "{err}");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn ca_pem(mut self, pem: &[u8]) -> Result<Self, LeaseError> {
        check_certificates(pem, "read the CA certificates")?;
        self.backend_mut().tls.ca = Some(pem.to_vec());
        Ok(self)
    }

    /// Presents the client certificate of `cert_pem` with the private key of `key_pem` (for
    /// a `hostssl … cert` line of `pg_hba.conf`, or `clientcert=verify-full`). Needs
    /// [`ca_pem`](LeaseBuilder::ca_pem).
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if `cert_pem` holds no certificate or `key_pem` no key.
    ///
    /// ```
    /// use snowmint_lease::postgres::PostgresLease;
    /// let err = PostgresLease::builder("postgres://u@db1/ids")?.client_cert_pem(b"", b"").unwrap_err();
    /// assert!(err.to_string().starts_with("could not read the client certificate"), "{err}");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn client_cert_pem(mut self, cert_pem: &[u8], key_pem: &[u8]) -> Result<Self, LeaseError> {
        const ACTION: &str = "read the client certificate";
        check_certificates(cert_pem, ACTION)?;
        if PrivateKeyDer::from_pem_slice(key_pem).is_err() {
            return Err(failed(
                StoreErrorKind::Settings,
                ACTION,
                "-",
                None,
                "no private key in the key's PEM text".to_string(),
            ));
        }
        self.backend_mut().tls.client = Some((cert_pem.to_vec(), key_pem.to_vec()));
        Ok(self)
    }

    /// The role to log in as, in place of the URL's user (`postgres://HOST:PORT/DB` names
    /// none).
    ///
    /// ```
    /// let lease = snowmint_lease::postgres::PostgresLease::builder("postgres://127.0.0.1:5432/ids")?.user("minter");
    /// assert!(format!("{lease:?}").contains("\"minter\""));
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn user(mut self, name: &str) -> Self {
        self.backend_mut().config.user(name);
        self
    }

    /// The password of the URL's user (SCRAM-SHA-256, or whatever `pg_hba.conf` asks): given
    /// here rather than in the URL, it is in no `Debug`, message or process list.
    ///
    /// ```
    /// use snowmint_lease::Password;
    /// use snowmint_lease::postgres::PostgresLease;
    ///
    /// let lease = PostgresLease::builder("postgres://minter@127.0.0.1:5432/ids")?
    ///     .password(Password::new("s3cret-pw"));
    /// assert!(!format!("{lease:?}").contains("s3cret-pw"));
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn password(mut self, password: Password) -> Self {
        self.backend_mut().config.password(password.expose());
        self
    }
}
