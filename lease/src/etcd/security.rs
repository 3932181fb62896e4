//! [`Security`]: how the lease reaches a secured cluster: TLS (the roots it trusts, the
//! client certificate it presents) and etcd's user authentication.

use std::sync::Arc;

use ureq::tls::{parse_pem, Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

use super::Etcd;
use crate::{Lease, LeaseBuilder, LeaseError, Password};

/// The connection settings of an etcd lease beyond its endpoints. Its `Debug` shows what is
/// set, never a key or the password.
#[derive(Clone, Default)]
pub(crate) struct Security {
    /// `https` to every endpoint (`etcds://`, or `https://` before each).
    pub(crate) tls: bool,
    /// The CA certificates that sign the members' certificates; `None`: the webpki roots.
    roots: Option<Arc<Vec<Certificate<'static>>>>,
    /// The client certificate (with its chain) and key, for `--client-cert-auth`.
    client: Option<ClientCert>,
    /// etcd's user and password, for `/v3/auth/authenticate`.
    pub(crate) user: Option<(String, Password)>,
}

impl core::fmt::Debug for Security {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Security")
            .field("tls", &self.tls)
            .field("ca_certificates", &self.roots.as_ref().map(|r| r.len()))
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
        let certs = certificates(pem, ACTION)?;
        self.roots = Some(Arc::new(certs));
        Ok(())
    }

    /// Presents the certificate chain of `cert_pem` with the private key of `key_pem`.
    pub(crate) fn set_client(&mut self, cert_pem: &[u8], key_pem: &[u8]) -> Result<(), LeaseError> {
        const ACTION: &str = "read the client certificate";
        self.need_tls(ACTION)?;
        let chain = certificates(cert_pem, ACTION)?;
        let key = PrivateKey::from_pem(key_pem).map_err(|e| {
            note(
                ACTION,
                format!("no private key in the key's PEM text ({e})"),
            )
        })?;
        self.client = Some(ClientCert::new_with_certs(&chain, key));
        Ok(())
    }

    /// The TLS configuration: the roots given (else the webpki roots), the client
    /// certificate if any. rustls checks the server's name or IP address against the
    /// certificate's SANs, its validity dates and its chain to a root.
    pub(crate) fn tls_config(&self) -> TlsConfig {
        let roots = match &self.roots {
            Some(certs) => RootCerts::Specific(Arc::clone(certs)),
            None => RootCerts::WebPki,
        };
        TlsConfig::builder()
            .root_certs(roots)
            .client_cert(self.client.clone())
            .build()
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

/// Every certificate of a PEM text: at least one.
fn certificates(pem: &[u8], action: &'static str) -> Result<Vec<Certificate<'static>>, LeaseError> {
    let mut certs = Vec::new();
    for item in parse_pem(pem) {
        match item {
            Ok(PemItem::Certificate(c)) => certs.push(c),
            Ok(_) => {}
            Err(e) => return Err(note(action, format!("not a PEM text ({e})"))),
        }
    }
    if certs.is_empty() {
        return Err(note(
            action,
            "no CERTIFICATE block in the PEM text".to_string(),
        ));
    }
    Ok(certs)
}

fn note(action: &'static str, text: String) -> LeaseError {
    super::store::etcd_error(action, crate::StoreErrorKind::Settings, text)
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

    /// Authenticates as etcd user `name` (etcdctl's `--user`): every request carries the
    /// token `/v3/auth/authenticate` gives, taken again when etcd refuses it (expired, or
    /// issued before a change of users or roles). The user's role needs read and write on
    /// the namespace's prefix, `snowmint/NS/`. A wrong password is an error naming the
    /// endpoint and etcd's answer; the password is in no message and no `Debug`.
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
