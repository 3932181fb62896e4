//! [`StoreArgs`]: how a command reaches its lease store besides the URL (`--lease`): the
//! namespace, the timeout of each call, and for a secured store `--lease-cacert`,
//! `--lease-cert`, `--lease-key`, `--lease-user`, `--lease-password-file` (etcdctl's names)
//! and `SNOWMINT_LEASE_PASSWORD`. Flattened into every command that reaches a store
//! (`snowmint serve`'s `LeaseArgs`, `snowmint lease`).
//!
//! The password never comes from an argument (every user of the machine reads the process
//! list): from the environment, or a file. It lives in a `snowmint_lease::Password`, whose
//! `Debug` redacts it, and is in no message.

use std::path::{Path, PathBuf};
use std::time::Duration;

use snowmint_lease::etcd::{Etcd, EtcdLease};
use snowmint_lease::redis::{Redis, RedisLease};
use snowmint_lease::{LeaseBuilder, LeaseError, Password};

use crate::error::CliError;
use crate::escape::quoted;
use crate::serve::with_cause;
use crate::value::{self, duration};

/// The environment variable the store's password is read from.
pub const PASSWORD_ENV: &str = "SNOWMINT_LEASE_PASSWORD";

/// Where a lease's keys are besides the store's URL, and how to reach a secured store.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StoreArgs {
    /// The lease's namespace: one per ID space (and layout); services of one namespace never
    /// hold the same node number at once
    #[arg(
        long,
        value_name = "NAME",
        default_value = "default",
        requires = "lease"
    )]
    pub namespace: String,

    /// The connect, read and write timeout of each call to the lease's store (etcd tries the
    /// next endpoint after it) [default: a tenth of the TTL]
    #[arg(long, alias = "redis-timeout", value_name = "DURATION", requires = "lease", value_parser = value::text(duration))]
    pub lease_timeout: Option<Duration>,

    /// The CA certificates (PEM) that sign the store's server certificates, for etcds:// and
    /// rediss:// [default: the webpki roots]
    #[arg(long, value_name = "FILE")]
    pub lease_cacert: Option<PathBuf>,

    /// The client certificate (PEM) to present to the store, with --lease-key
    #[arg(long, value_name = "FILE", requires = "lease_key")]
    pub lease_cert: Option<PathBuf>,

    /// The private key (PEM) of --lease-cert
    #[arg(long, value_name = "FILE", requires = "lease_cert")]
    pub lease_key: Option<PathBuf>,

    /// The etcd user to authenticate as (for Redis, name the ACL user in the URL:
    /// rediss://USER@HOST:PORT/); the password from SNOWMINT_LEASE_PASSWORD or
    /// --lease-password-file
    #[arg(long, value_name = "NAME")]
    pub lease_user: Option<String>,

    /// A file holding the store's password (one line) [default: SNOWMINT_LEASE_PASSWORD]
    #[arg(long, value_name = "FILE")]
    pub lease_password_file: Option<PathBuf>,
}

impl StoreArgs {
    /// An etcd lease on `url` (`etcd://` or `etcds://`) with these settings.
    pub fn etcd(&self, url: &str) -> Result<LeaseBuilder<Etcd>, CliError> {
        let mut lease = EtcdLease::builder(url).map_err(parsed)?;
        if let Some(ca) = &self.lease_cacert {
            lease = lease.ca_pem(&read("--lease-cacert", ca)?).map_err(parsed)?;
        }
        if let (Some(cert), Some(key)) = (&self.lease_cert, &self.lease_key) {
            let (cert, key) = (read("--lease-cert", cert)?, read("--lease-key", key)?);
            lease = lease.client_cert_pem(&cert, &key).map_err(parsed)?;
        }
        match (
            &self.lease_user,
            self.password(std::env::var(PASSWORD_ENV).ok())?,
        ) {
            (Some(user), Some(password)) => lease = lease.user(user, password),
            (Some(user), None) => {
                return Err(CliError::input(format_args!(
                "--lease-user {}: no password; set {PASSWORD_ENV} or give --lease-password-file",
                quoted(user)
            )))
            }
            (None, Some(_)) => {
                return Err(CliError::input(
                    "a password for etcd but no --lease-user to authenticate as",
                ))
            }
            (None, None) => {}
        }
        Ok(lease)
    }

    /// A Redis lease on `url` (`redis://` or `rediss://`, `USER@` before the host for an ACL
    /// user) with these settings. A password inside the URL is refused.
    pub fn redis(&self, url: &str) -> Result<LeaseBuilder<Redis>, CliError> {
        if url_has_password(url) {
            return Err(CliError::input(format_args!(
                "--lease: the URL holds a password, which every user of this machine can read in \
                 the process list; remove it and set {PASSWORD_ENV} or give --lease-password-file"
            )));
        }
        if let Some(user) = &self.lease_user {
            return Err(CliError::input(format_args!(
                "--lease-user {} is for etcd; for Redis name the ACL user in the URL, \
                 rediss://USER@HOST:PORT/",
                quoted(user)
            )));
        }
        let mut lease = RedisLease::builder(url).map_err(parsed)?;
        if let Some(ca) = &self.lease_cacert {
            lease = lease.ca_pem(&read("--lease-cacert", ca)?).map_err(parsed)?;
        }
        if let (Some(cert), Some(key)) = (&self.lease_cert, &self.lease_key) {
            let (cert, key) = (read("--lease-cert", cert)?, read("--lease-key", key)?);
            lease = lease.client_cert_pem(&cert, &key).map_err(parsed)?;
        }
        if let Some(password) = self.password(std::env::var(PASSWORD_ENV).ok())? {
            lease = lease.password(password).map_err(parsed)?;
        }
        Ok(lease)
    }

