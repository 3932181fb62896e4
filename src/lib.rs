//! snowmint: lock-free, time-ordered 64-bit IDs.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch;
mod clock;
mod decoded;
mod divisor;
mod encoding;
mod error;
mod fence;
mod generator;
mod guard;
mod id;
mod layout;
pub mod node;
#[cfg(feature = "rayon")]
pub mod rayon;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "serde")]
pub mod serde;
mod shard;
mod sync;

pub use self::batch::IdBatch;
pub use self::clock::{Clock, ManualClock, TscClock, TscClockBuilder, WallClock};
pub use self::decoded::Decoded;
pub use self::encoding::{EncodedId, Encoding, ParseEncodingError, ParseErrorKind, ParseIdError};
pub use self::error::{Field, LayoutError, MintError};
pub use self::fence::{FenceError, FencedGenerator};
pub use self::generator::{Generator, GeneratorBuilder, Rollback};
pub use self::guard::{FileGuard, GuardError};
pub use self::id::Id;
pub use self::layout::{Layout, LayoutBuilder, Order};
pub use self::node::{NodeError, NodeSource};
pub use self::shard::{Lease, ShardedBuilder, ShardedGenerator};
