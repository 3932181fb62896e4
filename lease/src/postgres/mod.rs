//! Node numbers leased from PostgreSQL (feature `postgres`): [`PostgresLease`], a
//! [`Lease`](crate::Lease) on [`Postgres`], for teams whose only shared store is their database.
//!
//! The rules are the same for every backend ([the crate's docs](crate)); the tables, guarantees and
//! failure modes of this one are here.
//!
//! # Tables
//! Made on first use when the role may create tables in its schema; else a DBA runs
//! [`schema`]'s script (`snowmint lease schema --postgres --role NAME`), which also grants
//! the least privileges the role needs.
//! - `snowmint_lease_namespace`: one row per namespace, never expired: `incarnation`,
//!   `ttl_ms`, `layout`, `settled_on` (the server identity it was settled on), `floor_ms`
//!   (the floor `Lease::raise_floor` kept) and `token`, the namespace's fencing counter.
//! - `snowmint_lease_node`: one row per node with a holder or a mark: `holder` (the owner
//!   token), `token` (the hold's fencing token), `expires_at` (on the server's clock),
//!   `mark_ms`, `mark_owner`.
//!
//! # How it works
//! - **Claim**: one READ COMMITTED transaction locks the namespace's row (claims of one
//!   namespace queue there), checks its TTL and layout, takes the first node of the range
//!   that has no row or whose hold expired (`FOR UPDATE SKIP LOCKED`, looked for again once
//!   if a locked row hid the only free one), raises the namespace's counter **in the same
//!   transaction** and gives it to the hold as its **fencing token**
//!   ([`Fenced::token`](snowmint::fence::Fenced::token)), which therefore only grows (a sequence's
//!   `nextval` is neither transactional nor flushed with the commit; `xid8` is given at the
//!   first write, not at commit). The hold lasts until `clock_timestamp() + TTL`, on the
//!   server's clock (`now()` is the transaction's start, stale after a lock wait).
//! - **Renew, release**: one statement each, checked against the holder and its token; a
//!   renewal raises the mark, never lowers it, before the source may mint up to it.
//! - Every session sets `synchronous_commit = on`: a call returns only once its commit is
//!   flushed (and, with synchronous standbys, replicated as the server requires).
//! - Each statement goes with typed parameters: one round trip. A call the I/O timeout cuts
//!   short keeps the session once (a slow server then costs that call, not also a new
//!   session's start); a second in a row, an error or a closed connection ends it.
//!
//! # When the database vouches
//! A claim starts after its node's mark at once only when the namespace's record was
//! settled on **the same system identifier** (`pg_control_system()`) **and timeline** (the
//! first 8 hex digits of `pg_walfile_name(pg_current_wal_lsn())`, as Patroni reads it) as the
//! server that answers, with `fsync` on. A claim on another timeline (a point-in-time
//! recovery, a promoted standby) or another system (a dump restored into a new cluster)
//! waits the forgetting rule, says why ([`lease_unvouched`](snowmint::fence::events::lease_unvouched), a `tracing` warning with that feature), then settles the record on the
//! new identity; such a claim also raises the counter to at least the server's Unix
//! milliseconds × 1,024, so that no token is given twice across the restore. With `fsync`
//! off every claim waits.
//!
//! # Not detected
//! - **A volume snapshot replayed by crash recovery**, or a data directory copied back: the
//!   same system and timeline, older rows.
//! - **An old primary brought back without `pg_rewind`**, still on the old timeline, and
//!   written to by holders that reach it.
//! - Asynchronous standbys promoted by hand are detected (a new timeline); a fail-over that
//!   loses commits without a new timeline is not possible in PostgreSQL.
//!
//! After any of these, run `snowmint lease raise-floor` ([`Lease::raise_floor`](crate::Lease::raise_floor)) with the
//! time of the loss or later: every claim then starts after it.
//!
//! ```no_run
//! use std::time::Duration;
//! use snowmint_lease::Password;
//! use snowmint_lease::postgres::PostgresLease;
//! use snowmint::{Generator, Layout};
//!
//! let lease = PostgresLease::builder("postgres://minter@10.0.0.5:5432,10.0.0.6:5432/ids")?
//!     .password(Password::new(std::fs::read_to_string("/run/secrets/pg")?.trim_end()))
//!     .ca_pem(&std::fs::read("/etc/ssl/pg-ca.crt")?)?
//!     .namespace("orders")
//!     .ttl(Duration::from_secs(10))
//!     .build()?;
//! let gen = lease.acquire(Generator::builder(Layout::TWITTER))?;
//! println!("minting as node {} (token {:?})", gen.node(), gen.token());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod backend;
mod connection;
mod error;
mod operator;
mod schema;
mod security;
mod store;
mod tls_files;

pub use self::backend::{Postgres, PostgresLease};
pub use self::schema::schema;