    /// The password: the file's first line if `--lease-password-file` is given, else `env`
    /// (the variable's value), else none. An empty one is refused.
    fn password(&self, env: Option<String>) -> Result<Option<Password>, CliError> {
        let text = match &self.lease_password_file {
            Some(file) => {
                let bytes = read("--lease-password-file", file)?;
                let text = String::from_utf8(bytes).map_err(|_| {
                    CliError::input(format_args!(
                        "--lease-password-file {}: not UTF-8 text",
                        quoted(file.display().to_string())
                    ))
                })?;
                text.lines().next().unwrap_or("").to_string()
            }
            None => match env {
                Some(text) => text,
                None => return Ok(None),
            },
        };
        if text.is_empty() {
            return Err(CliError::input(format_args!(
                "the lease store's password is empty (from {})",
                if self.lease_password_file.is_some() {
                    "--lease-password-file"
                } else {
                    PASSWORD_ENV
                }
            )));
        }
        Ok(Some(Password::new(text)))
    }
}

/// The store a `--lease` URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// `etcd://` or `etcds://`.
    Etcd,
    /// `redis://` or `rediss://`.
    Redis,
}

/// Which store `url` names, by its scheme, or the error that lists the schemes.
pub fn store_kind(url: &str) -> Result<StoreKind, CliError> {
    if url.starts_with("etcd://") || url.starts_with("etcds://") {
        Ok(StoreKind::Etcd)
    } else if url.starts_with("redis://") || url.starts_with("rediss://") {
        Ok(StoreKind::Redis)
    } else {
        Err(CliError::input(format_args!(
            "--lease: {url:?} is neither a Redis URL (redis://HOST:PORT/DB, rediss:// for TLS) \
             nor an etcd cluster (etcd://HOST:PORT,HOST:PORT,..., etcds:// for TLS)"
        )))
    }
}

/// Whether a Redis URL's user part holds a password (`redis://USER:PASS@` or `redis://:PASS@`).
fn url_has_password(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or("");
    authority
        .rsplit_once('@')
        .is_some_and(|(user_info, _)| user_info.contains(':'))
}

/// A file's bytes, or an error naming the flag and the file.
fn read(flag: &str, path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| {
        CliError::input(format_args!(
            "{flag} {}: {e}",
            quoted(path.display().to_string())
        ))
    })
}

pub(crate) fn parsed(e: LeaseError) -> CliError {
    CliError::input(format_args!("--lease: {}", with_cause(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_a_redis_url_is_found() {
        assert!(url_has_password("rediss://minter:pw@h:6380/"));
        assert!(url_has_password("redis://:pw@h:6379/0"));
        assert!(!url_has_password("rediss://minter@h:6380/"));
        assert!(!url_has_password("redis://h:6379/"));
    }

    #[test]
    fn the_password_comes_from_the_file_else_the_environment_and_is_never_printed() {
        let dir = std::env::temp_dir().join(format!("snowmint-pw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pw");
        std::fs::write(&file, "from-file\n").unwrap();
        let none = StoreArgs::default();
        assert!(none.password(None).unwrap().is_none());
        let env = none.password(Some("from-env".into())).unwrap().unwrap();
        assert_eq!(env.expose(), "from-env");
        let with_file = StoreArgs {
            lease_password_file: Some(file.clone()),
            ..StoreArgs::default()
        };
        let pw = with_file
            .password(Some("from-env".into()))
            .unwrap()
            .unwrap();
        assert_eq!(
            pw.expose(),
            "from-file",
            "the file wins, its line break trimmed"
        );
        assert!(!format!("{pw:?}").contains("from-file"));
        std::fs::write(&file, "").unwrap();
        let err = with_file.password(None).unwrap_err().message().to_string();
        assert!(err.contains("empty"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_etcd_user_needs_a_password_and_a_redis_user_goes_in_the_url() {
        let args = StoreArgs {
            lease_user: Some("minter".into()),
            ..StoreArgs::default()
        };
        let err = args
            .redis("rediss://h:6380/")
            .unwrap_err()
            .message()
            .to_string();
        assert!(err.contains("name the ACL user in the URL"), "{err}");
        let err = StoreArgs::default()
            .redis("rediss://u:secret@h:6380/")
            .unwrap_err()
            .message()
            .to_string();
        assert!(
            err.contains("holds a password") && !err.contains("secret"),
            "{err}"
        );
    }
}
