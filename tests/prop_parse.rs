//! Property tests for the parsers: any text, bytes or JSON never panics, agrees with a
//! reference written from the documented rules, and whatever parses re-encodes to the same
//! text; every ID round-trips. The properties live in `support/parse_props.rs`, shared with
//! the parser fuzz targets.
#![cfg(not(miri))] // proptest is far too slow under miri.

#[path = "support/parse_props.rs"]
mod parse_props;

use parse_props::{check_bytes, check_id, check_text};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use snowmint::{Encoding, Id};

/// Failures are saved beside this file (`prop_parse.regressions`) and replayed first.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1024,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    }
}

/// Texts near the valid ones: symbols of every alphabet, their neighbours, padding, signs,
/// whitespace and a few non-ASCII characters, at lengths around every encoding's longest.
fn near_valid_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9a-zA-Z_=+/ -]{0,70}",
        "[0-9]{0,22}",
        "[01]{0,66}",
        "[0-9a-f]{0,18}",
        "[A-Za-z0-9_-]{10,12}",
        "[1-9a-km-zA-HJ-NP-Z]{0,13}",
        "[ybndrfg8ejkmcpqxot1uwisza345h769]{0,14}",
        "[0-9a-z]{0,14}",
        "[0-9é€😀\u{0}]{0,8}",
        "[A-Za-z0-9+/=]{0,30}",
        // bwmarrin's base64 of digit strings, maybe off by one symbol.
        "[0-9]{1,21}".prop_map(|d| base64_std(d.as_bytes())),
    ]
}

