//! [`FenceError`]: why a fenced generator did not mint.

use core::fmt;
use std::time::Duration;

use crate::error::MintError;

/// Why a [`FencedGenerator`](crate::FencedGenerator) did not mint an ID.
///
/// None of these ever leads to a repeated ID: the generator refuses instead.
///
/// ```
/// use snowmint::{FenceError, MintError};
///
/// let err = FenceError::Fenced { node: 5, reason: "connection refused".into() };
/// assert_eq!(
///     err.to_string(),
///     "node 5 is fenced: its hold could not be confirmed (connection refused); \
///      no ID is minted until it is secured again"
/// );
/// let inner: FenceError = MintError::Expired { expiry_unix_millis: 0 }.into();
/// assert!(matches!(inner, FenceError::Mint(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FenceError {
    /// The generator itself could not mint (see [`MintError`]).
    Mint(MintError),
    /// The keeper cannot prove that this process still holds the node (its lease could not
    /// be renewed in time), or the ID's time is past the window it has secured: minting
    /// resumes by itself once the keeper secures the node again.
    Fenced {
        /// The node number.
        node: u64,
        /// The keeper's last error, or why the window closed.
        reason: String,
    },
    /// The node belongs to someone else now (a lease that expired was taken over): this
    /// generator never mints again; acquire a new one.
    Lost {
        /// The node number.
        node: u64,
        /// What the keeper found.
        reason: String,
    },
}

impl FenceError {
    /// How long to wait before trying again, when the generator said so.
    ///
    /// ```
    /// use std::time::Duration;
    /// use snowmint::{FenceError, MintError};
    /// let e = FenceError::Mint(MintError::Exhausted { retry_after: Duration::from_micros(5) });
    /// assert_eq!(e.retry_after(), Some(Duration::from_micros(5)));
    /// assert_eq!(FenceError::Lost { node: 1, reason: String::new() }.retry_after(), None);
    /// ```
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            FenceError::Mint(e) => e.retry_after(),
            FenceError::Fenced { .. } | FenceError::Lost { .. } => None,
        }
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
            FenceError::Fenced { node, reason } => write!(
                f,
                "node {node} is fenced: its hold could not be confirmed ({reason}); no ID is minted until it is secured again"
            ),
            FenceError::Lost { node, reason } => write!(
                f,
                "node {node} is lost: {reason}; this generator mints no more, acquire another node"
            ),
        }
    }
}

impl std::error::Error for FenceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FenceError::Mint(e) => Some(e),
            FenceError::Fenced { .. } | FenceError::Lost { .. } => None,
        }
    }
}
