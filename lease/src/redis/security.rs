//! How a Redis lease reaches a secured server: TLS (`rediss://`) with the CA given and a
//! client certificate, and an ACL user's password given apart from the URL.

use ::redis::{ClientTlsConfig, ConnectionAddr, TlsCertificates};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::store::redis_error;
use super::Redis;
use crate::{Lease, LeaseBuilder, LeaseError, Password, StoreError, StoreErrorKind};

/// The PEM texts of a `rediss://` connection's CA and client certificate, as given.
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

impl Redis {
    /// Refuses TLS settings for a plain `redis://` URL.
    fn need_tls(&self, action: &'static str) -> Result<(), LeaseError> {
        match self.info.addr() {
            ConnectionAddr::TcpTls { .. } => Ok(()),
            _ => Err(invalid(
                action,
                "TLS settings for a plain redis:// URL: use rediss://HOST:PORT/",
            )),
        }
    }

    /// Builds the client again from the address, the password and the TLS files.
    fn rebuild(&mut self, action: &'static str) -> Result<(), LeaseError> {
        self.client = if matches!(self.info.addr(), ConnectionAddr::TcpTls { .. }) {
            let certs = TlsCertificates {
                client_tls: self.tls.client.clone().map(|(cert, key)| ClientTlsConfig {
                    client_cert: cert,
                    client_key: key,
                }),
                root_cert: self.tls.ca.clone(),
            };
            ::redis::Client::build_with_tls(self.info.clone(), certs)
        } else {
            ::redis::Client::open(self.info.clone())
        }
        .map_err(|e| redis_error(action, e))?;
        Ok(())
    }
}

/// At least one certificate, and nothing but PEM blocks, in `pem`.
fn check_certificates(pem: &[u8], action: &'static str) -> Result<(), LeaseError> {
    let mut found = 0;
    for cert in CertificateDer::pem_slice_iter(pem) {
        if cert.is_err() {
            return Err(invalid(action, "not a PEM text"));
        }
        found += 1;
    }
    if found == 0 {
        return Err(invalid(action, "no CERTIFICATE block in the PEM text"));
    }
    Ok(())
}

/// A setting the client cannot use, as Redis's client reports one.
fn invalid(action: &'static str, what: &'static str) -> LeaseError {
    LeaseError::Store {
        store: "redis",
        action,
        cause: StoreError::new(StoreErrorKind::Settings, what),
    }
}

impl LeaseBuilder<Redis> {
    /// Trusts only the CA certificates of `pem` (PEM, one or more) for the server's
    /// certificate, instead of the webpki roots. Needs a `rediss://` URL.
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if the
    /// URL is not `rediss://` or the PEM holds no certificate.
    ///
    /// ```
    /// use snowmint_lease::redis::RedisLease;
    ///
    /// let err = RedisLease::builder("rediss://127.0.0.1:6380/")?.ca_pem(b"not PEM").unwrap_err();
    /// assert!(err.to_string().starts_with("could not read the CA certificates in Redis"), "{err}");
    /// let err = RedisLease::builder("redis://127.0.0.1:6379/")?.ca_pem(b"").unwrap_err();
    /// assert!(std::error::Error::source(&err).unwrap().to_string().contains("rediss://"));
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn ca_pem(mut self, pem: &[u8]) -> Result<Self, LeaseError> {
        const ACTION: &str = "read the CA certificates";
        self.backend().need_tls(ACTION)?;
        check_certificates(pem, ACTION)?;
        let backend = self.backend_mut();
        backend.tls.ca = Some(pem.to_vec());
        backend.rebuild("read the CA certificates")?;
        Ok(self)
    }

    /// Presents the client certificate of `cert_pem` with the private key of `key_pem`, for
    /// a server started with `--tls-auth-clients yes` (its default). Needs `rediss://`.
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if the
    /// URL is not `rediss://` or the certificate or key cannot be read.
    ///
    /// ```
    /// use snowmint_lease::redis::RedisLease;
    ///
    /// let err = RedisLease::builder("rediss://127.0.0.1:6380/")?
    ///     .client_cert_pem(b"", b"")
    ///     .unwrap_err();
    /// assert!(err.to_string().starts_with("could not read the client certificate"), "{err}");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn client_cert_pem(mut self, cert_pem: &[u8], key_pem: &[u8]) -> Result<Self, LeaseError> {
        const ACTION: &str = "read the client certificate";
        self.backend().need_tls(ACTION)?;
        check_certificates(cert_pem, ACTION)?;
        if PrivateKeyDer::from_pem_slice(key_pem).is_err() {
            return Err(invalid(ACTION, "no private key in the key's PEM text"));
        }
        let backend = self.backend_mut();
        backend.tls.client = Some((cert_pem.to_vec(), key_pem.to_vec()));
        backend.rebuild("read the client certificate")?;
        Ok(self)
    }

    /// The password of the URL's user (`rediss://minter@host:6380/`; without a user,
    /// Redis's `default` user), sent with `AUTH` on every connection: given here rather
    /// than in the URL, it is in no `Debug`, message or process list.
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if the
    /// client cannot be rebuilt with it.
    ///
    /// ```
    /// use snowmint_lease::Password;
    /// use snowmint_lease::redis::RedisLease;
    ///
    /// let lease = RedisLease::builder("redis://minter@127.0.0.1:6379/")?
    ///     .password(Password::new("s3cret-pw"))?;
    /// assert!(!format!("{lease:?}").contains("s3cret-pw"));
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn password(mut self, password: Password) -> Result<Self, LeaseError> {
        let backend = self.backend_mut();
        let settings = backend
            .info
            .redis_settings()
            .clone()
            .set_password(password.expose());
        backend.info = backend.info.clone().set_redis_settings(settings);
        backend.rebuild("set the password")?;
        Ok(self)
    }
}

impl Lease<Redis> {
    /// The server's address, `HOST:PORT`, as errors name it.
    ///
    /// ```
    /// let lease = snowmint_lease::redis::RedisLease::builder("rediss://u@10.0.0.5:6380/")?.build()?;
    /// assert_eq!(lease.server(), "10.0.0.5:6380");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn server(&self) -> String {
        self.backend().info.addr().to_string()
    }
}
