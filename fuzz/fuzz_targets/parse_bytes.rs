//! `Id::parse_bytes` on arbitrary bytes: never panics, parses exactly 8 bytes as the
//! big-endian value and refuses every other length with the length. The properties are
//! `tests/support/parse_props.rs`, shared with `tests/prop_parse.rs`.
#![no_main]

#[path = "../../tests/support/parse_props.rs"]
mod parse_props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    parse_props::check_bytes(data);
});
