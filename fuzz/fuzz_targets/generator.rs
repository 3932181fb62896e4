//! The generator under a scripted clock: an arbitrary sequence of clock readings (equal,
//! forward, backward, huge jumps, the small reversals the TSC shows across cores)
//! interleaved with calls from several virtual threads on several generators (distinct
//! nodes, one clock), with and without lead, under both rollback policies. The properties
//! (unique IDs, strictly increasing per generator and thread, the lead bound, no spurious
//! refusal, exact retry hints, bounded waits) are `tests/support/gen_script.rs`, shared with
//! `tests/prop_generator.rs`.
#![no_main]

#[path = "../../tests/support/gen_script.rs"]
mod gen_script;

use std::time::Duration;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use snowmint::clock::Rollback;
use snowmint::layout::Order;
use snowmint::Layout;

use gen_script::{run, Op, Script};

/// Any magnitude, spread evenly over the powers of two.
fn any_scale(u: &mut Unstructured) -> Result<u64> {
    let shift = u.int_in_range(0..=63)?;
    Ok(u.arbitrary::<u64>()? >> shift)
}

fn layout(u: &mut Unstructured) -> Result<Option<Layout>> {
    if u.ratio(1, 5)? {
        return Ok(Some(u.choose(&Layout::PRESETS)?.1));
    }
    let unit = match u.int_in_range(0..=6)? {
        0 => 1,
        1 => 7,
        2 => 1_000,
        3 => 1_000_000,
        4 => 10_000_000,
        5 => 1_000_000_000,
        _ => u.int_in_range(1..=u64::MAX)?,
    };
    let time_bits = if u.ratio(1, 4)? {
        u.int_in_range(1..=8)?
    } else {
        u.int_in_range(9..=64)?
    };
    let epoch = match u.int_in_range(0..=2)? {
        0 => 0,
        1 => u.int_in_range(0..=2_000_000_000_000_000_000)?,
        _ => u.arbitrary()?,
    };
    Ok(Layout::builder()
        .time_bits(time_bits)
        .node_bits(u.int_in_range(0..=4)?)
        .sequence_bits(u.int_in_range(0..=4)?)
        .max_bits(64)
        .order(if u.arbitrary()? {
            Order::TimeNodeSequence
        } else {
            Order::TimeSequenceNode
        })
        .unit(Duration::from_nanos(unit))
        .epoch_unix_nanos(epoch)
        .validate()
        .ok())
}

fn op(u: &mut Unstructured) -> Result<Op> {
    let generator = u.int_in_range(0..=3)?;
    let thread = u.int_in_range(0..=3)?;
    // Weights as in tests/prop_generator.rs: mostly calls, then small clock moves.
    Ok(match u.int_in_range(0..=61)? {
        0..=29 => Op::Try { generator, thread },
        30..=32 => Op::Timeout {
            generator,
            thread,
            micros: u.int_in_range(0..=50)?,
        },
        33..=37 => Op::Advance(u.int_in_range(0..=20_000)?),
        38..=39 => Op::Advance(any_scale(u)?),
        40..=43 => Op::Rewind(u.int_in_range(0..=5_000)?),
        44 => Op::Rewind(any_scale(u)?),
        45..=50 => Op::AdvanceTicks(u.int_in_range(0..=3)?),
        51 => Op::AdvanceTicks(u.arbitrary()?),
        52 => Op::SetFromEpoch(any_scale(u)?),
        53 => Op::Set(u.arbitrary()?),
        54..=57 => Op::FollowHint { generator },
        _ => Op::Batch {
            generator,
            thread,
            n: if u.ratio(1, 5)? {
                u.int_in_range(65..=4_096)?
            } else {
                u.int_in_range(0..=64)?
            },
        },
    })
}

fn script(u: &mut Unstructured) -> Result<Option<Script>> {
    let Some(layout) = layout(u)? else {
        return Ok(None);
    };
    let generators = u.int_in_range(1..=4)?;
    let lead = match u.int_in_range(0..=6)? {
        0..=2 => 0,
        3..=5 => u.int_in_range(1..=3)?,
        _ => u.arbitrary()?,
    };
    let rollback = if u.arbitrary()? {
        Rollback::Wait
    } else {
        Rollback::Continue
    };
    let start_after = if u.ratio(1, 4)? {
        Some(u.arbitrary()?)
    } else {
        None
    };
    let start = if u.arbitrary()? {
        u.int_in_range(0..=10_000_000_000)?
    } else {
        any_scale(u)?
    };
    let mut ops = Vec::new();
    while !u.is_empty() && ops.len() < 500 {
        ops.push(op(u)?);
    }
    Ok(Some(Script {
        layout,
        generators,
        lead,
        rollback,
        start_after,
        start,
        ops,
    }))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    if let Ok(Some(s)) = script(&mut u) {
        run(&s);
    }
});
