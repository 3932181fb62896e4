//! The text and binary encodings of `Id`, and their strict parsers.
//!
//! Expected texts were computed independently of this crate, in Python 3:
//!
//! ```python
//! def enc(v, alphabet):            # positional, most significant digit first
//!     b, s = len(alphabet), ''
//!     while True:
//!         s = alphabet[v % b] + s; v //= b
//!         if v == 0: return s
//! base64.urlsafe_b64encode(v.to_bytes(8, 'big')).decode().rstrip('=')
//! ```
//!
//! cross-checked against Python's own `format(v, 'x')`, `format(v, 'b')` and `int(s, 36)`,
//! and against the vectors in bwmarrin/snowflake's tests (`ParseBase32("b8wjm1zroyyyy") ==
//! 1427970479175499776`, `ParseBase58("4jgmnx8Js8A") == 1428076403798048768`), which this
//! table reproduces.

use std::collections::HashSet;

use snowmint::encoding::{EncodedId, ParseErrorKind};
use snowmint::{Encoding, Id, ParseIdError};

const DECIMAL: &str = "0123456789";
const BASE32: &str = "ybndrfg8ejkmcpqxot1uwisza345h769";
const BASE36: &str = "0123456789abcdefghijklmnopqrstuvwxyz";
const BASE58: &str = "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX: &str = "0123456789abcdef";
const BWMARRIN_BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// One value in every encoding: decimal, base2, base32, base36, base58, base64, hex,
/// bwmarrin-base64 (Python's `base64.b64encode(str(v).encode())`), bwmarrin-bytes.
struct Vector {
    value: u64,
    texts: [&'static str; 9],
}

const VECTORS: &[Vector] = &[
    Vector {
        value: 0,
        texts: ["0", "0", "y", "0", "1", "AAAAAAAAAAA", "0", "MA==", "0"],
    },
    Vector {
        value: 1,
        texts: ["1", "1", "b", "1", "2", "AAAAAAAAAAE", "1", "MQ==", "1"],
    },
    Vector {
        // Twitter's epoch in milliseconds.
        value: 1_288_834_974_657,
        texts: [
            "1288834974657",
            "10010110000010100100011010000001111000001",
            "bfoke4y6b",
            "gg2z2f29",
            "zRBW8Cv",
            "AAABLBSNA8E",
            "12c148d03c1",
            "MTI4ODgzNDk3NDY1Nw==",
            "1288834974657",
        ],
    },
    Vector {
        // bwmarrin/snowflake's TestParseBase32 "ok" case.
        value: 1_427_970_479_175_499_776,
        texts: [
            "1427970479175499776",
            "1001111010001001010111001010111001001000000000000000000000000",
            "b8wjm1zroyyyy",
            "aukdadxvwdmo",
            "4jfwp5ryqKj",
            "E9ErlckAAAA",
            "13d12b95c9000000",
            "MTQyNzk3MDQ3OTE3NTQ5OTc3Ng==",
            "1427970479175499776",
        ],
    },
    Vector {
        // bwmarrin/snowflake's TestParseBase58 "ok" case.
        value: 1_428_076_403_798_048_768,
        texts: [
            "1428076403798048768",
            "1001111010001100010111110110001001000100000000000000000000000",
            "b8wcm7treyyyy",
            "auleu31h9szk",
            "4jgmnx8Js8A",
            "E9GL7EiAAAA",
            "13d18bec48800000",
            "MTQyODA3NjQwMzc5ODA0ODc2OA==",
            "1428076403798048768",
        ],
    },
    Vector {
        value: 1 << 63,
        texts: [
            "9223372036854775808",
            "1000000000000000000000000000000000000000000000000000000000000000",
            "eyyyyyyyyyyyy",
            "1y2p0ij32e8e8",
            "npL6MjP8Qfd",
            "gAAAAAAAAAA",
            "8000000000000000",
            "OTIyMzM3MjAzNjg1NDc3NTgwOA==",
            "9223372036854775808",
        ],
    },
    Vector {
        value: u64::MAX,
        texts: [
            "18446744073709551615",
            "1111111111111111111111111111111111111111111111111111111111111111",
            "x999999999999",
            "3w5e11264sgsf",
            "JPwcyDCgEup",
            "__________8",
            "ffffffffffffffff",
            "MTg0NDY3NDQwNzM3MDk1NTE2MTU=",
            "18446744073709551615",
        ],
    },
];

/// The encoding of `VECTORS[_].texts[i]`.
const ORDER: [Encoding; 9] = [
    Encoding::Decimal,
    Encoding::Base2,
    Encoding::Base32,
    Encoding::Base36,
    Encoding::Base58,
    Encoding::Base64,
    Encoding::Hex,
    Encoding::BwmarrinBase64,
    Encoding::BwmarrinBytes,
];

fn err(result: Result<Id, ParseIdError>) -> ParseIdError {
    match result {
        Ok(id) => panic!("expected an error, parsed {id}"),
        Err(err) => err,
    }
}

// ---------------------------------------------------------------------------------------
// Known vectors and round trips

#[test]
fn known_vectors_encode() {
    for vector in VECTORS {
        let id = Id::from_u64(vector.value);
        for (encoding, &text) in ORDER.iter().zip(&vector.texts) {
            assert_eq!(id.encode(*encoding), text, "{encoding} of {}", vector.value);
        }
    }
}

#[test]
fn known_vectors_parse() {
    for vector in VECTORS {
        for (encoding, &text) in ORDER.iter().zip(&vector.texts) {
            let expected = Ok(Id::from_u64(vector.value));
            assert_eq!(Id::parse(text, *encoding), expected, "{encoding} {text:?}");
            // The same input as bytes.
            assert_eq!(
                Id::parse(text.as_bytes(), *encoding),
                expected,
                "{encoding} {text:?}"
            );
        }
    }
}

#[test]
fn std_formatting_agrees() {
    for vector in VECTORS {
        let id = Id::from_u64(vector.value);
        assert_eq!(id.encode(Encoding::Decimal), id.to_string());
        assert_eq!(id.encode(Encoding::Decimal), vector.value.to_string());
        assert_eq!(id.encode(Encoding::BwmarrinBytes), vector.value.to_string());
        assert_eq!(id.encode(Encoding::Hex), format!("{:x}", vector.value));
        assert_eq!(id.encode(Encoding::Base2), format!("{:b}", vector.value));
        assert_eq!(
            u64::from_str_radix(&id.encode(Encoding::Base36), 36),
            Ok(vector.value)
        );
    }
}

/// xorshift64*: deterministic pseudo-random values without a dependency.
fn random_values(count: usize) -> impl Iterator<Item = u64> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..count).map(move |_| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    })
}

