//! `snowmint lease reset-floor`: the audited recovery from a wrong floor.

use std::io::{self, Write};
use std::time::Duration;

use super::raise::{check, floor};
use super::site::{store_error, Store};
use crate::error::CliError;
use crate::time::display_millis;
use crate::value;

/// Set the namespace's floor to TIME, lower or higher: the recovery from a wrong floor
///
/// A floor raised far ahead by mistake (microseconds typed as milliseconds, a wrong year)
/// keeps every new claim of the namespace from minting until the clock passes it. This sets
/// the floor to TIME instead, and first, so that no ID can repeat, sets every node's mark to
/// at least the highest time any server recorded in the namespace and this machine's clock
/// plus twice the TTL (marks written by `raise-floor` come down to that time; a server's
/// mark is never lowered). Servers holding nodes keep them. Each mark set, and the record
/// (Redis, etcd), keeps an audit line (who, when, the floor before and after); the command
/// also prints it on stderr. It prints what it will do and changes nothing unless --i-know
/// is given. Run it on a machine whose clock is right.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    store: Store,

    /// The new floor: an RFC 3339 time (2026-12-04T19:00:00Z, or with an offset such as
    /// +09:00), Unix milliseconds (digits only), or 'now'
    #[arg(long, value_name = "TIME", value_parser = value::text(floor))]
    to: u64,

    /// Do it: without --i-know the command only prints what it would do, and exits 2
    #[arg(long)]
    i_know: bool,

    /// One JSON object: {"namespace", "backend", "to_unix_millis", "floor_was", "done", and
    /// once done "floor_unix_millis", "marks_unix_millis", "reset" (the nodes whose marks
    /// were set) and "kept"}
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let site = args.store.site()?;
    let (state, layout) = site.state(&args.store)?;
    // The new floor itself must be a sane one: not past the expiry, not far ahead of the
    // store's clock.
    let now = site.clock(&args.store)?;
    check(
        args.to,
        now,
        layout.as_ref(),
        Duration::from_secs(3600),
        false,
    )?;
    let ns = &args.store.store.namespace;
    let was = state.record.as_ref().and_then(|r| r.floor_unix_millis);
    let shown = |f: Option<u64>| {
        f.map_or_else(
            || "none".to_owned(),
            |f| format!("{} ({f})", display_millis(f)),
        )
    };
    if !args.i_know {
        let plan = if args.json {
            serde_json::json!({
                "namespace": ns,
                "backend": site.backend(),
                "to_unix_millis": args.to,
                "floor_was": was,
                "done": false,
            })
            .to_string()
                + "\n"
        } else {
            format!(
                "namespace {ns:?} on {}: the floor {} set to {} ({}); first every mark set to at \
                 least the highest time a server recorded and this clock plus twice the TTL \
                 (marks raise-floor wrote come down to it; no server's mark is lowered)\n",
                site.backend(),
                shown(was),
                display_millis(args.to),
                args.to,
            )
        };
        io::stdout().lock().write_all(plan.as_bytes())?;
        return Err(CliError::input(
            "nothing was changed: run again with --i-know to reset the floor",
        ));
    }
    let reset = site
        .reset_floor(args.to)
        .map_err(|e| store_error("reset the floor of", &args.store, &e))?;
    // The log line of the audit: who, when, what.
    eprintln!(
        "snowmint lease reset-floor: namespace {ns:?} on {} at {}: floor {} -> {}, marks set to \
         at least {} ({}) on {} node(s), by {}@{}",
        site.backend(),
        crate::store_url::shown(&args.store.lease),
        shown(reset.floor_was),
        shown(reset.floor_unix_millis),
        display_millis(reset.marks_unix_millis),
        reset.marks_unix_millis,
        reset.reset.len(),
        std::env::var("USER").unwrap_or_else(|_| "?".to_owned()),
        std::process::id(),
    );
    let out = if args.json {
        serde_json::json!({
            "namespace": ns,
            "backend": site.backend(),
            "to_unix_millis": args.to,
            "floor_was": reset.floor_was,
            "done": true,
            "floor_unix_millis": reset.floor_unix_millis,
            "marks_unix_millis": reset.marks_unix_millis,
            "reset": reset.reset,
            "kept": reset.kept,
        })
        .to_string()
            + "\n"
    } else {
        let floor_line = match reset.floor_unix_millis {
            Some(f) => format!(
                "the record keeps the floor {} ({f}): every claim starts after it\n",
                display_millis(f)
            ),
            None => "the namespace has no record: no floor kept\n".to_owned(),
        };
        format!(
            "namespace {ns:?} on {}: floor {} -> {}; {} mark(s) set to {} ({}), {} kept\n{floor_line}",
            site.backend(),
            shown(reset.floor_was),
            shown(reset.floor_unix_millis),
            reset.reset.len(),
            display_millis(reset.marks_unix_millis),
            reset.marks_unix_millis,
            reset.kept,
        )
    };
    io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}
