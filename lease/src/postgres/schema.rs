//! The lease's two tables, created on first use when the role may, and the script a DBA runs
//! instead ([`schema`]): the tables and the least privileges the lease's role needs.

/// The namespace records: one row per namespace, never expired.
pub(super) const NAMESPACES: &str = "snowmint_lease_namespace";
/// The nodes: one row per node with a holder or a mark.
pub(super) const NODES: &str = "snowmint_lease_node";

/// The tables, in the role's current schema (the first of its `search_path`).
///
/// - `token`: the namespace's fencing counter, raised by every claim in the claim's own
///   transaction (a sequence's `nextval` is neither transactional nor flushed with it).
/// - `settled_on`: `SYSTEM_IDENTIFIER/TIMELINE` of the server that settled the record.
/// - `expires_at`: on the server's clock (`clock_timestamp()`, never the client's).
const TABLES: &str = "\
CREATE TABLE IF NOT EXISTS snowmint_lease_namespace (
    namespace   text PRIMARY KEY,
    incarnation text NOT NULL,
    ttl_ms      bigint NOT NULL,
    layout      text NOT NULL,
    settled_on  text,
    floor_ms    bigint,
    token       bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS snowmint_lease_node (
    namespace   text NOT NULL REFERENCES snowmint_lease_namespace ON DELETE CASCADE,
    node        bigint NOT NULL,
    holder      text,
    token       bigint,
    expires_at  timestamptz,
    mark_ms     bigint,
    mark_owner  text,
    PRIMARY KEY (namespace, node)
);
";

/// The statements that create the tables on first use, serialised by an advisory lock so
/// that two first holders do not race on the catalog.
pub(super) fn create() -> String {
    format!("SELECT pg_advisory_xact_lock(7236942318501739801);\n{TABLES}")
}

/// The evidence that the server kept its writes, as one SQL expression each: the server's
/// identity (`SYSTEM_IDENTIFIER/TIMELINE`: the timeline from the current WAL file's name, as
/// Patroni reads it, never `pg_control_checkpoint()`, which lags after a fast promotion), and
/// whether `fsync` is on.
pub(super) const IDENTITY: &str = "(SELECT system_identifier::text FROM pg_control_system()) \
     || '/' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)";
/// Whether the server flushes its writes (see [`IDENTITY`]).
pub(super) const DURABLE: &str = "current_setting('fsync') = 'on'";

/// The script a DBA runs for a lease role that may not create tables: the two tables, and
/// for `role` the least privileges the lease needs (rows of the two tables; reading the
/// control file's system identifier). Run it as the tables' owner, in the database and
/// schema the lease connects to.
///
/// ```
/// # {
/// let sql = snowmint_lease::postgres::schema("minter");
/// assert!(sql.contains("CREATE TABLE IF NOT EXISTS snowmint_lease_node"));
/// assert!(sql.contains("GRANT SELECT, INSERT, UPDATE, DELETE ON snowmint_lease_node TO \"minter\";"));
/// # }
/// ```
pub fn schema(role: &str) -> String {
    let role = format!("\"{}\"", role.replace('"', "\"\""));
    format!(
        "-- snowmint's PostgreSQL lease: its tables, and the least privileges its role needs.\n\
         -- Run as the tables' owner, in the database (and schema) the lease connects to.\n\
         {TABLES}\
         GRANT SELECT, INSERT, UPDATE ON snowmint_lease_namespace TO {role};\n\
         GRANT SELECT, INSERT, UPDATE, DELETE ON snowmint_lease_node TO {role};\n\
         -- The system identifier is how a claim tells this cluster from a copy of it.\n\
         GRANT EXECUTE ON FUNCTION pg_control_system() TO {role};\n"
    )
}
