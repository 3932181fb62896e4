//! `--layout`: a preset name, a custom spec such as
//! `time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63`,
//! or bwmarrin/snowflake's settings, `bwmarrin:node=8,seq=8`.

use std::fmt;
use std::time::{Duration, UNIX_EPOCH};

use snowmint::layout::{Order, TimeGrid};
use snowmint::Layout;

use crate::escape::quoted;
use crate::time::{self, Precision};

/// The `--layout` help of `gen`, `decode`, `compose` and `serve`: one line, pointing to
/// [`SYNTAX`].
pub const HELP: &str = "A preset (twitter, sonyflake, sonyflake-v2, discord, instagram, \
mastodon, js53), a custom spec such as 'base=sonyflake,epoch=2024-01-01T00:00:00Z', or \
bwmarrin/snowflake's settings such as 'bwmarrin:node=8,seq=8': see `snowmint layouts --help`";

/// The layout syntax, explained once: the end of `snowmint layouts --help`.
pub const SYNTAX: &str = "\
Layout syntax (the LAYOUT here and the --layout of gen, decode, compose and serve):

A preset name (twitter, sonyflake, sonyflake-v2, discord, instagram, mastodon, js53), a
custom spec, or bwmarrin/snowflake's settings (below). A custom spec is comma-separated
key=value pairs out of
  time=BITS        bits of the time field
  node=BITS        bits of the node field
  seq=BITS         bits of the sequence field
  unit=DURATION    the tick (1ms, 10ms, 100us...)
  epoch=TIME       the first tick, RFC 3339 or Unix milliseconds
  order=tns|tsn    time|node|sequence or time|sequence|node
  grid=epoch|unix  ticks counted from the epoch, or on sonyflake's grid of whole units from 1970
  bits=WIDTH       the width of the ID (53, 63 or 64...)
  base=PRESET      the preset the other keys change
Keys left out keep the base preset's values (Twitter's unless base= says otherwise), e.g.
'base=sonyflake,epoch=2024-01-01T00:00:00Z'.

bwmarrin/snowflake's settings: 'bwmarrin:' and key=value pairs out of
  node=BITS        its NodeBits (default 10)
  seq=BITS         its StepBits (default 12); node + seq at most 22, as its NewNode asks
  epoch=TIME       its Epoch (default 1288834974657, 2010-11-04T01:42:54.657Z)
The time field gets the other 63 - node - seq bits, as bwmarrin's timeShift leaves it, e.g.
'bwmarrin:node=8,seq=8' is time=47,node=8,seq=8 (not time=41: that cuts bwmarrin's time).";

const BWMARRIN_KEYS: &str = "node, seq, epoch";

const KEYS: &str = "time, node, seq, unit, epoch, order, grid, bits, base";

/// A layout and the name to show for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedLayout {
    /// The preset's name, or `custom`.
    pub name: &'static str,
    pub layout: Layout,
}

impl fmt::Display for NamedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The value parser of `--layout`.
pub fn parse(text: &str) -> Result<NamedLayout, String> {
    if let Some(&(name, layout)) = Layout::PRESETS.iter().find(|(name, _)| *name == text) {
        return Ok(NamedLayout { name, layout });
    }
    if let Some(settings) = text.strip_prefix("bwmarrin:") {
        return parse_bwmarrin(settings).map(named);
    }
    if !text.contains('=') {
        return Err(format!(
            "unknown layout {}: allowed a preset ({}) or a key=value spec with keys {KEYS}",
            quoted(text),
            preset_names()
        ));
    }
    parse_spec(text).map(named)
}

/// The layout with its preset's name, or `custom`: a spec that spells out a preset is that
/// preset.
fn named(layout: Layout) -> NamedLayout {
    match Layout::PRESETS.iter().find(|(_, l)| *l == layout) {
        Some(&(name, layout)) => NamedLayout { name, layout },
        None => NamedLayout {
            name: "custom",
            layout,
        },
    }
}

