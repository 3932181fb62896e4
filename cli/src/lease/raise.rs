//! `snowmint lease raise-floor`: every mark of the namespace, and the record's floor, raised
//! to at least `--to`.

use std::io::{self, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use snowmint::Layout;

use super::site::{store_error, Store};
use crate::error::CliError;
use crate::time::{self, display_millis};
use crate::value;

/// Raise every mark of the namespace, and its record's floor, to at least TIME (never lower)
///
/// The recovery step after the lease's store was restored from an older backup: give the
/// time of the loss (the backup's restore, or the fail-over) or later. Every claim then
/// starts after max(its node's mark, the floor), also a node that has no mark.
///
/// A raise never lowers the floor, so a wrong one is costly: a floor ahead of the clock
/// keeps every new claim of the namespace from minting until the clock passes it (running
/// servers keep their nodes and mint on; a wrong floor is undone by `lease reset-floor`).
/// So the command first prints what it will do and changes nothing unless --yes is given;
/// it refuses a TIME past the layout's expiry (the namespace could never mint again), and
/// a TIME more than --max-ahead ahead of the store's clock unless --force is given (Redis's
/// TIME, PostgreSQL's clock_timestamp(); etcd tells no time, so there it is this machine's).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    store: Store,

    /// The floor: an RFC 3339 time (2026-12-04T19:00:00Z, or with an offset such as
    /// +09:00), Unix milliseconds (digits only), or 'now'
    #[arg(long, value_name = "TIME", value_parser = value::text(floor))]
    to: u64,

    /// The furthest ahead of the store's clock (Redis TIME, PostgreSQL clock_timestamp();
    /// etcd: this machine's) the floor may be without --force
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = value::text(value::duration))]
    max_ahead: Duration,

    /// Raise the floor further ahead than --max-ahead: no new claim in the namespace mints
    /// until the clock passes it
    #[arg(long)]
    force: bool,

    /// Do it: without --yes the command only prints what it would do, and exits 2
    #[arg(long)]
    yes: bool,

    /// One JSON object: {"namespace", "backend", "to_unix_millis", "done", and once done
    /// "raised" (the nodes whose marks were raised), "kept" and "floor_unix_millis"}
    #[arg(long)]
    json: bool,
}

/// TIME as Unix milliseconds (rounded up: the floor is never below the time given).
pub(super) fn floor(text: &str) -> Result<u64, String> {
    let at: SystemTime = time::parse(text)?;
    let nanos = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    u64::try_from(nanos.div_ceil(1_000_000))
        .map_err(|_| format!("{text:?} is too late a time for Unix milliseconds"))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let site = args.store.site()?;
    let (state, layout) = site.state(&args.store)?;
    let (now, clock) = site.clock(&args.store)?;
    check(
        args.to,
        (now, clock),
        layout.as_ref(),
        args.max_ahead,
        args.force,
    )?;
    let ns = &args.store.store.namespace;
    let ahead = args.to.saturating_sub(now);
    let plan = format!(
        "namespace {ns:?} on {}: every mark below {} ({}) and the record's floor raised to it{}\n",
        site.backend(),
        display_millis(args.to),
        args.to,
        if ahead > 0 {
            format!(
                "; {} ahead of {clock}: no new claim mints until then",
                humantime::format_duration(Duration::from_millis(ahead))
            )
        } else {
            String::new()
        }
    );
    if !args.yes {
        let plan = if args.json {
            let object = serde_json::json!({
                "namespace": ns,
                "backend": site.backend(),
                "to_unix_millis": args.to,
                "done": false,
            });
            object.to_string() + "\n"
        } else {
            plan
        };
        io::stdout().lock().write_all(plan.as_bytes())?;
        return Err(CliError::input(
            "nothing was changed: run again with --yes to raise the floor (it is never lowered)",
        ));
    }
    let raised = site
        .raise_floor(args.to)
        .map_err(|e| store_error("raise the floor of", &args.store, &e))?;
    let nodes = if raised.raised.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = raised.raised.iter().map(u64::to_string).collect();
        format!(" (nodes {})", list.join(", "))
    };
    let mut out = format!(
        "namespace {ns:?} on {}: {} raised to {} ({}){nodes}, {} already at or above it\n",
        site.backend(),
        marks(raised.raised.len()),
        display_millis(args.to),
        args.to,
        raised.kept,
    );
    out += &match raised.floor_unix_millis {
        Some(f) => format!(
            "the record keeps the floor {} ({f}): every claim starts after it\n",
            display_millis(f)
        ),
        // The read before the raise found a record: the store's answer left the floor out
        // (an older server's reply, a record changed in between); say so, not "no record".
        None if state.record.is_some() => "the store did not report the floor its record keeps \
             now: run `snowmint lease list` to read it\n"
            .to_owned(),
        None => "no namespace record: no floor kept (a claim there waits the forgetting rule, \
                 one TTL plus the margin, and starts after the marks)\n"
            .to_owned(),
    };
    if args.json {
        let object = serde_json::json!({
            "namespace": ns,
            "backend": site.backend(),
            "to_unix_millis": args.to,
            "done": true,
            "raised": raised.raised,
            "kept": raised.kept,
            "floor_unix_millis": raised.floor_unix_millis,
        });
        out = object.to_string() + "\n";
    }
    io::stdout().lock().write_all(out.as_bytes())?;
    Ok(())
}

