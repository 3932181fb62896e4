//! Layout building from arbitrary widths, unit, epoch and order never panics, and a valid
//! layout round-trips every field (at its maximum and at arbitrary values) through
//! compose/decode. The properties are `tests/support/layout_props.rs`, shared with
//! `tests/prop_layout.rs`.
#![no_main]

#[path = "../../tests/support/layout_props.rs"]
mod layout_props;

use std::time::Duration;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use snowmint::layout::{Order, TimeGrid};

use layout_props::{check, EpochInput, LayoutInput};

/// A width: mostly ones that can fit a 64-bit ID, sometimes anything.
fn bits(u: &mut Unstructured) -> Result<u8> {
    let b: u8 = u.arbitrary()?;
    Ok(if b & 0x80 == 0 { b % 66 } else { b })
}

fn duration(u: &mut Unstructured) -> Result<Duration> {
    Ok(match u.int_in_range(0..=2)? {
        0 => Duration::from_nanos(u.int_in_range(0..=2_000_000_000)?),
        1 => Duration::from_nanos(u.arbitrary()?),
        _ => Duration::new(u.arbitrary()?, u.int_in_range(0..=999_999_999)?),
    })
}

fn input(u: &mut Unstructured) -> Result<LayoutInput> {
    Ok(LayoutInput {
        time_bits: bits(u)?,
        node_bits: bits(u)?,
        sequence_bits: bits(u)?,
        max_bits: if u.arbitrary()? { Some(bits(u)?) } else { None },
        order: if u.arbitrary()? {
            Order::TimeNodeSequence
        } else {
            Order::TimeSequenceNode
        },
        grid: match u.int_in_range(0..=2)? {
            0 => None,
            1 => Some(TimeGrid::Epoch),
            _ => Some(TimeGrid::Unix),
        },
        unit: if u.arbitrary()? {
            Some(duration(u)?)
        } else {
            None
        },
        epoch: match u.int_in_range(0..=4)? {
            0 => None,
            1 => Some(EpochInput::Millis(u.arbitrary()?)),
            2 => Some(EpochInput::Nanos(u.arbitrary()?)),
            3 => Some(EpochInput::After(duration(u)?)),
            _ => Some(EpochInput::Before(duration(u)?)),
        },
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(input) = input(&mut u) else { return };
    let mut fields = Vec::new();
    let mut ids = Vec::new();
    while fields.len() < 8 {
        match u.arbitrary::<(u64, u64, u64)>() {
            Ok(f) if !u.is_empty() => fields.push(f),
            _ => break,
        }
    }
    while ids.len() < 8 {
        match u.arbitrary::<u64>() {
            Ok(id) if !u.is_empty() => ids.push(id),
            _ => break,
        }
    }
    check(&input, &fields, &ids);
});
