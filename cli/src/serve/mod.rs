//! `snowmint serve`: an HTTP ID service (axum on tokio) over a sharded generator, its node
//! number fixed or leased from Redis or etcd; HTTPS with `--tls-cert` ([`crate::tls`]).
//!
//! One concept per module: [`run`] the service from its flags to its exit, [`app`] what
//! every handler shares, [`args`] the flags, [`source`] minting from tasks, [`routes`] the
//! endpoints, [`connections`] the connections and their limits, [`pool`] a fixed node's shards, lent to whichever worker runs, [`body`] the ID bodies as text, [`packed`] as binary, [`negotiate`] which one `Accept` asks for, [`query`]
//! the query strings, [`problem`] error answers, [`readiness`] what the service waits for,
//! [`held`] a claim on a held range, [`metrics`] the Prometheus side, [`activity`]
//! the counts behind the status page ([`status`]), [`shutdown`] the stop signals, [`transitions`] the lease's state changes logged.
//! The gRPC face of the same service, on `--grpc-listen`, is [`crate::grpc`].
//!
//! A leased service listens first and claims its node after, on a thread of its own: the
//! claim may wait (the forgetting rule, a mark ahead of the clock), and meanwhile `/livez`
//! answers, `/readyz` says what it waits for, and the minting endpoints refuse with the same
//! answer.

mod activity;
mod app;
mod args;
mod body;
mod checks;
mod connections;
mod held;
mod metrics;
mod negotiate;
mod packed;
mod pool;
mod problem;
mod query;
mod readiness;
mod routes;
mod run;
mod shutdown;
mod source;
mod status;
mod transitions;

pub use self::app::{App, LeaseSite};
pub use self::args::{Args, GrpcArgs};
pub use self::problem::{retry_after_secs, Problem};
pub use self::run::run;
pub use self::source::{Minter, Refusal};
