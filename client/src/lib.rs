//! A client of the snowmint ID service (`snowmint serve`): 64-bit IDs prefetched over
//! HTTP/1.1 binary bodies, so that [`Client::next_id`] costs about what an in-process
//! generator does while a service is reachable.
//!
//! - **Prefetch.** A background thread keeps a buffer of IDs ([`Settings::capacity`]),
//!   refilling it by batches ([`Settings::batch`]) when it falls to the low-water mark
//!   ([`Settings::low_water`]). Taking an ID is a compare-and-swap on a lock-free ring.
//! - **Binary bodies.** Each refill is one `GET /ids?n=N` with `Accept:
//!   application/octet-stream` on a keep-alive connection: `N` big-endian `u64`s.
//! - **Fail-over.** The services are asked in the order given, starting with the one that
//!   answered last; a request is bounded by [`Settings::request_timeout`].
//! - **Checked.** Every answer declares its layout and node (`X-Snowmint-Layout`,
//!   `X-Snowmint-Node`); one that differs from [`Expected`] is refused, its IDs dropped.
//! - **Bounded when every service is down.** `next_id()` serves what the buffer holds, then
//!   waits at most [`Settings::max_wait`] for a refill and fails with [`Error`] (at once
//!   when a round of requests that ended during the wait found every service failing). It
//!   never hangs.
//! - **Blocking and async.** [`Client`] for threads, [`AsyncClient`] for tokio tasks; both
//!   share one buffer when made from each other.
//!
//! ```no_run
//! use snowmint_client::{Client, Expected, Settings};
//! // The spec `snowmint layouts --json` prints for the service's --layout (here twitter).
//! let spec = "time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63";
//! let settings = Settings::new(["http://127.0.0.1:8080", "http://127.0.0.1:8081"], Expected::layout(spec))?
//!     .capacity(65_536)
//!     .low_water(16_384);
//! let client = Client::new(settings)?;
//! for _ in 0..3 {
//!     println!("{}", client.next_id()?);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Only 64-bit IDs: the service's `/uuid7` and `/ulid` binary bodies (16 canonical bytes
//! each) are read by any HTTP client; this crate does not prefetch them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod asynchronous;
mod blocking;
mod error;
mod expected;
mod refill;
mod ring;
mod service;
mod settings;
mod wire;

pub use self::asynchronous::AsyncClient;
pub use self::blocking::{Client, NewError};
pub use self::error::{Cause, Error, Failure};
pub use self::expected::{Declared, Expected, Mismatch};
pub use self::settings::{Settings, SettingsError, MAX_CAPACITY, MAX_DURATION};
