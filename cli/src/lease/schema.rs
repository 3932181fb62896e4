//! `snowmint lease schema --postgres`: the PostgreSQL lease's tables and the least privileges
//! its role needs, printed for a DBA to run.

use std::io::{self, Write};

use crate::error::CliError;

/// Print the SQL a DBA runs for a lease role that may not create tables
///
/// The two tables of the PostgreSQL lease (created on first use when the role may) and the
/// grants the role needs: rows of the two tables, and reading the cluster's system
/// identifier. Run it as the tables' owner in the lease's database, e.g. `snowmint lease
/// schema --postgres --role minter | psql -d ids`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The store: PostgreSQL (the only one with a schema)
    #[arg(long, required = true)]
    postgres: bool,

    /// The role the lease logs in as
    #[arg(long, value_name = "NAME", default_value = "snowmint")]
    role: String,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let _ = args.postgres;
    let sql = snowmint_lease::postgres::schema(&args.role);
    io::stdout()
        .write_all(sql.as_bytes())
        .map_err(|e| CliError::system(format_args!("writing the schema: {e}")))
}