/// Refuses a floor `to` (Unix milliseconds) past `layout`'s expiry (when the record names
/// it), or more than `max_ahead` ahead of `now` unless `force`.
pub(super) fn check(
    to: u64,
    (now, clock): (u64, &str),
    layout: Option<&Layout>,
    max_ahead: Duration,
    force: bool,
) -> Result<(), CliError> {
    if let Some(layout) = layout {
        let expiry = layout.expiry_unix_millis();
        if to >= expiry {
            return Err(CliError::input(format_args!(
                "--to {} ({to}) is at or past the namespace's layout expiry {} ({expiry}): no ID \
                 could ever be minted after it, so the namespace would never mint again (is it \
                 microseconds given as milliseconds?)",
                display_millis(to),
                display_millis(expiry)
            )));
        }
    }
    let ahead = Duration::from_millis(to.saturating_sub(now));
    if ahead > max_ahead && !force {
        return Err(CliError::input(format_args!(
            "--to {} ({to}) is {} ahead of {clock}, more than --max-ahead {}: no new \
             claim in the namespace would mint until then (and the floor is never lowered); \
             give --force to do it anyway",
            display_millis(to),
            humantime::format_duration(Duration::from_secs(ahead.as_secs())),
            humantime::format_duration(max_ahead)
        )));
    }
    Ok(())
}

/// `1 mark`, `3 marks`.
fn marks(n: usize) -> String {
    format!("{n} mark{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::floor;

    #[test]
    fn times_are_rfc3339_unix_millis_or_now_and_round_up() {
        assert_eq!(floor("2026-12-04T19:00:00Z"), Ok(1_796_410_800_000));
        assert_eq!(floor("2026-12-05T04:00:00+09:00"), Ok(1_796_410_800_000));
        assert_eq!(floor("2026-12-04T19:00:00.0001Z"), Ok(1_796_410_800_001));
        assert_eq!(floor("1796410800000"), Ok(1_796_410_800_000));
        assert!(floor("now").is_ok());
        assert_eq!(
            (super::marks(1), super::marks(0)),
            ("1 mark".into(), "0 marks".into())
        );
        let bad = floor("yesterday").unwrap_err();
        assert!(bad.contains("RFC 3339"), "{bad}");
    }

    #[test]
    fn a_floor_past_the_expiry_or_too_far_ahead_is_refused() {
        use super::*;
        let twitter = Layout::TWITTER;
        let now = 1_796_410_800_000;
        let hour = Duration::from_secs(3600);
        // Microseconds typed as milliseconds: the year 58,900.
        let e = check(
            1_796_503_041_214_000,
            (now, "c"),
            Some(&twitter),
            hour,
            true,
        )
        .unwrap_err();
        assert!(
            e.message().contains("past the namespace's layout expiry"),
            "{}",
            e.message()
        );
        let e = check(now + 2 * 3_600_000, (now, "c"), Some(&twitter), hour, false).unwrap_err();
        assert!(e.message().contains("2h ahead"), "{}", e.message());
        assert!(check(now + 2 * 3_600_000, (now, "c"), Some(&twitter), hour, true).is_ok());
        assert!(check(now, (now, "c"), None, hour, false).is_ok());
    }
}
