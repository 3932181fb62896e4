//! serde JSON on arbitrary input: `Id`, `snowmint::integrations::serde::as_u64` and `as_string` never
//! panic, accept exactly what the documented rules accept of the same input read as a JSON
//! value, and whatever parses re-serializes to the canonical decimal string. The properties
//! are `tests/support/parse_props.rs`, shared with `tests/prop_parse.rs`.
#![no_main]

#[path = "../../tests/support/parse_props.rs"]
mod parse_props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    parse_props::check_json(data);
});
