//! Sources: [`IdSource`], the one trait every source of IDs implements (a generator, a
//! sharded generator, an owned shard, a fenced source), and what every source hands out
//! beyond one ID: batches and filled slices.
//!
//! | file | holds |
//! |---|---|
//! | `id_source.rs` | [`IdSource`], [`MintFailure`] for its errors, [`SourceBuilder`] for a source whose node comes from outside |
//! | `batch.rs` | [`IdBatch`]: a run of consecutive IDs reserved with one atomic operation |
//! | `fill.rs` | the loop that fills a slice tick by tick, and [`FillError`] |
//! | `forward.rs` | `IdSource` through `&`, `Arc`, `Box`, and `id_source_by_inherent!`: a source type's trait impl from its own calls |
//!
//! Public as `snowmint::source`: what a source hands out beyond one ID ([`IdBatch`],
//! [`FillError`]) and what an author of a source or of code generic over sources uses
//! ([`MintFailure`], [`SourceBuilder`]). [`IdSource`] itself is exported at the crate's root.
//!
//! ```
//! use snowmint::source::{FillError, IdBatch};
//! use snowmint::{Generator, IdSource, Layout, MintError};
//!
//! fn reserve<S: IdSource>(source: &S) -> Result<IdBatch, S::Error> {
//!     source.next_ids(16)
//! }
//! let gen = Generator::new(Layout::TWITTER, 1)?;
//! let batch = reserve(&gen)?;
//! assert_eq!(batch.len(), 16);
//! let mut out = [snowmint::Id::from_u64(0); 8];
//! let filled: Result<(), FillError<MintError>> = gen.fill(&mut out);
//! assert!(filled.is_ok() && out.windows(2).all(|w| w[0] < w[1]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
mod fill;
mod forward;
// `IdSource`'s file, reached from the crate's root.
pub(crate) mod id_source;

pub use self::batch::IdBatch;
pub(crate) use self::fill::fill_with;
pub use self::fill::FillError;
pub(crate) use self::forward::id_source_by_inherent;
pub(crate) use self::id_source::IdSource;
pub use self::id_source::{MintFailure, SourceBuilder};
