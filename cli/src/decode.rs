//! `snowmint decode`: the time, node and sequence of IDs (the time of 128-bit ones).

use std::ffi::OsString;

use snowmint::Id;

use crate::batch;
use crate::error::CliError;
use crate::format::Format;
use crate::layout_arg::{self, NamedLayout};
use crate::read::{self, AnyId, Encoding};
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
///
/// A UUIDv7 (36 characters, hyphenated, hex digits of either case) or a ULID (26 letters and
/// digits, Crockford base32 of either case) is recognised by its shape and its time shown
/// (id, time, unix_ms, encoding: the other fields are 64-bit ones). A text that reads both
/// as a ULID and as a 64-bit ID (26 binary digits) is refused as ambiguous; --from ulid or
/// --from base2 picks one.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// IDs to decode [default: read from standard input]
    #[arg(value_name = "ID")]
    ids: Vec<OsString>,

    #[arg(short, long, value_name = "LAYOUT", default_value = "twitter", value_parser = value::text(layout_arg::parse), help = layout_arg::HELP)]
    layout: NamedLayout,

    /// The IDs' encoding [default: detected]
    #[arg(long, value_name = "ENCODING", value_parser = value::text_listing(read::encoding_arg, read::encoding_names))]
    from: Option<Encoding>,

    /// One JSON object per line
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    batch::each_token(&args.ids, "decode", |token| {
        // It parsed, so it is ASCII.
        let text = String::from_utf8_lossy(token);
        Ok(match read::read(token, args.from, &args.layout.layout)? {
            AnyId::Id(id, format) => describe(id, format, &text, &args.layout, args.json),
            AnyId::Id128(wide) => wide.describe(&text, args.json),
        })
    })
}

/// One ID's line.
fn describe(id: Id, format: Format, input: &str, layout: &NamedLayout, as_json: bool) -> String {
    let d = layout.layout.decode(id);
    let stamp = time::format(d.time(), Precision::for_nanos(layout.layout.unit_nanos()));
    if as_json {
        serde_json::json!({
            "input": input,
            "encoding": format.name(),
            "id": id.to_string(),
            "layout": layout.name,
            "time": stamp,
            "unix_ms": d.unix_millis(),
            "ticks": d.ticks(),
            "node": d.node(),
            "sequence": d.sequence(),
        })
        .to_string()
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
