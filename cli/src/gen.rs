//! `snowmint gen`: mint IDs, one per line: 64-bit Snowflake-family IDs (the default) or,
//! with `--kind uuid7|ulid`, 128-bit ones.

use snowmint::source::FillError;
use snowmint::{Generator, Id, LayoutError};
use std::io::{self, Write};

use crate::error::CliError;
use crate::format::Format;
use crate::id128::{self, Generator128};
use crate::layout_arg::{self, NamedLayout};
use crate::node_arg::NodeArgs;
use crate::time;
use crate::value;

/// Mint IDs, one per line.
///
/// IDs come from one generator on the TSC clock, filled 4,096 at a time (one reservation
/// per tick), so the rate is the layout's cap per node (4,096,000/s for twitter, 25,600/s
/// for sonyflake; see `snowmint layouts`): more IDs per second need more node numbers. When
/// a tick is used up, the generator waits for the next one; the output is written every
/// MiB and at the end.
///
/// With --kind uuid7 or --kind ulid, 128-bit IDs in their canonical text (no node, no
/// layout, no other encoding: --layout, --node, --node-from and --to are refused), from
/// one lock-free generator, strictly increasing.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many IDs
    #[arg(short = 'n', long = "count", value_name = "N", default_value = "1", value_parser = value::text(value::number))]
    count: u64,

    /// Which IDs: 64-bit Snowflake-family IDs of --layout, or 128-bit UUIDv7 or ULID
    #[arg(short, long, value_name = "KIND", default_value = "snowflake", value_parser = value::choice::<Kind>())]
    kind: Kind,

    /// [default: twitter]
    #[arg(short, long, value_name = "LAYOUT", value_parser = value::text(layout_arg::parse), help = layout_arg::HELP)]
    layout: Option<NamedLayout>,

    #[command(flatten)]
    node: NodeArgs,

    /// The encoding to write each ID in [default: decimal]
    #[arg(long, value_name = "ENCODING", value_parser = value::choice::<Format>())]
    to: Option<Format>,

    /// One JSON object per line, {"id": TEXT}, the ID's text in the --to encoding
    #[arg(long)]
    json: bool,
}

/// What `gen` mints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// 64-bit IDs of --layout
    Snowflake,
    /// RFC 9562 UUID version 7 (36 characters, lowercase hex, hyphenated)
    Uuid7,
    /// ULID (26 characters of Crockford base32, uppercase)
    Ulid,
}

/// Output gathered before a write when no tick runs out first (layouts whose cap is above
/// what one core formats): 1 MiB, sixteen 64 KiB pipe-fuls per system call.
const OUT_BUFFER: usize = 1 << 20;

/// The longest line: 20 decimal digits (or 64 binary ones), quotes, newline.
const MAX_LINE: usize = 66;

/// IDs per fill: a Twitter tick's worth, so that a fill at the cap is about one reservation,
/// and the formatting of one fill's IDs (tens of microseconds) stays well inside a tick.
const CHUNK: usize = 4_096;

pub fn run(args: Args) -> Result<(), CliError> {
    let kind = match args.kind {
        Kind::Snowflake => None,
        Kind::Uuid7 => Some(id128::Kind::Uuid7),
        Kind::Ulid => Some(id128::Kind::Ulid),
    };
    if let Some(kind) = kind {
        return run_128(&args, kind);
    }
    let named = match args.layout {
        Some(named) => named,
        None => layout_arg::parse("twitter").map_err(CliError::input)?,
    };
    let format = args.to.unwrap_or(Format::Decimal);
    let node = args.node.resolve(&named.layout)?;
    let gen = Generator::new(named.layout, node).map_err(|e| match e {
        LayoutError::Expired { .. } => CliError::input(format_args!(
            "layout {named} expired on {}: its time field is full, so no ID can be minted (its IDs still decode); \
             use a later epoch, more time bits or a longer unit",
            time::display_millis(named.layout.expiry_unix_millis())
        )),
        other => CliError::input(other),
    })?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut buf = Vec::with_capacity(OUT_BUFFER + MAX_LINE * CHUNK);
    let mut digits = itoa::Buffer::new();
    let mut ids = vec![Id::MIN; CHUNK];
    let mut left = args.count;
    while left > 0 {
        let chunk = &mut ids[..usize::try_from(left).map_or(CHUNK, |left| left.min(CHUNK))];
        // One reservation per tick, waiting for the next tick as the generator does.
        let filled = gen.fill(chunk);
        let written = filled
            .as_ref()
            .map_or_else(FillError::filled, |()| chunk.len());
        append(format, args.json, &chunk[..written], &mut buf, &mut digits)?;
        left -= written as u64;
        if let Err(e) = filled {
            // The IDs minted before the error are valid: they go out before it is reported.
            write_out(&mut out, &mut buf)?;
            out.flush()?;
            return Err(CliError::system(format_args!(
                "minting stopped after {} IDs: {}",
                args.count - left,
                e.error()
            )));
        }
        if buf.len() >= OUT_BUFFER {
            write_out(&mut out, &mut buf)?;
        }
    }
    write_out(&mut out, &mut buf)?;
    out.flush()?;
    Ok(())
}

/// `gen --kind uuid7|ulid`: the flags of 64-bit IDs are refused, naming the flag.
fn run_128(args: &Args, kind: id128::Kind) -> Result<(), CliError> {
    let given = [
        (args.layout.is_some(), "--layout"),
        (args.node.node.is_some(), "--node"),
        (args.node.node_from.is_some(), "--node-from"),
        (args.node.allow_shared, "--allow-shared"),
        (args.to.is_some(), "--to"),
    ];
    if let Some((_, flag)) = given.iter().find(|(given, _)| *given) {
        return Err(CliError::input(format_args!(
            "{flag} does not apply to --kind {}: a 128-bit ID has no layout or node and is \
             written in its canonical text only; drop {flag}, or use --kind snowflake",
            kind.name()
        )));
    }
    let gen = Generator128::new(kind);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut buf = Vec::with_capacity(OUT_BUFFER + (id128::MAX_TEXT + 1) * id128::CHUNK);
    let mut left = args.count;
    while left > 0 {
        let n = usize::try_from(left).map_or(id128::CHUNK, |left| left.min(id128::CHUNK));
        gen.mint(n, |text| {
            if args.json {
                buf.extend_from_slice(b"{\"id\":\"");
                // Canonical UUID and ULID texts are hex digits, letters and hyphens.
                buf.extend_from_slice(text.as_bytes());
                buf.extend_from_slice(b"\"}");
            } else {
                buf.extend_from_slice(text.as_bytes());
            }
            buf.push(b'\n');
        });
        left -= n as u64;
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
    json: bool,
    ids: &[Id],
    buf: &mut Vec<u8>,
    digits: &mut itoa::Buffer,
) -> io::Result<()> {
    buf.reserve(ids.len() * MAX_LINE);
    if json {
        let mut text = Vec::with_capacity(MAX_LINE);
        for &id in ids {
            text.clear();
            format.write(&mut text, id)?;
            // Every encoding writes ASCII.
            let object = serde_json::json!({ "id": String::from_utf8_lossy(&text) });
            buf.extend_from_slice(object.to_string().as_bytes());
            buf.push(b'\n');
        }
        return Ok(());
    }
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
            for &id in ids {
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
