//! Certificates made at test time with `rcgen`, written as PEM files into a directory: a CA,
//! a server certificate for `127.0.0.1` and `localhost` (server and client use, as etcd's
//! gateway dials its own member with it), a client certificate without a common name (the
//! harness's, for etcd's JSON gateway, which refuses one with a common name when
//! authentication is on), one with `CN=snow` (etcd's user, for the lease over gRPC), and the
//! bad ones the error tests need: another CA, an expired server certificate, one for another
//! host name.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rcgen::{
    date_time_ymd, BasicConstraints, CertificateParams, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose, SanType,
};

/// The PEM files of one test's certificates, in a directory removed when they are dropped
/// (declare them before the servers that read them).
pub struct Certs {
    dir: PathBuf,
    /// The CA that signed every certificate below but `other_ca`'s.
    pub ca: PathBuf,
    /// A CA that signed none of them (a client trusting it refuses the servers).
    pub other_ca: PathBuf,
    /// The server's certificate and key: SANs `127.0.0.1` (an IP address) and `localhost`.
    pub server: (PathBuf, PathBuf),
    /// A server certificate whose validity ended in 2021.
    pub expired: (PathBuf, PathBuf),
    /// A server certificate for `other.example` only.
    pub wrong_name: (PathBuf, PathBuf),
    /// The client's certificate and key (no common name: etcd's user comes from the password).
    pub client: (PathBuf, PathBuf),
    /// A client certificate and key with the subject `CN=snow`, as etcd's security guide and
    /// kubeadm issue them: with `--client-cert-auth` etcd takes `snow` for the user.
    pub cn_client: (PathBuf, PathBuf),
}

impl Certs {
    /// Makes them all in `dir`.
    pub fn make(dir: &Path) -> Certs {
        std::fs::create_dir_all(dir).expect("certificate directory");
        let (ca_params, ca_key) = ca("snowmint test CA");
        let ca_cert = ca_params.self_signed(&ca_key).expect("CA");
        let issuer = Issuer::new(ca_params, ca_key);
        let (other_params, other_key) = ca("another CA");
        let other_cert = other_params.self_signed(&other_key).expect("other CA");
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("write a PEM file");
            path
        };
        let leaf = |name: &str, sans: &[&str], client_only: bool, expired: bool| {
            let mut params = CertificateParams::default();
            // No common name: with client certificates required, etcd takes a client
            // certificate's common name for a user name, and refuses to authenticate through
            // its gateway a client whose certificate has one. Servers are named in SANs; the
            // one client certificate with a common name says so in its name.
            params.distinguished_name = DistinguishedName::new();
            if let Some(cn) = name.strip_prefix("cn-") {
                params.distinguished_name.push(DnType::CommonName, cn);
            }
            for san in sans {
                params.subject_alt_names.push(match san.parse() {
                    Ok(ip) => SanType::IpAddress(ip),
                    Err(_) => SanType::DnsName((*san).try_into().expect("a DNS name")),
                });
            }
            params.extended_key_usages = if client_only {
                vec![ExtendedKeyUsagePurpose::ClientAuth]
            } else {
                vec![
                    ExtendedKeyUsagePurpose::ServerAuth,
                    ExtendedKeyUsagePurpose::ClientAuth,
                ]
            };
            if expired {
                params.not_before = date_time_ymd(2020, 1, 1);
                params.not_after = date_time_ymd(2021, 1, 1);
            }
            let key = KeyPair::generate().expect("key");
            let cert = params.signed_by(&key, &issuer).expect("sign");
            (
                write(&format!("{name}.pem"), &cert.pem()),
                write(&format!("{name}-key.pem"), &key.serialize_pem()),
            )
        };
        Certs {
            dir: dir.to_path_buf(),
            ca: write("ca.pem", &ca_cert.pem()),
            other_ca: write("other-ca.pem", &other_cert.pem()),
            server: leaf("server", &["127.0.0.1", "localhost"], false, false),
            expired: leaf("expired", &["127.0.0.1", "localhost"], false, true),
            wrong_name: leaf("wrong-name", &["other.example"], false, false),
            client: leaf("snowmint-client", &[], true, false),
            cn_client: leaf("cn-snow", &[], true, false),
        }
    }

    /// A `ureq` TLS configuration trusting the CA and presenting the client certificate.
    pub fn tls_config(&self) -> ureq::tls::TlsConfig {
        use ureq::tls::{Certificate, ClientCert, PrivateKey, RootCerts, TlsConfig};
        let read = |p: &Path| std::fs::read(p).expect("read a PEM file");
        let ca = Certificate::from_pem(&read(&self.ca)).expect("CA PEM");
        let cert = Certificate::from_pem(&read(&self.client.0)).expect("client PEM");
        let key = PrivateKey::from_pem(&read(&self.client.1)).expect("key PEM");
        TlsConfig::builder()
            .root_certs(RootCerts::new_with_certs(&[ca]))
            .client_cert(Some(ClientCert::new_with_certs(&[cert], key)))
            .build()
    }
}

impl Drop for Certs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A CA's parameters and key.
fn ca(name: &str) -> (CertificateParams, KeyPair) {
    let mut params = CertificateParams::default();
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    (params, KeyPair::generate().expect("CA key"))
}
