//! `snowmint decode`: the time, node and sequence of IDs.

use std::io::{self, BufRead, BufWriter, IsTerminal, Write};

use snowmint::Id;

use crate::error::CliError;
use crate::format::{self, Format};
use crate::json;
use crate::layout_arg::{self, NamedLayout};
use crate::time::{self, Precision};

/// Show the time, node and sequence of IDs.
///
/// One line per ID, as key=value pairs (or a JSON object with --json). IDs come from the
/// arguments, or else from standard input, separated by whitespace. A bad ID is reported on
/// standard error and the rest are still decoded; the exit status is then 2.
///
/// The encoding is detected when only one reads the text as an ID that fits the layout:
/// digits alone are decimal when they fit in 64 bits (so a hex ID made of digits only needs
/// --from hex), a "quoted" value is JSON, 14 to 16 hex digits are hex, and a longer run of
/// 0s and 1s is binary. Short texts often read in several encodings (abc is
/// base32, base36, base58 and hex; base36 IDs are often valid z-base-32); then the error
/// lists the readings and --from picks one.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// IDs to decode [default: read from standard input]
    #[arg(value_name = "ID")]
    ids: Vec<String>,

    #[arg(short, long, value_name = "LAYOUT", default_value = "twitter", value_parser = layout_arg::parse, help = layout_arg::HELP)]
    layout: NamedLayout,

    /// The IDs' encoding [default: detected]
    #[arg(long, value_enum, value_name = "ENCODING")]
    from: Option<Format>,

    /// One JSON object per line
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = 0_u64;
    let mut each = |text: &str, out: &mut BufWriter<io::StdoutLock<'_>>| -> Result<(), CliError> {
        match format::read_id(text, args.from, &args.layout.layout) {
            Ok((id, format)) => {
                let line = describe(id, format, text, &args.layout, args.json);
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(message) => {
                failed += 1;
                // Keep the order of output and errors on a terminal.
                out.flush()?;
                let _ = writeln!(io::stderr().lock(), "error: {message}");
            }
        }
        Ok(())
    };
    if args.ids.is_empty() {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Err(CliError::input(
                "no IDs to decode: give them as arguments or on standard input (snowmint decode --help)",
            ));
        }
        for line in stdin.lock().lines() {
            let line =
                line.map_err(|e| CliError::system(format_args!("reading standard input: {e}")))?;
            for text in line.split_whitespace() {
                each(text, &mut out)?;
            }
        }
    } else {
        for text in &args.ids {
            each(text, &mut out)?;
        }
    }
    out.flush()?;
    if failed > 0 {
        return Err(CliError::reported());
    }
    Ok(())
}

/// One ID's line.
fn describe(id: Id, format: Format, input: &str, layout: &NamedLayout, as_json: bool) -> String {
    let d = layout.layout.decode(id);
    let stamp = time::format(d.time(), Precision::for_nanos(layout.layout.unit_nanos()));
    if as_json {
        json::Object::new()
            .string("input", input)
            .string("encoding", format.name())
            .string("id", &id.to_string())
            .string("layout", layout.name)
            .string_or_null("time", stamp.as_deref())
            .number("unix_ms", d.unix_millis())
            .number("ticks", d.ticks())
            .number("node", d.node())
            .number("sequence", d.sequence())
            .finish()
    } else {
        format!(
            "id={id} time={} unix_ms={} node={} sequence={} layout={} encoding={}",
            stamp.as_deref().unwrap_or("after-9999-12-31T23:59:59Z"),
            d.unix_millis(),
            d.node(),
            d.sequence(),
            layout.name,
            format.name()
        )
    }
}
