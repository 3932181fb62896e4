//! [`Store`]: the store flags of every `snowmint lease` command, and [`Site`], the
//! namespace's store opened from them; [`store_error`], a store's failure as the CLI
//! reports it.

use std::time::Duration;

use snowmint_lease::etcd::EtcdLease;
use snowmint_lease::postgres::PostgresLease;
use snowmint_lease::redis::RedisLease;
use snowmint_lease::{FloorRaised, FloorReset, LeaseError, NamespaceState};

use snowmint::Layout;

use super::record_layout;
use crate::error::{with_cause, CliError};
use crate::store_args::{store_kind, StoreArgs, StoreKind};

/// The store flags of every `snowmint lease` command.
#[derive(Debug, Clone, clap::Args)]
pub struct Store {
    /// The lease's store: Redis (redis://HOST:PORT/DB, rediss:// for TLS), an etcd cluster
    /// (etcd://HOST:PORT,HOST:PORT,..., etcds:// for TLS) or PostgreSQL
    /// (postgres://USER@HOST:PORT/DB), as given to `snowmint serve --lease`
    #[arg(long, value_name = "URL")]
    pub lease: String,

    #[command(flatten)]
    pub store: StoreArgs,
}

/// A namespace's store, opened from the flags.
pub enum Site {
    Redis(Box<RedisLease>),
    Etcd(EtcdLease),
    Postgres(Box<PostgresLease>),
}

impl Store {
    /// The timeout of each call: an operator's call is a few round trips, 5 s each unless
    /// told (a loaded store answers late).
    pub fn timeout(&self) -> Duration {
        self.store.lease_timeout.unwrap_or(Duration::from_secs(5))
    }

    pub fn site(&self) -> Result<Site, CliError> {
        let url = self.lease.as_str();
        let timeout = self.timeout();
        let ns = self.store.namespace.as_str();
        match store_kind(url)? {
            StoreKind::Etcd => {
                let lease = self.store.etcd(url)?;
                let lease = lease.namespace(ns).io_timeout(timeout).build();
                Ok(Site::Etcd(lease.map_err(crate::store_args::parsed)?))
            }
            StoreKind::Redis => {
                let lease = self.store.redis(url)?;
                let lease = lease.namespace(ns).io_timeout(timeout).build();
                Ok(Site::Redis(Box::new(
                    lease.map_err(crate::store_args::parsed)?,
                )))
            }
            StoreKind::Postgres => {
                let lease = self.store.postgres(url)?;
                let lease = lease.namespace(ns).io_timeout(timeout).build();
                Ok(Site::Postgres(Box::new(
                    lease.map_err(crate::store_args::parsed)?,
                )))
            }
        }
    }
}

impl Site {
    pub fn backend(&self) -> &'static str {
        match self {
            Site::Redis(_) => "redis",
            Site::Etcd(_) => "etcd",
            Site::Postgres(_) => "postgres",
        }
    }

    pub fn list(&self) -> Result<NamespaceState, LeaseError> {
        match self {
            Site::Redis(l) => l.list(),
            Site::Etcd(l) => l.list(),
            Site::Postgres(l) => l.list(),
        }
    }

    pub fn raise_floor(&self, to_unix_millis: u64) -> Result<FloorRaised, LeaseError> {
        match self {
            Site::Redis(l) => l.raise_floor(to_unix_millis),
            Site::Etcd(l) => l.raise_floor(to_unix_millis),
            Site::Postgres(l) => l.raise_floor(to_unix_millis),
        }
    }
}

impl Site {
    /// The namespace's state, and the layout its record names (none without a record, or
    /// with one whose layout this CLI cannot read): what `raise-floor` and `reset-floor`
    /// check a new floor against.
    pub fn state(&self, store: &Store) -> Result<(NamespaceState, Option<Layout>), CliError> {
        let state = self.list().map_err(|e| store_error("read", store, &e))?;
        let layout = state
            .record
            .as_ref()
            .and_then(|r| record_layout::parse(&r.layout))
            .map(|(layout, _)| layout);
        Ok((state, layout))
    }

    /// The store's clock where it tells it (Redis, PostgreSQL).
    pub fn store_clock(&self) -> Result<Option<u64>, LeaseError> {
        match self {
            Site::Redis(l) => l.store_clock(),
            Site::Etcd(l) => l.store_clock(),
            Site::Postgres(l) => l.store_clock(),
        }
    }

    /// The clock `--max-ahead` is measured against: the store's where it tells it, else
    /// this machine's (etcd), with its name for messages.
    pub fn clock(&self, store: &Store) -> Result<(u64, &'static str), CliError> {
        let told = self
            .store_clock()
            .map_err(|e| store_error("read the clock of", store, &e))?;
        Ok(match (told, self) {
            (Some(t), Site::Postgres(_)) => (t, "PostgreSQL's clock (clock_timestamp())"),
            (Some(t), _) => (t, "Redis's clock (TIME)"),
            (None, _) => (
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                "this machine's clock (etcd tells no time)",
            ),
        })
    }

    pub fn reset_floor(&self, to_unix_millis: u64) -> Result<FloorReset, LeaseError> {
        match self {
            Site::Redis(l) => l.reset_floor(to_unix_millis),
            Site::Etcd(l) => l.reset_floor(to_unix_millis),
            Site::Postgres(l) => l.reset_floor(to_unix_millis),
        }
    }
}

/// A store that failed or could not be reached: exit status 1, naming the store.
pub fn store_error(what: &str, store: &Store, e: &LeaseError) -> CliError {
    CliError::system(format_args!(
        "could not {what} namespace {:?} at {}: {}",
        store.store.namespace,
        crate::store_url::shown(&store.lease),
        crate::store_words::explain(
            &crate::store_url::scrub(&with_cause(e), &store.lease),
            &crate::store_words::Call {
                store: match store_kind(&store.lease) {
                    Ok(StoreKind::Etcd) => "etcd",
                    Ok(StoreKind::Postgres) => "PostgreSQL",
                    _ => "Redis",
                },
                url: crate::store_url::shown(&store.lease),
                timeout: format!(
                    "--lease-timeout {}",
                    humantime::format_duration(store.timeout())
                ),
            },
        )
    ))
}
