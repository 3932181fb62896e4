//! `snowmint lease`: an operator's view of a namespace's leases, and the recovery step after
//! its store was restored from an older backup.
//!
//! | file | holds |
//! |---|---|
//! | `command.rs` | the subcommands and the dispatch |
//! | `site.rs` | the store flags, and the store opened from `--lease` |
//! | `list.rs` | `lease list`: the record and each node, as text or JSON |
//! | `raise.rs` | `lease raise-floor`: every mark and the record's floor raised to `--to` |
//! | `reset.rs` | `lease reset-floor`: a wrong floor lowered, every mark kept above every ID issued |
//! | `record_layout.rs` | the record's layout read back from the lease's words |
//! | `schema.rs` | `lease schema --postgres`: the PostgreSQL tables and grants, for a DBA |

mod command;
mod list;
mod raise;
mod record_layout;
mod reset;
mod schema;
mod site;

pub use self::command::{run, Args};
