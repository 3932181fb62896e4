//! Decode tables built at compile time from the alphabets of [`scheme`](super::scheme), shared
//! by the codecs.

use super::scheme::Encoding;

/// Marks a byte that is not in an alphabet, in a decode table.
pub(crate) const INVALID: u8 = 0xFF;

/// Builds the byte -> digit table of an alphabet; every byte outside it maps to [`INVALID`].
///
/// Evaluated in `static` initialisers, so the asserts are compile-time checks: an alphabet
/// must be ASCII (which is what lets [`EncodedId`](super::encoded::EncodedId) hold only ASCII)
/// and free of duplicates.
pub(crate) const fn decode_table(alphabet: &[u8]) -> [u8; 256] {
    assert!(
        alphabet.len() >= 2 && alphabet.len() <= 64,
        "alphabet size must be 2..=64"
    );
    let mut table = [INVALID; 256];
    let mut digit = 0;
    while digit < alphabet.len() {
        let byte = alphabet[digit];
        assert!(byte.is_ascii(), "alphabet must be ASCII");
        assert!(
            table[byte as usize] == INVALID,
            "alphabet has a duplicate symbol"
        );
        table[byte as usize] = digit as u8;
        digit += 1;
    }
    table
}

/// `encoding`'s alphabet as an array of `N` bytes; a compile-time error (in a `static`
/// initialiser) when it does not have `N` symbols.
pub(crate) const fn alphabet<const N: usize>(encoding: Encoding) -> &'static [u8; N] {
    match encoding.alphabet().as_bytes().first_chunk::<N>() {
        Some(digits) if encoding.alphabet().len() == N => digits,
        _ => panic!("the alphabet does not have N symbols"),
    }
}