fn interesting_values() -> Vec<u64> {
    let mut values = vec![0, 1, 2, u64::MAX, u64::MAX - 1, i64::MAX as u64];
    for shift in 0..64 {
        values.push(1 << shift);
        values.push((1 << shift) - 1);
        values.push((1_u64 << shift).wrapping_add(1));
    }
    // Values with a random number of significant bits, so every text length is covered.
    values.extend(random_values(2_000).enumerate().map(|(i, v)| v >> (i % 64)));
    values
}

#[test]
fn round_trips() {
    for value in interesting_values() {
        let id = Id::from_u64(value);
        for encoding in Encoding::ALL {
            let text = id.encode(encoding);
            assert_eq!(Id::parse(&text, encoding), Ok(id), "{encoding} {text:?}");
            assert_eq!(
                Id::parse(text.as_str(), encoding),
                Ok(id),
                "{encoding} {text:?}"
            );
        }
        assert_eq!(Id::from_bytes(id.to_bytes()), id);
        assert_eq!(id.to_string().parse::<Id>(), Ok(id));
    }
}

#[test]
fn positional_texts_have_no_leading_zero_and_base64_is_fixed_width() {
    for value in interesting_values() {
        let id = Id::from_u64(value);
        for encoding in Encoding::ALL {
            let text = id.encode(encoding);
            let zero = encoding.alphabet().chars().next().unwrap();
            if encoding == Encoding::BwmarrinBase64 {
                // Padded to whole blocks of 4; the decoded text has no leading zero.
                assert_eq!(text.len() % 4, 0, "{text:?}");
                let data = text.trim_end_matches('=');
                assert!(text.len() - data.len() <= 2, "{text:?}");
                assert!(data.chars().all(|c| encoding.alphabet().contains(c)));
                continue;
            }
            assert!(text.chars().all(|c| encoding.alphabet().contains(c)));
            if encoding == Encoding::Base64 {
                assert_eq!(text.len(), 11, "{text:?}");
            } else if value == 0 {
                assert_eq!(text.len(), 1);
            } else {
                assert!(!text.starts_with(zero), "{encoding} {text:?}");
            }
        }
    }
}

