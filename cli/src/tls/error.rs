//! [`TlsError`]: what is wrong with the TLS files, naming the flag, the file and the fault.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A TLS file that cannot be served with. Each names the flag and the file.
#[derive(Debug)]
pub enum TlsError {
    /// The file could not be read (missing, no permission, a directory).
    Read {
        flag: &'static str,
        path: PathBuf,
        cause: io::Error,
    },
    /// The file is larger than a PEM file of certificates or a key can sensibly be.
    TooLarge {
        flag: &'static str,
        path: PathBuf,
        limit: u64,
    },
    /// The file holds no PEM block of the kind wanted (`what`), or a malformed one.
    NoPem {
        flag: &'static str,
        path: PathBuf,
        what: &'static str,
        cause: Option<String>,
    },
    /// The private key is not the key of the certificate.
    KeyMismatch { cert: PathBuf, key: PathBuf },
    /// The key or the certificate was refused by rustls (an unsupported key type, a
    /// malformed certificate).
    Refused {
        cert: PathBuf,
        key: PathBuf,
        cause: rustls::Error,
    },
    /// The client CA file's certificates cannot verify clients.
    ClientCa { path: PathBuf, cause: String },
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsError::Read { flag, path, cause } => {
                write!(f, "{flag} {}: cannot read it: {cause}", path.display())
            }
            TlsError::TooLarge { flag, path, limit } => write!(
                f,
                "{flag} {}: larger than {limit} bytes, the most a PEM file of certificates or a \
                 key may hold here",
                path.display()
            ),
            TlsError::NoPem {
                flag,
                path,
                what,
                cause,
            } => {
                write!(f, "{flag} {}: no {what} in PEM form", path.display())?;
                match cause {
                    Some(cause) => write!(f, " ({cause})"),
                    None => Ok(()),
                }
            }
            TlsError::KeyMismatch { cert, key } => write!(
                f,
                "--tls-key {} is not the private key of --tls-cert {} (the first certificate's \
                 public key does not match it)",
                key.display(),
                cert.display()
            ),
            TlsError::Refused { cert, key, cause } => write!(
                f,
                "--tls-cert {} with --tls-key {}: refused by rustls: {cause}",
                cert.display(),
                key.display()
            ),
            TlsError::ClientCa { path, cause } => write!(
                f,
                "--tls-client-ca {}: cannot verify client certificates with it: {cause}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for TlsError {}
