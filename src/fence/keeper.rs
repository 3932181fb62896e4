//! [`Keeper`]: what secures a fenced source's window, and [`Renewal`], what one renewal
//! achieved.

use std::sync::Arc;
use std::time::Duration;

use crate::events::Renewed;

/// Why a keeper could not secure its node: the underlying error (an I/O error, a Redis
/// error), shared so that every refusal can carry it as its `source()`.
pub type Cause = Arc<dyn std::error::Error + Send + Sync + 'static>;

/// What one renewal achieved.
///
/// ```
/// use snowmint::fence::Renewal;
/// let held = Renewal::Held { limit_unix_millis: 1_000, valid_until_nanos: u64::MAX, floor_unix_millis: None };
/// assert!(matches!(held, Renewal::Held { .. }));
/// ```
#[derive(Debug, Clone)]
pub enum Renewal {
    /// Minting may go on, for IDs stamped at most `limit_unix_millis` (recorded durably
    /// before this renewal returned), until the source's clock reads `valid_until_nanos`.
    Held {
        /// The latest time, Unix milliseconds, that IDs may carry.
        limit_unix_millis: u64,
        /// Clock nanoseconds (the source's clock) until which the hold is proven.
        valid_until_nanos: u64,
        /// The node was (re)acquired from an owner who may have issued IDs up to this time
        /// (Unix milliseconds): only IDs of later ticks may be handed out.
        floor_unix_millis: Option<u64>,
    },
    /// This attempt failed (the server is unreachable, the disk is full); the window is left
    /// to close at its deadline.
    Failed(Cause),
    /// The node belongs to someone else now: the source never mints again.
    Lost(Cause),
}

impl Renewal {
    /// This outcome as the events print it.
    pub(crate) fn event(&self) -> Renewed<'_> {
        match self {
            Renewal::Held {
                limit_unix_millis, ..
            } => Renewed::Held {
                limit_unix_millis: *limit_unix_millis,
            },
            Renewal::Failed(cause) => Renewed::Failed(cause),
            Renewal::Lost(cause) => Renewed::Lost(cause),
        }
    }
}

/// What secures a fenced source's window (a Redis lease, a high-water-mark file, or a
/// coordination service of your own): renews it, and gives the node up at the end.
///
/// [`Fenced`](crate::fence::Fenced) calls it from its renewal thread (or from
/// [`Fenced::renew`](crate::fence::Fenced::renew)) and at drop; never two calls at once.
///
/// ```
/// use std::time::Duration;
/// use snowmint::{Generator, Layout};
/// use snowmint::clock::WallClock;
/// use snowmint::fence::{Fenced, Keeper, Renewal};
///
/// /// Grants a window one second ahead of every renewal, forever.
/// struct Generous;
/// impl Keeper for Generous {
///     fn renew(&mut self, now_unix_nanos: u64) -> Renewal {
///         Renewal::Held {
///             limit_unix_millis: now_unix_nanos / 1_000_000 + 1_000,
///             valid_until_nanos: u64::MAX,
///             floor_unix_millis: None,
///         }
///     }
///     fn release(&mut self, _last_unix_millis: Option<u64>) {}
///     fn period(&self, _ok: bool) -> Duration {
///         Duration::from_millis(500)
///     }
/// }
///
/// let gen = Generator::builder(Layout::TWITTER).clock(WallClock).build()?;
/// let fenced = Fenced::start(gen, 0, Generous)?;
/// assert!(fenced.next_id().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Keeper: Send + 'static {
    /// Extends the window. `now_unix_nanos` is the source's clock, read before any request.
    fn renew(&mut self, now_unix_nanos: u64) -> Renewal;
    /// Gives the node up, recording `last_unix_millis` (at or after the time of every ID
    /// issued, `None` if none was) for the next owner.
    fn release(&mut self, last_unix_millis: Option<u64>);
    /// How long until the next renewal, after one that succeeded (`ok`) or not.
    fn period(&self, ok: bool) -> Duration;
    /// The fencing token of the current hold, if the keeper has one (see
    /// [`Fenced::token`](crate::fence::Fenced::token)); `None` by default.
    fn token(&self) -> Option<u64> {
        None
    }
}
