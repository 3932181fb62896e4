//! [`FileGuard`]: a local restart guard, a high-water mark of issued time kept in a file.

use core::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::clock::Clock;
use crate::error::LayoutError;
use crate::fence::{self, ceil_millis, FencedGenerator, Keeper, Renewal};
use crate::generator::GeneratorBuilder;

/// The file's one line: this prefix, then the mark in Unix milliseconds.
const HEADER: &str = "snowmint-high-water-mark-v1";

/// A restart guard for a single host without a coordination service: a file holding a
/// high-water mark of the time this node may have issued, written ahead of use.
///
/// A process that restarts with its clock behind the last ID it issued (an NTP step, a
/// VM restored from a snapshot, a replaced battery) would issue those IDs again; the
/// generator's own state does not survive the restart. With the guard:
///
/// - at start, the mark is read; the generator skips past it and **waits until its clock
///   has passed it** (at most [`max_wait`](Self::max_wait), 10 s by default, else
///   [`GuardError::ClockBehind`] at once, without waiting);
/// - then `now + window` (1 s by default) is written **durably** (temporary file, fsync,
///   rename, fsync of the directory) before any ID is minted, and re-written every half
///   window by a background thread; an ID stamped past the written mark is never handed
///   out (the write is retried on the spot, and the call fails if it cannot be made);
/// - on drop, the last time actually issued is written, so a clean restart need not wait.
///
/// One file per node, used by one process at a time. The file's directory must exist.
///
/// ```
/// use snowmint::{FileGuard, Generator, Layout};
///
/// let path = std::env::temp_dir().join(format!("snowmint-doc-guard-{}.hwm", std::process::id()));
/// let first = FileGuard::new(&path).start(Generator::builder(Layout::TWITTER).node(4))?;
/// let before = first.next_id()?;
/// drop(first); // records the last time issued
///
/// let again = FileGuard::new(&path).start(Generator::builder(Layout::TWITTER).node(4))?;
/// assert!(again.next_id()? > before);
/// # drop(again);
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileGuard {
    path: PathBuf,
    window: Duration,
    max_wait: Duration,
}

impl FileGuard {
    /// A guard keeping its mark in `path`, with a 1 s window and a 10 s `max_wait`.
    ///
    /// ```
    /// let guard = snowmint::FileGuard::new("/var/lib/ids/node.hwm");
    /// assert_eq!(guard.path(), std::path::Path::new("/var/lib/ids/node.hwm"));
    /// ```
    pub fn new(path: impl AsRef<Path>) -> FileGuard {
        FileGuard {
            path: path.as_ref().to_path_buf(),
            window: Duration::from_secs(1),
            max_wait: Duration::from_secs(10),
        }
    }

    /// How far ahead of the clock each write reserves (default 1 s; at least 1 ms). A
    /// crash costs the next start a wait of at most this long; a longer window means fewer
    /// writes (one per half window).
    ///
    /// ```
    /// use std::time::Duration;
    /// let guard = snowmint::FileGuard::new("node.hwm").window(Duration::from_secs(5));
    /// assert_eq!(guard.get_window(), Duration::from_secs(5));
    /// ```
    pub fn window(mut self, window: Duration) -> Self {
        self.window = window;
        self
    }

