//! Every parser (decimal, base2/32/36/58/64, hex, bwmarrin's base64 and bytes) on arbitrary
//! input, UTF-8 or not: never panics, agrees with a reference written from the documented
//! rules (value, or the reason it refuses), and whatever parses re-encodes to the same
//! input. The properties are `tests/support/parse_props.rs`, shared with
//! `tests/prop_parse.rs`.
#![no_main]

#[path = "../../tests/support/parse_props.rs"]
mod parse_props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match std::str::from_utf8(data) {
        // Text through `&str`, which must agree with the same bytes.
        Ok(text) => parse_props::check_text(text),
        Err(_) => parse_props::check_input(data),
    }
});
