//! `snowmint gen`: mint IDs, one per line.

use std::io::{self, BufWriter, Write};

use snowmint::{Generator, LayoutError};

use crate::error::CliError;
use crate::format::Format;
use crate::layout_arg::{self, NamedLayout};
use crate::node_arg::NodeArgs;
use crate::time;
use crate::value;

/// Mint IDs, one per line.
///
/// IDs come from one generator on the TSC clock, reserved a tick's worth at a time, so the
/// rate is the layout's cap per node (4,096,000/s for twitter, 25,600/s for sonyflake; see
/// `snowmint layouts`): more IDs per second need more node numbers.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many IDs
    #[arg(short = 'n', long = "count", value_name = "N", default_value = "1", value_parser = value::text(value::number))]
    count: u64,

    #[arg(short, long, value_name = "LAYOUT", default_value = "twitter", value_parser = value::text(layout_arg::parse), help = layout_arg::HELP)]
    layout: NamedLayout,

    #[command(flatten)]
    node: NodeArgs,

    /// How to write each ID
    #[arg(short, long, value_name = "FORMAT", default_value = "decimal", value_parser = value::choice::<Format>())]
    format: Format,
}

/// How many bytes of output to gather before each write: 64 KiB is a pipe's capacity on
/// Linux, so a reader gets whole pipe-fuls.
const OUT_BUFFER: usize = 64 * 1024;

pub fn run(args: Args) -> Result<(), CliError> {
    let node = args.node.resolve(&args.layout.layout)?;
    let gen = Generator::new(args.layout.layout, node).map_err(|e| match e {
        LayoutError::Expired { .. } => CliError::input(format_args!(
            "layout {} expired on {}: its time field is full, so no ID can be minted (its IDs still decode); \
             use a later epoch, more time bits or a longer unit",
            args.layout,
            time::display_millis(args.layout.layout.expiry_unix_millis())
        )),
        other => CliError::input(other),
    })?;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(OUT_BUFFER, stdout.lock());
    let mut left = args.count;
    while left > 0 {
        // One CAS reserves up to the rest of the current tick.
        let batch = gen.next_ids(left).map_err(|e| {
            CliError::system(format_args!(
                "minting stopped after {} IDs: {e}",
                args.count - left
            ))
        })?;
        let take = batch.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        for id in batch.take(take) {
            args.format.write(&mut out, id)?;
            out.write_all(b"\n")?;
        }
        left -= take as u64;
    }
    out.flush()?;
    Ok(())
}
