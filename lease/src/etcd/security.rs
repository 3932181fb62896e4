//! [`Security`]: how the lease reaches a secured cluster: TLS (the roots it trusts, the
//! client certificate it presents) and etcd's user authentication.

use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tonic::transport::{Certificate, ClientTlsConfig, Identity};

use super::Etcd;
use crate::{Lease, LeaseBuilder, LeaseError, Password};

/// The PEM texts of a client certificate (with its chain) and of its key.
type ClientPem = (Vec<u8>, Vec<u8>);

/// The connection settings of an etcd lease beyond its endpoints. Its `Debug` shows what is
/// set, never a key or the password.
#[derive(Clone, Default)]
pub(crate) struct Security {
    /// TLS to every endpoint (`etcds://`, or `https://` before each).
    pub(crate) tls: bool,
    /// The PEM text of the CA certificates that sign the members' certificates, and how
    /// many it holds; `None`: the webpki roots.
    roots: Option<Arc<(Vec<u8>, usize)>>,
    /// The PEM texts of the client certificate (with its chain) and its key, for
    /// `--client-cert-auth`.
    client: Option<Arc<ClientPem>>,
    /// etcd's user and password, for `Authenticate`; none: the client certificate's common
    /// name is the user (or authentication is off).
    pub(crate) user: Option<(String, Password)>,
}

impl core::fmt::Debug for Security {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Security")
            .field("tls", &self.tls)
            .field("ca_certificates", &self.roots.as_ref().map(|r| r.1))
            .field("client_certificate", &self.client.is_some())
            .field("user", &self.user)
            .finish()
    }
}

impl Security {
    /// Plain or TLS, with the webpki roots, no client certificate, no user.
    pub(crate) fn new(tls: bool) -> Security {
        Security {
            tls,
            ..Security::default()
        }
    }

    /// Trusts the certificates of `pem` (one or more) as the only roots.
    pub(crate) fn set_roots(&mut self, pem: &[u8]) -> Result<(), LeaseError> {
        const ACTION: &str = "read the CA certificates";
        self.need_tls(ACTION)?;
        let count = certificates(pem, ACTION)?;
        self.roots = Some(Arc::new((pem.to_vec(), count)));
        Ok(())
    }

    /// Presents the certificate chain of `cert_pem` with the private key of `key_pem`.
    pub(crate) fn set_client(&mut self, cert_pem: &[u8], key_pem: &[u8]) -> Result<(), LeaseError> {
        const ACTION: &str = "read the client certificate";
        self.need_tls(ACTION)?;
        certificates(cert_pem, ACTION)?;
        PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| {
            note(
                ACTION,
                format!("no private key in the key's PEM text ({e})"),
            )
        })?;
        self.client = Some(Arc::new((cert_pem.to_vec(), key_pem.to_vec())));
        Ok(())
    }

    /// The TLS configuration, for a TLS URL: the roots given (else the webpki roots), the
    /// client certificate if any, the handshake bounded by `timeout`. rustls checks the
    /// server's name or IP address against the certificate's SANs, its validity dates and its
    /// chain to a root.
    pub(crate) fn tls_config(&self, timeout: std::time::Duration) -> Option<ClientTlsConfig> {
        if !self.tls {
            return None;
        }
        let mut config = ClientTlsConfig::new().timeout(timeout);
        config = match &self.roots {
            Some(roots) => config.ca_certificate(Certificate::from_pem(&roots.0)),
            None => config.with_webpki_roots(),
        };
        if let Some(client) = &self.client {
            config = config.identity(Identity::from_pem(&client.0, &client.1));
        }
        Some(config)
    }

    fn need_tls(&self, action: &'static str) -> Result<(), LeaseError> {
        if self.tls {
            return Ok(());
        }
        Err(note(
            action,
            "TLS settings for a plain etcd:// URL: use etcds://HOST:PORT,... (or https:// before each endpoint)"
                .to_string(),
        ))
    }
}

/// How many certificates a PEM text holds: at least one.
fn certificates(pem: &[u8], action: &'static str) -> Result<usize, LeaseError> {
    let mut count = 0;
    for item in CertificateDer::pem_slice_iter(pem) {
        match item {
            Ok(_) => count += 1,
            Err(e) => return Err(note(action, format!("not a PEM text ({e})"))),
        }
    }
    if count == 0 {
        return Err(note(
            action,
            "no CERTIFICATE block in the PEM text".to_string(),
        ));
    }
    Ok(count)
}

