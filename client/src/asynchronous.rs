//! [`AsyncClient`]: prefetched IDs for tokio tasks.

use std::pin::pin;
use std::sync::Arc;

use snowmint::Id;

use crate::blocking::{Client, Handle, NewError};
use crate::error::Error;
use crate::settings::Settings;

/// A client for tokio tasks: the buffer and refill thread of [`Client`], with a
/// [`next_id`](AsyncClient::next_id) that awaits instead of blocking when the buffer is
/// empty (on tokio's timer: call it inside a runtime with time enabled).
///
/// ```no_run
/// use snowmint_client::{AsyncClient, Expected, Settings};
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let spec = "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";
/// let client = AsyncClient::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout(spec))?)?;
/// let id = client.next_id().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct AsyncClient {
    pub(crate) feed: Arc<Handle>,
}

impl AsyncClient {
    /// A client, its refill thread started (see [`Client::new`]).
    ///
    /// ```no_run
    /// use snowmint_client::{AsyncClient, Expected, Settings};
    /// let client = AsyncClient::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Client::new`].
    pub fn new(settings: Settings) -> Result<AsyncClient, NewError> {
        Client::new(settings).map(|c| c.to_async())
    }

    /// The next ID, as [`Client::next_id`], awaiting a refill instead of blocking.
    ///
    /// ```no_run
    /// # use snowmint_client::{AsyncClient, Expected, Settings};
    /// # async fn run(client: AsyncClient) -> Result<(), snowmint_client::Error> {
    /// let id = client.next_id().await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::next_id`].
    pub async fn next_id(&self) -> Result<Id, Error> {
        let feed = &self.feed.0;
        if let Some(id) = feed.take() {
            return Ok(id);
        }
        let waiting = feed.begin_wait();
        loop {
            // Registered before the buffer is looked at, so no wake-up is missed.
            let mut notified = pin!(feed.notify.notified());
            notified.as_mut().enable();
            if let Some(id) = feed.take() {
                return Ok(id);
            }
            let deadline = feed.verdict(&waiting)?;
            let _ = tokio::time::timeout_at(deadline.into(), notified).await;
        }
    }

    /// IDs in the buffer now.
    ///
    /// ```no_run
    /// # use snowmint_client::{AsyncClient, Expected, Settings};
    /// # let client = AsyncClient::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?)?;
    /// println!("{} IDs ready", client.buffered());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn buffered(&self) -> usize {
        self.feed.0.buffered()
    }

    /// The same buffer, for threads.
    ///
    /// ```no_run
    /// # use snowmint_client::{AsyncClient, Expected, Settings};
    /// # let client = AsyncClient::new(Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?)?;
    /// let blocking = client.to_blocking();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_blocking(&self) -> Client {
        Client {
            feed: Arc::clone(&self.feed),
        }
    }
}