#[test]
fn bytes_are_big_endian_and_sort_like_values() {
    assert_eq!(
        Id::from_u64(0x0102_0304_0506_0708).to_bytes(),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
    let mut values: Vec<u64> = random_values(500).collect();
    values.sort_unstable();
    let bytes: Vec<[u8; 8]> = values.iter().map(|&v| Id::from_u64(v).to_bytes()).collect();
    assert!(bytes.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn base64_is_the_big_endian_bytes() {
    // 0x13d18bec48800000 = bytes 13 d1 8b ec 48 80 00 00; base64url of those, unpadded.
    let id = Id::from_u64(1_428_076_403_798_048_768);
    assert_eq!(
        id.to_bytes(),
        [0x13, 0xd1, 0x8b, 0xec, 0x48, 0x80, 0x00, 0x00]
    );
    assert_eq!(id.encode(Encoding::Base64), "E9GL7EiAAAA");
    // Not bwmarrin's Base64(), which encodes the decimal text: that is its own encoding.
    assert_eq!(
        id.encode(Encoding::BwmarrinBase64),
        "MTQyODA3NjQwMzc5ODA0ODc2OA=="
    );
}

// ---------------------------------------------------------------------------------------
// Encoding

#[test]
fn encoding_names_round_trip() {
    let names = [
        "decimal",
        "base2",
        "base32",
        "base36",
        "base58",
        "base64",
        "hex",
        "bwmarrin-base64",
        "bwmarrin-bytes",
    ];
    assert_eq!(Encoding::ALL, ORDER);
    for (encoding, name) in Encoding::ALL.into_iter().zip(names) {
        assert_eq!(encoding.name(), name);
        assert_eq!(encoding.to_string(), name);
        assert_eq!(name.parse::<Encoding>(), Ok(encoding));
    }
    let distinct: HashSet<Encoding> = Encoding::ALL.into_iter().collect();
    assert_eq!(distinct.len(), 9);
}

#[test]
fn encoding_names_are_strict_and_the_error_lists_them() {
    for bad in ["", "Hex", "HEX", " hex", "hex ", "base10", "b58"] {
        let err = bad.parse::<Encoding>().unwrap_err();
        assert_eq!(err.input(), bad);
        let message = err.to_string();
        assert!(message.contains(&format!("{bad:?}")), "{message}");
        for encoding in Encoding::ALL {
            assert!(message.contains(encoding.name()), "{message}");
        }
    }
}

#[test]
fn alphabets() {
    let expected = [
        DECIMAL,
        "01",
        BASE32,
        BASE36,
        BASE58,
        BASE64,
        HEX,
        BWMARRIN_BASE64,
        DECIMAL,
    ];
    for (encoding, alphabet) in ORDER.into_iter().zip(expected) {
        assert_eq!(encoding.alphabet(), alphabet);
        let distinct: HashSet<char> = alphabet.chars().collect();
        assert_eq!(distinct.len(), alphabet.len(), "{encoding} has duplicates");
        // Each symbol, alone, is the digit of its index (base64 aside: fixed width).
        if !matches!(encoding, Encoding::Base64 | Encoding::BwmarrinBase64) {
            for (digit, symbol) in alphabet.char_indices() {
                let parsed = Id::parse(&symbol.to_string(), encoding);
                assert_eq!(
                    parsed,
                    Ok(Id::from_u64(digit as u64)),
                    "{encoding} {symbol:?}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// EncodedId

#[test]
fn encoded_id_behaves_like_its_str() {
    let text = Id::from_u64(1_428_076_403_798_048_768).encode(Encoding::Base58);
    let copy = text;
    assert_eq!(text, copy);
    assert_eq!(text.as_str(), "4jgmnx8Js8A");
    assert_eq!(&*text, "4jgmnx8Js8A");
    let as_ref: &str = text.as_ref();
    assert_eq!(as_ref, "4jgmnx8Js8A");
    // PartialEq with &str, str and String, both ways round.
    assert_eq!(text, "4jgmnx8Js8A");
    assert_eq!("4jgmnx8Js8A", text);
    assert_eq!(text, *"4jgmnx8Js8A");
    assert_eq!(*"4jgmnx8Js8A", text);
    let owned = String::from("4jgmnx8Js8A");
    assert_eq!(text, owned);
    assert_eq!(owned, text);
    assert_ne!(text, "4jgmnx8Js8B");
    assert_ne!(text, "4jgmnx8Js8");
    assert_eq!(format!("{text}"), "4jgmnx8Js8A");
    assert_eq!(
        format!("{text:>13}|{text:<12}|"),
        "  4jgmnx8Js8A|4jgmnx8Js8A |"
    );
    assert_eq!(format!("{text:?}"), "\"4jgmnx8Js8A\"");
    assert_ne!(
        text,
        Id::from_u64(1_428_076_403_798_048_768).encode(Encoding::Base32)
    );

    // Hash agrees with str, so a set of EncodedId can be queried with &str.
    let set: HashSet<EncodedId> = (0..100)
        .map(|v| Id::from_u64(v).encode(Encoding::Hex))
        .collect();
    assert_eq!(set.len(), 100);
    assert!(set.contains("63") && !set.contains("64"));
}

#[test]
fn encoded_id_holds_the_longest_text() {
    let text = Id::MAX.encode(Encoding::Base2);
    assert_eq!(text.len(), 64);
    assert!(text.bytes().all(|b| b == b'1'));
}

// ---------------------------------------------------------------------------------------
// Rejection rules: one test each, checking the kind and that Display says what is allowed.

#[test]
fn rejects_empty() {
    for encoding in Encoding::ALL {
        let err = err(Id::parse("", encoding));
        assert_eq!(err.kind(), &ParseErrorKind::Empty);
        assert_eq!(err.encoding(), encoding);
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("invalid {encoding} ID: empty")),
            "{message}"
        );
        assert!(message.contains(encoding.alphabet()), "{message}");
        let max_len = Id::MAX.encode(encoding).len();
        assert!(message.contains(&max_len.to_string()), "{message}");
    }
    assert_eq!("".parse::<Id>().unwrap_err().kind(), &ParseErrorKind::Empty);
}

#[test]
fn rejects_characters_outside_the_alphabet() {
    let cases: &[(Encoding, &str, char, usize)] = &[
        (Encoding::Decimal, "12a4", 'a', 2),
        (Encoding::Base2, "1012", '2', 3),
        // bwmarrin's TestParseBase32 rejects l, v and 2 (v0.3.0 read them as 0xFF).
        (Encoding::Base32, "b8wjm1zroyyyl", 'l', 12),
        (Encoding::Base32, "b8wjm1zroyyyv", 'v', 12),
        (Encoding::Base32, "b8wjm1zroyyy2", '2', 12),
        (Encoding::Base36, "aukd_dxv", '_', 4),
        // bwmarrin's TestParseBase58 rejects 0, I, O and l.
        (Encoding::Base58, "0jgmnx8Js8A", '0', 0),
        (Encoding::Base58, "Ijgmnx8Js8A", 'I', 0),
        (Encoding::Base58, "Ojgmnx8Js8A", 'O', 0),
        (Encoding::Base58, "4jgl", 'l', 3),
        // The standard alphabet's + and / are not URL-safe base64.
        (Encoding::Base64, "E9GL7Ei+AAA", '+', 7),
        (Encoding::Base64, "E9GL7Ei/AAA", '/', 7),
        (Encoding::Hex, "13d1g", 'g', 4),
    ];
    for &(encoding, text, ch, index) in cases {
        let err = err(Id::parse(text, encoding));
        assert_eq!(
            err.kind(),
            &ParseErrorKind::InvalidChar { ch, index },
            "{encoding} {text:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&format!("character {ch:?} at byte {index}")),
            "{message}"
        );
        assert!(
            message.contains(&format!("alphabet {}", encoding.alphabet())),
            "{message}"
        );
    }
    assert_eq!(
        err(Id::parse("4jgl", Encoding::Base58)).to_string(),
        format!("invalid base58 ID: character 'l' at byte 3 is not in the alphabet {BASE58}")
    );
}

#[test]
fn rejects_uppercase_in_lowercase_alphabets() {
    for (encoding, text) in [
        (Encoding::Hex, "13D18BEC48800000"),
        (Encoding::Hex, "ff0A"),
        (Encoding::Base36, "AUKDADXVWDMO"),
        // bwmarrin's "capital case is invalid encoding" case.
        (Encoding::Base32, "B8WJM1ZROYYYY"),
    ] {
        let err = err(Id::parse(text, encoding));
        let (index, ch) = text
            .char_indices()
            .find(|(_, c)| c.is_ascii_uppercase())
            .unwrap();
        assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch, index });
        let message = err.to_string();
        assert!(message.contains("lowercase"), "{message}");
        assert!(message.contains(encoding.alphabet()), "{message}");
    }
    // Base58 and base64 are case-sensitive with both cases: swapping case changes the value.
    let id = Id::from_u64(1_428_076_403_798_048_768);
    assert_ne!(Id::parse("4JGMNX8jS8a", Encoding::Base58), Ok(id));
}

#[test]
fn rejects_leading_zero_digits() {
    let cases = [
        (Encoding::Decimal, "0123"),
        (Encoding::Decimal, "00"),
        (Encoding::Base2, "01"),
        (Encoding::Base32, "yb"),
        (Encoding::Base36, "0z"),
        (Encoding::Base58, "12"),
        (Encoding::Hex, "0ff"),
        (Encoding::Hex, "0ffffffffffffffff"),
    ];
    for (encoding, text) in cases {
        let err = err(Id::parse(text, encoding));
        assert_eq!(
            err.kind(),
            &ParseErrorKind::LeadingZero,
            "{encoding} {text:?}"
        );
        let zero = Id::MIN.encode(encoding);
        let message = err.to_string();
        assert!(message.contains("leading zero"), "{message}");
        assert!(message.contains(&format!("\"{zero}\"")), "{message}");
        // The same digits without the leading zero are fine.
        assert!(
            Id::parse(&text[1..], encoding).is_ok(),
            "{encoding} {text:?}"
        );
    }
    // bwmarrin's 60-digit base2 test vector has no leading zero and parses.
    assert_eq!(
        Id::parse(
            "111101111111101110110101100101001000000000000000000000000000",
            Encoding::Base2
        ),
        Ok(Id::from_u64(1_116_817_224_745_615_360))
    );
}

#[test]
fn rejects_signs() {
    for text in ["+1", "-1", "-0", "+0"] {
        let err = err(text.parse::<Id>());
        let ch = text.chars().next().unwrap();
        assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch, index: 0 });
        assert!(err.to_string().contains(DECIMAL));
    }
    assert_eq!(
        err(Id::parse("-ff", Encoding::Hex)).kind(),
        &ParseErrorKind::InvalidChar { ch: '-', index: 0 }
    );
}

#[test]
fn rejects_whitespace() {
    let cases = [
        (" 42", ' ', 0),
        ("42 ", ' ', 2),
        ("4 2", ' ', 1),
        ("42\n", '\n', 2),
        ("\t42", '\t', 0),
        ("42\u{a0}", '\u{a0}', 2),
    ];
    for (text, ch, index) in cases {
        let err = err(Id::parse(text, Encoding::Decimal));
        assert_eq!(
            err.kind(),
            &ParseErrorKind::InvalidChar { ch, index },
            "{text:?}"
        );
        assert!(err.to_string().contains(DECIMAL));
    }
    assert!(Id::parse(" E9GL7EiAAA", Encoding::Base64).is_err());
    assert!(Id::parse("E9GL7EiAAAA ", Encoding::Base64).is_err());
}

#[test]
fn rejects_prefixes() {
    for (encoding, text, ch, index) in [
        (Encoding::Hex, "0xff", 'x', 1),
        (Encoding::Hex, "0Xff", 'X', 1),
        (Encoding::Base2, "0b101", 'b', 1),
        (Encoding::Decimal, "#42", '#', 0),
    ] {
        let err = err(Id::parse(text, encoding));
        assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch, index });
        assert!(err.to_string().contains(encoding.alphabet()));
    }
}

