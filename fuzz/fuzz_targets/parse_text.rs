//! Every text parser (decimal, base2/32/36/58/64, hex) on arbitrary input: never panics,
//! agrees with a reference written from the documented rules (value, or the reason it
//! refuses), and whatever parses re-encodes to the same text. The properties are
//! `tests/support/parse_props.rs`, shared with `tests/prop_parse.rs`.
#![no_main]

#[path = "../../tests/support/parse_props.rs"]
mod parse_props;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match std::str::from_utf8(data) {
        Ok(text) => parse_props::check_text(text),
        // Not UTF-8: the parsers take &str, so give them the closest text there is.
        Err(_) => parse_props::check_text(&String::from_utf8_lossy(data)),
    }
});
