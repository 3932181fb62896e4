//! Binary response bodies (`Accept: application/octet-stream`): the IDs packed back to back
//! in big-endian (network) order, 8 bytes per 64-bit ID and a UUIDv7's or ULID's 16
//! canonical bytes (big-endian too), so that the bytes sort as the numbers do and a client in
//! any language reads them with its standard big-endian read (`struct.unpack('>Q')`,
//! `readBigUInt64BE`). One rule for every wire the service speaks.
//!
//! The buffer is allocated once for the whole answer; each ID is one 8- or 16-byte copy
//! into it, with no formatting at all.

use snowmint::source::IdBatch;

/// A binary body under construction.
pub struct Packed {
    buf: Vec<u8>,
}

impl Packed {
    /// A body for `n` values of `width` bytes each, allocated once.
    pub fn with_capacity(n: u64, width: usize) -> Packed {
        let cap = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_mul(width);
        Packed {
            buf: Vec::with_capacity(cap),
        }
    }

    /// Appends every ID of `batch`, big-endian; the last one, if any.
    pub fn push_batch(&mut self, batch: IdBatch) -> Option<u64> {
        let mut last = None;
        for id in batch {
            let id = id.to_u64();
            self.buf.extend_from_slice(&id.to_be_bytes());
            last = Some(id);
        }
        last
    }

    /// Appends a 128-bit ID's 16 canonical bytes.
    #[inline]
    pub fn push_bytes(&mut self, bytes: &[u8; 16]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The finished bytes.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_big_endian_and_the_buffer_never_grows() {
        let mut p = Packed::with_capacity(2, 16);
        let cap = p.buf.capacity();
        p.push_bytes(&[7; 16]);
        p.push_bytes(&u128::MAX.to_be_bytes());
        let out = p.finish();
        assert_eq!(out.len(), 32);
        assert_eq!(out.capacity(), cap);
        assert_eq!(&out[..16], &[7; 16]);
    }
}