#[test]
fn rejects_overflow() {
    // u64::MAX + 1 (and other values above it) in each positional encoding, computed with
    // the Python `enc` above.
    let cases = [
        (Encoding::Decimal, "18446744073709551616"),
        (Encoding::Decimal, "99999999999999999999"),
        (Encoding::Decimal, "1112316766490855473152"),
        (
            Encoding::Base2,
            "10000000000000000000000000000000000000000000000000000000000000000",
        ),
        (Encoding::Base32, "oyyyyyyyyyyyy"),
        (Encoding::Base32, "9999999999999"),
        (Encoding::Base32, "byyyyyyyyyyyyy"),
        (Encoding::Base36, "3w5e11264sgsg"),
        (Encoding::Base36, "68h5gmw443blv2lk1w"),
        (Encoding::Base58, "JPwcyDCgEuq"),
        (Encoding::Hex, "10000000000000000"),
        (Encoding::Hex, "1234567890abcdef8"),
    ];
    for (encoding, text) in cases {
        let err = err(Id::parse(text, encoding));
        assert_eq!(err.kind(), &ParseErrorKind::Overflow, "{encoding} {text:?}");
        let max = Id::MAX.encode(encoding);
        assert_eq!(
            err.to_string(),
            format!("invalid {encoding} ID: value exceeds the maximum {max}")
        );
    }
    assert_eq!(
        err("18446744073709551616".parse::<Id>()).to_string(),
        "invalid decimal ID: value exceeds the maximum 18446744073709551615"
    );
    // Very long input: still an error, not a panic, and not a wrapped-around value.
    let long = "9".repeat(10_000);
    assert_eq!(
        err(Id::parse(&long, Encoding::Decimal)).kind(),
        &ParseErrorKind::Overflow
    );
}

