//! The 128-bit types: the RFC 9562 and ULID spec examples, byte order, order, and every way
//! a text, a number or bytes is refused.

use snowmint::{Id128Error, Ulid, Uuid7};

const RFC_VECTOR: &str = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F";

#[test]
fn the_rfc_9562_vector_reads_as_the_rfc_says() {
    let id: Uuid7 = RFC_VECTOR.parse().unwrap();
    assert_eq!(id.unix_millis(), 0x017F_22E2_79B0);
    assert_eq!(id.unix_millis(), 1_645_557_742_000); // Tuesday, February 22, 2022 2:22:22 PM GMT-05:00
    assert_eq!(id.rand_a(), 0xCC3);
    assert_eq!(id.rand_b(), 0x18C4_DC0C_0C07_398F);
    assert_eq!(id.to_u128(), 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
    assert_eq!(id.to_string(), RFC_VECTOR.to_ascii_lowercase());
    assert_eq!(
        Uuid7::from_fields(0x017F_22E2_79B0, 0xCC3, 0x18C4_DC0C_0C07_398F),
        id
    );
}

#[test]
fn uuid_bytes_are_in_rfc_order() {
    let id: Uuid7 = RFC_VECTOR.parse().unwrap();
    let bytes = id.to_bytes();
    assert_eq!(
        bytes,
        [
            0x01, 0x7F, 0x22, 0xE2, 0x79, 0xB0, 0x7C, 0xC3, 0x98, 0xC4, 0xDC, 0x0C, 0x0C, 0x07,
            0x39, 0x8F
        ]
    );
    assert_eq!(bytes[6] >> 4, 7, "the version is the high nibble of byte 6");
    assert_eq!(
        bytes[8] >> 6,
        0b10,
        "the variant is the top two bits of byte 8"
    );
    assert_eq!(Uuid7::from_bytes(bytes), Ok(id));
    assert_eq!(<[u8; 16]>::from(id), bytes);
    assert_eq!(Uuid7::try_from(bytes), Ok(id));
}

#[test]
fn uuid_text_of_either_case_is_read_and_lowercase_is_written() {
    let lower: Uuid7 = RFC_VECTOR.to_ascii_lowercase().parse().unwrap();
    let upper: Uuid7 = RFC_VECTOR.parse().unwrap();
    let mixed: Uuid7 = "017f22E2-79b0-7CC3-98c4-DC0C0c07398F".parse().unwrap();
    assert_eq!(lower, upper);
    assert_eq!(mixed, upper);
    assert_eq!(
        format!("{upper:>40}"),
        format!("    {}", RFC_VECTOR.to_ascii_lowercase())
    );
    assert_eq!(
        Uuid7::try_from("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
        Ok(upper)
    );
}

#[test]
fn only_the_hyphenated_uuid_form_is_accepted() {
    let cases = [
        (
            "017f22e279b07cc398c4dc0c0c07398f",
            Id128Error::UuidLength { len: 32 },
        ),
        (
            "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}",
            Id128Error::UuidLength { len: 38 },
        ),
        (
            "urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            Id128Error::UuidLength { len: 45 },
        ),
        ("", Id128Error::UuidLength { len: 0 }),
        (
            " 017f22e2-79b0-7cc3-98c4-dc0c0c07398",
            Id128Error::InvalidChar {
                ch: ' ',
                index: 0,
                allowed: Id128Error::HEX,
            },
        ),
        (
            "017f22e2_79b0-7cc3-98c4-dc0c0c07398f",
            Id128Error::InvalidChar {
                ch: '_',
                index: 8,
                allowed: Id128Error::HYPHEN,
            },
        ),
        (
            "017f22e2-79b0-7cc3-98c4-dc0c0c07-98f",
            Id128Error::InvalidChar {
                ch: '-',
                index: 32,
                allowed: Id128Error::HEX,
            },
        ),
        (
            "017f22e2-79b0-7cc3-98c4+dc0c0c07398f",
            Id128Error::InvalidChar {
                ch: '+',
                index: 23,
                allowed: Id128Error::HYPHEN,
            },
        ),
        (
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398g",
            Id128Error::InvalidChar {
                ch: 'g',
                index: 35,
                allowed: Id128Error::HEX,
            },
        ),
        (
            "017f22e2-79b0-7cc3-98c4-dc0c0c0739\u{e9}",
            Id128Error::InvalidChar {
                ch: '\u{e9}',
                index: 34,
                allowed: Id128Error::HEX,
            },
        ),
    ];
    for (text, err) in cases {
        assert_eq!(text.parse::<Uuid7>(), Err(err), "{text:?}");
    }
}

#[test]
fn a_uuid_of_another_version_or_variant_is_refused() {
    for version in (0..16u8).filter(|&v| v != 7) {
        let text = format!("017f22e2-79b0-{version:x}cc3-98c4-dc0c0c07398f");
        assert_eq!(
            text.parse::<Uuid7>(),
            Err(Id128Error::NotVersion7 { version }),
            "{text}"
        );
    }
    for digit in 0..16u8 {
        let text = format!("017f22e2-79b0-7cc3-{digit:x}8c4-dc0c0c07398f");
        let parsed = text.parse::<Uuid7>();
        if (8..12).contains(&digit) {
            assert!(parsed.is_ok(), "{text}");
        } else {
            assert_eq!(parsed, Err(Id128Error::NotRfcVariant { digit }), "{text}");
        }
    }
    // The nil and max UUIDs of RFC 9562 are not version 7.
    assert_eq!(
        Uuid7::from_u128(0),
        Err(Id128Error::NotVersion7 { version: 0 })
    );
    assert_eq!(
        Uuid7::from_u128(u128::MAX),
        Err(Id128Error::NotVersion7 { version: 15 })
    );
    assert_eq!(
        Uuid7::try_from(0u128),
        Err(Id128Error::NotVersion7 { version: 0 })
    );
    assert_eq!(
        Uuid7::from_bytes([0; 16]),
        Err(Id128Error::NotVersion7 { version: 0 })
    );
}

#[test]
fn the_ulid_spec_examples_read_as_the_spec_says() {
    let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse().unwrap();
    assert_eq!(id.unix_millis(), 1_469_918_176_385);
    assert_eq!(id.to_string(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
    let id: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse().unwrap();
    assert_eq!(id.unix_millis(), 1_469_922_850_259);
    assert_eq!(id.to_string(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    // The spec's monotonic example increments the random part by one each time. Its time
    // part has an `L`, outside the alphabet: Crockford reads it as `1`.
    let monotonic = ["R8", "R9", "RA", "RB", "RC", "RD"].map(|end| {
        format!("000XAL6S41ACTAV9WEVGEMMV{end}")
            .parse::<Ulid>()
            .unwrap()
    });
    for pair in monotonic.windows(2) {
        assert_eq!(pair[1].to_u128(), pair[0].to_u128() + 1);
    }
    assert_eq!(monotonic[0].to_string(), "000XA16S41ACTAV9WEVGEMMVR8");
}

#[test]
fn ulid_text_is_case_insensitive_with_crockfords_aliases() {
    let canonical: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse().unwrap();
    assert_eq!("01aryz6s41tsv4rrffq69g5fav".parse::<Ulid>(), Ok(canonical));
    assert_eq!("O1ARYZ6S4ITSV4RRFFQ69G5FAV".parse::<Ulid>(), Ok(canonical));
    assert_eq!("o1aryz6s4ltsv4rrffq69g5fav".parse::<Ulid>(), Ok(canonical));
    assert_eq!(
        "0IL00000000000000000000000".parse::<Ulid>(),
        "01100000000000000000000000".parse()
    );
    assert_eq!(Ulid::try_from("01ARYZ6S41TSV4RRFFQ69G5FAV"), Ok(canonical));
}

#[test]
fn a_ulid_text_that_is_not_26_crockford_digits_is_refused() {
    let cases = [
        ("", Id128Error::UlidLength { len: 0 }),
        (
            "01ARYZ6S41TSV4RRFFQ69G5FA",
            Id128Error::UlidLength { len: 25 },
        ),
        (
            "01ARYZ6S41TSV4RRFFQ69G5FAVX",
            Id128Error::UlidLength { len: 27 },
        ),
        (
            "01ARYZ6S41-TSV4RRFFQ69G5FA",
            Id128Error::InvalidChar {
                ch: '-',
                index: 10,
                allowed: Id128Error::CROCKFORD,
            },
        ),
        (
            "01ARYZ6S41TSV4RRFFQ69G5FAU",
            Id128Error::InvalidChar {
                ch: 'U',
                index: 25,
                allowed: Id128Error::CROCKFORD,
            },
        ),
        (
            "u1ARYZ6S41TSV4RRFFQ69G5FAV",
            Id128Error::InvalidChar {
                ch: 'u',
                index: 0,
                allowed: Id128Error::CROCKFORD,
            },
        ),
        (
            "01ARYZ6S41TSV4RRFFQ69G5F\u{e9}",
            Id128Error::InvalidChar {
                ch: '\u{e9}',
                index: 24,
                allowed: Id128Error::CROCKFORD,
            },
        ),
        (
            "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
            Id128Error::UlidOverflow { ch: '8' },
        ),
        (
            "zZZZZZZZZZZZZZZZZZZZZZZZZZ",
            Id128Error::UlidOverflow { ch: 'z' },
        ),
    ];
    for (text, err) in cases {
        assert_eq!(text.parse::<Ulid>(), Err(err), "{text:?}");
    }
    assert_eq!("7ZZZZZZZZZZZZZZZZZZZZZZZZZ".parse::<Ulid>(), Ok(Ulid::MAX));
}

#[test]
fn ulid_bytes_are_big_endian_time_first() {
    let id = Ulid::from_parts(0x0102_0304_0506, 0x0708_090A_0B0C_0D0E_0F10);
    assert_eq!(
        id.to_bytes(),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
    );
    assert_eq!(Ulid::from_bytes(id.to_bytes()), id);
    assert_eq!(Ulid::from(id.to_bytes()), id);
    assert_eq!(u128::from(id), 0x0102_0304_0506_0708_090A_0B0C_0D0E_0F10);
    assert_eq!(id.random(), 0x0708_090A_0B0C_0D0E_0F10);
}

#[test]
fn order_is_numeric_is_time_order_is_text_order() {
    let ulids = [
        Ulid::from_parts(1, u128::MAX),
        Ulid::from_parts(2, 0),
        Ulid::from_parts(2, 1),
    ];
    let uuids = [
        Uuid7::from_fields(1, 4095, u64::MAX),
        Uuid7::from_fields(2, 0, 0),
        Uuid7::from_fields(2, 0, 1),
    ];
    for pair in ulids.windows(2) {
        assert!(pair[0] < pair[1]);
        assert!(pair[0].to_string() < pair[1].to_string());
        assert!(pair[0].to_bytes() < pair[1].to_bytes());
    }
    for pair in uuids.windows(2) {
        assert!(pair[0] < pair[1]);
        assert!(pair[0].to_string() < pair[1].to_string());
        assert!(pair[0].to_bytes() < pair[1].to_bytes());
    }
}

#[test]
fn errors_say_what_was_wrong_where_and_what_is_allowed() {
    let message = |text: &str| text.parse::<Uuid7>().unwrap_err().to_string();
    assert_eq!(
        message("017f22e2"),
        "a UUID is 36 characters (8-4-4-4-12 hex digits and hyphens), this is 8 bytes"
    );
    assert_eq!(
        message("017f22e2-79b0-7cc3-98c4_dc0c0c07398f"),
        "character '_' at byte 23 is not allowed there: expected '-'"
    );
    assert_eq!(
        message("017f22e2-79b0-4cc3-98c4-dc0c0c07398f"),
        "not a UUIDv7: the version (the 13th hex digit, byte 14 of the text) is 4, expected 7"
    );
    assert_eq!(
        message("017f22e2-79b0-7cc3-08c4-dc0c0c07398f"),
        "not an RFC 9562 UUID: the variant digit (the 17th hex digit, byte 19 of the text) is 0, expected 8, 9, a or b"
    );
    let message = |text: &str| text.parse::<Ulid>().unwrap_err().to_string();
    assert_eq!(message("01AR"), "a ULID is 26 characters, this is 4 bytes");
    assert_eq!(
        message("01ARYZ6S41TSV4RRFFQ69G5FA\u{1b}"),
        "character '\\u{1b}' at byte 25 is not allowed there: expected a Crockford base32 digit (0-9, A-Z but U, any case; I and L read as 1, O as 0)"
    );
    assert_eq!(
        message("9ZZZZZZZZZZZZZZZZZZZZZZZZZ"),
        "ULID overflows 128 bits: its first character is '9', at most '7' (the largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ)"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(Id128Error::UlidLength { len: 1 });
    assert!(boxed.to_string().contains("26"));
}
