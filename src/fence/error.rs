//! [`FenceError`]: why a fenced source did not mint.

use core::fmt;
use std::time::Duration;

use super::keeper::Cause;
use crate::events::{Kind, Refusal};
use crate::mint::MintError;
use crate::source::MintFailure;

/// Why a [`Fenced`](crate::fence::Fenced) source did not mint an ID.
///
/// None of these ever leads to a repeated ID: the source refuses instead. The keeper's own
/// error (an I/O or Redis error) is the [`source`](std::error::Error::source) of `Fenced`
/// and `Lost`; a `Mint` error prints the source's message alone.
///
/// ```
/// use std::error::Error;
/// use std::time::Duration;
/// use snowmint::MintError;
/// use snowmint::fence::FenceError;
///
/// let io = std::io::Error::new(std::io::ErrorKind::Other, "connection refused");
/// let err = FenceError::Fenced { node: 5, retry_after: Duration::from_millis(100), cause: std::sync::Arc::new(io) };
/// assert_eq!(err.to_string(), "node 5 is fenced: its hold is not confirmed, and no ID is minted until it is secured again");
/// assert_eq!(err.source().unwrap().to_string(), "connection refused");
/// let inner: FenceError = MintError::Expired { expiry_unix_millis: 0 }.into();
/// assert_eq!(inner.to_string(), MintError::Expired { expiry_unix_millis: 0 }.to_string());
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum FenceError {
    /// The source itself could not mint (see [`MintError`]).
    Mint(MintError),
    /// The keeper cannot prove that this process still holds the node (its lease could not
    /// be renewed in time), or the ID is outside the window it has secured: minting resumes
    /// by itself once the keeper secures the node again.
    Fenced {
        /// The fenced node number.
        node: u64,
        /// When to try again: the keeper's period after a failed renewal.
        retry_after: Duration,
        /// The keeper's last error, or why the window closed.
        cause: Cause,
    },
    /// The node belongs to someone else now (a lease that expired was taken over): this
    /// source never mints again; acquire a new one.
    Lost {
        /// The node number.
        node: u64,
        /// What the keeper found.
        cause: Cause,
    },
}

impl FenceError {
    /// How long to wait before trying again, when waiting can help.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::MintError;
    /// use snowmint::fence::FenceError;
    /// let e = FenceError::Mint(MintError::Exhausted { retry_after: Duration::from_micros(5) });
    /// assert_eq!(e.retry_after(), Some(Duration::from_micros(5)));
    /// let cause = std::sync::Arc::new(std::io::Error::other("taken"));
    /// assert_eq!(FenceError::Lost { node: 1, cause }.retry_after(), None);
    /// ```
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            FenceError::Mint(e) => e.retry_after(),
            FenceError::Fenced { retry_after, .. } => Some(*retry_after),
            FenceError::Lost { .. } => None,
        }
    }
}

impl FenceError {
    /// This error as the events record it.
    pub(crate) fn refusal(&self) -> Refusal<'_> {
        let kind = match *self {
            FenceError::Mint(ref e) => return e.refusal(),
            FenceError::Fenced {
                node, retry_after, ..
            } => Kind::Fenced { node, retry_after },
            FenceError::Lost { node, .. } => Kind::Lost { node },
        };
        Refusal { kind, error: self }
    }
}

impl MintFailure for FenceError {
    fn retry_after(&self) -> Option<Duration> {
        FenceError::retry_after(self)
    }
}

impl From<MintError> for FenceError {
    fn from(e: MintError) -> FenceError {
        FenceError::Mint(e)
    }
}

impl fmt::Display for FenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenceError::Mint(e) => e.fmt(f),
            FenceError::Fenced { node, .. } => write!(
                f,
                "node {node} is fenced: its hold is not confirmed, and no ID is minted until it is secured again"
            ),
            FenceError::Lost { node, .. } => write!(
                f,
                "node {node} is lost to another owner: this source mints no more; acquire another node"
            ),
        }
    }
}

impl std::error::Error for FenceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Its message is printed as this error's own: not again as a source.
            FenceError::Mint(_) => None,
            FenceError::Fenced { cause, .. } | FenceError::Lost { cause, .. } => Some(&**cause),
        }
    }
}

/// A reason with no underlying error (a deadline that passed, a limit reached, a store's
/// answer that is not an error type of its own), as a [`Cause`]: its `Display` is the text.
///
/// ```
/// use std::sync::Arc;
/// use snowmint::fence::{Cause, Note, Renewal};
///
/// let cause: Cause = Arc::new(Note::new("the store did not answer within 2 s"));
/// let renewal = Renewal::Failed(cause);
/// assert!(matches!(renewal, Renewal::Failed(c) if c.to_string() == "the store did not answer within 2 s"));
/// ```
#[derive(Debug, Clone)]
pub struct Note(String);

impl Note {
    /// A note saying `text`.
    ///
    /// ```
    /// assert_eq!(snowmint::fence::Note::new("lapsed").to_string(), "lapsed");
    /// ```
    pub fn new(text: impl Into<String>) -> Note {
        Note(text.into())
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Note {}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::sync::Arc;
    use std::time::Duration;

    use super::{FenceError, Note};
    use crate::mint::MintError;
    use crate::source::MintFailure;

    fn io(text: &str) -> super::Cause {
        Arc::new(std::io::Error::other(text.to_string()))
    }

    #[test]
    fn the_retry_hint_is_the_source_s_or_the_keeper_s_and_none_once_lost() {
        let hint = |e: &FenceError| (e.retry_after(), MintFailure::retry_after(e));
        let five = Some(Duration::from_micros(5));
        let exhausted = FenceError::Mint(MintError::Exhausted {
            retry_after: Duration::from_micros(5),
        });
        assert_eq!(hint(&exhausted), (five, five));
        let expired = FenceError::from(MintError::Expired {
            expiry_unix_millis: 0,
        });
        assert_eq!(hint(&expired), (None, None), "waiting cannot help");
        let fenced = FenceError::Fenced {
            node: 2,
            retry_after: Duration::from_millis(300),
            cause: io("timeout"),
        };
        let ms300 = Some(Duration::from_millis(300));
        assert_eq!(hint(&fenced), (ms300, ms300));
        let lost = FenceError::Lost {
            node: 2,
            cause: io("taken"),
        };
        assert_eq!(hint(&lost), (None, None), "a lost node never comes back");
    }

    #[test]
    fn messages_name_the_node_and_what_to_do_and_the_keeper_s_error_is_the_source() {
        let fenced = FenceError::Fenced {
            node: 7,
            retry_after: Duration::ZERO,
            cause: io("connection refused"),
        };
        assert_eq!(
            fenced.to_string(),
            "node 7 is fenced: its hold is not confirmed, and no ID is minted until it is secured again"
        );
        assert_eq!(
            fenced.source().map(|s| s.to_string()).as_deref(),
            Some("connection refused")
        );
        let lost = FenceError::Lost {
            node: 9,
            cause: Arc::new(Note::new("owner changed")),
        };
        assert_eq!(
            lost.to_string(),
            "node 9 is lost to another owner: this source mints no more; acquire another node"
        );
        assert_eq!(
            lost.source().map(|s| s.to_string()).as_deref(),
            Some("owner changed")
        );
        let mint = MintError::Exhausted {
            retry_after: Duration::from_micros(5),
        };
        let e = FenceError::from(mint);
        assert_eq!(e.to_string(), mint.to_string());
        assert!(
            e.source().is_none(),
            "the source's message is this error's own"
        );
    }
}
