//! [`FileGuard`]: a local restart guard, a high-water mark of issued time kept in a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::error::FenceError;
use super::fenced::Fenced;
use super::guard_error::GuardError;
use super::keeper::{Keeper, Renewal};
use super::mark::{ceil_millis, resume_after, wait_past};
use super::mark_file::{parse_mark, write_mark};
use crate::clock::Clock;
use crate::mint::MintError;
use crate::source::{IdSource, SourceBuilder};

/// A restart guard for a single host without a coordination service: a file holding a
/// high-water mark of the time this node may have issued, written ahead of use.
///
/// A process that restarts with its clock behind the last ID it issued (an NTP step, a
/// VM restored from a snapshot, a replaced battery) would issue those IDs again; the
/// generator's own state does not survive the restart. With the guard:
///
/// - at start, the mark is read; the generator skips past it and **waits until its clock
///   has passed it** (at most [`max_wait`](Self::max_wait), 10 s by default, else
///   [`GuardError::MarkAhead`] at once, without waiting);
/// - then `now + window` (1 s by default) is written **durably** (temporary file, fsync,
///   rename, fsync of the directory) before any ID is minted, and re-written every half
///   window by a background thread; an ID stamped past the written mark is never handed
///   out (the write is retried on the spot, and the call fails if it cannot be made);
/// - on drop, the last time actually issued is written, so a clean restart need not wait.
///
/// One file per node, used by one process at a time. The file's directory must exist.
///
/// ```
/// use snowmint::{Generator, Layout};
/// use snowmint::fence::FileGuard;
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
    /// let guard = snowmint::fence::FileGuard::new("/var/lib/ids/node.hwm");
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
    /// let guard = snowmint::fence::FileGuard::new("node.hwm").window(Duration::from_secs(5));
    /// assert!(format!("{guard:?}").contains("window: 5s"));
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
    /// let guard = snowmint::fence::FileGuard::new("node.hwm").max_wait(Duration::from_secs(1));
    /// assert!(format!("{guard:?}").contains("max_wait: 1s"));
    /// ```
    pub fn max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = max_wait;
        self
    }

    /// The file.
    ///
    /// ```
    /// assert_eq!(snowmint::fence::FileGuard::new("a.hwm").path(), std::path::Path::new("a.hwm"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored mark (Unix milliseconds), or `None` if the file does not exist.
    ///
    /// # Errors
    /// [`GuardError`] if the file cannot be read or is corrupt.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-read-{}.hwm", std::process::id()));
    /// let guard = snowmint::fence::FileGuard::new(&path);
    /// assert_eq!(guard.read_mark()?, None);
    /// std::fs::write(&path, "snowmint-high-water-mark-v1 1700000000000\n")?;
    /// assert_eq!(guard.read_mark()?, Some(1_700_000_000_000));
    /// std::fs::write(&path, "garbage")?;
    /// assert!(matches!(guard.read_mark(), Err(snowmint::fence::GuardError::Corrupt { .. })));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_mark(&self) -> Result<Option<u64>, GuardError> {
        let text = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&self.path, "read", e)),
        };
        parse_mark(&text)
            .map(Some)
            .ok_or_else(|| GuardError::Corrupt {
                path: self.path.clone(),
                content: String::from_utf8_lossy(&text[..text.len().min(80)]).into_owned(),
            })
    }

    /// Checks the mark, waits for the clock to pass it, reserves the first window and
    /// returns the guarded source: a [`Generator`](crate::Generator) of the builder's node,
    /// or a [`ShardedGenerator`](crate::ShardedGenerator) of its node.
    ///
    /// # Errors
    /// [`GuardError`] if the mark file cannot be read, written or is corrupt, the clock is further
    /// behind its mark than the guard waits, or the source's builder refused its settings.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{Generator, Layout};
    /// use snowmint::clock::WallClock;
    /// use snowmint::fence::{FileGuard, GuardError};
    ///
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-start-{}.hwm", std::process::id()));
    /// // A mark an hour ahead of this clock: the previous run's clock was ahead.
    /// let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
    /// let an_hour_ahead = now.as_millis() as u64 + 3_600_000;
    /// std::fs::write(&path, format!("snowmint-high-water-mark-v1 {an_hour_ahead}\n"))?;
    /// let err = FileGuard::new(&path).start(Generator::builder(Layout::TWITTER).clock(WallClock)).unwrap_err();
    /// assert!(matches!(err, GuardError::MarkAhead { .. }));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start<B>(&self, builder: B) -> Result<Fenced<B::Source>, GuardError>
    where
        B: SourceBuilder,
        <B::Source as IdSource>::Clock: Clone + 'static,
        <B::Source as IdSource>::Error: Into<FenceError>,
    {
        if self.window < Duration::from_millis(1) {
            return Err(GuardError::WindowTooShort {
                window: self.window,
            });
        }
        let mark = self.read_mark()?;
        let node = builder.node_number();
        let builder = match mark {
            Some(mark) => match resume_after(builder.layout(), mark)? {
                Some(after) => builder.start_after(after),
                None => builder,
            },
            None => builder,
        };
        let source = builder
            .build()
            .map_err(|e| GuardError::Build(Arc::new(e)))?;
        if let Some(mark) = mark {
            let waited = wait_past(&source, mark, self.max_wait, Duration::from_secs(1), || {
                Ok::<(), ()>(())
            });
            if let Err(behind) = waited {
                return Err(GuardError::MarkAhead {
                    path: self.path.clone(),
                    mark_unix_millis: mark,
                    max_wait: self.max_wait,
                    cause: MintError::ClockBehind { behind },
                });
            }
        }
        let mut keeper = FileKeeper {
            path: self.path.clone(),
            window: self.window,
            floor: mark,
            written: mark.unwrap_or(0),
        };
        let first = keeper.write(source.clock().now_unix_nanos())?;
        Ok(Fenced::start_with(
            source,
            node,
            Box::new(keeper),
            Some(first),
            true,
        ))
    }
}

