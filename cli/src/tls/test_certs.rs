//! Certificates for the unit tests, made with rcgen into a directory removed on drop: a CA,
//! a server certificate for 127.0.0.1 and its key, and a key of no certificate.

use std::path::PathBuf;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose, SanType,
};

use super::files::TlsFiles;

pub struct TestCerts {
    pub dir: PathBuf,
    /// The CA's certificate file.
    pub ca: PathBuf,
    /// The server's certificate and key.
    pub files: TlsFiles,
    /// A key that is not the server certificate's.
    pub other_key: PathBuf,
}

impl TestCerts {
    pub fn make(test: &str) -> TestCerts {
        let dir = std::env::temp_dir().join(format!("snowmint-tls-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut params = CertificateParams::default();
        params
            .distinguished_name
            .push(DnType::CommonName, "unit CA");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign];
        let ca_key = KeyPair::generate().unwrap();
        let ca_cert = params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(params, ca_key);
        let mut leaf = CertificateParams::default();
        leaf.subject_alt_names
            .push(SanType::IpAddress("127.0.0.1".parse().unwrap()));
        let key = KeyPair::generate().unwrap();
        let cert = leaf.signed_by(&key, &issuer).unwrap();
        let write = |name: &str, text: String| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        TestCerts {
            ca: write("ca.pem", ca_cert.pem()),
            files: TlsFiles {
                cert: write("server.pem", cert.pem()),
                key: write("server-key.pem", key.serialize_pem()),
                client_ca: None,
            },
            other_key: write(
                "other-key.pem",
                KeyPair::generate().unwrap().serialize_pem(),
            ),
            dir,
        }
    }
}

impl Drop for TestCerts {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