/// `key=value` pairs, each key at most once; `keys` names the allowed ones for the error.
fn pairs<'a>(text: &'a str, keys: &str) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut pairs = Vec::new();
    for pair in text.split(',') {
        let (key, value) = pair.split_once('=').ok_or_else(|| {
            format!(
                "{} in layout spec is not key=value (keys: {keys})",
                quoted(pair)
            )
        })?;
        let (key, value) = (key.trim(), value.trim());
        if pairs.iter().any(|&(k, _)| k == key) {
            return Err(format!("layout key {} is given twice", quoted(key)));
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// bwmarrin/snowflake's `NodeBits`, `StepBits` and `Epoch`, as `Layout::bwmarrin` maps them.
fn parse_bwmarrin(text: &str) -> Result<Layout, String> {
    let (mut node_bits, mut step_bits, mut epoch) = (10, 12, None);
    if !text.is_empty() {
        for (key, value) in pairs(text, BWMARRIN_KEYS)? {
            match key {
                "node" => node_bits = bits(key, value, 0, 22)?,
                "seq" | "step" => step_bits = bits(key, value, 0, 22)?,
                "epoch" => {
                    epoch = Some(time::parse(value).map_err(|e| format!("layout key epoch: {e}"))?)
                }
                _ => {
                    return Err(format!(
                        "unknown bwmarrin layout key {}: allowed keys {BWMARRIN_KEYS}",
                        quoted(key)
                    ))
                }
            }
        }
    }
    let layout = Layout::bwmarrin(node_bits, step_bits).map_err(|e| e.to_string())?;
    match epoch {
        None => Ok(layout),
        Some(epoch) => layout
            .to_builder()
            .epoch(epoch)
            .build()
            .map_err(|e| e.to_string()),
    }
}

fn preset_names() -> String {
    Layout::PRESETS
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a key=value spec and validates it with `LayoutBuilder::build`, so that a layout
/// the library rejects is rejected here with the library's message.
fn parse_spec(text: &str) -> Result<Layout, String> {
    let pairs = pairs(text, KEYS)?;
    let base = match pairs.iter().find(|&&(k, _)| k == "base") {
        None => Layout::TWITTER,
        Some(&(_, name)) => Layout::preset(name).ok_or_else(|| {
            format!(
                "layout key base: unknown preset {}: allowed {}",
                quoted(name),
                preset_names()
            )
        })?,
    };
    let mut builder = base.to_builder();
    for (key, value) in pairs {
        builder = match key {
            "base" => builder,
            "time" => builder.time_bits(bits(key, value, 1, 64)?),
            "node" => builder.node_bits(bits(key, value, 0, 63)?),
            "seq" | "sequence" => builder.sequence_bits(bits(key, value, 0, 63)?),
            "bits" => builder.max_bits(bits(key, value, 1, 64)?),
            "order" => builder.order(match value {
                "tns" => Order::TimeNodeSequence,
                "tsn" => Order::TimeSequenceNode,
                _ => return Err(format!("layout key order: {} is not an order: allowed tns or tsn", quoted(value))),
            }),
            "grid" => builder.time_grid(match value {
                "epoch" => TimeGrid::Epoch,
                "unix" => TimeGrid::Unix,
                _ => return Err(format!("layout key grid: {} is not a time grid: allowed epoch or unix", quoted(value))),
            }),
            "unit" => builder.unit(humantime::parse_duration(value).map_err(|e| {
                format!("layout key unit: {} is not a duration ({e}): expected e.g. 1ms, 10ms, 100us, 1s", quoted(value))
            })?),
            "epoch" => builder.epoch(
                time::parse(value).map_err(|e| format!("layout key epoch: {e}"))?,
            ),
            _ => return Err(format!("unknown layout key {}: allowed keys {KEYS}", quoted(key))),
        };
    }
    builder.build().map_err(|e| e.to_string())
}

fn bits(key: &str, value: &str, min: u8, max: u8) -> Result<u8, String> {
    crate::value::parse_number(value)
        .filter(|b| (u64::from(min)..=u64::from(max)).contains(b))
        .map(|b| b as u8)
        .ok_or_else(|| {
            format!(
                "layout key {key}: {} is not a number of bits: allowed {min} to {max}",
                quoted(value)
            )
        })
}

/// The spec that rebuilds `layout`, every key spelled out.
pub fn spec(layout: &Layout) -> String {
    let epoch_nanos = layout.epoch_unix_nanos();
    let epoch = time::display(
        UNIX_EPOCH + Duration::from_nanos(epoch_nanos),
        Precision::for_nanos(epoch_nanos),
    );
    format!(
        "time={},node={},seq={},unit={},epoch={},order={},grid={},bits={}",
        layout.time_bits(),
        layout.node_bits(),
        layout.sequence_bits(),
        humantime::format_duration(layout.unit()),
        epoch,
        order_name(layout.order()),
        grid_name(layout.time_grid()),
        layout.max_bits(),
    )
}

/// `epoch` or `unix`, as the spec writes it.
pub fn grid_name(grid: TimeGrid) -> &'static str {
    match grid {
        TimeGrid::Epoch => "epoch",
        TimeGrid::Unix => "unix",
    }
}

/// `tns` or `tsn`, as the spec writes it.
pub fn order_name(order: Order) -> &'static str {
    match order {
        Order::TimeNodeSequence => "tns",
        Order::TimeSequenceNode => "tsn",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_by_name_and_by_its_spec() {
        for (name, layout) in Layout::PRESETS {
            assert_eq!(parse(name).unwrap(), NamedLayout { name, layout });
            assert_eq!(
                parse(&spec(&layout)).unwrap(),
                NamedLayout { name, layout },
                "{}",
                spec(&layout)
            );
        }
    }

    #[test]
    fn omitted_keys_come_from_twitter_or_the_base() {
        let l = parse("node=8,seq=14").unwrap();
        assert_eq!(l.name, "custom");
        assert_eq!(
            l.layout,
            Layout::TWITTER
                .to_builder()
                .node_bits(8)
                .sequence_bits(14)
                .build()
                .unwrap()
        );
        let l = parse("base=sonyflake,epoch=2024-01-01T00:00:00Z")
            .unwrap()
            .layout;
        assert_eq!(l.sequence_bits(), Layout::SONYFLAKE.sequence_bits());
        assert_eq!(l.unit(), Layout::SONYFLAKE.unit());
        assert_eq!(l.epoch_unix_millis(), 1_704_067_200_000);
        // Derived from sonyflake: its time grid comes along.
        assert_eq!(l.time_grid(), TimeGrid::Unix);
        assert_eq!(
            parse("base=sonyflake,grid=epoch")
                .unwrap()
                .layout
                .time_grid(),
            TimeGrid::Epoch
        );
        assert_eq!(
            parse("grid=unix").unwrap().layout.time_grid(),
            TimeGrid::Unix
        );
        let l = parse("unit=100us,epoch=1700000000000,order=tsn,bits=64,time=42")
            .unwrap()
            .layout;
        assert_eq!(l.unit(), Duration::from_micros(100));
        assert_eq!(
            (l.order(), l.max_bits(), l.time_bits()),
            (Order::TimeSequenceNode, 64, 42)
        );
    }

    #[test]
    fn bwmarrin_settings_give_the_other_bits_to_the_time() {
        let l = parse("bwmarrin:node=8,seq=8").unwrap();
        assert_eq!(
            (l.name, l.layout),
            ("custom", Layout::bwmarrin(8, 8).unwrap())
        );
        assert_eq!(l.layout.time_bits(), 47);
        assert_eq!(
            parse("bwmarrin:step=5,node=5").unwrap().layout.time_bits(),
            53
        );
        // Its defaults are Twitter's layout.
        assert_eq!(parse("bwmarrin:").unwrap().name, "twitter");
        assert_eq!(parse("bwmarrin:node=10").unwrap().name, "twitter");
        let l = parse("bwmarrin:node=4,seq=6,epoch=1700000000000")
            .unwrap()
            .layout;
        assert_eq!(
            (l.time_bits(), l.epoch_unix_millis()),
            (53, 1_700_000_000_000)
        );
        // The spec that spells it out is the same layout.
        assert_eq!(parse(&spec(&l)).unwrap().layout, l);
        for (text, expected) in [
            ("bwmarrin:node=12,seq=11", "at most 22"),
            ("bwmarrin:node=23", "allowed 0 to 22"),
            ("bwmarrin:time=41", "unknown bwmarrin layout key 'time'"),
            ("bwmarrin:node=3,node=4", "given twice"),
            ("bwmarrin:node", "not key=value"),
            ("bwmarrin:epoch=2200-01-01T00:00:00Z", "in the future"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    #[test]
    fn bad_specs_say_what_was_wrong() {
        let cases = [
            ("tweeter", "unknown layout 'tweeter'"),
            ("\u{1b}[2J", "unknown layout '\\u{1b}[2J'"),
            ("time=41,node=10,seq=13", "at most 63"),
            ("time=0", "allowed 1 to 64"),
            ("node=64", "allowed 0 to 63"),
            ("node=-1", "allowed 0 to 63"),
            ("node=+5", "allowed 0 to 63"),
            ("node=05", "allowed 0 to 63"),
            ("grid=gps", "allowed epoch or unix"),
            ("time=65", "allowed 1 to 64"),
            ("colour=red", "unknown layout key 'colour'"),
            ("node", "unknown layout"),
            ("node=3,node", "not key=value"),
            ("node=3,node=4", "given twice"),
            ("order=nts", "allowed tns or tsn"),
            ("unit=fast", "not a duration"),
            ("unit=0s", "at least 1 ns"),
            ("epoch=2200-01-01T00:00:00Z", "in the future"),
            ("epoch=3000-01-01T00:00:00Z", "is too late"),
            ("epoch=yesterday", "not a valid time"),
            ("base=snowflake", "unknown preset 'snowflake'"),
            ("time=60,node=0,seq=0,unit=1000000000s", "expiry"),
        ];
        for (spec, expected) in cases {
            let err = parse(spec).unwrap_err();
            assert!(err.contains(expected), "{spec}: {err}");
        }
    }
}
