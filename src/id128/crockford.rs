//! The ULID text form: 26 digits of Crockford's base32 (`0-9 A-Z` without `I L O U`), the
//! 128 bits read as a 130-bit number whose top two bits are zero.
//!
//! Written in uppercase. Read by Crockford's decoding rule: either case; `I`, `i`, `L` and
//! `l` are `1`, `O` and `o` are `0`; `U` (and everything else) is refused. The ULID spec
//! names the alphabet and says "case insensitive"; the `I L O` aliases are Crockford's.
//! Crockford's optional hyphens and check symbol are not accepted: a ULID is 26 characters.

use super::error::Id128Error;

/// The canonical text's length.
pub(crate) const LEN: usize = 26;

/// The alphabet, in digit order.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// No digit: a value above every digit's.
const NONE: u8 = 0xff;

/// The digit of each byte (`NONE` for bytes outside the alphabet and its aliases).
const DECODE: [u8; 256] = {
    let mut table = [NONE; 256];
    let mut d = 0;
    while d < 32 {
        let upper = ALPHABET[d];
        table[upper as usize] = d as u8;
        table[upper.to_ascii_lowercase() as usize] = d as u8;
        d += 1;
    }
    table[b'I' as usize] = 1;
    table[b'i' as usize] = 1;
    table[b'L' as usize] = 1;
    table[b'l' as usize] = 1;
    table[b'O' as usize] = 0;
    table[b'o' as usize] = 0;
    table
};

/// The canonical text of `value`: 26 uppercase digits, the first one of `0..=7`.
pub(crate) fn format(value: u128) -> [u8; LEN] {
    let mut out = [b'0'; LEN];
    for (i, slot) in out.iter_mut().enumerate() {
        let shift = 5 * (LEN - 1 - i);
        *slot = ALPHABET[((value >> shift) & 0x1f) as usize];
    }
    out
}

/// The 128 bits of a ULID text; the first byte out of place is the error, then an overflow.
pub(crate) fn parse(text: &str) -> Result<u128, Id128Error> {
    let bytes = text.as_bytes();
    if bytes.len() != LEN {
        return Err(Id128Error::UlidLength { len: bytes.len() });
    }
    let mut value = 0u128;
    for (i, &b) in bytes.iter().enumerate() {
        let digit = DECODE[b as usize];
        if digit == NONE {
            return Err(Id128Error::invalid_at(text, i, Id128Error::CROCKFORD));
        }
        if i == 0 && digit > 7 {
            return Err(Id128Error::UlidOverflow { ch: char::from(b) });
        }
        // The first digit is at most 7 (3 bits): 3 + 25 × 5 = 128 bits, no overflow.
        value = value << 5 | u128::from(digit);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_digit_and_alias_reads_as_crockford_says() {
        for (d, &c) in ALPHABET.iter().enumerate() {
            assert_eq!(DECODE[c as usize], d as u8);
            assert_eq!(DECODE[c.to_ascii_lowercase() as usize], d as u8);
        }
        for c in [b'I', b'i', b'L', b'l'] {
            assert_eq!(DECODE[c as usize], 1);
        }
        assert_eq!(DECODE[b'O' as usize], 0);
        assert_eq!(DECODE[b'o' as usize], 0);
        assert_eq!(DECODE[b'U' as usize], NONE);
        assert_eq!(DECODE[b'u' as usize], NONE);
        let accepted = DECODE.iter().filter(|&&d| d != NONE).count();
        // Ten digits, 22 letters in two cases, six aliases.
        assert_eq!(accepted, 10 + 22 * 2 + 6);
    }

    #[test]
    fn the_largest_ulid_round_trips() {
        assert_eq!(&format(u128::MAX), b"7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
        assert_eq!(parse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"), Ok(u128::MAX));
        assert_eq!(&format(0), b"00000000000000000000000000");
    }
}
