//! The input of `decode` and `encode`: ID tokens from the arguments or from standard input,
//! each turned into one line of output or one reported error, in bounded memory.

use std::ffi::OsString;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};

use crate::error::CliError;
use crate::escape::quoted_prefix;

/// The most bytes of one whitespace-separated token kept in memory: far more than the
/// longest ID text (64 binary digits), so a longer token is refused for its length without
/// being held (its first bytes are kept to quote it).
pub const TOKEN_CAP: usize = 256;

/// The most bad IDs reported for one line of standard input; the rest are counted in one
/// message, so that a line of garbage (a binary file, say) does not flood standard error.
pub const ERRORS_PER_LINE: u64 = 10;

/// One token of the input: its first bytes (at most [`TOKEN_CAP`]), its full length, and
/// the line it started on.
struct Token<'a> {
    head: &'a [u8],
    len: usize,
    line: u64,
}

/// Counts bad IDs and reports them on standard error, at most [`ERRORS_PER_LINE`] per line
/// of standard input.
#[derive(Default)]
struct Reporter {
    failed: u64,
    /// The line of the last bad ID, and how many were on it.
    line: u64,
    on_line: u64,
}

impl Reporter {
    /// Reports one bad ID of `line` (0 for an argument).
    fn bad(&mut self, line: u64, message: &str) {
        self.failed += 1;
        if line != self.line {
            self.finish_line();
            self.line = line;
        }
        self.on_line += 1;
        // `eprintln!` would panic if standard error is gone; nobody to tell then.
        let mut err = io::stderr().lock();
        if line == 0 {
            let _ = writeln!(err, "error: {message}");
        } else if self.on_line <= ERRORS_PER_LINE {
            let _ = writeln!(err, "error: line {line}: {message}");
        }
    }

    /// Says how many bad IDs of the last line went unreported.
    fn finish_line(&mut self) {
        if self.line != 0 && self.on_line > ERRORS_PER_LINE {
            let _ = writeln!(
                io::stderr().lock(),
                "error: line {}: {} more bad IDs on this line not shown",
                self.line,
                self.on_line - ERRORS_PER_LINE
            );
        }
        self.on_line = 0;
    }
}

/// Reads the tokens of `ids`, or of standard input when there are none, and writes the line
/// `line` makes of each, or reports on standard error why it made none (escaped, with its
/// line), going on with the rest; a bad token makes the exit status 2. `command` names the
/// subcommand in the message for a terminal on standard input.
pub fn each_token(
    ids: &[OsString],
    command: &str,
    mut line: impl FnMut(&[u8]) -> Result<String, String>,
) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut report = Reporter::default();
    let mut each = |token: Token<'_>| -> Result<(), CliError> {
        let made = if token.len > token.head.len() {
            Err(format!(
                "{} is too long to be an ID: the longest ID text (64 binary digits) is 64 bytes",
                quoted_prefix(token.head, token.len)
            ))
        } else {
            line(token.head)
        };
        match made {
            Ok(line) => {
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(message) => {
                // Keep the order of output and errors on a terminal.
                out.flush()?;
                report.bad(token.line, &message);
            }
        }
        Ok(())
    };
    if ids.is_empty() {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Err(CliError::input(format_args!(
                "no IDs to {command}: give them as arguments or on standard input (snowmint {command} --help)"
            )));
        }
        read_tokens(stdin.lock(), &mut each)?;
    } else {
        for arg in ids {
            let bytes = arg.as_encoded_bytes();
            let len = bytes.len();
            let head = &bytes[..len.min(TOKEN_CAP)];
            each(Token { head, len, line: 0 })?;
        }
    }
    out.flush()?;
    report.finish_line();
    if report.failed > 0 {
        return Err(CliError::reported());
    }
    Ok(())
}

/// Splits `input` into whitespace-separated tokens and hands each to `each`, holding at most
/// [`TOKEN_CAP`] bytes of a token whatever its length: memory stays bounded on a line of any
/// length, and bytes that are not UTF-8 are just bytes of a (bad) token.
fn read_tokens(
    mut input: impl BufRead,
    each: &mut impl FnMut(Token<'_>) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let mut head: Vec<u8> = Vec::with_capacity(TOKEN_CAP);
    let mut len = 0_usize;
    let mut line = 1_u64;
    let mut token_line = 1_u64;
    loop {
        let chunk = match input.fill_buf() {
            Ok([]) => break,
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(CliError::system(format_args!(
                    "reading standard input (after line {line}): {e}"
                )))
            }
        };
        let consumed = chunk.len();
        for &byte in chunk {
            if byte.is_ascii_whitespace() {
                if len > 0 {
                    each(Token {
                        head: &head,
                        len,
                        line: token_line,
                    })?;
                    head.clear();
                    len = 0;
                }
                if byte == b'\n' {
                    line += 1;
                }
            } else {
                if len == 0 {
                    token_line = line;
                }
                if head.len() < TOKEN_CAP {
                    head.push(byte);
                }
                len = len.saturating_add(1);
            }
        }
        input.consume(consumed);
    }
    if len > 0 {
        each(Token {
            head: &head,
            len,
            line: token_line,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: &[u8]) -> Vec<(Vec<u8>, usize, u64)> {
        let mut seen = Vec::new();
        read_tokens(input, &mut |t: Token<'_>| {
            seen.push((t.head.to_vec(), t.len, t.line));
            Ok(())
        })
        .unwrap();
        seen
    }

    #[test]
    fn tokens_split_on_ascii_whitespace_with_their_lines() {
        assert_eq!(
            tokens(b" 12 ab\n\n\tc\r\nd"),
            vec![
                (b"12".to_vec(), 2, 1),
                (b"ab".to_vec(), 2, 1),
                (b"c".to_vec(), 1, 3),
                (b"d".to_vec(), 1, 4),
            ]
        );
        assert_eq!(tokens(b""), vec![]);
        assert_eq!(
            tokens(b"\xff\xfe 1"),
            vec![(b"\xff\xfe".to_vec(), 2, 1), (b"1".to_vec(), 1, 1)]
        );
    }

    #[test]
    fn a_huge_token_is_held_only_up_to_the_cap() {
        let mut input = vec![b'7'; 3 * TOKEN_CAP + 5];
        input.extend_from_slice(b"\n42");
        // A reader that hands out small chunks, as a pipe does.
        let reader = io::BufReader::with_capacity(7, &input[..]);
        let mut seen = Vec::new();
        read_tokens(reader, &mut |t: Token<'_>| {
            seen.push((t.head.len(), t.len, t.line));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![(TOKEN_CAP, 3 * TOKEN_CAP + 5, 1), (2, 2, 2)]);
    }
}
