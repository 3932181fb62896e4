//! [`App`]: what every request handler shares (the minter once the node is fixed or
//! claimed, the claim's progress, the lease's site, the layout and the counters), and
//! [`LeaseSite`], where a leased node comes from.

use std::sync::{Arc, OnceLock};

use snowmint::Layout;

use super::activity;
use super::metrics::HttpMetrics;
use super::problem;
use super::readiness::{self, Progress, State};
use super::source::{Health, Minter};

/// What every request handler shares.
pub struct App {
    /// Set once the node is fixed or claimed: the service mints only through it.
    pub(crate) minter: OnceLock<Minter>,
    /// Where the lease's claim stands until then.
    pub(crate) progress: Arc<Progress>,
    /// Where the node is leased from (`None`: a fixed node).
    pub(crate) lease: Option<LeaseSite>,
    pub(crate) layout: Layout,
    pub(crate) max_batch: u64,
    pub(crate) layout_name: &'static str,
    /// The layout's spec, every key spelled out, as the `X-Snowmint-Layout` header declares it.
    pub(crate) layout_spec: axum::http::HeaderValue,
    pub(crate) shard_bits: u8,
    pub(crate) metrics: HttpMetrics,
    pub(crate) activity: activity::Activity,
    /// The 128-bit generators of `/uuid7` and `/ulid`.
    pub(crate) id128: crate::id128::Generators,
    /// How the listener speaks, for the status page: plaintext HTTP or HTTPS.
    pub(crate) transport: &'static str,
}

/// Where a leased node comes from.
pub struct LeaseSite {
    /// `redis` or `etcd`.
    pub backend: &'static str,
    pub namespace: String,
    /// The store's URL as shown: without userinfo.
    pub url: String,
    /// The store's calls, for its errors' hints.
    pub call: crate::store_words::Call,
}

impl App {
    /// The minter, once ready to be asked (it may still refuse while fenced).
    pub fn minter(&self) -> Option<&Minter> {
        self.minter.get()
    }

    /// The readiness state now.
    pub fn state(&self) -> State {
        match self.minter.get() {
            None => State::Starting(self.progress.phase()),
            Some(m) => match m.health() {
                Health::Ok => State::Ready { node: m.node() },
                Health::Fenced => State::Fenced {
                    node: m.node(),
                    cause: m.fence_cause(),
                },
                Health::Lost => State::Lost { node: m.node() },
            },
        }
    }

    /// Where the node is claimed, for messages: `redis namespace "orders"`.
    pub fn place(&self) -> String {
        match &self.lease {
            Some(l) => format!("{} namespace {:?}", l.backend, l.namespace),
            None => "no lease (a fixed node)".to_owned(),
        }
    }

    /// The 503 while not ready, or `None` when ready.
    pub fn not_ready(&self) -> Option<problem::Problem> {
        self.state()
            .problem(&self.place(), readiness::now_unix_millis())
    }
}
