//! The ID's text encodings ([`Encoding`], [`EncodedId`]) with their strict parsers, and the
//! 8-byte big-endian value conversions.
//!
//! One name per operation: [`Id::encode`](crate::Id::encode) writes any encoding, [`Id::parse`](crate::Id::parse) reads any
//! encoding (from text or bytes), and decimal is also `Display`/`FromStr`. Every parser
//! accepts only the exact text its encoder writes, so `Id::parse(id.encode(e), e) == Ok(id)`
//! and an input that parses re-encodes to itself.
//!
//! The modules depend one way, bottom first: `scheme` (the [`Encoding`] names and
//! alphabets) ← `error` ← `table` ← `encoded` ← the codecs `radix`, `base64`, `bwmarrin` ←
//! `dispatch`, behind [`Id::encode`](crate::Id::encode) and [`Id::parse`](crate::Id::parse).
//!
//! Public as `snowmint::encoding`: the details of a text ([`EncodedId`]), of a parse error
//! ([`ParseErrorKind`]) and of an encoding's name ([`ParseEncodingError`]). [`Encoding`] and
//! [`ParseIdError`](crate::ParseIdError) are exported at the crate's root.
//!
//! ```
//! use snowmint::encoding::{EncodedId, ParseErrorKind};
//! use snowmint::{Encoding, Id};
//!
//! let text: EncodedId = Id::from_u64(255).encode(Encoding::Hex);
//! assert_eq!(text, "ff");
//! let err = Id::parse("fg", Encoding::Hex).unwrap_err();
//! assert_eq!(err.kind(), &ParseErrorKind::InvalidChar { ch: 'g', index: 1 });
//! ```

mod base64;
mod bwmarrin;
mod bytes;
mod dispatch;
mod encoded;
// `ParseIdError`'s and `Encoding`'s files, reached from the crate's root.
pub(crate) mod error;
mod radix;
pub(crate) mod scheme;
mod table;

pub use self::encoded::EncodedId;
pub use self::error::ParseErrorKind;
// For the layers above that name it inside the crate (all of them with `std`).
#[cfg(feature = "std")]
pub(crate) use self::scheme::Encoding;
#[cfg(feature = "alloc")]
pub use self::scheme::ParseEncodingError;
