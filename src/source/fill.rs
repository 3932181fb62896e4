//! Filling a slice with IDs, tick by tick: the one loop behind every source's
//! [`fill`](crate::IdSource::fill) (and each rayon worker's part of
//! `ShardedGenerator::par_fill`), and [`FillError`], how far a fill got before it stopped.

use core::fmt;

use super::batch::IdBatch;
use crate::id::Id;

/// Why a [`fill`](crate::IdSource::fill) stopped before the end of its slice, and how far it
/// got: the slice's first [`filled`](Self::filled) IDs were written and issued (unique,
/// increasing, never handed out again); the rest of the slice is as it was.
///
/// ```
/// use snowmint::{Generator, Id, Layout, MintError};
/// use snowmint::clock::ManualClock;
///
/// // Sonyflake's 256 IDs per 10 ms tick, a clock that stands still, no waiting.
/// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
/// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock).max_wait(std::time::Duration::ZERO).build()?;
/// let mut ids = [Id::MIN; 300];
/// let err = gen.fill(&mut ids).unwrap_err();
/// assert_eq!(err.filled(), 256);
/// assert!(matches!(err.error(), MintError::Exhausted { .. }));
/// assert!(ids[..256].windows(2).all(|w| w[0] < w[1]));
/// assert_eq!(ids[256], Id::MIN, "untouched");
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillError<E> {
    filled: usize,
    error: E,
}

impl<E> FillError<E> {
    /// How many IDs were written, at the front of the slice, before the error.
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout};
    /// use snowmint::clock::ManualClock;
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock).max_wait(std::time::Duration::ZERO).build()?;
    /// assert_eq!(gen.fill(&mut [Id::MIN; 257]).unwrap_err().filled(), 256);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn filled(&self) -> usize {
        self.filled
    }

    /// The source's error, as its `next_ids` returned it.
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, MintError};
    /// use snowmint::clock::ManualClock;
    /// let clock = ManualClock::at_unix_millis(1_700_000_000_000);
    /// let gen = Generator::builder(Layout::SONYFLAKE).clock(clock).max_wait(std::time::Duration::ZERO).build()?;
    /// let err = gen.fill(&mut [Id::MIN; 257]).unwrap_err();
    /// assert!(matches!(err.error(), MintError::Exhausted { .. }));
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn error(&self) -> &E {
        &self.error
    }

    /// The source's error, for a caller that only passes it on (`?` into the source's
    /// error type).
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, MintError};
    /// fn three(gen: &Generator) -> Result<[Id; 3], MintError> {
    ///     let mut ids = [Id::MIN; 3];
    ///     gen.fill(&mut ids).map_err(snowmint::source::FillError::into_error)?;
    ///     Ok(ids)
    /// }
    /// assert!(three(&Generator::new(Layout::TWITTER, 1)?).is_ok());
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn into_error(self) -> E {
        self.error
    }
}

impl<E: fmt::Display> fmt::Display for FillError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "minting stopped after {} IDs of the slice: {}",
            self.filled, self.error
        )
    }
}

impl<E: core::error::Error + 'static> core::error::Error for FillError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Fills `out` from the batches `reserve(n)` hands out (a source's `next_ids`): one
/// reservation per tick (up to the tick's end, or the lead's), each written whole with
/// [`IdBatch::write_to`]. Stops at the first error, with the count written so far.
#[inline]
pub(crate) fn fill_with<E>(
    out: &mut [Id],
    mut reserve: impl FnMut(u64) -> Result<IdBatch, E>,
) -> Result<(), FillError<E>> {
    let mut filled = 0;
    while filled < out.len() {
        let left = (out.len() - filled) as u64;
        match reserve(left) {
            // A batch never holds more than asked: all of it is written.
            Ok(mut batch) => filled += batch.write_to(&mut out[filled..]),
            Err(error) => return Err(FillError { filled, error }),
        }
    }
    Ok(())
}