/// Keeps the file's mark a window ahead of the clock, and never lowers it while running.
struct FileKeeper {
    path: PathBuf,
    window: Duration,
    /// The mark found at start: every ID issued is after it.
    floor: Option<u64>,
    /// The highest mark on disk (Unix ms): IDs up to it may have been handed out, so no
    /// renewal writes less, whatever the clock reads (a step back would otherwise lower the
    /// mark below IDs already issued, and a crash then would repeat them).
    written: u64,
}

impl FileKeeper {
    /// Writes the mark a window past `now_nanos`, or keeps the higher one on disk: the
    /// window it secures.
    fn write(&mut self, now_nanos: u64) -> Result<Renewal, GuardError> {
        let window = u64::try_from(self.window.as_millis()).unwrap_or(u64::MAX);
        let want = ceil_millis(u128::from(now_nanos)).saturating_add(window);
        if want > self.written {
            write_mark(&self.path, want).map_err(|e| io_error(&self.path, "write", e))?;
            self.written = want;
        }
        let limit = self.written;
        Ok(Renewal::Held {
            limit_unix_millis: limit,
            valid_until_nanos: u64::MAX,
            floor_unix_millis: None,
        })
    }
}

impl Keeper for FileKeeper {
    fn renew(&mut self, now_nanos: u64) -> Renewal {
        self.write(now_nanos)
            .unwrap_or_else(|e| Renewal::Failed(Arc::new(e)))
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

fn io_error(path: &Path, action: &'static str, e: std::io::Error) -> GuardError {
    GuardError::Io {
        path: path.to_path_buf(),
        action,
        cause: Arc::new(e),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{FileGuard, FileKeeper};
    use crate::clock::ManualClock;
    use crate::fence::{GuardError, Keeper};
    use crate::generator::Generator;
    use crate::layout::Layout;

    #[test]
    #[cfg_attr(miri, ignore = "writes a mark file: miri isolates the file system")]
    fn the_window_must_be_at_least_a_millisecond() {
        let dir = std::env::temp_dir().join(format!("snowmint-unit-window-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let builder = || {
            Generator::builder(Layout::TWITTER)
                .clock(ManualClock::at_unix_millis(1_700_000_000_000))
        };
        let short = Duration::from_nanos(999_999);
        let err = FileGuard::new(dir.join("short.hwm"))
            .window(short)
            .start(builder())
            .unwrap_err();
        assert!(
            matches!(err, GuardError::WindowTooShort { window } if window == short),
            "{err:?}"
        );
        let guard = FileGuard::new(dir.join("ms.hwm")).window(Duration::from_millis(1));
        let fenced = guard.start(builder()).expect("1 ms is enough");
        assert!(fenced.next_id().is_ok());
        drop(fenced);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_file_is_renewed_every_half_window_and_retried_at_an_eighth() {
        let keeper = |window| FileKeeper {
            path: "unused.hwm".into(),
            window,
            floor: None,
            written: 0,
        };
        let k = keeper(Duration::from_secs(1));
        assert_eq!(k.period(true), Duration::from_millis(500));
        assert_eq!(k.period(false), Duration::from_millis(125));
        // Never more often than once a millisecond.
        let k = keeper(Duration::from_millis(1));
        assert_eq!(
            (k.period(true), k.period(false)),
            (Duration::from_millis(1), Duration::from_millis(1))
        );
    }
}
