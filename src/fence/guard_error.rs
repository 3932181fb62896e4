//! [`GuardError`]: why a [`FileGuard`](super::FileGuard) could not start.

use core::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::keeper::Cause;
use super::mark_file::HEADER;
use crate::layout::LayoutError;
use crate::mint::MintError;

/// Why a [`FileGuard`](crate::fence::FileGuard) could not start a generator.
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Generator, Layout};
/// use snowmint::fence::{FileGuard, GuardError};
/// let err = FileGuard::new("x.hwm").window(Duration::ZERO).start(Generator::builder(Layout::TWITTER)).unwrap_err();
/// assert_eq!(err.to_string(), "restart-guard window of 0ns is too short: it must be at least 1 ms");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum GuardError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// `"read"` or `"write"`.
        action: &'static str,
        /// The operating system's error (also the error's `source()`).
        cause: Arc<std::io::Error>,
    },
    /// The file exists but does not hold a mark.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Its first bytes.
        content: String,
    },
    /// The stored mark is further ahead of the clock than the guard waits: the node may have
    /// issued IDs up to the mark (the previous run's clock was ahead, or this one stepped
    /// back). The source is [`MintError::ClockBehind`], saying by how much.
    MarkAhead {
        /// The file.
        path: PathBuf,
        /// The stored mark, Unix milliseconds.
        mark_unix_millis: u64,
        /// The longest the guard waits.
        max_wait: Duration,
        /// How far the clock must still move: a [`MintError::ClockBehind`].
        cause: MintError,
    },
    /// The window is shorter than 1 ms.
    WindowTooShort {
        /// The window given.
        window: Duration,
    },
    /// The mark is past the layout's expiry.
    Layout(LayoutError),
    /// The source's builder refused its settings (its error is the `source()`).
    Build(Cause),
}

impl From<LayoutError> for GuardError {
    fn from(e: LayoutError) -> GuardError {
        GuardError::Layout(e)
    }
}

impl fmt::Display for GuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuardError::Io { path, action, .. } => {
                write!(f, "could not {action} the restart-guard file {}", path.display())
            }
            GuardError::Corrupt { path, content } => write!(
                f,
                "restart-guard file {} does not hold a mark: expected one line \"{HEADER} <unix millis>\", found {content:?}; \
                 if the node's IDs are known to be past it, delete the file",
                path.display()
            ),
            GuardError::MarkAhead {
                path,
                mark_unix_millis,
                max_wait,
                ..
            } => write!(
                f,
                "the restart-guard mark {mark_unix_millis} ms (Unix) in {} is ahead of this clock by more than \
                 the guard waits ({max_wait:?}): the node may have issued IDs up to then",
                path.display()
            ),
            GuardError::WindowTooShort { window } => write!(
                f,
                "restart-guard window of {window:?} is too short: it must be at least 1 ms"
            ),
            GuardError::Layout(e) => e.fmt(f),
            GuardError::Build(_) => f.write_str("the guarded source could not be built"),
        }
    }
}

impl std::error::Error for GuardError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GuardError::Io { cause, .. } => Some(&**cause),
            GuardError::MarkAhead { cause, .. } => Some(cause),
            GuardError::Build(cause) => Some(&**cause),
            // Printed as this error's own message: not again as a source.
            GuardError::Layout(_)
            | GuardError::Corrupt { .. }
            | GuardError::WindowTooShort { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::Duration;

    use super::GuardError;
    use crate::mint::MintError;

    #[test]
    fn the_underlying_error_is_the_source() {
        let path = PathBuf::from("node.hwm");
        let io = GuardError::Io {
            path: path.clone(),
            action: "write",
            cause: Arc::new(std::io::Error::other("disk full")),
        };
        assert_eq!(
            io.source().map(|s| s.to_string()).as_deref(),
            Some("disk full")
        );
        let behind = MintError::ClockBehind {
            behind: Duration::from_secs(3),
        };
        let ahead = GuardError::MarkAhead {
            path: path.clone(),
            mark_unix_millis: 5,
            max_wait: Duration::from_secs(1),
            cause: behind,
        };
        let source = ahead.source().and_then(|s| s.downcast_ref::<MintError>());
        assert_eq!(
            source,
            Some(&behind),
            "says how far the clock must still move"
        );
        let build = GuardError::Build(Arc::new(std::io::Error::other("bad node")));
        assert_eq!(
            build.source().map(|s| s.to_string()).as_deref(),
            Some("bad node")
        );
        let corrupt = GuardError::Corrupt {
            path,
            content: "x".into(),
        };
        assert!(corrupt.source().is_none());
    }
}
