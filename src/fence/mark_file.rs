//! The restart guard's file format: one line, `snowmint-high-water-mark-v1 <unix millis>`,
//! replaced atomically and durably. [`FileGuard`](super::FileGuard) reads and writes it;
//! [`GuardError`](super::GuardError) quotes the header when a file does not hold it.

use std::io::Write;
use std::path::Path;

/// The file's one line: this prefix, then the mark in Unix milliseconds.
pub(super) const HEADER: &str = "snowmint-high-water-mark-v1";

/// The mark a file's bytes hold, if they are exactly the one line.
pub(super) fn parse_mark(bytes: &[u8]) -> Option<u64> {
    let text = core::str::from_utf8(bytes).ok()?;
    let line = text.strip_suffix('\n')?;
    let digits = line.strip_prefix(HEADER)?.strip_prefix(' ')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Writes the mark so that a crash at any point leaves the old file or the new one, whole.
pub(super) fn write_mark(path: &Path, unix_millis: u64) -> std::io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(format!("{HEADER} {unix_millis}\n").as_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    // The rename is durable once the directory is.
    #[cfg(unix)]
    std::fs::File::open(directory_of(path))?.sync_all()?;
    Ok(())
}

/// The directory holding `path`'s entry: its parent, or the working directory for a bare
/// file name (whose parent is the empty path, which cannot be opened).
#[cfg(unix)]
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use super::directory_of;
    use super::parse_mark;
    #[cfg(unix)]
    use std::path::Path;

    #[test]
    fn only_the_exact_line_parses() {
        assert_eq!(parse_mark(b"snowmint-high-water-mark-v1 0\n"), Some(0));
        assert_eq!(
            parse_mark(b"snowmint-high-water-mark-v1 1700000000000\n"),
            Some(1_700_000_000_000)
        );
        for bad in [
            &b""[..],
            b"snowmint-high-water-mark-v1 1700000000000",
            b"snowmint-high-water-mark-v1  1\n",
            b"snowmint-high-water-mark-v1 -1\n",
            // Rust's integer parser takes a leading `+`: the digit check refuses it.
            b"snowmint-high-water-mark-v1 +1\n",
            b"snowmint-high-water-mark-v1 \n",
            b"snowmint-high-water-mark-v1 18446744073709551616\n",
            b"snowmint-high-water-mark-v2 1\n",
            b"snowmint-high-water-mark-v1 1\n\n",
        ] {
            assert_eq!(parse_mark(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_synced_is_the_file_s_own() {
        assert_eq!(
            directory_of(Path::new("/var/lib/ids/node.hwm")),
            Path::new("/var/lib/ids")
        );
        assert_eq!(directory_of(Path::new("ids/node.hwm")), Path::new("ids"));
        assert_eq!(
            directory_of(Path::new("node.hwm")),
            Path::new("."),
            "a bare name is in the working directory"
        );
    }
}
