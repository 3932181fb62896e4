//! [`quoted`]: user input made safe to echo in a message: escaped, and cut to a sane length.
//!
//! Anything a user gave (an ID on standard input, an argument) may hold control bytes that
//! rewrite a terminal (`ESC [ ...`), bytes that are not UTF-8, or megabytes of text. Every
//! message that echoes input goes through here: printable characters as they are, the rest
//! as Rust escapes (`\n`, `\u{1b}`, `\xff`), and no more than [`SHOWN_CHARS`] characters,
//! followed by the input's full length.

use std::fmt::Write;

/// The most characters of an input a message shows.
pub const SHOWN_CHARS: usize = 40;

/// `input` between single quotes, escaped, cut after [`SHOWN_CHARS`] characters; `len` is the
/// input's full length in bytes (the input given may be a prefix of it).
pub fn quoted_prefix(input: &[u8], len: usize) -> String {
    let mut out = String::from("'");
    let mut shown = 0;
    let mut cut = false;
    'chunks: for chunk in input.utf8_chunks() {
        for ch in chunk.valid().chars() {
            if shown == SHOWN_CHARS {
                cut = true;
                break 'chunks;
            }
            match ch {
                '\'' => out.push_str("\\'"),
                '"' => out.push('"'),
                ch => out.extend(ch.escape_debug()),
            }
            shown += 1;
        }
        for byte in chunk.invalid() {
            if shown == SHOWN_CHARS {
                cut = true;
                break 'chunks;
            }
            let _ = write!(out, "\\x{byte:02x}");
            shown += 1;
        }
    }
    if cut || len > input.len() {
        let _ = write!(out, "...' ({len} bytes)");
    } else {
        out.push('\'');
    }
    out
}

/// [`quoted_prefix`] of a whole input.
pub fn quoted(input: impl AsRef<[u8]>) -> String {
    let input = input.as_ref();
    quoted_prefix(input, input.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_is_shown_as_is_and_the_rest_escaped() {
        assert_eq!(quoted("abc 123"), "'abc 123'");
        assert_eq!(quoted("é€😀"), "'é€😀'");
        assert_eq!(quoted("it's \"x\""), r#"'it\'s "x"'"#);
        assert_eq!(quoted("a\\b"), r"'a\\b'");
        assert_eq!(quoted("\u{1b}[31mred"), r"'\u{1b}[31mred'");
        assert_eq!(quoted("tab\there\r\n"), r"'tab\there\r\n'");
        assert_eq!(quoted(b"\xff\xfe1\x00"), r"'\xff\xfe1\0'");
        // Right-to-left override: it would reorder the rest of the line.
        assert_eq!(quoted("a\u{202e}b"), r"'a\u{202e}b'");
    }

    #[test]
    fn long_input_is_cut_and_its_length_said() {
        let long = "x".repeat(10_000_000);
        let q = quoted(&long);
        assert_eq!(
            q,
            format!("'{}...' (10000000 bytes)", "x".repeat(SHOWN_CHARS))
        );
        let exactly = "y".repeat(SHOWN_CHARS);
        assert_eq!(quoted(&exactly), format!("'{exactly}'"));
        // A prefix of a longer input says so even when the prefix itself is short.
        assert_eq!(quoted_prefix(b"abc", 5_000), "'abc...' (5000 bytes)");
        let binary = vec![0xff_u8; 1_000];
        assert_eq!(
            quoted(&binary),
            format!("'{}...' (1000 bytes)", r"\xff".repeat(SHOWN_CHARS))
        );
    }
}