#[test]
fn invalid_characters_take_precedence_over_other_errors() {
    // After an overflow, a later invalid character is still reported.
    assert_eq!(
        err(Id::parse("99999999999999999999x", Encoding::Decimal)).kind(),
        &ParseErrorKind::InvalidChar { ch: 'x', index: 20 }
    );
    // After a leading zero too.
    assert_eq!(
        err(Id::parse("01 ", Encoding::Decimal)).kind(),
        &ParseErrorKind::InvalidChar { ch: ' ', index: 2 }
    );
    assert_eq!(
        err(Id::parse("0 ", Encoding::Decimal)).kind(),
        &ParseErrorKind::InvalidChar { ch: ' ', index: 1 }
    );
    // A leading zero is reported before an overflow.
    assert_eq!(
        err(Id::parse("099999999999999999999", Encoding::Decimal)).kind(),
        &ParseErrorKind::LeadingZero
    );
}

#[test]
fn rejects_wrong_base64_length() {
    for text in [
        "A",
        "AAAAAAAAAA",
        "AAAAAAAAAAAA",
        "AAAAAAAAAAE=",
        // bwmarrin's Base64() of an ID: base64 of the decimal text.
        "MTExNjgxOTQ5NDY2MDk5NzEyMA",
    ] {
        let err = err(Id::parse(text, Encoding::Base64));
        assert_eq!(
            err.kind(),
            &ParseErrorKind::InvalidLength {
                len: text.len(),
                expected: 11
            },
            "{text:?}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "invalid base64 ID: length {} bytes, expected exactly 11 characters",
                text.len()
            )
        );
    }
}

