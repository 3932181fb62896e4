//! snowmint: lock-free, time-ordered 64-bit IDs.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod encoding;
mod id;
#[cfg(feature = "serde")]
pub mod serde;
mod sync;

pub use self::encoding::{EncodedId, Encoding, ParseEncodingError, ParseErrorKind, ParseIdError};
pub use self::id::Id;
