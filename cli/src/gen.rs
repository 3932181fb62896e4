//! `snowmint gen`: mint IDs, one per line.

use std::io::{self, Write};
use std::time::Duration;

use snowmint::{Generator, IdBatch, LayoutError, MintError};

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
/// `snowmint layouts`): more IDs per second need more node numbers. When a tick is used up,
/// the output gathered so far is written, and the tool sleeps until the next tick.
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

/// Output gathered before a write when no tick runs out first (layouts whose cap is above
/// what one core formats): 1 MiB, sixteen 64 KiB pipe-fuls per system call.
const OUT_BUFFER: usize = 1 << 20;

/// The longest line: 20 decimal digits (or 64 binary ones), quotes, newline.
const MAX_LINE: usize = 66;

/// Waits shorter than this spin instead of sleeping: a sleep wakes 50–100 µs late (timer
/// slack), and a system call costs more than a few microseconds of spinning.
const SPIN_BELOW: Duration = Duration::from_micros(20);

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
    let mut out = stdout.lock();
    let mut buf = Vec::with_capacity(OUT_BUFFER + MAX_LINE * 4_096);
    let mut digits = itoa::Buffer::new();
    let mut left = args.count;
    while left > 0 {
        // One CAS reserves up to the rest of the current tick, without waiting.
        let batch = match gen.try_next_ids(left) {
            Ok(batch) => batch,
            Err(MintError::Exhausted { retry_after }) => {
                // The tick is used up: write what is gathered while the clock moves on,
                // then look again (the write took time); wait only with nothing to write.
                if buf.is_empty() {
                    wait(retry_after);
                } else {
                    write_out(&mut out, &mut buf)?;
                }
                continue;
            }
            // The clock stepped back (or worse): the generator's own waiting rules decide.
            Err(_) => gen.next_ids(left).map_err(|e| {
                CliError::system(format_args!(
                    "minting stopped after {} IDs: {e}",
                    args.count - left
                ))
            })?,
        };
        let take = batch.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        append(args.format, batch.take(take), &mut buf, &mut digits)?;
        left -= take as u64;
        if buf.len() >= OUT_BUFFER {
            write_out(&mut out, &mut buf)?;
        }
    }
    write_out(&mut out, &mut buf)?;
    out.flush()?;
    Ok(())
}

/// Appends one line per ID. Decimal, the default, goes through `itoa` (two digits per
/// step from a table, no allocation); the other forms through the library's encoders.
fn append(
    format: Format,
    ids: std::iter::Take<IdBatch>,
    buf: &mut Vec<u8>,
    digits: &mut itoa::Buffer,
) -> io::Result<()> {
    buf.reserve(ids.len() * MAX_LINE);
    match format {
        Format::Decimal => {
            for id in ids {
                buf.extend_from_slice(digits.format(id.to_u64()).as_bytes());
                buf.push(b'\n');
            }
        }
        Format::Json => {
            for id in ids {
                buf.push(b'"');
                buf.extend_from_slice(digits.format(id.to_u64()).as_bytes());
                buf.extend_from_slice(b"\"\n");
            }
        }
        other => {
            for id in ids {
                other.write(buf, id)?;
                buf.push(b'\n');
            }
        }
    }
    Ok(())
}

/// Writes the gathered lines (always whole lines) and empties the buffer.
fn write_out(out: &mut impl Write, buf: &mut Vec<u8>) -> io::Result<()> {
    if !buf.is_empty() {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

/// Waits for the next tick. Sleeping past its start costs nothing: the whole tick's
/// sequence is still there (only sleeping through an entire tick would lose IDs), and a
/// sleeping process, unlike one spinning or yielding, leaves the core to others and is
/// woken promptly by the scheduler when its time comes.
fn wait(retry_after: Duration) {
    if retry_after < SPIN_BELOW {
        let until = std::time::Instant::now() + retry_after;
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
    } else {
        std::thread::sleep(retry_after);
    }
}
