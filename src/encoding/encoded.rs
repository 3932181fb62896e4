//! [`EncodedId`]: the text of an encoded ID, held on the stack.

use core::borrow::Borrow;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

/// The text of an [`Id`](crate::id::Id) in some [`Encoding`](super::scheme::Encoding), held in a
/// 64-byte stack buffer: encoding never allocates.
///
/// It derefs to [`str`], so every `&str` method works on it, and compares equal to the
/// `str` it holds (its [`Hash`] is the `str`'s too, so it can key a map looked up by
/// `&str`). Call `.to_string()` (or `String::from(encoded.as_str())`) for an owned
/// `String`.
///
/// ```
/// use snowmint::{Encoding, Id};
/// use snowmint::encoding::EncodedId;
///
/// let text: EncodedId = Id::from_u64(1_428_076_403_798_048_768).encode(Encoding::Base58);
/// assert_eq!(text, "4jgmnx8Js8A");
/// assert_eq!(text.len(), 11);
/// assert_eq!(format!("{text} {text:?}"), "4jgmnx8Js8A \"4jgmnx8Js8A\"");
/// ```
#[derive(Clone, Copy)]
pub struct EncodedId {
    /// Only `buf[start..]` is meaningful, and it is always ASCII: every alphabet is checked
    /// to be ASCII at compile time, and only the encoders (which write alphabet bytes) build
    /// an `EncodedId`.
    buf: [u8; EncodedId::CAPACITY],
    start: u8,
}

impl EncodedId {
    /// Room for the longest text, 64 binary digits.
    pub(crate) const CAPACITY: usize = 64;

    /// Wraps a buffer whose text is `buf[start..]`, which must be ASCII.
    #[inline]
    pub(crate) fn from_tail(buf: [u8; EncodedId::CAPACITY], start: usize) -> EncodedId {
        debug_assert!(start < EncodedId::CAPACITY && buf[start..].is_ascii());
        EncodedId {
            buf,
            start: start as u8,
        }
    }

    /// The encoded text.
    ///
    /// ```
    /// let text = snowmint::Id::from_u64(255).encode(snowmint::Encoding::Hex);
    /// let s: &str = text.as_str();
    /// assert_eq!(s, "ff");
    /// ```
    #[inline]
    pub fn as_str(&self) -> &str {
        let bytes = self.buf.get(usize::from(self.start)..).unwrap_or_default();
        // The bytes are ASCII by construction (see `buf`), so this is always `Ok`; the
        // `""` fallback only keeps the function total without `unsafe` or a panic path.
        core::str::from_utf8(bytes).unwrap_or_default()
    }
}

impl Deref for EncodedId {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for EncodedId {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for EncodedId {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_str().as_bytes()
    }
}

impl Borrow<str> for EncodedId {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for EncodedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Debug for EncodedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for EncodedId {
    #[inline]
    fn eq(&self, other: &EncodedId) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for EncodedId {}

impl Hash for EncodedId {
    /// Hashes as the `str`, as [`Borrow<str>`] requires.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for EncodedId {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for EncodedId {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(feature = "alloc")]
impl PartialEq<alloc::string::String> for EncodedId {
    #[inline]
    fn eq(&self, other: &alloc::string::String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<EncodedId> for str {
    #[inline]
    fn eq(&self, other: &EncodedId) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<EncodedId> for &str {
    #[inline]
    fn eq(&self, other: &EncodedId) -> bool {
        *self == other.as_str()
    }
}

#[cfg(feature = "alloc")]
impl PartialEq<EncodedId> for alloc::string::String {
    #[inline]
    fn eq(&self, other: &EncodedId) -> bool {
        self.as_str() == other.as_str()
    }
}
