//! snowmint: lock-free, time-ordered 64-bit IDs.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch;
mod clock;
mod decoded;
mod divisor;
mod encoding;
mod error;
mod generator;
mod id;
mod layout;
#[cfg(feature = "serde")]
pub mod serde;
mod shard;
mod sync;

pub use self::batch::IdBatch;
pub use self::clock::{Clock, ManualClock, TscClock, TscClockBuilder, WallClock};
pub use self::decoded::Decoded;
pub use self::encoding::{EncodedId, Encoding, ParseEncodingError, ParseErrorKind, ParseIdError};
pub use self::error::{Field, LayoutError, MintError};
pub use self::generator::{Generator, GeneratorBuilder, Rollback};
pub use self::id::Id;
pub use self::layout::{Layout, LayoutBuilder, Order};
pub use self::shard::{Lease, ShardedBuilder, ShardedGenerator};
