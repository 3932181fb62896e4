//! Shards: arbitrary own / mint / release sequences on a scripted clock never repeat an ID,
//! the blocking forms (the owned shards' and thread-local shards' cached hot path) agree with the
//! non-blocking ones call by call, and calls on shards of known state follow the step rule.
//! The property is `tests/support/shard_script.rs`, shared with `tests/prop_shards.rs`.
#![no_main]

#[path = "../../tests/support/shard_script.rs"]
mod shard_script;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use snowmint::clock::Rollback;

use shard_script::{run, Op, Script};

fn op(u: &mut Unstructured) -> Result<Op> {
    Ok(match u.int_in_range(0..=8)? {
        0 => Op::OwnedShard,
        1 => Op::Drop {
            slot: u.arbitrary()?,
        },
        2 => Op::Mint {
            slot: u.arbitrary()?,
        },
        3 => Op::Batch {
            slot: u.arbitrary()?,
            n: u.arbitrary()?,
        },
        4 => Op::MintLocal,
        5 => Op::ReleaseLocal,
        6 => Op::Advance {
            nanos: u.int_in_range(0..=20_000)?,
        },
        7 => Op::BatchLocal { n: u.arbitrary()? },
        _ => Op::Rewind {
            nanos: u.int_in_range(0..=20_000)?,
        },
    })
}

fn script(u: &mut Unstructured) -> Result<Script> {
    let shard_bits = u.arbitrary()?;
    let lead = u.arbitrary()?;
    let rollback = if u.arbitrary()? {
        Rollback::Wait
    } else {
        Rollback::Continue
    };
    let wait = u.arbitrary()?;
    let mut ops = Vec::new();
    while !u.is_empty() && ops.len() < 512 {
        ops.push(op(u)?);
    }
    Ok(Script {
        shard_bits,
        lead,
        rollback,
        wait,
        ops,
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(script) = script(&mut Unstructured::new(data)) {
        run(&script);
    }
});