/// Standard padded base64, for test inputs.
fn base64_std(data: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for block in data.chunks(3) {
        let n = block
            .iter()
            .enumerate()
            .fold(0_u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= block.len() {
                char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

/// Texts of real IDs, maybe with one character changed, added or removed.
fn mutated_encoding() -> impl Strategy<Value = String> {
    (
        any::<u64>(),
        0_usize..Encoding::ALL.len(),
        0_usize..4,
        any::<usize>(),
        any::<char>(),
    )
        .prop_map(|(v, e, how, at, ch)| {
            let mut text: Vec<char> = Id::from_u64(v).encode(Encoding::ALL[e]).chars().collect();
            let at = at % (text.len() + 1);
            match how {
                0 => {}
                1 => text.insert(at, ch),
                2 if at < text.len() => {
                    text.remove(at);
                }
                _ if at < text.len() => text[at] = ch,
                _ => {}
            }
            text.into_iter().collect()
        })
}

/// IDs at the edges of every encoding's digit counts, and anything.
fn id_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        (0_u32..64).prop_map(|b| 1_u64 << b),
        (0_u32..64).prop_map(|b| (1_u64 << b) - 1),
        (0_u32..=64, any::<u64>()).prop_map(|(b, x)| x.checked_shr(b).unwrap_or(0)),
        Just(u64::MAX),
        Just(0),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_text_parses_as_the_rules_say(text in any::<String>()) {
        check_text(&text);
    }

    #[test]
    fn near_valid_text_parses_as_the_rules_say(text in near_valid_text()) {
        check_text(&text);
    }

    #[test]
    fn mutated_encodings_parse_as_the_rules_say(text in mutated_encoding()) {
        check_text(&text);
    }

    #[test]
    fn every_id_round_trips(v in id_value()) {
        check_id(v);
    }

    #[test]
    fn any_bytes_parse_as_the_rules_say(bytes in prop::collection::vec(any::<u8>(), 0..32)) {
        check_bytes(&bytes);
    }

    #[test]
    fn near_valid_bytes_parse_as_the_rules_say(text in near_valid_text(), at in any::<usize>(), byte in 0x80_u8..) {
        // A text with one byte that may break its UTF-8.
        let mut bytes = text.into_bytes();
        let at = at % (bytes.len() + 1);
        bytes.insert(at, byte);
        check_bytes(&bytes);
    }
}

#[cfg(feature = "serde")]
mod json {
    use super::parse_props::check_json;
    use super::*;

    /// JSON near the valid forms: strings of digits, numbers, signs, exponents, escapes.
    fn near_valid_json() -> impl Strategy<Value = String> {
        prop_oneof![
            "\"[0-9]{0,21}\"",
            "-?[0-9]{0,21}(\\.[0-9]{0,2})?([eE][+-]?[0-9]{1,2})?",
            " *\"\\\\u003[0-9]{1,3}\" *",
            "[\\[\\]{}\"0-9a-z,:. -]{0,24}",
            any::<u64>().prop_map(|v| v.to_string()),
            any::<i64>().prop_map(|v| v.to_string()),
            any::<u64>().prop_map(|v| format!("\"{v}\"")),
            any::<u128>().prop_map(|v| v.to_string()),
        ]
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn any_json_reads_as_the_rules_say(input in prop::collection::vec(any::<u8>(), 0..30)) {
            check_json(&input);
        }

        #[test]
        fn near_valid_json_reads_as_the_rules_say(input in near_valid_json()) {
            check_json(input.as_bytes());
        }
    }
}

/// The reference accepts what the docs' examples accept and refuses what they refuse, so a
/// wrong reference cannot silently agree with a wrong parser.
#[test]
fn the_reference_matches_the_documented_examples() {
    use parse_props::reference_parse;
    use snowmint::encoding::ParseErrorKind;

    let ok = |t: &str, e| reference_parse(t, e).unwrap();
    assert_eq!(
        ok("b8wjm1zroyyyy", Encoding::Base32),
        Ok(1_427_970_479_175_499_776)
    );
    assert_eq!(
        ok("4jgmnx8Js8A", Encoding::Base58),
        Ok(1_428_076_403_798_048_768)
    );
    assert_eq!(ok("gg2z2f29", Encoding::Base36), Ok(1_288_834_974_657));
    assert_eq!(ok("AAAAAAAAAAE", Encoding::Base64), Ok(1));
    assert_eq!(ok("__________8", Encoding::Base64), Ok(u64::MAX));
    assert_eq!(ok("JPwcyDCgEup", Encoding::Base58), Ok(u64::MAX));
    assert_eq!(ok("x999999999999", Encoding::Base32), Ok(u64::MAX));
    assert_eq!(ok("3w5e11264sgsf", Encoding::Base36), Ok(u64::MAX));
    assert_eq!(ok("18446744073709551615", Encoding::Decimal), Ok(u64::MAX));
    assert_eq!(
        ok("18446744073709551616", Encoding::Decimal),
        Err(ParseErrorKind::Overflow)
    );
    assert_eq!(
        ok("042", Encoding::Decimal),
        Err(ParseErrorKind::LeadingZero)
    );
    assert_eq!(
        ok("4jgl", Encoding::Base58),
        Err(ParseErrorKind::InvalidChar { ch: 'l', index: 3 })
    );
    assert_eq!(
        ok("AAAAAAAAAAE=", Encoding::Base64),
        Err(ParseErrorKind::InvalidLength {
            len: 12,
            expected: 11
        })
    );
    assert_eq!(
        ok("AAAAAAAAAAB", Encoding::Base64),
        Err(ParseErrorKind::NonZeroPadding)
    );
    assert_eq!(ok("", Encoding::Hex), Err(ParseErrorKind::Empty));
    // bwmarrin/snowflake's README and TestBase64.
    assert_eq!(
        ok("MTI4MzMyODc4NDc2NTgxNjgzMg==", Encoding::BwmarrinBase64),
        Ok(1_283_328_784_765_816_832)
    );
    assert_eq!(
        ok("MTExNjgxOTQ5NDY2MDk5NzEyMA", Encoding::BwmarrinBase64),
        Err(ParseErrorKind::LengthNotMultiple {
            len: 26,
            multiple: 4
        })
    );
    assert_eq!(ok("MA==", Encoding::BwmarrinBase64), Ok(0));
    assert_eq!(
        ok("MB==", Encoding::BwmarrinBase64),
        Err(ParseErrorKind::NonZeroPadding)
    );
    assert_eq!(
        reference_parse(b"12\xff".as_slice(), Encoding::BwmarrinBytes).unwrap(),
        Err(ParseErrorKind::InvalidByte {
            byte: 0xff,
            index: 2
        })
    );
    assert_eq!(
        reference_parse(b"\xc3\xa9".as_slice(), Encoding::Decimal).unwrap(),
        Err(ParseErrorKind::InvalidChar { ch: 'é', index: 0 })
    );
}
