//! `snowmint layouts`: the presets (or given layouts) with their bits, unit, epoch, expiry
//! and capacity.

use std::io::{self, BufWriter, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use snowmint::layout::Order;
use snowmint::Layout;

use crate::error::CliError;
use crate::layout_arg::{self, NamedLayout};
use crate::lifetime;
use crate::time::{self, Precision};
use crate::value;

/// List the layout presets: bits, unit, epoch, time grid, expiry date, years left and capacity.
///
/// The grid says where ticks start: "epoch" counts whole units from the epoch (Twitter,
/// Discord), "unix" counts on a grid of whole units from 1970 as sonyflake does (the two
/// differ only when the epoch is not a whole number of units). The expiry is when the time
/// field overflows: no ID can be minted from then on (old IDs still decode); the years left
/// count from now to it. The capacity is
/// the most IDs one node can mint per second; the node count is how many generators can mint
/// at once without coordination.
#[derive(Debug, clap::Args)]
#[command(after_long_help = layout_arg::SYNTAX)]
pub struct Args {
    /// Layouts to describe, presets or custom specs (syntax below, in --help) [default: every preset]
    #[arg(value_name = "LAYOUT", value_parser = value::text(layout_arg::parse))]
    layouts: Vec<NamedLayout>,

    /// A JSON array of objects, with each layout's spec
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let layouts = if args.layouts.is_empty() {
        Layout::PRESETS
            .iter()
            .map(|&(name, layout)| NamedLayout { name, layout })
            .collect()
    } else {
        args.layouts
    };
    let mut out = BufWriter::new(io::stdout().lock());
    if args.json {
        let items: Vec<String> = layouts.iter().map(to_json).collect();
        writeln!(out, "[\n  {}\n]", items.join(",\n  "))?;
    } else {
        table(&mut out, &layouts)?;
    }
    out.flush()?;
    Ok(())
}

const HEADER: [&str; 11] = [
    "NAME",
    "BITS",
    "FIELDS",
    "UNIT",
    "EPOCH",
    "GRID",
    "EXPIRY",
    "YEARS LEFT",
    "NODES",
    "IDS/TICK",
    "IDS/S PER NODE",
];

fn table(out: &mut impl Write, layouts: &[NamedLayout]) -> io::Result<()> {
    let rows: Vec<[String; 11]> = layouts.iter().map(row).collect();
    let mut widths = HEADER.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let header = HEADER.map(str::to_owned);
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

fn row(named: &NamedLayout) -> [String; 11] {
    let l = &named.layout;
    [
        named.name.to_owned(),
        l.max_bits().to_string(),
        fields(l),
        humantime::format_duration(l.unit()).to_string(),
        epoch(l),
        layout_arg::grid_name(l.time_grid()).to_owned(),
        time::display(l.expiry(), Precision::Millis),
        format!("{:.1}", lifetime::years_left(l, SystemTime::now())),
        grouped(u128::from(l.max_node()) + 1),
        grouped(u128::from(l.ids_per_tick())),
        capacity(l),
    ]
}

/// The fields from the top bit down: `time:41 node:10 seq:12`.
fn fields(l: &Layout) -> String {
    let (time, node, seq) = (l.time_bits(), l.node_bits(), l.sequence_bits());
    match l.order() {
        Order::TimeNodeSequence => format!("time:{time} node:{node} seq:{seq}"),
        Order::TimeSequenceNode => format!("time:{time} seq:{seq} node:{node}"),
    }
}

fn epoch(l: &Layout) -> String {
    let nanos = l.epoch_unix_nanos();
    time::display(
        UNIX_EPOCH + Duration::from_nanos(nanos),
        Precision::for_nanos(nanos),
    )
}

/// IDs per second per node, whole when it is.
fn capacity(l: &Layout) -> String {
    let per_second = l.capacity_per_second();
    if per_second.fract() == 0.0 && per_second < 1e30 {
        grouped(per_second as u128)
    } else {
        format!("{per_second:.3}")
    }
}

/// `4096000` as `4,096,000`.
fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn to_json(named: &NamedLayout) -> String {
    let l = &named.layout;
    serde_json::json!({
        "name": named.name,
        "spec": layout_arg::spec(l),
        "bits": l.max_bits(),
        "time_bits": l.time_bits(),
        "node_bits": l.node_bits(),
        "sequence_bits": l.sequence_bits(),
        "order": layout_arg::order_name(l.order()),
        "time_grid": layout_arg::grid_name(l.time_grid()),
        "unit_ns": l.unit_nanos(),
        "epoch": epoch(l),
        "epoch_unix_ms": l.epoch_unix_millis(),
        "expiry": time::format(l.expiry(), Precision::Millis),
        "expiry_unix_ms": l.expiry_unix_millis(),
        "years_left": crate::json_number::float(lifetime::years_left(l, SystemTime::now())),
        "nodes": crate::json_number::wide(u128::from(l.max_node()) + 1),
        "ids_per_tick": l.ids_per_tick(),
        "ids_per_second_per_node": crate::json_number::float(l.capacity_per_second()),
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(4_096_000), "4,096,000");
        assert_eq!(
            grouped(u128::from(u64::MAX) + 1),
            "18,446,744,073,709,551,616"
        );
    }
}
