//! `snowmint decode`: the time, node and sequence of IDs.

use std::ffi::OsString;

use snowmint::Id;

use crate::batch;
use crate::error::CliError;
use crate::format::{self, Format};
use crate::json;
use crate::layout_arg::{self, NamedLayout};
use crate::time::{self, Precision};
use crate::value;

/// Show the time, node and sequence of IDs.
///
/// One line per ID, as key=value pairs (or a JSON object with --json). IDs come from the
/// arguments, or else from standard input, separated by whitespace. Any input is read: a bad
/// ID (not an ID, too wide for the layout, not UTF-8, far too long) is reported on standard
/// error, escaped and cut short, with its line and the exact reason, and the rest are still
/// decoded; the exit status is then 2.
///
/// The encoding is detected when only one reads the text as an ID that fits the layout:
/// digits alone are decimal when they fit in 64 bits (so a hex ID made of digits only needs
/// --from hex), a "quoted" value is JSON, 14 to 16 hex digits are hex, and a longer run of
/// 0s and 1s is binary, digits and n are a JavaScript BigInt. Short texts often read in
/// several encodings (abc is base32, base36, base58 and hex; 12n is base36 1391 and the
/// BigInt 12); then the error lists the readings and the --from that picks each. --from
/// json reads only the quoted string, as bwmarrin/snowflake's UnmarshalJSON; an unquoted
/// number needs --from json-number. bwmarrin/snowflake's Base64() and Bytes() forms
/// are read only with --from bwmarrin-base64 or --from bwmarrin-bytes.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// IDs to decode [default: read from standard input]
    #[arg(value_name = "ID")]
    ids: Vec<OsString>,

    #[arg(short, long, value_name = "LAYOUT", default_value = "twitter", value_parser = value::text(layout_arg::parse), help = layout_arg::HELP)]
    layout: NamedLayout,

    /// The IDs' encoding [default: detected]
    #[arg(long, value_name = "ENCODING", value_parser = value::choice::<Format>())]
    from: Option<Format>,

    /// One JSON object per line
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    batch::each_token(&args.ids, "decode", |token| {
        let (id, format) = format::read_id(token, args.from, &args.layout.layout)?;
        // It parsed, so it is ASCII.
        let text = String::from_utf8_lossy(token);
        Ok(describe(id, format, &text, &args.layout, args.json))
    })
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