    /// The longest [`start`](Self::start) waits for the clock to pass the mark (default
    /// 10 s). A clock further behind is an error, returned at once.
    ///
    /// ```
    /// use std::time::Duration;
    /// let guard = snowmint::FileGuard::new("node.hwm").max_wait(Duration::from_secs(1));
    /// assert_eq!(guard.get_max_wait(), Duration::from_secs(1));
    /// ```
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = max_wait;
        self
    }

    /// The file.
    ///
    /// ```
    /// assert_eq!(snowmint::FileGuard::new("a.hwm").path(), std::path::Path::new("a.hwm"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The reservation window.
    ///
    /// ```
    /// assert_eq!(snowmint::FileGuard::new("a.hwm").get_window(), std::time::Duration::from_secs(1));
    /// ```
    pub fn get_window(&self) -> Duration {
        self.window
    }

    /// The longest start-up wait.
    ///
    /// ```
    /// assert_eq!(snowmint::FileGuard::new("a.hwm").get_max_wait(), std::time::Duration::from_secs(10));
    /// ```
    pub fn get_max_wait(&self) -> Duration {
        self.max_wait
    }

    /// The stored mark (Unix milliseconds), or `None` if the file does not exist.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-read-{}.hwm", std::process::id()));
    /// let guard = snowmint::FileGuard::new(&path);
    /// assert_eq!(guard.read_mark()?, None);
    /// std::fs::write(&path, "snowmint-high-water-mark-v1 1700000000000\n")?;
    /// assert_eq!(guard.read_mark()?, Some(1_700_000_000_000));
    /// std::fs::write(&path, "garbage")?;
    /// assert!(matches!(guard.read_mark(), Err(snowmint::GuardError::Corrupt { .. })));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_mark(&self) -> Result<Option<u64>, GuardError> {
        let text = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&self.path, "read", &e)),
        };
        parse_mark(&text)
            .map(Some)
            .ok_or_else(|| GuardError::Corrupt {
                path: self.path.clone(),
                content: String::from_utf8_lossy(&text[..text.len().min(80)]).into_owned(),
            })
    }

    /// Checks the mark, waits for the clock to pass it, reserves the first window and
    /// returns the guarded generator.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{FileGuard, Generator, GuardError, Layout, WallClock};
    ///
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-start-{}.hwm", std::process::id()));
    /// // A mark an hour ahead of this clock: the previous run's clock was ahead.
    /// let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
    /// let an_hour_ahead = now.as_millis() as u64 + 3_600_000;
    /// std::fs::write(&path, format!("snowmint-high-water-mark-v1 {an_hour_ahead}\n"))?;
    /// let err = FileGuard::new(&path).start(Generator::with_clock(Layout::TWITTER, WallClock)).unwrap_err();
    /// assert!(matches!(err, GuardError::ClockBehind { .. }));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start<C: Clock + 'static>(
        &self,
        builder: GeneratorBuilder<C>,
    ) -> Result<FencedGenerator<C>, GuardError> {
        if self.window < Duration::from_millis(1) {
            return Err(GuardError::WindowTooShort {
                window: self.window,
            });
        }
        let mark = self.read_mark()?;
        let gen = builder.build()?;
        if let Some(mark) = mark {
            fence::skip_past(&gen, mark)?;
            let waited =
                fence::wait_past(&gen, mark, self.max_wait, Duration::from_secs(1), || {
                    Ok::<(), ()>(())
                });
            if let Err(behind) = waited {
                return Err(GuardError::ClockBehind {
                    path: self.path.clone(),
                    mark_unix_millis: mark,
                    behind,
                    max_wait: self.max_wait,
                });
            }
        }
        let mut keeper = FileKeeper {
            path: self.path.clone(),
            window: self.window,
            floor: mark,
        };
        let first = match keeper.renew(gen.clock().now_unix_nanos()) {
            r @ Renewal::Held { .. } => r,
            Renewal::Failed(message) | Renewal::Lost(message) => {
                return Err(GuardError::Io {
                    path: self.path.clone(),
                    action: "write",
                    message,
                })
            }
        };
        Ok(FencedGenerator::start(gen, Box::new(keeper), first))
    }
}

/// Keeps the file's mark a window ahead of the clock.
struct FileKeeper {
    path: PathBuf,
    window: Duration,
    /// The mark found at start: every ID issued is after it.
    floor: Option<u64>,
}

impl Keeper for FileKeeper {
    fn renew(&mut self, now_nanos: u64) -> Renewal {
        let window = u64::try_from(self.window.as_millis()).unwrap_or(u64::MAX);
        let limit = ceil_millis(u128::from(now_nanos)).saturating_add(window);
        match write_mark(&self.path, limit) {
            Ok(()) => Renewal::Held {
                limit_unix_millis: limit,
                valid_until_nanos: u64::MAX,
                floor_unix_millis: None,
            },
            Err(e) => Renewal::Failed(format!(
                "could not write the high-water mark to {}: {e}",
                self.path.display()
            )),
        }
    }

