//! Binary response bodies (`Accept: application/octet-stream`): the IDs packed back to back
//! in big-endian (network) order, 8 bytes per 64-bit ID and a UUIDv7's or ULID's 16
//! canonical bytes (big-endian too), so that the bytes sort as the numbers do and a client in
//! any language reads them with its standard big-endian read (`struct.unpack('>Q')`,
//! `readBigUInt64BE`). One rule for every wire the service speaks.
//!
//! The buffer is allocated once for the whole answer; each ID is one 8- or 16-byte copy
//! into it, with no formatting at all.

use snowmint::source::IdBatch;

/// IDs taken out of a batch at a time: 2 KiB on the stack.
const CHUNK: usize = 256;

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

    /// Appends every ID of `batch`, big-endian; the last one, if any. The IDs come out of
    /// the batch a chunk at a time ([`IdBatch::write_to`], one vectorised loop per tick's
    /// run), then each chunk is byte-swapped into the body.
    pub fn push_batch(&mut self, mut batch: IdBatch) -> Option<u64> {
        let mut chunk = [snowmint::Id::from_u64(0); CHUNK];
        let mut last = None;
        loop {
            let written = batch.write_to(&mut chunk);
            if written == 0 {
                return last;
            }
            for id in &chunk[..written] {
                self.buf.extend_from_slice(&id.to_u64().to_be_bytes());
            }
            last = Some(chunk[written - 1].to_u64());
        }
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
    use snowmint::{Generator, Layout};

    #[test]
    fn batches_go_in_whole_and_in_order() {
        let gen = Generator::new(Layout::TWITTER, 3).unwrap();
        let mut p = Packed::with_capacity(3_000, 8);
        let mut expected = Vec::new();
        let mut left = 3_000;
        while left > 0 {
            let batch = gen.next_ids(left).unwrap();
            let ids: Vec<u64> = batch.clone().map(|id| id.to_u64()).collect();
            left -= ids.len() as u64;
            assert_eq!(p.push_batch(batch), ids.last().copied());
            expected.extend(ids);
        }
        let out = p.finish();
        let read: Vec<u64> = out
            .chunks_exact(8)
            .map(|b| u64::from_be_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(read, expected);
        assert!(read.windows(2).all(|w| w[0] < w[1]));
    }

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
