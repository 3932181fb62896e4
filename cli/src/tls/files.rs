//! [`TlsFiles`]: where the certificate chain, its key and the client CA are, and reading them
//! (each read bounded in size) into [`Pems`].

use std::io::Read;
use std::path::{Path, PathBuf};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::error::TlsError;

/// The most bytes a PEM file may hold: a chain of a dozen certificates is under 30 kB.
pub const MAX_PEM_BYTES: u64 = 1 << 20;

/// The TLS files of a listener, as given by the flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// `--tls-cert`: the certificate chain, the server's own first.
    pub cert: PathBuf,
    /// `--tls-key`: its private key.
    pub key: PathBuf,
    /// `--tls-client-ca`: the CA that signs the clients' certificates (mutual TLS).
    pub client_ca: Option<PathBuf>,
}

/// The files' bytes, as read at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pems {
    pub cert: Vec<u8>,
    pub key: Vec<u8>,
    pub client_ca: Option<Vec<u8>>,
}

impl TlsFiles {
    /// Reads every file.
    ///
    /// # Errors
    ///
    /// [`TlsError::Read`] or [`TlsError::TooLarge`], naming the file.
    pub fn read(&self) -> Result<Pems, TlsError> {
        Ok(Pems {
            cert: read_bounded("--tls-cert", &self.cert)?,
            key: read_bounded("--tls-key", &self.key)?,
            client_ca: match &self.client_ca {
                Some(path) => Some(read_bounded("--tls-client-ca", path)?),
                None => None,
            },
        })
    }

    /// The certificate chain in `pems`, the server's first.
    ///
    /// # Errors
    ///
    /// [`TlsError::NoPem`] when the file holds no certificate, or a malformed one.
    pub fn chain(&self, pems: &Pems) -> Result<Vec<CertificateDer<'static>>, TlsError> {
        certificates("--tls-cert", &self.cert, &pems.cert)
    }

    /// The private key in `pems`.
    ///
    /// # Errors
    ///
    /// [`TlsError::NoPem`] when the file holds no private key.
    pub fn private_key(&self, pems: &Pems) -> Result<PrivateKeyDer<'static>, TlsError> {
        PrivateKeyDer::from_pem_slice(&pems.key).map_err(|e| TlsError::NoPem {
            flag: "--tls-key",
            path: self.key.clone(),
            what: "private key (PKCS#8, PKCS#1 or SEC1)",
            cause: Some(e.to_string()),
        })
    }

    /// The client CA's certificates in `pems`, if mutual TLS is asked for.
    ///
    /// # Errors
    ///
    /// [`TlsError::NoPem`] when the file holds no certificate, or a malformed one.
    pub fn client_roots(
        &self,
        pems: &Pems,
    ) -> Result<Option<Vec<CertificateDer<'static>>>, TlsError> {
        match (&self.client_ca, &pems.client_ca) {
            (Some(path), Some(bytes)) => certificates("--tls-client-ca", path, bytes).map(Some),
            _ => Ok(None),
        }
    }
}

/// The whole file, refused past [`MAX_PEM_BYTES`] (a device or a log given by mistake is not
/// read to its end).
fn read_bounded(flag: &'static str, path: &Path) -> Result<Vec<u8>, TlsError> {
    let read = |cause| TlsError::Read {
        flag,
        path: path.to_path_buf(),
        cause,
    };
    let file = std::fs::File::open(path).map_err(read)?;
    let mut bytes = Vec::new();
    file.take(MAX_PEM_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read)?;
    if bytes.len() as u64 > MAX_PEM_BYTES {
        return Err(TlsError::TooLarge {
            flag,
            path: path.to_path_buf(),
            limit: MAX_PEM_BYTES,
        });
    }
    Ok(bytes)
}

/// Every certificate in `bytes`, at least one.
fn certificates(
    flag: &'static str,
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let none = |cause: Option<String>| TlsError::NoPem {
        flag,
        path: path.to_path_buf(),
        what: "certificate",
        cause,
    };
    let chain = CertificateDer::pem_slice_iter(bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| none(Some(e.to_string())))?;
    if chain.is_empty() {
        return Err(none(None));
    }
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("snowmint-tls-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn missing_large_and_empty_files_are_named() {
        let files = TlsFiles {
            cert: scratch("absent.pem"),
            key: scratch("absent-key.pem"),
            client_ca: None,
        };
        let e = files.read().unwrap_err().to_string();
        assert!(
            e.starts_with("--tls-cert ") && e.contains("absent.pem: cannot read it"),
            "{e}"
        );

        let big = scratch("big.pem");
        std::fs::write(&big, vec![b'A'; MAX_PEM_BYTES as usize + 1]).unwrap();
        let e = read_bounded("--tls-key", &big).unwrap_err().to_string();
        assert!(e.contains("larger than 1048576 bytes"), "{e}");

        let empty = scratch("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let files = TlsFiles {
            cert: empty.clone(),
            key: empty.clone(),
            client_ca: None,
        };
        let pems = files.read().unwrap();
        let e = files.chain(&pems).unwrap_err().to_string();
        assert!(e.contains("empty.pem: no certificate in PEM form"), "{e}");
        let e = files.private_key(&pems).unwrap_err().to_string();
        assert!(
            e.starts_with("--tls-key ") && e.contains("no private key"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(big.parent().unwrap());
    }
}
