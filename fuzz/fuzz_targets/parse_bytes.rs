//! `Id::parse` on arbitrary bytes in every encoding (bwmarrin's `Bytes()` form included):
//! never panics, agrees with the reference, reports bytes that are not UTF-8 as such; and 8
//! bytes convert to the big-endian value and back. The properties are
//! `tests/support/parse_props.rs`, shared with `tests/prop_parse.rs`.
#![no_main]

#[path = "../../tests/support/parse_props.rs"]
mod parse_props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    parse_props::check_bytes(data);
});
