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
use snowmint_lease::postgres::{Postgres, PostgresLease};
use snowmint_lease::redis::{Redis, RedisLease};
use snowmint_lease::{LeaseBuilder, LeaseError, Password};

use crate::error::{with_cause, CliError};
use crate::escape::quoted;
use crate::store_url;
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
        requires = "lease",
        value_parser = value::text(namespace)
    )]
    pub namespace: String,

    /// The connect, read and write timeout of each call to the lease's store (etcd tries the
    /// next endpoint after it) [default: a tenth of the TTL for `serve`, 5s for `lease`]
    #[arg(long, alias = "redis-timeout", value_name = "DURATION", requires = "lease", value_parser = value::text(duration))]
    pub lease_timeout: Option<Duration>,

    /// The CA certificates (PEM) that sign the store's server certificates, for etcds:// and
    /// rediss:// [default: the webpki roots]; for postgres:// it turns TLS on (required)
    #[arg(long, value_name = "FILE")]
    pub lease_cacert: Option<PathBuf>,

    /// The client certificate (PEM) to present to the store, with --lease-key
    #[arg(long, value_name = "FILE", requires = "lease_key")]
    pub lease_cert: Option<PathBuf>,

    /// The private key (PEM) of --lease-cert
    #[arg(long, value_name = "FILE", requires = "lease_cert")]
    pub lease_key: Option<PathBuf>,

    /// The etcd user (or PostgreSQL role) to authenticate as (for Redis, name the ACL user in
    /// the URL: rediss://USER@HOST:PORT/); the password from SNOWMINT_LEASE_PASSWORD or
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
        refuse_password(url)?;
        if store_url::shown(url) != url {
            return Err(CliError::input(format_args!(
                "--lease {}: etcd takes its user from --lease-user, not from the URL",
                store_url::shown(url)
            )));
        }
        let mut lease = EtcdLease::builder(url).map_err(parsed)?;
        if let Some(ca) = &self.lease_cacert {
            lease = lease
                .ca_pem(&read("--lease-cacert", ca, FILE_LIMIT)?)
                .map_err(parsed)?;
        }
        if let (Some(cert), Some(key)) = (&self.lease_cert, &self.lease_key) {
            let (cert, key) = (
                read("--lease-cert", cert, FILE_LIMIT)?,
                read("--lease-key", key, FILE_LIMIT)?,
            );
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
        refuse_password(url)?;
        store_url::redis_db(url).map_err(CliError::input)?;
        if let Some(user) = &self.lease_user {
            return Err(CliError::input(format_args!(
                "--lease-user {} is for etcd; for Redis name the ACL user in the URL, \
                 rediss://USER@HOST:PORT/",
                quoted(user)
            )));
        }
        let mut lease = RedisLease::builder(url).map_err(parsed)?;
        if let Some(ca) = &self.lease_cacert {
            lease = lease
                .ca_pem(&read("--lease-cacert", ca, FILE_LIMIT)?)
                .map_err(parsed)?;
        }
        if let (Some(cert), Some(key)) = (&self.lease_cert, &self.lease_key) {
            let (cert, key) = (
                read("--lease-cert", cert, FILE_LIMIT)?,
                read("--lease-key", key, FILE_LIMIT)?,
            );
            lease = lease.client_cert_pem(&cert, &key).map_err(parsed)?;
        }
        if let Some(password) = self.password(std::env::var(PASSWORD_ENV).ok())? {
            lease = lease.password(password).map_err(parsed)?;
        }
        Ok(lease)
    }

    /// A PostgreSQL lease on `url` (`postgres://USER@HOST:PORT/DB`, several `HOST:PORT`
    /// allowed) with these settings: TLS with `--lease-cacert` (and `--lease-cert`), the
    /// role from the URL or `--lease-user`, its password apart. A password inside the URL is
    /// refused.
    pub fn postgres(&self, url: &str) -> Result<LeaseBuilder<Postgres>, CliError> {
        refuse_password(url)?;
        let mut lease = PostgresLease::builder(url).map_err(parsed)?;
        if let Some(user) = &self.lease_user {
            lease = lease.user(user);
        }
        if let Some(ca) = &self.lease_cacert {
            lease = lease
                .ca_pem(&read("--lease-cacert", ca, FILE_LIMIT)?)
                .map_err(parsed)?;
        }
        if let (Some(cert), Some(key)) = (&self.lease_cert, &self.lease_key) {
            if self.lease_cacert.is_none() {
                return Err(CliError::input(
                    "--lease-cert for PostgreSQL needs --lease-cacert (TLS with the server's CA)",
                ));
            }
            let (cert, key) = (
                read("--lease-cert", cert, FILE_LIMIT)?,
                read("--lease-key", key, FILE_LIMIT)?,
            );
            lease = lease.client_cert_pem(&cert, &key).map_err(parsed)?;
        }
        if let Some(password) = self.password(std::env::var(PASSWORD_ENV).ok())? {
            lease = lease.password(password);
        }
        Ok(lease)
    }

    /// The password: the file's first line if `--lease-password-file` is given, else `env`
    /// (the variable's value), else none. An empty one is refused.
    fn password(&self, env: Option<String>) -> Result<Option<Password>, CliError> {
        let text = match &self.lease_password_file {
            Some(file) => {
                let bytes = read("--lease-password-file", file, PASSWORD_FILE_LIMIT)?;
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
    /// `postgres://` or `postgresql://`.
    Postgres,
}

/// Which store `url` names, by its scheme, or the error that lists the schemes.
pub fn store_kind(url: &str) -> Result<StoreKind, CliError> {
    if url.starts_with("etcd://") || url.starts_with("etcds://") {
        Ok(StoreKind::Etcd)
    } else if url.starts_with("redis://") || url.starts_with("rediss://") {
        Ok(StoreKind::Redis)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(StoreKind::Postgres)
    } else {
        Err(CliError::input(format_args!(
            "--lease {}: neither a Redis URL (redis://HOST:PORT/DB, rediss:// for TLS), \
             an etcd cluster (etcd://HOST:PORT,HOST:PORT,..., etcds:// for TLS) nor a PostgreSQL \
             database (postgres://USER@HOST:PORT,HOST:PORT/DB, TLS with --lease-cacert)",
            quoted(store_url::shown(url))
        )))
    }
}

/// A namespace: any text but the empty one (every service of the fleet would share it by
/// mistake).
fn namespace(text: &str) -> Result<String, String> {
    if text.is_empty() {
        return Err("the namespace is empty: name one per ID space, e.g. orders".to_owned());
    }
    Ok(text.to_owned())
}

/// Refuses a URL that holds a password (any store: it would show in the process list).
fn refuse_password(url: &str) -> Result<(), CliError> {
    if store_url::has_password(url) {
        return Err(CliError::input(format_args!(
            "--lease {}: the URL holds a password, which every user of this machine can read in \
             the process list; remove it and set {PASSWORD_ENV} or give --lease-password-file",
            store_url::shown(url)
        )));
    }
    Ok(())
}

/// The most bytes a certificate, key or password file may hold: far more than any real one,
/// and a bound on what a wrong path (`/dev/zero`, a log file) makes the process read.
pub const FILE_LIMIT: u64 = 1 << 20;

/// The most bytes `--lease-password-file` may hold.
pub const PASSWORD_FILE_LIMIT: u64 = 4 << 10;

/// A file's bytes (at most `limit`), or an error naming the flag, the file and the bound.
fn read(flag: &str, path: &Path, limit: u64) -> Result<Vec<u8>, CliError> {
    use std::io::Read;
    let named = || quoted(path.display().to_string());
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| CliError::input(format_args!("{flag} {}: {e}", named())))?;
    if bytes.len() as u64 > limit {
        return Err(CliError::input(format_args!(
            "{flag} {}: larger than {limit} bytes, more than such a file ever holds; is it the \
             right file?",
            named()
        )));
    }
    Ok(bytes)
}

pub(crate) fn parsed(e: LeaseError) -> CliError {
    CliError::input(format_args!("--lease: {}", with_cause(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_postgres_url_is_a_store_of_its_own_and_its_password_is_refused_unquoted() {
        assert_eq!(
            store_kind("postgres://minter@db1:5432,db2:5432/ids").unwrap(),
            StoreKind::Postgres
        );
        assert_eq!(
            store_kind("postgresql://minter@db1/ids").unwrap(),
            StoreKind::Postgres
        );
        let err = store_kind("mysql://h/db")
            .unwrap_err()
            .message()
            .to_string();
        assert!(err.contains("postgres://USER@HOST:PORT"), "{err}");
        let err = StoreArgs::default()
            .postgres("postgres://minter:secret@db1/ids")
            .unwrap_err()
            .message()
            .to_string();
        assert!(
            err.contains("holds a password") && !err.contains("secret"),
            "{err}"
        );
        let lease = StoreArgs {
            lease_user: Some("other".into()),
            ..StoreArgs::default()
        }
        .postgres("postgres://db1:5432/ids")
        .unwrap();
        assert!(format!("{lease:?}").contains("\"other\""));
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
