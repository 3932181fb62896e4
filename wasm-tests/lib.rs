//! One exported function, so that the module's size can be measured: the next ID of a
//! Twitter-layout generator on the host's clock.
#![no_std]
#![forbid(unsafe_code)]

use snowmint::clock::JsClock;
use snowmint::{Generator, Layout};
use wasm_bindgen::prelude::wasm_bindgen;

/// An ID of node 1 as a `u64` (a JS BigInt), 0 if none could be minted.
#[wasm_bindgen]
pub fn next_id() -> u64 {
    let gen = Generator::with_clock(Layout::TWITTER, JsClock::new())
        .node(1)
        .build()
        .expect("the layout is valid");
    gen.next_id().map_or(0, |id| id.to_u64())
}
