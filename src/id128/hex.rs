//! The UUID text form: 36 characters, `8-4-4-4-12` hex digits and hyphens; written in
//! lowercase, read in either case.

use super::error::Id128Error;

/// The canonical text's length.
pub(crate) const LEN: usize = 36;

/// The byte offsets of the hyphens.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The canonical text of `value`: lowercase, hyphenated.
pub(crate) fn format(value: u128) -> [u8; LEN] {
    let mut out = [b'-'; LEN];
    let mut nibble = 32;
    for (i, slot) in out.iter_mut().enumerate() {
        if HYPHENS.contains(&i) {
            continue;
        }
        nibble -= 1;
        *slot = DIGITS[((value >> (nibble * 4)) & 0xf) as usize];
    }
    out
}

/// The value of a hex digit of either case.
const fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The 128 bits of a hyphenated UUID text, of any version and variant; the first byte out
/// of place is the error.
pub(crate) fn parse(text: &str) -> Result<u128, Id128Error> {
    let bytes = text.as_bytes();
    if bytes.len() != LEN {
        return Err(Id128Error::UuidLength { len: bytes.len() });
    }
    let mut value = 0u128;
    for (i, &b) in bytes.iter().enumerate() {
        if HYPHENS.contains(&i) {
            if b != b'-' {
                return Err(Id128Error::invalid_at(text, i, Id128Error::HYPHEN));
            }
            continue;
        }
        match hex_value(b) {
            Some(v) => value = value << 4 | u128::from(v),
            None => return Err(Id128Error::invalid_at(text, i, Id128Error::HEX)),
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_lowercase_and_hyphenated() {
        let text = format(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
        assert_eq!(&text, b"017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
        assert_eq!(
            parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"),
            Ok(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F)
        );
    }

    #[test]
    fn a_misplaced_hyphen_is_named_where_it_should_be() {
        assert_eq!(
            parse("017f22e279-b0-7cc3-98c4-dc0c0c07398f"),
            Err(Id128Error::InvalidChar {
                ch: '7',
                index: 8,
                allowed: Id128Error::HYPHEN
            })
        );
    }

    #[test]
    fn a_non_ascii_character_is_reported_whole() {
        // 'é' is two bytes: 35 bytes of text plus it make 36.
        assert_eq!(
            parse("017f22e2-79b0-7cc3-98c4-dc0c0c0739é"),
            Err(Id128Error::InvalidChar {
                ch: 'é',
                index: 34,
                allowed: Id128Error::HEX
            })
        );
    }
}