fn note(action: &'static str, text: String) -> LeaseError {
    super::error::etcd_error(action, crate::StoreErrorKind::Settings, text)
}

impl LeaseBuilder<Etcd> {
    /// Trusts only the CA certificates of `pem` (a PEM text with one or more
    /// `CERTIFICATE` blocks, etcdctl's `--cacert`) for the members' certificates, instead of
    /// the webpki roots. Needs a TLS URL (`etcds://`).
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if the
    /// URL is not TLS (`etcds://`) or the PEM holds no certificate.
    ///
    /// ```
    /// use snowmint_lease::etcd::EtcdLease;
    ///
    /// let err = EtcdLease::builder("etcds://127.0.0.1:2379")?.ca_pem(b"not PEM").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "could not read the CA certificates in etcd: no CERTIFICATE block in the PEM text"
    /// );
    /// let err = EtcdLease::builder("etcd://127.0.0.1:2379")?.ca_pem(b"").unwrap_err();
    /// assert!(err.to_string().contains("use etcds://"), "{err}");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn ca_pem(mut self, pem: &[u8]) -> Result<Self, LeaseError> {
        self.backend_mut().security.set_roots(pem)?;
        Ok(self)
    }

    /// Presents the client certificate of `cert_pem` (its chain, leaf first) with the
    /// private key of `key_pem` (PKCS#8, PKCS#1 or SEC1), for a cluster started with
    /// `--client-cert-auth` (etcdctl's `--cert` and `--key`). Needs a TLS URL.
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`](crate::StoreErrorKind::Settings)) if the
    /// URL is not TLS or the certificate or key cannot be read.
    ///
    /// ```
    /// use snowmint_lease::etcd::EtcdLease;
    ///
    /// let err = EtcdLease::builder("etcds://127.0.0.1:2379")?
    ///     .client_cert_pem(b"", b"")
    ///     .unwrap_err();
    /// assert!(err.to_string().starts_with("could not read the client certificate"), "{err}");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn client_cert_pem(mut self, cert_pem: &[u8], key_pem: &[u8]) -> Result<Self, LeaseError> {
        self.backend_mut().security.set_client(cert_pem, key_pem)?;
        Ok(self)
    }

    /// Authenticates as etcd user `name` with a password (etcdctl's `--user`): every call
    /// carries the token etcd's `Authenticate` gives, in the `token` metadata, taken again
    /// when etcd refuses it (expired, or issued before a change of users or roles). The
    /// user's role needs read and write on the namespace's prefix, `snowmint/NS/`. A wrong
    /// password is an error naming the endpoint and etcd's answer; the password is in no
    /// message and no `Debug`.
    ///
    /// Without a user, a cluster with authentication on and `--client-cert-auth` takes the
    /// common name of the [client certificate](crate::LeaseBuilder::client_cert_pem) for the user
    /// (etcd's certificate-as-user authentication): no password is needed, nor set.
    ///
    /// ```
    /// use snowmint_lease::etcd::EtcdLease;
    /// use snowmint_lease::Password;
    ///
    /// let lease = EtcdLease::builder("etcds://127.0.0.1:2379")?.user("minter", Password::new("pw")).build()?;
    /// assert_eq!(lease.user_name(), Some("minter"));
    /// assert!(!format!("{lease:?}").contains("\"pw\""));
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn user(mut self, name: &str, password: Password) -> Self {
        self.backend_mut().security.user = Some((name.to_string(), password));
        self
    }
}

impl Lease<Etcd> {
    /// The etcd user set with [`user`](crate::LeaseBuilder::user), if any.
    ///
    /// ```
    /// assert_eq!(snowmint_lease::etcd::EtcdLease::builder("etcd://a:1")?.build()?.user_name(), None);
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn user_name(&self) -> Option<&str> {
        self.backend()
            .security
            .user
            .as_ref()
            .map(|(name, _)| name.as_str())
    }

    /// Whether the endpoints are reached over TLS (`etcds://` or `https://`).
    ///
    /// ```
    /// use snowmint_lease::etcd::EtcdLease;
    /// assert!(!EtcdLease::builder("etcd://a:1")?.build()?.is_tls());
    /// assert!(EtcdLease::builder("https://a:1")?.build()?.is_tls());
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn is_tls(&self) -> bool {
        self.backend().security.tls
    }
}
