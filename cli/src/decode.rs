//! `snowmint decode`: the time, node and sequence of IDs.

use std::ffi::OsString;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};

use snowmint::Id;

use crate::error::CliError;
use crate::escape::quoted_prefix;
use crate::format::{self, Format};
use crate::json;
use crate::layout_arg::{self, NamedLayout};
use crate::time::{self, Precision};
use crate::value;

/// Show the time, node and sequence of IDs.
///
/// One line per ID, as key=value pairs (or a JSON object with --json). IDs come from the
/// arguments, or else from standard input, separated by whitespace. Any input is read: a bad
/// ID (not an ID, too wide for the layout, not UTF-8, far too long) is reported on standard
/// error, escaped and cut short, with its line and the exact reason, and the rest are still
/// decoded; the exit status is then 2.
///
/// The encoding is detected when only one reads the text as an ID that fits the layout:
/// digits alone are decimal when they fit in 64 bits (so a hex ID made of digits only needs
/// --from hex), a "quoted" value is JSON, 14 to 16 hex digits are hex, and a longer run of
/// 0s and 1s is binary. Short texts often read in several encodings (abc is
/// base32, base36, base58 and hex; base36 IDs are often valid z-base-32); then the error
/// lists the readings and --from picks one. bwmarrin/snowflake's Base64() and Bytes() forms
/// are read only with --from bwmarrin-base64 or --from bwmarrin-bytes.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// IDs to decode [default: read from standard input]
    #[arg(value_name = "ID")]
    ids: Vec<OsString>,

    #[arg(short, long, value_name = "LAYOUT", default_value = "twitter", value_parser = value::text(layout_arg::parse), help = layout_arg::HELP)]
    layout: NamedLayout,

    /// The IDs' encoding [default: detected]
    #[arg(long, value_name = "ENCODING", value_parser = value::choice::<Format>())]
    from: Option<Format>,

    /// One JSON object per line
    #[arg(long)]
    json: bool,
}

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

pub fn run(args: Args) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut report = Reporter::default();
    let from_stdin = args.ids.is_empty();
    let mut each = |token: Token<'_>| -> Result<(), CliError> {
        match decode_token(&token, &args) {
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
    if from_stdin {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Err(CliError::input(
                "no IDs to decode: give them as arguments or on standard input (snowmint decode --help)",
            ));
        }
        read_tokens(stdin.lock(), &mut each)?;
    } else {
        for arg in &args.ids {
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

/// The output line of one token, or why it is not an ID.
fn decode_token(token: &Token<'_>, args: &Args) -> Result<String, String> {
    if token.len > token.head.len() {
        return Err(format!(
            "{} is too long to be an ID: the longest ID text (64 binary digits) is 64 bytes",
            quoted_prefix(token.head, token.len)
        ));
    }
    let (id, format) = format::read_id(token.head, args.from, &args.layout.layout)?;
    // It parsed, so it is ASCII.
    let text = String::from_utf8_lossy(token.head);
    Ok(describe(id, format, &text, &args.layout, args.json))
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

/// One ID's line.
fn describe(id: Id, format: Format, input: &str, layout: &NamedLayout, as_json: bool) -> String {
    let d = layout.layout.decode(id);
    let stamp = time::format(d.time(), Precision::for_nanos(layout.layout.unit_nanos()));
    if as_json {
        json::Object::new()
            .string("input", input)
            .string("encoding", format.name())
            .string("id", &id.to_string())
            .string("layout", layout.name)
            .string_or_null("time", stamp.as_deref())
            .number("unix_ms", d.unix_millis())
            .number("ticks", d.ticks())
            .number("node", d.node())
            .number("sequence", d.sequence())
            .finish()
    } else {
        format!(
            "id={id} time={} unix_ms={} node={} sequence={} layout={} encoding={}",
            stamp.as_deref().unwrap_or("after-9999-12-31T23:59:59Z"),
            d.unix_millis(),
            d.node(),
            d.sequence(),
            layout.name,
            format.name()
        )
    }
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
