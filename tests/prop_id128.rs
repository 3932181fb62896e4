//! Property tests of the 128-bit types: every value's text and bytes round-trip, any text
//! near the valid ones never panics, and what parses is what a reference written from the
//! rules accepts, re-formatting to the input's canonical spelling.
#![cfg(not(miri))] // proptest is far too slow under miri.

use proptest::prelude::*;
use snowmint::{Ulid, Uuid7};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2048,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// The canonical UUID text of a hyphenated input, if the rules accept it: 36 bytes, hyphens
/// at 8, 13, 18, 23, hex digits elsewhere, version 7, variant digit 8-b.
fn reference_uuid(text: &str) -> Option<String> {
    let b = text.as_bytes();
    if b.len() != 36 {
        return None;
    }
    for (i, &c) in b.iter().enumerate() {
        let ok = if [8, 13, 18, 23].contains(&i) {
            c == b'-'
        } else {
            c.is_ascii_hexdigit()
        };
        if !ok {
            return None;
        }
    }
    let lower = text.to_ascii_lowercase();
    let l = lower.as_bytes();
    (l[14] == b'7' && matches!(l[19], b'8' | b'9' | b'a' | b'b')).then_some(lower)
}

/// The canonical ULID text of an input, if the rules accept it: 26 bytes of Crockford
/// base32 (any case, I L as 1, O as 0, no U), the first digit at most 7.
fn reference_ulid(text: &str) -> Option<String> {
    const ALPHABET: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    if text.len() != 26 {
        return None;
    }
    let mut out = String::new();
    for c in text.chars() {
        let c = match c.to_ascii_uppercase() {
            'I' | 'L' => '1',
            'O' => '0',
            c => c,
        };
        if !ALPHABET.contains(c) || !c.is_ascii() {
            return None;
        }
        out.push(c);
    }
    (out.as_bytes()[0] <= b'7').then_some(out)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_ulid_round_trips(value: u128) {
        let id = Ulid::from_u128(value);
        let text = id.to_string();
        prop_assert_eq!(text.len(), 26);
        prop_assert!(text.as_bytes()[0] <= b'7');
        prop_assert_eq!(text.parse::<Ulid>(), Ok(id));
        prop_assert_eq!(text.to_ascii_lowercase().parse::<Ulid>(), Ok(id));
        prop_assert_eq!(Ulid::from_bytes(id.to_bytes()), id);
        prop_assert_eq!(id.to_u128(), value);
    }

    #[test]
    fn every_uuid7_round_trips(ms: u64, a: u16, b: u64) {
        let id = Uuid7::from_fields(ms, a, b);
        let text = id.to_string();
        prop_assert_eq!(text.len(), 36);
        prop_assert_eq!(text.parse::<Uuid7>(), Ok(id));
        prop_assert_eq!(text.to_ascii_uppercase().parse::<Uuid7>(), Ok(id));
        prop_assert_eq!(Uuid7::from_bytes(id.to_bytes()), Ok(id));
        prop_assert_eq!(Uuid7::from_u128(id.to_u128()), Ok(id));
        prop_assert_eq!(id.unix_millis(), ms & 0xFFFF_FFFF_FFFF);
        prop_assert_eq!(id.rand_a(), a & 0xFFF);
        prop_assert_eq!(id.rand_b(), b & 0x3FFF_FFFF_FFFF_FFFF);
    }

    #[test]
    fn order_of_values_is_order_of_texts(x: u128, y: u128) {
        let (a, b) = (Ulid::from_u128(x), Ulid::from_u128(y));
        prop_assert_eq!(a.cmp(&b), a.to_string().cmp(&b.to_string()));
        if let (Ok(a), Ok(b)) = (Uuid7::from_u128(x), Uuid7::from_u128(y)) {
            prop_assert_eq!(a.cmp(&b), a.to_string().cmp(&b.to_string()));
        }
    }

    #[test]
    fn a_uuid_text_parses_exactly_when_the_rules_accept_it(
        text in "[0-9a-fA-F-]{0,40}|[0-9a-fA-F]{8}-[0-9a-f]{4}-[74X][0-9a-f]{3}-[89abBcg][0-9a-f]{3}-[0-9a-fé]{12}",
    ) {
        let parsed = text.parse::<Uuid7>();
        prop_assert_eq!(parsed.ok().map(|id| id.to_string()), reference_uuid(&text));
    }

    #[test]
    fn a_ulid_text_parses_exactly_when_the_rules_accept_it(
        text in "[0-9A-Za-z]{24,28}|[0-7][0-9A-HJKMNP-TV-Zilo]{25}|[0-9A-Z_é]{26}",
    ) {
        let parsed = text.parse::<Ulid>();
        prop_assert_eq!(parsed.ok().map(|id| id.to_string()), reference_ulid(&text));
    }
}
