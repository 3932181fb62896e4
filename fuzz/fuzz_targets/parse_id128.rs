//! The UUIDv7 and ULID parsers on any input: never a panic; whatever parses formats to the
//! input's canonical spelling (a UUID's text in lowercase; a ULID's in uppercase with
//! Crockford's aliases `I L` → `1`, `O` → `0`) and parses back to the same value; any 16
//! bytes round-trip as a ULID, and as a UUIDv7 exactly when they carry version 7 and the RFC
//! variant.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snowmint::{Ulid, Uuid7};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(id) = text.parse::<Uuid7>() {
            let canonical = id.to_string();
            assert_eq!(canonical, text.to_ascii_lowercase());
            assert_eq!(canonical.parse::<Uuid7>(), Ok(id));
        }
        if let Ok(id) = text.parse::<Ulid>() {
            let canonical = id.to_string();
            let expected: String = text
                .chars()
                .map(|c| match c.to_ascii_uppercase() {
                    'I' | 'L' => '1',
                    'O' => '0',
                    c => c,
                })
                .collect();
            assert_eq!(canonical, expected);
            assert_eq!(canonical.parse::<Ulid>(), Ok(id));
        }
    }
    if let Ok(bytes) = <[u8; 16]>::try_from(data) {
        assert_eq!(Ulid::from_bytes(bytes).to_bytes(), bytes);
        let v7 = bytes[6] >> 4 == 7 && bytes[8] >> 6 == 0b10;
        assert_eq!(Uuid7::from_bytes(bytes).is_ok(), v7);
        if let Ok(id) = Uuid7::from_bytes(bytes) {
            assert_eq!(id.to_bytes(), bytes);
        }
    }
});
