//! How a PostgreSQL lease reaches a secured server: TLS with the user's CA (rustls on ring),
//! a client certificate, and a SCRAM password given apart from the URL.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::PrivateKeyDer;

use super::backend::Postgres;
use super::error::failed;
use super::tls_files::check_certificates;
use crate::{LeaseBuilder, LeaseError, Password, StoreErrorKind};

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
