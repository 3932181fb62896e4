//! `snowmint encode`: IDs in one encoding written in another.

use std::ffi::OsString;

use crate::batch;
use crate::error::CliError;
use crate::format::{self, Format};
use crate::layout_arg::{self, NamedLayout};
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
/// Examples: `snowmint encode --to base58 1541815603606036480`;
/// `snowmint encode --from bwmarrin-base64 --to decimal < column.txt`;
/// `snowmint encode --to int-bytes 1541815603606036480` (the 8 big-endian bytes as hex).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// IDs to encode [default: read from standard input]
    #[arg(value_name = "ID")]
    ids: Vec<OsString>,

    /// The IDs' encoding [default: detected]
    #[arg(long, value_name = "ENCODING", value_parser = value::choice::<Format>())]
    from: Option<Format>,

    /// The encoding to write
    #[arg(long, value_name = "ENCODING", value_parser = value::choice::<Format>())]
    to: Format,

    /// Refuse IDs wider than this layout's bits (detection then considers only the readings
    /// that fit) [default: any 64-bit value]
    #[arg(short, long, value_name = "LAYOUT", value_parser = value::text(layout_arg::parse))]
    layout: Option<NamedLayout>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    // Only the width of the layout matters here: Discord's is all 64 bits.
    let layout = args.layout.map_or(snowmint::Layout::DISCORD, |l| l.layout);
    batch::each_token(&args.ids, "encode", |token| {
        let (id, _) = format::read_id(token, args.from, &layout)?;
        let mut line = Vec::with_capacity(32);
        args.to
            .write(&mut line, id)
            .map_err(|e| format!("writing {id}: {e}"))?;
        // Every form writes ASCII.
        Ok(String::from_utf8_lossy(&line).into_owned())
    })
}