#[test]
fn rejects_nonzero_base64_padding() {
    // The last character's value must be a multiple of 4: its low two bits are padding.
    let allowed: String = BASE64.chars().step_by(4).collect();
    assert_eq!(allowed, "AEIMQUYcgkosw048");
    for (digit, last) in BASE64.chars().enumerate() {
        let text = format!("E9GL7EiAAA{last}");
        let parsed = Id::parse(&text, Encoding::Base64);
        if digit % 4 == 0 {
            let id = parsed.unwrap();
            assert_eq!(id.encode(Encoding::Base64), text);
        } else {
            let err = err(parsed);
            assert_eq!(err.kind(), &ParseErrorKind::NonZeroPadding, "{text:?}");
            let message = err.to_string();
            assert!(message.contains("padding"), "{message}");
            assert!(message.contains(&allowed), "{message}");
        }
    }
}

#[test]
fn the_8_bytes_are_a_value_conversion_and_bwmarrins_bytes_an_encoding() {
    // The 8 big-endian bytes convert from an array; a slice of another length is refused
    // by the conversion to an array, before any ID exists.
    let column: &[u8] = &[0, 0, 0, 0, 0, 0, 1, 0];
    assert_eq!(
        <[u8; 8]>::try_from(column).map(Id::from_bytes).ok(),
        Some(Id::from_u64(256))
    );
    for bytes in [&[][..], &[1], &[0; 7], &[0; 9]] {
        assert!(<[u8; 8]>::try_from(bytes).is_err());
    }
    // Stored bwmarrin Bytes() are the decimal text: read by name, never as the 8 bytes
    // (b"12345678" is not the value 0x3132333435363738).
    assert_eq!(
        Id::parse(b"12345678", Encoding::BwmarrinBytes),
        Ok(Id::from_u64(12_345_678))
    );
    assert_ne!(
        Id::from_bytes(*b"12345678"),
        Id::from_u64(12_345_678),
        "the trap the named encoding avoids"
    );
}

#[test]
fn non_ascii_input_is_reported_by_byte_offset_and_char() {
    let cases: &[(Encoding, &str, char, usize)] = &[
        (Encoding::Decimal, "12é", 'é', 2),
        (Encoding::Decimal, "é", 'é', 0),
        // ARABIC-INDIC DIGIT TWO and FULLWIDTH DIGIT ONE are not ASCII digits.
        (Encoding::Decimal, "4\u{662}", '\u{662}', 1),
        (Encoding::Decimal, "\u{ff11}2", '\u{ff11}', 0),
        (Encoding::Hex, "ff🦀", '🦀', 2),
        (Encoding::Base58, "4jg\u{200b}m", '\u{200b}', 3),
        (Encoding::Base32, "bß", 'ß', 1),
        (Encoding::Base36, "\u{ff41}", '\u{ff41}', 0),
        // 9 ASCII + 'é' (2 bytes) = 11 bytes: passes the length check, fails the alphabet.
        (Encoding::Base64, "E9GL7EiAAé", 'é', 9),
    ];
    for &(encoding, text, ch, index) in cases {
        let err = err(Id::parse(text, encoding));
        assert_eq!(
            err.kind(),
            &ParseErrorKind::InvalidChar { ch, index },
            "{encoding} {text:?}"
        );
        assert!(err.to_string().contains(&format!("{ch:?} at byte {index}")));
        // The same input as bytes: the same error.
        assert_eq!(Id::parse(text.as_bytes(), encoding), Err(err));
    }
    // Multibyte after an overflow or a leading zero is found by the cold path too.
    assert_eq!(
        err(Id::parse("99999999999999999999€", Encoding::Decimal)).kind(),
        &ParseErrorKind::InvalidChar {
            ch: '€', index: 20
        }
    );
    assert_eq!(
        err(Id::parse("0€", Encoding::Decimal)).kind(),
        &ParseErrorKind::InvalidChar {
            ch: '€', index: 1
        }
    );
}

