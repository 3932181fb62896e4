//! `snowmint lease`: an operator's view of a namespace's leases, and the recovery step after
//! its store was restored from an older backup.
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | the flags, the store from `--lease`, and the dispatch |
//! | `list.rs` | `lease list`: the record and each node, as text or JSON |
//! | `raise.rs` | `lease raise-floor`: every mark and the record's floor raised to `--to` |

mod list;
mod raise;

use std::time::Duration;

use snowmint_lease::etcd::EtcdLease;
use snowmint_lease::redis::RedisLease;
use snowmint_lease::{FloorRaised, LeaseError, NamespaceState};

use crate::error::CliError;
use crate::serve::with_cause;
use crate::store_args::{store_kind, StoreArgs, StoreKind};

/// Inspect a namespace's node leases, or raise its floor after a restore
///
/// `list` shows each node of the namespace (holder, fencing token, time left on its lease,
/// mark) and its record (incarnation, TTL, layout, the store it was settled on, the floor).
/// `raise-floor` is the recovery step after the store was restored from an older backup
/// (or failed over to a replica that missed writes): every mark of the namespace is raised
/// to at least --to, never lowered, and the floor is kept in the record, so that every claim
/// (also of a node that has no mark) starts after it. Both are safe while servers hold
/// leases.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    List(list::Args),
    RaiseFloor(raise::Args),
}

/// The store flags of every `snowmint lease` command.
#[derive(Debug, Clone, clap::Args)]
pub struct Store {
    /// The lease's store: Redis (redis://HOST:PORT/DB, rediss:// for TLS) or an etcd cluster
    /// (etcd://HOST:PORT,HOST:PORT,..., etcds:// for TLS), as given to `snowmint serve --lease`
    #[arg(long, value_name = "URL")]
    lease: String,

    #[command(flatten)]
    store: StoreArgs,
}

/// A namespace's store, opened from the flags.
enum Site {
    Redis(Box<RedisLease>),
    Etcd(EtcdLease),
}

impl Store {
    fn site(&self) -> Result<Site, CliError> {
        let url = self.lease.as_str();
        // An operator's call is a few round trips: 5 s each unless told: a loaded store answers late.
        let timeout = self.store.lease_timeout.unwrap_or(Duration::from_secs(5));
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
        }
    }
}

impl Site {
    fn backend(&self) -> &'static str {
        match self {
            Site::Redis(_) => "redis",
            Site::Etcd(_) => "etcd",
        }
    }

    fn list(&self) -> Result<NamespaceState, LeaseError> {
        match self {
            Site::Redis(l) => l.list(),
            Site::Etcd(l) => l.list(),
        }
    }

    fn raise_floor(&self, to_unix_millis: u64) -> Result<FloorRaised, LeaseError> {
        match self {
            Site::Redis(l) => l.raise_floor(to_unix_millis),
            Site::Etcd(l) => l.raise_floor(to_unix_millis),
        }
    }
}

/// A store that failed or could not be reached: exit status 1, naming the store.
fn store_error(what: &str, store: &Store, e: &LeaseError) -> CliError {
    CliError::system(format_args!(
        "could not {what} namespace {:?} at {}: {}",
        store.store.namespace,
        store.lease,
        with_cause(e)
    ))
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.command {
        Command::List(a) => list::run(a),
        Command::RaiseFloor(a) => raise::run(a),
    }
}
