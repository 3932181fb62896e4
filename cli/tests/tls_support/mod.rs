//! Certificates made at test time with rcgen for the TLS tests of `snowmint serve` (HTTPS in
//! `serve_https.rs`, gRPC in `grpc_tls.rs`): a CA in a directory removed on drop, and the
//! server and client certificates it issues, as PEM files.

#![allow(dead_code)]

use std::path::PathBuf;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};

/// A CA that issues certificates, as PEM files in a directory removed on drop.
pub struct Ca {
    pub dir: PathBuf,
    issuer: Issuer<'static, KeyPair>,
    /// The CA's own certificate file.
    pub pem: PathBuf,
}

/// A certificate and its key, as files, and the certificate's DER (to recognise it).
pub struct Leaf {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub der: Vec<u8>,
}

impl Ca {
    pub fn new(test: &str, name: &str) -> Ca {
        let dir = std::env::temp_dir().join(format!(
            "snowmint-https-{test}-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("certificate directory");
        let mut params = CertificateParams::default();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("CA key");
        let cert = params.self_signed(&key).expect("CA");
        let pem = dir.join("ca.pem");
        std::fs::write(&pem, cert.pem()).expect("write the CA");
        Ca {
            dir,
            issuer: Issuer::new(params, key),
            pem,
        }
    }

    /// A server certificate for 127.0.0.1 named `name` (or a client certificate), written as
    /// `name.pem` and `name-key.pem`.
    pub fn leaf(&self, name: &str, server: bool) -> Leaf {
        let mut params = CertificateParams::default();
        params.distinguished_name.push(DnType::CommonName, name);
        if server {
            params
                .subject_alt_names
                .push(SanType::IpAddress("127.0.0.1".parse().unwrap()));
            params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        } else {
            params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        }
        let key = KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &self.issuer).expect("sign");
        let leaf = Leaf {
            cert: self.dir.join(format!("{name}.pem")),
            key: self.dir.join(format!("{name}-key.pem")),
            der: cert.der().to_vec(),
        };
        std::fs::write(&leaf.cert, cert.pem()).expect("write a certificate");
        std::fs::write(&leaf.key, key.serialize_pem()).expect("write a key");
        leaf
    }
}

impl Drop for Ca {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
