//! [`StoreArgs`]: the flags that name a lease's store besides its URL (the namespace, the
//! timeout of each call), shared by `snowmint serve --lease` and `snowmint lease`.

use std::time::Duration;

use crate::value::{self, duration};

/// Where a lease's keys are, besides the store's URL (`--lease`).
#[derive(Debug, Clone, clap::Args)]
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
}
