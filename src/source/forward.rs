//! `IdSource` forwarded, written once: through a reference, an `Arc` or a `Box` to any
//! source, and, by [`id_source_by_inherent!`], from a source type's own inherent calls (the
//! generator, the sharded generator, an owned shard, a fenced source), so that those types
//! keep their calls callable without importing the trait and the trait's impl is one line.

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, sync::Arc};
use core::time::Duration;

use super::batch::IdBatch;
use super::fill::FillError;
use super::id_source::IdSource;
use crate::id::Id;
use crate::layout::Layout;

/// Implements [`IdSource`] for a type by its inherent methods of the same names and
/// signatures (`next_id`, `try_next_id`, `next_id_timeout`, `next_ids`, `try_next_ids`,
/// `fill`, `layout`, `last_id`, `clock`, `max_wait`): the one body of that forwarding.
///
/// ```text
/// id_source_by_inherent!(impl[C: Clock] Generator<C> { clock: C, error: MintError });
/// id_source_by_inherent!(
///     impl[S: IdSource] Fenced<S> where [S::Error: Into<FenceError>]
///     { clock: S::Clock, error: FenceError }
/// );
/// ```
macro_rules! id_source_by_inherent {
    (
        impl[$($generics:tt)*] $ty:ty $(where [$($bounds:tt)*])?
        { clock: $clock:ty, error: $error:ty $(,)? }
    ) => {
        impl<$($generics)*> $crate::source::IdSource for $ty $(where $($bounds)*)? {
            type Clock = $clock;
            type Error = $error;

            #[inline]
            fn next_id(&self) -> ::core::result::Result<$crate::id::Id, $error> {
                <$ty>::next_id(self)
            }

            #[inline]
            fn try_next_id(&self) -> ::core::result::Result<$crate::id::Id, $error> {
                <$ty>::try_next_id(self)
            }

            #[inline]
            fn next_id_timeout(
                &self,
                timeout: ::core::time::Duration,
            ) -> ::core::result::Result<$crate::id::Id, $error> {
                <$ty>::next_id_timeout(self, timeout)
            }

            fn next_ids(&self, n: u64) -> ::core::result::Result<$crate::source::IdBatch, $error> {
                <$ty>::next_ids(self, n)
            }

            fn try_next_ids(
                &self,
                n: u64,
            ) -> ::core::result::Result<$crate::source::IdBatch, $error> {
                <$ty>::try_next_ids(self, n)
            }

            fn fill(
                &self,
                out: &mut [$crate::id::Id],
            ) -> ::core::result::Result<(), $crate::source::FillError<$error>> {
                <$ty>::fill(self, out)
            }

            fn layout(&self) -> &$crate::layout::Layout {
                <$ty>::layout(self)
            }

            fn last_id(&self) -> ::core::option::Option<$crate::id::Id> {
                <$ty>::last_id(self)
            }

            fn clock(&self) -> &$clock {
                <$ty>::clock(self)
            }

            fn max_wait(&self) -> ::core::time::Duration {
                <$ty>::max_wait(self)
            }
        }
    };
}

pub(crate) use id_source_by_inherent;

/// `IdSource` through a reference, an `Arc` or a `Box`, so that callers can hand out shared
/// sources to threads and tasks.
macro_rules! forward_source {
    ($($ptr:ty),*) => {$(
        impl<S: IdSource + ?Sized> IdSource for $ptr {
            type Clock = S::Clock;
            type Error = S::Error;

            #[inline]
            fn next_id(&self) -> Result<Id, S::Error> {
                (**self).next_id()
            }

            #[inline]
            fn try_next_id(&self) -> Result<Id, S::Error> {
                (**self).try_next_id()
            }

            #[inline]
            fn next_id_timeout(&self, timeout: Duration) -> Result<Id, S::Error> {
                (**self).next_id_timeout(timeout)
            }

            #[inline]
            fn next_ids(&self, n: u64) -> Result<IdBatch, S::Error> {
                (**self).next_ids(n)
            }

            #[inline]
            fn try_next_ids(&self, n: u64) -> Result<IdBatch, S::Error> {
                (**self).try_next_ids(n)
            }

            #[inline]
            fn fill(&self, out: &mut [Id]) -> Result<(), FillError<S::Error>> {
                (**self).fill(out)
            }

            fn layout(&self) -> &Layout {
                (**self).layout()
            }

            fn last_id(&self) -> Option<Id> {
                (**self).last_id()
            }

            fn clock(&self) -> &S::Clock {
                (**self).clock()
            }

            fn max_wait(&self) -> Duration {
                (**self).max_wait()
            }
        }
    )*};
}

forward_source!(&S);
#[cfg(feature = "alloc")]
forward_source!(Arc<S>, Box<S>);
