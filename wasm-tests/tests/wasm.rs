//! The generator on wasm32 in Node.js, on the host's clock.

use snowmint::clock::JsClock;
use snowmint::{Generator, Layout};
use wasm_bindgen_test::wasm_bindgen_test;

/// 100,000 IDs from one generator are strictly increasing (so unique) and decode to within a
/// second of `Date.now()`.
#[wasm_bindgen_test]
fn ids_are_unique_increasing_and_now() {
    let gen = Generator::with_clock(Layout::TWITTER, JsClock::new())
        .node(7)
        .build()
        .expect("valid layout");
    let before = js_sys::Date::now() as u64;
    let mut last = gen.next_id().expect("mints").to_u64();
    for _ in 1..100_000 {
        let id = gen.next_id().expect("mints").to_u64();
        assert!(id > last, "{id} after {last}");
        last = id;
    }
    let after = js_sys::Date::now() as u64;
    let parts = Layout::TWITTER.decode(snowmint::Id::from_u64(last));
    assert_eq!(parts.node(), 7);
    let t = parts.unix_millis();
    assert!(t + 1_000 >= before && t <= after + 1_000, "{t} not within 1 s of {before}..{after}");
}
