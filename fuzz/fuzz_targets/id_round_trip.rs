//! Every ID round-trips through every encoding and its 8 bytes. The properties are
//! `tests/support/parse_props.rs`, shared with `tests/prop_parse.rs`.
#![no_main]

#[path = "../../tests/support/parse_props.rs"]
mod parse_props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|value: u64| {
    parse_props::check_id(value);
});
