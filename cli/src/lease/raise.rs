//! `snowmint lease raise-floor`: every mark of the namespace, and the record's floor, raised
//! to at least `--to`.

use std::io::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use super::site::{store_error, Store};
use crate::error::CliError;
use crate::time::{self, display_millis};
use crate::value;

/// Raise every mark of the namespace, and its record's floor, to at least TIME (never lower)
///
/// The recovery step after the lease's store was restored from an older backup: give the
/// time of the loss (the backup's restore, or the fail-over) or later. Every claim then
/// starts after max(its node's mark, the floor), also a node that has no mark. Safe while
/// servers hold leases: their renewals never lower a raised mark.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    store: Store,

    /// The floor: an RFC 3339 time (2026-12-04T19:00:00Z, or with an offset such as
    /// +09:00), Unix milliseconds (digits only), or 'now'
    #[arg(long, value_name = "TIME", value_parser = value::text(floor))]
    to: u64,
}

/// TIME as Unix milliseconds (rounded up: the floor is never below the time given).
fn floor(text: &str) -> Result<u64, String> {
    let at: SystemTime = time::parse(text)?;
    let nanos = at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    u64::try_from(nanos.div_ceil(1_000_000))
        .map_err(|_| format!("{text:?} is too late a time for Unix milliseconds"))
}

pub fn run(args: Args) -> Result<(), CliError> {
    let site = args.store.site()?;
    let raised = site
        .raise_floor(args.to)
        .map_err(|e| store_error("raise the floor of", &args.store, &e))?;
    let ns = &args.store.store.namespace;
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
        None => "no namespace record: no floor kept (a claim there waits the forgetting rule, \
                 one TTL plus the margin, and starts after the marks)\n"
            .to_owned(),
    };
    io::stdout().lock().write_all(out.as_bytes())?;
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
}
