//! snowmint: lock-free, time-ordered 64-bit IDs.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod id;
mod sync;

pub use self::id::Id;
