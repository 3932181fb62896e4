//! [`Settings`]: the services to ask, the prefetch buffer's sizes, the timeouts and what the
//! IDs must be; checked by [`Settings::check`] (and so by every client's constructor) with a
//! [`SettingsError`] naming the allowed range.

use std::fmt;
use std::time::Duration;

use crate::expected::Expected;
use crate::service::Service;

/// The largest buffer: 16 M IDs, 128 MiB.
pub const MAX_CAPACITY: usize = 1 << 24;
/// The longest timeout, wait or pause a setting takes: an hour.
pub const MAX_DURATION: Duration = Duration::from_secs(3_600);

/// How a client prefetches and from where.
///
/// ```
/// use std::time::Duration;
/// use snowmint_client::{Expected, Settings};
/// let settings = Settings::new(
///     ["http://127.0.0.1:8080", "http://127.0.0.1:8081"],
///     Expected::layout("time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63"),
/// )?
/// .capacity(8_192)
/// .low_water(2_048)
/// .batch(4_096)
/// .request_timeout(Duration::from_millis(500));
/// settings.check()?;
/// # Ok::<(), snowmint_client::SettingsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub(crate) services: Vec<Service>,
    pub(crate) expected: Expected,
    pub(crate) capacity: usize,
    pub(crate) low_water: usize,
    pub(crate) batch: usize,
    pub(crate) request_timeout: Duration,
    pub(crate) max_wait: Duration,
    pub(crate) retry: Duration,
}