/// Mutations of valid texts either fail or re-encode to exactly the mutated text: the
/// parsers accept only canonical input, and never panic.
#[test]
fn whatever_parses_re_encodes_to_the_same_text() {
    let mut rng = random_values(usize::MAX);
    let extra = ['0', 'y', '1', 'A', '=', '-', '_', ' ', '+', 'é', 'Z', 'z'];
    for value in interesting_values().into_iter().take(600) {
        for encoding in Encoding::ALL {
            let text = Id::from_u64(value).encode(encoding).to_string();
            let zero = encoding.alphabet().chars().next().unwrap();
            let mut mutations = vec![
                format!("0{text}"),
                format!("{zero}{text}"),
                format!("{text}="),
                text.to_uppercase(),
                text.to_lowercase(),
                text[1..].to_string(),
            ];
            for _ in 0..8 {
                let r = rng.next().unwrap();
                let mut chars: Vec<char> = text.chars().collect();
                let at = (r % chars.len() as u64) as usize;
                let c = extra[((r >> 8) % extra.len() as u64) as usize];
                match (r >> 16) % 3 {
                    0 => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ => {
                        chars.remove(at);
                    }
                }
                mutations.push(chars.into_iter().collect());
            }
            for mutated in mutations {
                if let Ok(id) = Id::parse(&mutated, encoding) {
                    assert_eq!(id.encode(encoding), mutated, "{encoding} {mutated:?}");
                }
            }
        }
    }
}

#[test]
fn errors_are_comparable_and_std_errors() {
    let a = err(Id::parse("0x", Encoding::Hex));
    let b = a.clone();
    assert_eq!(a, b);
    assert_ne!(a, err(Id::parse("0x", Encoding::Decimal)));
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(a);
    assert!(boxed.to_string().starts_with("invalid hex ID: "));
}

// ---------------------------------------------------------------------------------------
// bwmarrin/snowflake's decimal-text forms, with its own test vectors.

#[test]
fn bwmarrin_vectors_from_its_tests_and_readme() {
    let b64 = Encoding::BwmarrinBase64;
    let bytes = Encoding::BwmarrinBytes;
    // README: Base64() of 1283328784765816832.
    let classic = Id::from_u64(1_283_328_784_765_816_832);
    assert_eq!(classic.encode(b64), "MTI4MzMyODc4NDc2NTgxNjgzMg==");
    assert_eq!(Id::parse("MTI4MzMyODc4NDc2NTgxNjgzMg==", b64), Ok(classic));
    // TestBase64: ParseBase64 of its "ok" text works, the same text unpadded fails.
    assert_eq!(
        Id::parse("MTExNjgxOTQ5NDY2MDk5NzEyMA==", b64),
        Ok(Id::from_u64(1_116_819_494_660_997_120))
    );
    assert_eq!(
        err(Id::parse("MTExNjgxOTQ5NDY2MDk5NzEyMA", b64)).kind(),
        &ParseErrorKind::LengthNotMultiple {
            len: 26,
            multiple: 4
        }
    );
    // TestBytes: ParseBytes of the decimal text's bytes works; with 0xFF bytes before, fails.
    let ok: &[u8] = &[
        0x31, 0x31, 0x31, 0x36, 0x38, 0x32, 0x31, 0x36, 0x37, 0x39, 0x35, 0x37, 0x30, 0x34, 0x31,
        0x39, 0x37, 0x31, 0x32,
    ];
    assert_eq!(
        Id::parse(ok, bytes),
        Ok(Id::from_u64(1_116_821_679_570_419_712))
    );
    assert_eq!(
        Id::from_u64(1_116_821_679_570_419_712)
            .encode(bytes)
            .as_bytes(),
        ok
    );
    let bad = [&[0xFF, 0xFF, 0xFF][..], ok].concat();
    assert_eq!(
        err(Id::parse(&bad, bytes)).kind(),
        &ParseErrorKind::InvalidByte {
            byte: 0xFF,
            index: 0
        }
    );
    // TestString / TestInt64 / TestBase36 / TestBase2 texts, through the value encodings.
    assert_eq!(
        Id::parse("1116766490855473152", Encoding::Decimal),
        Ok(Id::from_u64(1_116_766_490_855_473_152))
    );
    assert_eq!(
        err(Id::parse("1112316766490855473152", Encoding::Decimal)).kind(),
        &ParseErrorKind::Overflow
    );
    assert!(Id::parse("8hgmw4blvlkw", Encoding::Base36).is_ok());
    assert_eq!(
        err(Id::parse("1112316766490855473152", Encoding::Base2)).kind(),
        &ParseErrorKind::InvalidChar { ch: '2', index: 3 }
    );
    // TestMarshalJSON: the JSON string is the decimal text in quotes.
    assert_eq!(Id::from_u64(13_587).to_string(), "13587");
}

