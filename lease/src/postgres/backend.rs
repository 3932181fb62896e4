//! [`Postgres`], the PostgreSQL backend of a [`Lease`], and [`PostgresLease`]'s builder.

use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::config::{Host, TargetSessionAttrs};
use tokio_postgres::Config;

use super::connection::Conn;
use super::error::failed;
use super::store::PostgresStore;
use super::tls_files::TlsFiles;
use crate::{Lease, LeaseBuilder, LeaseError, StoreErrorKind};

/// The PostgreSQL backend of a [`Lease`]: the hosts of one cluster (the read-write one is
/// used), the user, the database, and how to reach them securely.
///
/// ```
/// let lease: snowmint_lease::postgres::PostgresLease =
///     snowmint_lease::postgres::PostgresLease::builder("postgres://minter@10.0.0.5:5432/ids")?.build()?;
/// # Ok::<(), snowmint_lease::LeaseError>(())
/// ```
#[derive(Clone)]
pub struct Postgres {
    /// The URL's hosts, user, database and settings; the password set apart, never printed.
    pub(super) config: Config,
    /// The CA certificates and client certificate (PEM, as given).
    pub(super) tls: TlsFiles,
    /// The hosts and ports, for messages.
    pub(super) servers: String,
}

impl core::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Postgres")
            .field("servers", &self.servers)
            .field("user", &self.config.get_user())
            .field("dbname", &self.config.get_dbname())
            .field(
                "password",
                &self.config.get_password().map(|_| "<redacted>"),
            )
            .field("tls", &self.tls)
            .finish()
    }
}

impl crate::Backend for Postgres {
    type Store = PostgresStore;
    const NAME: &'static str = "postgres";
    // A claim and a renewal are one or two round trips, but a commit waits for a flush.
    const MIN_TTL: Duration = Duration::from_millis(500);

    fn open(
        &self,
        namespace: &str,
        owner: &str,
        ttl: Duration,
        io_timeout: Duration,
        layout: &str,
    ) -> Result<PostgresStore, LeaseError> {
        let mut config = self.config.clone();
        config.connect_timeout(io_timeout);
        let tls = self.tls.connector(&self.servers)?;
        if tls.is_some() {
            config.ssl_mode(tokio_postgres::config::SslMode::Require);
        }
        Ok(PostgresStore {
            conn: Conn::new(config, tls, io_timeout, self.servers.clone())?,
            namespace: namespace.to_string(),
            owner: owner.to_string(),
            ttl,
            layout: layout.to_string(),
            incarnation: crate::owner::incarnation(owner).to_string(),
            held: None,
            to_settle: None,
            unvouched_why: None,
        })
    }
}

/// Leases a node number from PostgreSQL for a [`Fenced`](snowmint::fence::Fenced): a [`Lease`] on
/// [`Postgres`]. See the [module docs](super) for its tables, guarantees and what it cannot
/// detect.
///
/// ```no_run
/// use std::time::Duration;
/// use snowmint_lease::Password;
/// use snowmint_lease::postgres::PostgresLease;
/// use snowmint::{Generator, Layout};
///
/// let lease = PostgresLease::builder("postgres://minter@db1:5432,db2:5432/ids")?
///     .password(Password::new(std::env::var("SNOWMINT_LEASE_PASSWORD")?))
///     .ca_pem(&std::fs::read("ca.crt")?)?
///     .namespace("orders")
///     .ttl(Duration::from_secs(10))
///     .build()?;
/// let gen = lease.acquire(Generator::builder(Layout::TWITTER))?;
/// println!("node {} with fencing token {:?}", gen.node(), gen.token());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type PostgresLease = Lease<Postgres>;

impl Lease<Postgres> {
    /// A lease from the PostgreSQL at `url`, `postgres://USER@HOST:PORT/DB` (several hosts,
    /// `HOST:PORT,HOST:PORT`, are tried in turn for the read-write one, as libpq's
    /// `target_session_attrs=read-write`; libpq's key-value form works too), namespace
    /// `default`, TTL 10 s, margin a fifth of the TTL, `max_wait` 10 s, every node of the
    /// layout (at most 65,536). The password is given apart ([`password`](LeaseBuilder::password)),
    /// never in the URL; TLS with [`ca_pem`](LeaseBuilder::ca_pem). Nothing is connected until
    /// [`acquire`](Lease::acquire).
    ///
    /// # Errors
    /// [`LeaseError::Store`] ([`StoreErrorKind::Settings`]) if the URL does not parse, names no host or a Unix socket, or
    /// holds a password.
    ///
    /// ```
    /// use snowmint_lease::postgres::PostgresLease;
    /// assert!(PostgresLease::builder("postgres://minter@db1:5432,db2:5433/ids").is_ok());
    /// let err = PostgresLease::builder("postgres://minter:s3cret@db1/ids").unwrap_err();
    /// assert!(!err.to_string().contains("s3cret"), "{err}");
    /// assert!(PostgresLease::builder("not a url").is_err());
    /// ```
    pub fn builder(url: &str) -> Result<LeaseBuilder<Postgres>, LeaseError> {
        const ACTION: &str = "read the PostgreSQL URL";
        let bad = |what: String| failed(StoreErrorKind::Settings, ACTION, "-", None, what);
        // The driver's parse errors quote no part of the URL.
        let mut config = Config::from_str(url).map_err(|e| bad(e.to_string()))?;
        if config.get_password().is_some() {
            return Err(bad(
                "the URL holds a password, which every user of the machine can read in \
                 the process list: give it apart (SNOWMINT_LEASE_PASSWORD or a file)"
                    .to_string(),
            ));
        }
        let ports = config.get_ports().to_vec();
        let mut servers = Vec::new();
        for (i, host) in config.get_hosts().iter().enumerate() {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            match host {
                Host::Tcp(name) => servers.push(format!("{name}:{port}")),
                #[cfg(unix)]
                Host::Unix(_) => {
                    return Err(bad(
                        "a Unix socket: name TCP hosts (HOST:PORT), whose TLS and password the \
                         lease checks"
                            .to_string(),
                    ))
                }
            }
        }
        if servers.is_empty() {
            return Err(bad("no host: use postgres://USER@HOST:PORT/DB".to_string()));
        }
        config
            .target_session_attrs(TargetSessionAttrs::ReadWrite)
            .application_name("snowmint-lease");
        Ok(LeaseBuilder::new(Postgres {
            config,
            tls: TlsFiles::default(),
            servers: servers.join(","),
        }))
    }

    /// The servers, `HOST:PORT,HOST:PORT`, as errors name them.
    ///
    /// ```
    /// let lease = snowmint_lease::postgres::PostgresLease::builder("postgres://u@db1:5432,db2:5433/ids")?.build()?;
    /// assert_eq!(lease.servers(), "db1:5432,db2:5433");
    /// # Ok::<(), snowmint_lease::LeaseError>(())
    /// ```
    pub fn servers(&self) -> &str {
        &self.backend().servers
    }
}
