//! [`Args`] of `snowmint lease` and [`run`]: the dispatch to its subcommands.

use super::{list, raise, reset, schema};
use crate::error::CliError;

/// Inspect a namespace's node leases, raise its floor after a restore, or reset a wrong one
///
/// `list` shows each node of the namespace (holder, fencing token, time left on its lease,
/// mark) and its record (incarnation, TTL, layout, the store it was settled on, the floor).
/// `raise-floor` is the recovery step after the store was restored from an older backup
/// (or failed over to a replica that missed writes): every mark of the namespace is raised
/// to at least --to, never lowered, and the floor is kept in the record, so that every claim
/// (also of a node that has no mark) starts after it; servers holding nodes keep them and
/// mint on below the floor. `reset-floor` undoes a wrong floor (audited, with --i-know).
/// All are safe while servers hold leases.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    List(list::Args),
    RaiseFloor(raise::Args),
    ResetFloor(reset::Args),
    Schema(schema::Args),
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.command {
        Command::List(a) => list::run(a),
        Command::RaiseFloor(a) => raise::run(a),
        Command::ResetFloor(a) => reset::run(a),
        Command::Schema(a) => schema::run(a),
    }
}