#[test]
fn bwmarrin_base64_is_strict() {
    let e = Encoding::BwmarrinBase64;
    let kind = |text: &str| *err(Id::parse(text, e)).kind();
    // Misplaced or excess padding.
    assert_eq!(
        kind("MA=A"),
        ParseErrorKind::InvalidChar { ch: '=', index: 2 }
    );
    assert_eq!(
        kind("M==="),
        ParseErrorKind::InvalidChar { ch: '=', index: 1 }
    );
    assert_eq!(
        kind("===="),
        ParseErrorKind::InvalidChar { ch: '=', index: 0 }
    );
    // URL-safe symbols and line breaks (which Go's decoder skips) are not the alphabet.
    assert_eq!(
        kind("MT-4"),
        ParseErrorKind::InvalidChar { ch: '-', index: 2 }
    );
    assert_eq!(
        kind("MTI4\nMzMy"),
        ParseErrorKind::InvalidChar { ch: '\n', index: 4 }
    );
    assert_eq!(
        kind("MTI"),
        ParseErrorKind::LengthNotMultiple {
            len: 3,
            multiple: 4
        }
    );
    // "MB==" decodes to '0' with non-zero spare bits ("MA==" is the one text of 0).
    assert_eq!(kind("MB=="), ParseErrorKind::NonZeroPadding);
    assert_eq!(kind("MTF="), ParseErrorKind::NonZeroPadding);
    // The decoded text must be canonical decimal: no letters, sign, leading zero, overflow.
    let b64 = |text: &str| base64_std(text.as_bytes());
    assert_eq!(
        kind(&b64("12a")),
        ParseErrorKind::NotDecimalText {
            byte: b'a',
            index: 2
        }
    );
    assert_eq!(
        kind(&b64("-5")),
        ParseErrorKind::NotDecimalText {
            byte: b'-',
            index: 0
        }
    );
    assert_eq!(
        kind(&b64("+5")),
        ParseErrorKind::NotDecimalText {
            byte: b'+',
            index: 0
        }
    );
    assert_eq!(kind(&b64("007")), ParseErrorKind::LeadingZero);
    assert_eq!(kind(&b64("18446744073709551616")), ParseErrorKind::Overflow);
    assert_eq!(
        Id::parse(&b64("18446744073709551615"), e),
        Ok(Id::MAX),
        "u64::MAX, past bwmarrin's int64, still round-trips"
    );
    // The value form's base64 is not the decimal text's.
    assert_eq!(
        kind("AAAAAAAAAAE="),
        ParseErrorKind::NotDecimalText { byte: 0, index: 0 }
    );
    // Messages name the rule and never echo more than one escaped character.
    for (text, says) in [
        ("MA=A", "padding '=' at byte 2"),
        ("MTI", "not a multiple of 4"),
        ("MB==", "padding bits"),
        ("MTJh", "not a decimal digit"),
        ("MDA3", "leading zero"),
    ] {
        let message = err(Id::parse(text, e)).to_string();
        assert!(
            message.starts_with("invalid bwmarrin-base64 ID: "),
            "{message}"
        );
        assert!(message.contains(says), "{text}: {message}");
    }
}

/// Standard padded base64 (RFC 4648 §4), written here from the RFC, not from the crate.
fn base64_std(data: &[u8]) -> String {
    let alphabet = BWMARRIN_BASE64.as_bytes();
    let mut out = String::new();
    for block in data.chunks(3) {
        let b = [
            block[0],
            block.get(1).copied().unwrap_or(0),
            block.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= block.len() {
                out.push(char::from(alphabet[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn bwmarrin_base64_is_base64_of_the_decimal_text_for_every_value() {
    for value in interesting_values() {
        let id = Id::from_u64(value);
        let expected = base64_std(value.to_string().as_bytes());
        assert_eq!(id.encode(Encoding::BwmarrinBase64), expected);
        assert_eq!(Id::parse(&expected, Encoding::BwmarrinBase64), Ok(id));
    }
}
