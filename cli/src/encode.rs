//! `snowmint encode`: IDs in one encoding written in another.

use std::ffi::OsString;

use crate::batch;
use crate::error::CliError;
use crate::escape::quoted;
use crate::layout_arg::{self, NamedLayout};
use crate::read::{self, AnyId, Encoding};
use crate::value;

/// Write IDs in another encoding.
///
/// One line per ID, the ID in the --to form. IDs come from the arguments, or else from
/// standard input, separated by whitespace, read in the --from form or detected as decode
/// detects it (a text that reads as two different IDs, such as 12n, base36 1391 or the
/// JavaScript BigInt 12, is refused, naming the --from of each). A bad ID is reported on
/// standard error with its line and the exact reason, and the rest are still written; the
/// exit status is then 2.
///
/// A UUIDv7 or ULID (detected by its shape, or named with --from uuid7 or --from ulid) is
/// written with --to uuid7 or --to ulid: the same 128 bits in the other text (a ULID becomes
/// a UUIDv7 only when its bits are one, version 7 and the RFC variant).
///
/// Examples: `snowmint encode --to base58 1541815603606036480`;
/// `snowmint encode --to ulid 018f3a5c-7d2e-7abc-8def-0123456789ab`;
/// `snowmint encode --from bwmarrin-base64 --to decimal < column.txt`;
/// `snowmint encode --to int-bytes 1541815603606036480` (the 8 big-endian bytes as hex).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// IDs to encode [default: read from standard input]
    #[arg(value_name = "ID")]
    ids: Vec<OsString>,

    /// The IDs' encoding [default: detected]
    #[arg(long, value_name = "ENCODING", value_parser = value::text_listing(read::encoding_arg, read::encoding_names))]
    from: Option<Encoding>,

    /// The encoding to write
    #[arg(long, value_name = "ENCODING", value_parser = value::text_listing(read::encoding_arg, read::encoding_names))]
    to: Encoding,

    /// One JSON object per line, {"input", "id", "encoding"}: the ID's text in the --to
    /// encoding
    #[arg(long)]
    json: bool,

    /// Refuse IDs wider than this layout's bits (detection then considers only the readings
    /// that fit) [default: any 64-bit value]
    #[arg(short, long, value_name = "LAYOUT", value_parser = value::text(layout_arg::parse))]
    layout: Option<NamedLayout>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    // Only the width of the layout matters here: Discord's is all 64 bits.
    let layout = args.layout.map_or(snowmint::Layout::DISCORD, |l| l.layout);
    batch::each_token(&args.ids, "encode", |token| {
        let text = encoded(token, &args, &layout)?;
        if !args.json {
            return Ok(text);
        }
        let object = serde_json::json!({
            "input": String::from_utf8_lossy(token),
            "id": text,
            "encoding": args.to.name(),
        });
        Ok(object.to_string())
    })
}

/// One ID's text in the `--to` encoding.
fn encoded(token: &[u8], args: &Args, layout: &snowmint::Layout) -> Result<String, String> {
    match (read::read(token, args.from, layout)?, args.to) {
        (AnyId::Id(id, _), Encoding::Id(to)) => {
            let mut line = Vec::with_capacity(32);
            to.write(&mut line, id)
                .map_err(|e| format!("writing {id}: {e}"))?;
            // Every form writes ASCII.
            Ok(String::from_utf8_lossy(&line).into_owned())
        }
        (AnyId::Id128(wide), Encoding::Id128(to)) => wide.to_kind(to).map(|id| id.to_string()),
        (AnyId::Id(id, from), Encoding::Id128(to)) => Err(format!(
            "{} is a 64-bit ID ({} {id}): --to {} writes 128-bit IDs; pick a 64-bit encoding \
                 such as --to decimal",
            quoted(token),
            from.name(),
            to.name()
        )),
        (AnyId::Id128(wide), Encoding::Id(to)) => Err(format!(
            "{} is a 128-bit {} ID: --to {} writes 64-bit IDs; pass --to uuid7 or --to ulid",
            quoted(token),
            wide.kind().name(),
            to.name()
        )),
    }
}
