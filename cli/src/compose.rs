//! `snowmint compose`: the ID of a time, node and sequence.

use std::io::{self, Write};
use std::time::SystemTime;

use snowmint::{LayoutError, Parts};

use crate::error::CliError;
use crate::format::Format;
use crate::layout_arg::{self, NamedLayout};
use crate::node_arg::NodeArgs;
use crate::time::{self, Precision};
use crate::value;

/// Build the ID of a time, node and sequence.
///
/// The node and sequence are named flags, so they cannot be swapped: sonyflake's
/// `Compose(t, sequence, machineID)` is `compose --time T --sequence S --node MACHINE`.
/// The time becomes a tick on the layout's time grid (see `snowmint layouts`), as the
/// layout's own code does.
///
/// With node and sequence 0 (the default) it is the smallest ID of the time's tick: every ID
/// minted at or after that time is at least this, so it bounds a range query
/// (`WHERE id >= $(snowmint compose --time ...)`). --last gives the largest ID of the tick.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The time: RFC 3339 (2026-01-01T00:00:00Z, 2026-01-01T09:00:00+09:00), Unix
    /// milliseconds (1767225600000) or 'now'; rounded down to the layout's tick
    #[arg(short, long, value_name = "TIME", value_parser = value::text(time::parse))]
    time: SystemTime,

    #[arg(short, long, value_name = "LAYOUT", default_value = "twitter", value_parser = value::text(layout_arg::parse), help = layout_arg::HELP)]
    layout: NamedLayout,

    #[command(flatten)]
    node: NodeArgs,

    /// The sequence number: 0 to the layout's largest (4095 for twitter)
    #[arg(short, long, value_name = "S", default_value = "0", value_parser = value::text(value::number))]
    sequence: u64,

    /// The largest ID of the tick (largest node and sequence) instead
    #[arg(long, conflicts_with_all = ["node", "node_from", "sequence"])]
    last: bool,

    /// The encoding to write the ID in
    #[arg(long, value_name = "ENCODING", default_value = "decimal", value_parser = value::choice::<Format>())]
    to: Format,

    /// One JSON object, {"id": TEXT, "encoding", "layout", "node", "sequence"}
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let layout = &args.layout.layout;
    let (node, sequence) = if args.last {
        (layout.max_node(), layout.max_sequence())
    } else {
        (args.node.resolve(&args.layout.layout)?, args.sequence)
    };
    let id = layout
        .compose_at(args.time, Parts { node, sequence })
        .map_err(|e| CliError::input(explain(e, &args.layout, args.time)))?;
    let mut out = io::stdout().lock();
    if args.json {
        let mut text = Vec::new();
        args.to.write(&mut text, id)?;
        let object = serde_json::json!({
            "id": String::from_utf8_lossy(&text),
            "encoding": args.to.name(),
            "layout": args.layout.name,
            "node": node,
            "sequence": sequence,
        });
        out.write_all(object.to_string().as_bytes())?;
    } else {
        args.to.write(&mut out, id)?;
    }
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// The library's message, with times in RFC 3339 and the layout named.
fn explain(err: LayoutError, layout: &NamedLayout, at: SystemTime) -> String {
    let l = &layout.layout;
    let sub_nanos = at
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let given = time::display(at, Precision::for_nanos(u64::from(sub_nanos)));
    let range = format!(
        "allowed from the {layout} epoch {} to before its expiry {}",
        time::display_millis(l.epoch_unix_millis()),
        time::display_millis(l.expiry_unix_millis())
    );
    match err {
        LayoutError::TimeBeforeEpoch { .. } => {
            format!("--time {given} is before the {layout} epoch: {range}")
        }
        LayoutError::TimeAfterExpiry { .. } => {
            format!("--time {given} is at or after the {layout} expiry: {range}")
        }
        other => format!(
            "{other} ({layout} has {} node and {} sequence bits)",
            l.node_bits(),
            l.sequence_bits()
        ),
    }
}
