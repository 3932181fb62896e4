//! [`Backend`]: a kind of store, with its connection settings, that opens [`Store`]
//! sessions for a [`Lease`](crate::Lease).

use std::time::Duration;

use crate::admin::Admin;
use crate::error::LeaseError;

/// A store that leases nodes, with its connection settings: Redis
/// ([`redis::Redis`](crate::redis::Redis), feature `redis`), etcd
/// ([`etcd::Etcd`](crate::etcd::Etcd), feature `etcd`), or one of your own. A
/// [`Lease`](crate::Lease) on it opens one session per acquisition (and one per operator's
/// call).
///
/// To add a store: implement [`Store`](crate::Store) and [`Admin`] for its session type and
/// this trait for its settings, then run the `conformance` feature's suite against a real
/// server (see [the crate's docs](crate#writing-a-store)).
///
/// ```
/// use std::time::Duration;
/// use snowmint_lease::{Admin, Backend, Claim, FloorRaised, FloorReset, LeaseBuilder, LeaseError, NamespaceState, Store};
///
/// #[derive(Debug, Clone)]
/// struct Nowhere;
/// struct Session;
/// impl Store for Session {
///     fn claim(&mut self, _: u64, _: u64) -> Result<Option<Claim>, LeaseError> { Ok(None) }
///     fn renew(&mut self, _: u64) -> Result<Option<u64>, LeaseError> { Ok(None) }
///     fn release(&mut self, _: Option<u64>) -> Result<(), LeaseError> { Ok(()) }
///     fn settle(&mut self) -> Result<bool, LeaseError> { Ok(false) }
///     fn token(&self) -> Option<u64> { None }
/// }
/// impl Admin for Session {
///     fn list(&mut self) -> Result<NamespaceState, LeaseError> { Ok(NamespaceState::default()) }
///     fn raise_floor(&mut self, _: u64) -> Result<FloorRaised, LeaseError> { Ok(FloorRaised::default()) }
///     fn reset_floor(&mut self, _: u64, _: u64, _: &str) -> Result<FloorReset, LeaseError> { Ok(FloorReset::default()) }
/// }
/// impl Backend for Nowhere {
///     type Store = Session;
///     const NAME: &'static str = "nowhere";
///     const MIN_TTL: Duration = Duration::from_secs(1);
///     fn open(&self, _: &str, _: &str, _: Duration, _: Duration, _: &str) -> Result<Session, LeaseError> {
///         Ok(Session)
///     }
/// }
///
/// let lease = LeaseBuilder::new(Nowhere).namespace("orders").build()?;
/// let err = lease.acquire(snowmint::Generator::builder(snowmint::Layout::TWITTER)).unwrap_err();
/// assert!(matches!(err, LeaseError::AllTaken { .. }));
/// # Ok::<(), LeaseError>(())
/// ```
pub trait Backend: Clone + core::fmt::Debug + Send + Sync + 'static {
    /// The session it opens.
    type Store: Admin;
    /// Its name, for messages, metrics and [`LeaseError::Store`]: lower case (`redis`,
    /// `etcd`).
    const NAME: &'static str;
    /// The least TTL it keeps reliably.
    const MIN_TTL: Duration;

    /// Opens a session for `owner` (a token unique to one lease of one process), with keys
    /// under `namespace`, for a holder with this TTL and `layout` (the layout as the
    /// namespace's record holds it; empty for an operator's session, which checks and
    /// writes no record). Each call it makes is bounded by `io_timeout`.
    ///
    /// # Errors
    /// [`LeaseError::Store`] if the store cannot be opened (most stores connect lazily and
    /// never fail here).
    fn open(
        &self,
        namespace: &str,
        owner: &str,
        ttl: Duration,
        io_timeout: Duration,
        layout: &str,
    ) -> Result<Self::Store, LeaseError>;
}