    fn release(&mut self, last_unix_millis: Option<u64>) {
        // Lower the mark to what was issued (never below what was found): a clean restart
        // then waits for nothing. Best effort: if it fails, the reservation stays, which is
        // safe and costs the next start at most one window.
        if let Some(mark) = last_unix_millis.max(self.floor) {
            let _ = write_mark(&self.path, mark);
        }
    }

    fn period(&self, ok: bool) -> Duration {
        let half = (self.window / 2).max(Duration::from_millis(1));
        if ok {
            half
        } else {
            (half / 4).max(Duration::from_millis(1))
        }
    }
}

fn parse_mark(bytes: &[u8]) -> Option<u64> {
    let text = core::str::from_utf8(bytes).ok()?;
    let line = text.strip_suffix('\n')?;
    let digits = line.strip_prefix(HEADER)?.strip_prefix(' ')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Writes the mark so that a crash at any point leaves the old file or the new one, whole.
fn write_mark(path: &Path, unix_millis: u64) -> std::io::Result<()> {
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
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

fn io_error(path: &Path, action: &'static str, e: &std::io::Error) -> GuardError {
    GuardError::Io {
        path: path.to_path_buf(),
        action,
        message: e.to_string(),
    }
}

/// Why a [`FileGuard`] could not start a generator.
///
/// ```
/// use std::time::Duration;
/// use snowmint::{FileGuard, Generator, GuardError, Layout};
/// let err = FileGuard::new("x.hwm").window(Duration::ZERO).start(Generator::builder(Layout::TWITTER)).unwrap_err();
/// assert_eq!(err.to_string(), "restart-guard window of 0ns is too short: it must be at least 1 ms");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GuardError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// `"read"` or `"write"`.
        action: &'static str,
        /// The operating system's error.
        message: String,
    },
    /// The file exists but does not hold a mark.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Its first bytes.
        content: String,
    },
    /// The clock is behind the stored mark by more than the guard's `max_wait`.
    ClockBehind {
        /// The file.
        path: PathBuf,
        /// The stored mark, Unix milliseconds.
        mark_unix_millis: u64,
        /// How far the clock must still move.
        behind: Duration,
        /// The longest the guard waits.
        max_wait: Duration,
    },
    /// The window is shorter than 1 ms.
    WindowTooShort {
        /// The window given.
        window: Duration,
    },
    /// The generator's settings were refused, or the mark is past the layout's expiry.
    Layout(LayoutError),
}

impl From<LayoutError> for GuardError {
    fn from(e: LayoutError) -> GuardError {
        GuardError::Layout(e)
    }
}

impl fmt::Display for GuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuardError::Io {
                path,
                action,
                message,
            } => write!(
                f,
                "could not {action} the restart-guard file {}: {message}",
                path.display()
            ),
            GuardError::Corrupt { path, content } => write!(
                f,
                "restart-guard file {} does not hold a mark: expected one line \"{HEADER} <unix millis>\", found {content:?}; \
                 if the node's IDs are known to be past it, delete the file",
                path.display()
            ),
            GuardError::ClockBehind {
                path,
                mark_unix_millis,
                behind,
                max_wait,
            } => write!(
                f,
                "clock is {behind:?} behind the restart-guard mark {mark_unix_millis} ms (Unix) in {}: \
                 the node may have issued IDs up to then; allowed wait is at most {max_wait:?}",
                path.display()
            ),
            GuardError::WindowTooShort { window } => write!(
                f,
                "restart-guard window of {window:?} is too short: it must be at least 1 ms"
            ),
            GuardError::Layout(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for GuardError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GuardError::Layout(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_mark;

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
            b"snowmint-high-water-mark-v1 \n",
            b"snowmint-high-water-mark-v1 18446744073709551616\n",
            b"snowmint-high-water-mark-v2 1\n",
            b"snowmint-high-water-mark-v1 1\n\n",
        ] {
            assert_eq!(parse_mark(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
