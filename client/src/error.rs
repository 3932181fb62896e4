//! [`Error`]: why `next_id()` gave no ID, and [`Failure`], why one service gave none.

use std::fmt;
use std::time::Duration;

use crate::expected::Mismatch;

/// Why `next_id()` gave no ID: the buffer was empty and no refill came.
///
/// ```
/// use std::time::Duration;
/// use snowmint_client::Error;
/// let e = Error::Unavailable { failures: Vec::new(), waited: Duration::from_millis(5) };
/// assert!(e.to_string().starts_with("no ID"), "{e}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The buffer is empty and no service gave IDs within the wait (at most
    /// [`Settings::max_wait`](crate::Settings::max_wait)): every service failed in the last
    /// round (`failures`, one per service, in the order tried), or the round was still
    /// under way (`failures` empty).
    Unavailable {
        /// Why each service failed in the last round.
        failures: Vec<Failure>,
        /// How long `next_id()` waited.
        waited: Duration,
    },
    /// The buffer is empty and the last round's services that answered declared another
    /// layout or node than expected: their IDs were refused.
    Mismatch(Mismatch),
}

/// Why one service gave no IDs.
///
/// ```
/// use snowmint_client::{Cause, Failure};
/// let f = Failure { url: "http://127.0.0.1:1".into(), cause: Cause::TimedOut };
/// assert!(f.to_string().contains("timed out"), "{f}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The service.
    pub url: String,
    /// What went wrong.
    pub cause: Cause,
}

/// What went wrong with one request.
///
/// ```
/// use snowmint_client::Cause;
/// let c = Cause::Status { status: 503, body: "{\"error\":\"unavailable\"}".into() };
/// assert!(c.to_string().contains("503"), "{c}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cause {
    /// Connecting, writing or reading failed (the I/O error's text).
    Io(String),
    /// The request took longer than [`Settings::request_timeout`](crate::Settings::request_timeout).
    TimedOut,
    /// The service answered with another status than 200 (the start of its body).
    Status {
        /// The HTTP status.
        status: u16,
        /// The body's start: the service's JSON error.
        body: String,
    },
    /// The answer was not the HTTP/1.1 binary body asked for.
    Malformed(String),
    /// The service declared another layout or node.
    Mismatch(Mismatch),
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Io(e) => write!(f, "I/O error: {e}"),
            Cause::TimedOut => f.write_str("timed out"),
            Cause::Status { status, body } => write!(f, "HTTP {status}: {body}"),
            Cause::Malformed(why) => write!(f, "malformed answer: {why}"),
            Cause::Mismatch(m) => m.fmt(f),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Cause::Mismatch(m) => m.fmt(f),
            cause => write!(f, "{}: {cause}", self.url),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unavailable { failures, waited } => {
                write!(
                    f,
                    "no ID: the buffer is empty and no service refilled it within {waited:?}"
                )?;
                if failures.is_empty() {
                    return f.write_str(" (a round of requests is still under way)");
                }
                f.write_str(": ")?;
                for (i, failure) in failures.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    failure.fmt(f)?;
                }
                Ok(())
            }
            Error::Mismatch(m) => write!(f, "no ID: {m}"),
        }
    }
}

impl std::error::Error for Error {}
