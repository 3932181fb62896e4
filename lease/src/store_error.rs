//! [`StoreError`]: what a store or its client said when a call failed, in this crate's own
//! types (no store client's error type is part of the public API).

use core::fmt;

/// What kind of failure a [`StoreError`] is.
///
/// ```
/// use snowmint_lease::{StoreError, StoreErrorKind};
/// let e = StoreError::new(StoreErrorKind::Unreachable, "127.0.0.1:6379: connection refused");
/// assert_eq!(e.kind(), StoreErrorKind::Unreachable);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// No answer: the store could not be reached, the connection dropped, or the call timed
    /// out (a call that timed out may have been applied). Trying again later may succeed.
    Unreachable,
    /// The store answered and refused the call: authentication, permissions, a command it
    /// rejected.
    Refused,
    /// A setting the client cannot use: the URL, a certificate, a key, a password.
    Settings,
    /// The store answered with something the lease cannot read (another program's keys, an
    /// incompatible server).
    Unexpected,
}

/// What a store or its client said when a call failed: a [`StoreErrorKind`] and the
/// client's message (for Redis, the `redis` crate's error; for etcd, the endpoint and the
/// gateway's answer). The source of [`LeaseError::Store`](crate::LeaseError::Store).
///
/// ```
/// use snowmint_lease::{StoreError, StoreErrorKind};
/// let e = StoreError::new(StoreErrorKind::Refused, "WRONGPASS invalid username-password pair");
/// assert_eq!(e.to_string(), "WRONGPASS invalid username-password pair");
/// assert_eq!(e.message(), "WRONGPASS invalid username-password pair");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    kind: StoreErrorKind,
    message: String,
}

impl StoreError {
    /// A failure of `kind`, saying `message`: for store authors, from their client's error.
    ///
    /// ```
    /// use snowmint_lease::{StoreError, StoreErrorKind};
    /// let io = std::io::Error::other("connection reset");
    /// let e = StoreError::new(StoreErrorKind::Unreachable, io.to_string());
    /// assert_eq!(e.message(), "connection reset");
    /// ```
    pub fn new(kind: StoreErrorKind, message: impl Into<String>) -> StoreError {
        StoreError {
            kind,
            message: message.into(),
        }
    }

    /// The kind of failure.
    ///
    /// ```
    /// use snowmint_lease::{StoreError, StoreErrorKind};
    /// assert_eq!(StoreError::new(StoreErrorKind::Settings, "bad URL").kind(), StoreErrorKind::Settings);
    /// ```
    pub fn kind(&self) -> StoreErrorKind {
        self.kind
    }

    /// The client's message.
    ///
    /// ```
    /// use snowmint_lease::{StoreError, StoreErrorKind};
    /// assert_eq!(StoreError::new(StoreErrorKind::Unexpected, "not a number").message(), "not a number");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}