impl Settings {
    /// Settings for the services at `urls` (`http://HOST:PORT`, tried in this order), whose
    /// IDs must be as `expected` says; every other setting at its default: a buffer of
    /// 65,536 IDs refilled below 16,384 by batches of 8,192, a request timeout of 1 s, a
    /// wait of at most 2 s on an empty buffer, a pause of 100 ms after a round where every
    /// service failed.
    ///
    /// ```
    /// use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("time=41,node=10,seq=12,unit=1ms,epoch=2010-11-04T01:42:54.657Z,order=tns,grid=epoch,bits=63"))?;
    /// assert_eq!(s.get_capacity(), 65_536);
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    ///
    /// # Errors
    /// [`SettingsError::NoService`] when `urls` is empty; [`SettingsError::Url`] for a URL
    /// that is not `http://HOST:PORT` (with an optional trailing `/`).
    pub fn new<I, S>(urls: I, expected: Expected) -> Result<Settings, SettingsError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let services = urls
            .into_iter()
            .map(|url| {
                let url = url.as_ref();
                Service::parse(url).map_err(|why| SettingsError::Url {
                    url: url.to_owned(),
                    why,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if services.is_empty() {
            return Err(SettingsError::NoService);
        }
        Ok(Settings {
            services,
            expected,
            capacity: 65_536,
            low_water: 16_384,
            batch: 8_192,
            request_timeout: Duration::from_secs(1),
            max_wait: Duration::from_secs(2),
            retry: Duration::from_millis(100),
        })
    }

    /// The buffer's size in IDs (1 to [`MAX_CAPACITY`]).
    ///
    /// ```
    /// # use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?.capacity(100);
    /// assert_eq!(s.get_capacity(), 100);
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    #[must_use]
    pub fn capacity(mut self, ids: usize) -> Settings {
        self.capacity = ids;
        self
    }

    /// The buffer's size in IDs.
    ///
    /// ```
    /// # use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?;
    /// assert_eq!(s.get_capacity(), 65_536);
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    pub fn get_capacity(&self) -> usize {
        self.capacity
    }

    /// The low-water mark: when the buffer holds this many IDs or fewer, the background
    /// thread refills it up to its capacity (0 to `capacity - 1`).
    ///
    /// ```
    /// # use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?
    ///     .capacity(100)
    ///     .low_water(100);
    /// assert!(s.check().is_err(), "at most capacity - 1");
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    #[must_use]
    pub fn low_water(mut self, ids: usize) -> Settings {
        self.low_water = ids;
        self
    }

    /// IDs asked for per request, at most (1 to `capacity`, and at most the service's
    /// `--max-batch`, or every request is refused with a 400).
    ///
    /// ```
    /// # use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?.batch(0);
    /// assert!(s.check().is_err(), "at least 1");
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    #[must_use]
    pub fn batch(mut self, ids: usize) -> Settings {
        self.batch = ids;
        self
    }

    /// How long one request to one service may take, connecting included, before the next
    /// service is tried (1 ms to [`MAX_DURATION`]).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?
    ///     .request_timeout(Duration::from_millis(200));
    /// s.check()?;
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    #[must_use]
    pub fn request_timeout(mut self, timeout: Duration) -> Settings {
        self.request_timeout = timeout;
        self
    }

    /// How long `next_id()` waits on an empty buffer for a refill before it fails (0 to
    /// [`MAX_DURATION`]); it fails sooner when a round of requests that ended during the
    /// wait found every service failing. This is the bound: `next_id()` never blocks longer.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?
    ///     .max_wait(Duration::from_millis(50));
    /// s.check()?;
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    #[must_use]
    pub fn max_wait(mut self, wait: Duration) -> Settings {
        self.max_wait = wait;
        self
    }

    /// The pause after a round in which every service failed, before the next round (1 ms
    /// to [`MAX_DURATION`]).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use snowmint_client::{Expected, Settings};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?
    ///     .retry(Duration::from_millis(20));
    /// s.check()?;
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    #[must_use]
    pub fn retry(mut self, pause: Duration) -> Settings {
        self.retry = pause;
        self
    }

    /// Whether every setting is in its range.
    ///
    /// ```
    /// # use snowmint_client::{Expected, Settings, SettingsError};
    /// let s = Settings::new(["http://127.0.0.1:8080"], Expected::layout("x=1"))?.capacity(0);
    /// assert_eq!(s.check(), Err(SettingsError::Capacity { ids: 0 }));
    /// # Ok::<(), snowmint_client::SettingsError>(())
    /// ```
    ///
    /// # Errors
    /// The first setting out of its range, as a [`SettingsError`] naming the range.
    pub fn check(&self) -> Result<(), SettingsError> {
        if !(1..=MAX_CAPACITY).contains(&self.capacity) {
            return Err(SettingsError::Capacity { ids: self.capacity });
        }
        if self.low_water >= self.capacity {
            return Err(SettingsError::LowWater {
                ids: self.low_water,
                capacity: self.capacity,
            });
        }
        if !(1..=self.capacity).contains(&self.batch) {
            return Err(SettingsError::Batch {
                ids: self.batch,
                capacity: self.capacity,
            });
        }
        let durations = [
            (
                "request_timeout",
                self.request_timeout,
                Duration::from_millis(1),
            ),
            ("max_wait", self.max_wait, Duration::ZERO),
            ("retry", self.retry, Duration::from_millis(1)),
        ];
        for (setting, value, min) in durations {
            if !(min..=MAX_DURATION).contains(&value) {
                return Err(SettingsError::Duration {
                    setting,
                    value,
                    min,
                });
            }
        }
        Ok(())
    }
}

/// A setting out of its range, or a URL the client cannot use.
///
/// ```
/// use snowmint_client::{Expected, Settings, SettingsError};
/// let e = Settings::new(["https://ids.example"], Expected::layout("x=1")).unwrap_err();
/// assert!(matches!(e, SettingsError::Url { .. }));
/// assert!(e.to_string().contains("http://HOST:PORT"), "{e}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingsError {
    /// No URL was given.
    NoService,
    /// A URL that is not `http://HOST:PORT`.
    Url {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The capacity is 0 or above [`MAX_CAPACITY`].
    Capacity {
        /// The capacity given.
        ids: usize,
    },
    /// The low-water mark is not below the capacity.
    LowWater {
        /// The mark given.
        ids: usize,
        /// The capacity.
        capacity: usize,
    },
    /// The batch is 0 or above the capacity.
    Batch {
        /// The batch given.
        ids: usize,
        /// The capacity.
        capacity: usize,
    },
    /// A timeout, wait or pause out of its range.
    Duration {
        /// The setting's name: `request_timeout`, `max_wait` or `retry`.
        setting: &'static str,
        /// The value given.
        value: Duration,
        /// Its least allowed value (the largest is [`MAX_DURATION`]).
        min: Duration,
    },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::NoService => {
                f.write_str("no service URL given: give at least one, e.g. http://127.0.0.1:8080")
            }
            SettingsError::Url { url, why } => {
                write!(f, "service URL {url:?} {why}: expected http://HOST:PORT")
            }
            SettingsError::Capacity { ids } => {
                write!(
                    f,
                    "capacity {ids} is out of range: allowed 1 to {MAX_CAPACITY} IDs"
                )
            }
            SettingsError::LowWater { ids, capacity } => write!(
                f,
                "low_water {ids} is out of range: allowed 0 to {} (below the capacity, {capacity})",
                capacity - 1
            ),
            SettingsError::Batch { ids, capacity } => write!(
                f,
                "batch {ids} is out of range: allowed 1 to {capacity} (the capacity)"
            ),
            SettingsError::Duration {
                setting,
                value,
                min,
            } => write!(
                f,
                "{setting} {value:?} is out of range: allowed {min:?} to {MAX_DURATION:?}"
            ),
        }
    }
}

impl std::error::Error for SettingsError {}
