//! [`FenceCause`]: why a fenced source refuses to mint right now.

use core::fmt;

use super::keeper::Cause;

/// Why a [`Fenced`](crate::fence::Fenced) source refuses to mint right now, as
/// [`Fenced::fence_cause`](crate::fence::Fenced::fence_cause) reads it from its state (without
/// minting): for a service to name the exact cause (`fenced: <cause>`).
///
/// ```
/// use std::sync::Arc;
/// use snowmint::fence::FenceCause;
///
/// let cause = FenceCause::RenewalFailed(Arc::new(std::io::Error::other("connection refused")));
/// assert_eq!(
///     cause.to_string(),
///     "the hold's deadline passed and the last renewal failed: connection refused"
/// );
/// let floor = FenceCause::BeforeFloor { floor_unix_millis: 1_700_000_000_000 };
/// assert!(floor.to_string().starts_with("the clock is not past the node's floor, 1700000000000 ms"));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum FenceCause {
    /// The hold's deadline passed before a renewal arrived (the keeper has not answered yet,
    /// or the process was paused).
    Deadline,
    /// The hold's deadline passed, and the keeper's last renewal failed with this error (the
    /// store unreachable, the disk full, a panic in the keeper).
    RenewalFailed(Cause),
    /// The hold is proven, but the clock is not past the node's floor (the previous holder's
    /// mark, or the forgetting rule's wait after a claim the store could not vouch for): no ID
    /// is minted before `floor_unix_millis`.
    BeforeFloor {
        /// The floor, Unix milliseconds on the source's clock.
        floor_unix_millis: u64,
    },
    /// The node belongs to another owner now: the source never mints again.
    Lost(Cause),
}

impl fmt::Display for FenceCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenceCause::Deadline => {
                f.write_str("the hold's deadline passed before a renewal arrived")
            }
            FenceCause::RenewalFailed(cause) => write!(
                f,
                "the hold's deadline passed and the last renewal failed: {cause}"
            ),
            FenceCause::BeforeFloor { floor_unix_millis } => write!(
                f,
                "the clock is not past the node's floor, {floor_unix_millis} ms (Unix): the \
                 previous holder's mark, or the forgetting rule's wait after a claim the store \
                 could not vouch for"
            ),
            FenceCause::Lost(cause) => write!(f, "the node is lost to another owner: {cause}"),
        }
    }
}
