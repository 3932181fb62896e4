//! [`Client`]: prefetched IDs for threads.

use std::sync::Arc;

use snowmint::Id;

use crate::error::Error;
use crate::refill::Feed;
use crate::settings::{Settings, SettingsError};

/// A client of one or several `snowmint serve` services, for threads: [`next_id`]
/// takes an ID from a prefetch buffer that a background thread refills; it blocks only when
/// the buffer is empty, and then at most [`Settings::max_wait`].
///
/// Cloning is cheap and shares the buffer; the refill thread stops when the last clone
/// (of this or of an [`AsyncClient`](crate::AsyncClient) made from it) is dropped.
///
/// [`next_id`]: Client::next_id
///
/// ```no_run
/// use snowmint_client::{Client, Expected, Settings};
/// let spec = "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";
/// let client = Client::new(Settings::new(
///     ["http://10.0.0.1:8080", "http://10.0.0.2:8080"],
///     Expected::layout(spec),
/// )?)?;
/// let id = client.next_id()?;
/// println!("{id}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Client {
    pub(crate) feed: Arc<Handle>,
}

/// The feed, closed when the last client holding it is dropped.
pub(crate) struct Handle(pub(crate) Arc<Feed>);

impl Drop for Handle {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Why a client could not be made.
///
/// ```
/// use snowmint_client::{Client, Expected, NewError, Settings};
/// let settings = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))
///     .unwrap()
///     .batch(0);
/// assert!(matches!(Client::new(settings), Err(NewError::Settings(_))));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum NewError {
    /// A setting out of its range.
    Settings(SettingsError),
    /// The refill thread could not be started.
    Thread(std::io::Error),
}

impl std::fmt::Display for NewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NewError::Settings(e) => e.fmt(f),
            NewError::Thread(e) => write!(f, "starting the refill thread: {e}"),
        }
    }
}

impl std::error::Error for NewError {}

impl From<SettingsError> for NewError {
    fn from(e: SettingsError) -> NewError {
        NewError::Settings(e)
    }
}

impl Client {
    /// A client, its refill thread started: it fills the buffer at once, in the
    /// background (this returns without waiting for it).
    ///
    /// ```no_run
    /// use snowmint_client::{Client, Expected, Settings};
    /// let client = Client::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63"))?)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`NewError::Settings`] when a setting is out of its range
    /// ([`Settings::check`]); [`NewError::Thread`] when the thread cannot be spawned.
    pub fn new(settings: Settings) -> Result<Client, NewError> {
        settings.check()?;
        let feed = Feed::start(settings).map_err(NewError::Thread)?;
        Ok(Client {
            feed: Arc::new(Handle(feed)),
        })
    }

    /// The next ID: from the buffer, without waiting, while it holds one (the cost of one
    /// compare-and-swap); from the next refill when it is empty, waiting at most
    /// [`Settings::max_wait`].
    ///
    /// The IDs of one service come in its minting order; after a fail-over, those of the
    /// next service follow those already buffered.
    ///
    /// ```no_run
    /// # use snowmint_client::{Client, Expected, Settings};
    /// # let client = Client::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?)?;
    /// let a = client.next_id()?;
    /// let b = client.next_id()?;
    /// assert!(a < b);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// When the buffer is empty and no refill comes within [`Settings::max_wait`], or a
    /// round of requests that ended meanwhile found every service failing:
    /// [`Error::Mismatch`] when a service answered with another layout or node than
    /// expected, else [`Error::Unavailable`] with each service's failure.
    #[inline]
    pub fn next_id(&self) -> Result<Id, Error> {
        self.feed.0.next_blocking()
    }

    /// IDs in the buffer now.
    ///
    /// ```no_run
    /// # use snowmint_client::{Client, Expected, Settings};
    /// # let client = Client::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?)?;
    /// assert!(client.buffered() <= client.settings().get_capacity());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn buffered(&self) -> usize {
        self.feed.0.buffered()
    }

    /// The settings it runs with.
    ///
    /// ```no_run
    /// # use snowmint_client::{Client, Expected, Settings};
    /// # let client = Client::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?)?;
    /// println!("{:?}", client.settings());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn settings(&self) -> &Settings {
        self.feed.0.settings()
    }

    /// The same buffer, for async code.
    ///
    /// ```no_run
    /// # use snowmint_client::{Client, Expected, Settings};
    /// # let client = Client::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?)?;
    /// let shared = client.to_async();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_async(&self) -> crate::AsyncClient {
        crate::AsyncClient {
            feed: Arc::clone(&self.feed),
        }
    }
}
