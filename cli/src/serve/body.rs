//! Response bodies of minted IDs, written straight into one buffer: decimal digits through
//! `itoa` (no `fmt` machinery, no allocation per ID), as newline-terminated text or as a JSON
//! array of strings (JavaScript's numbers lose precision above 2^53).

use snowmint::IdBatch;

/// Bytes per ID, at most: 20 decimal digits and a newline, or quotes and a comma.
const MAX_PER_ID: usize = 23;

/// How the IDs of one response are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One decimal ID per line, each line ending in `\n`.
    Lines,
    /// `["1","2"]`.
    JsonArray,
}

/// A body under construction.
pub struct Body {
    shape: Shape,
    buf: Vec<u8>,
    digits: itoa::Buffer,
    empty: bool,
}

impl Body {
    /// A body for `n` IDs, its buffer allocated once for the longest IDs.
    pub fn with_capacity(shape: Shape, n: u64) -> Body {
        let cap = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_mul(MAX_PER_ID)
            .saturating_add(2);
        let mut buf = Vec::with_capacity(cap);
        if shape == Shape::JsonArray {
            buf.push(b'[');
        }
        Body {
            shape,
            buf,
            digits: itoa::Buffer::new(),
            empty: true,
        }
    }

    /// Appends every ID of `batch`; the last one, if any.
    pub fn push_batch(&mut self, batch: IdBatch) -> Option<u64> {
        let mut last = None;
        for id in batch {
            self.push(id.to_u64());
            last = Some(id.to_u64());
        }
        last
    }

    /// Appends one ID.
    #[inline]
    pub fn push(&mut self, id: u64) {
        let text = self.digits.format(id).as_bytes();
        match self.shape {
            Shape::Lines => {
                self.buf.extend_from_slice(text);
                self.buf.push(b'\n');
            }
            Shape::JsonArray => {
                if !self.empty {
                    self.buf.push(b',');
                }
                self.buf.push(b'"');
                self.buf.extend_from_slice(text);
                self.buf.push(b'"');
            }
        }
        self.empty = false;
    }

    /// The finished bytes.
    pub fn finish(mut self) -> Vec<u8> {
        if self.shape == Shape::JsonArray {
            self.buf.push(b']');
        }
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(shape: Shape, ids: &[u64]) -> String {
        let mut b = Body::with_capacity(shape, ids.len() as u64);
        for &id in ids {
            b.push(id);
        }
        String::from_utf8(b.finish()).unwrap()
    }

    #[test]
    fn lines_and_json_arrays() {
        assert_eq!(body(Shape::Lines, &[]), "");
        assert_eq!(
            body(Shape::Lines, &[0, 7, u64::MAX]),
            "0\n7\n18446744073709551615\n"
        );
        assert_eq!(body(Shape::JsonArray, &[]), "[]");
        assert_eq!(body(Shape::JsonArray, &[1]), r#"["1"]"#);
        assert_eq!(
            body(Shape::JsonArray, &[1, u64::MAX]),
            r#"["1","18446744073709551615"]"#
        );
    }

    #[test]
    fn the_buffer_never_grows() {
        let ids = vec![u64::MAX; 1_000];
        for shape in [Shape::Lines, Shape::JsonArray] {
            let mut b = Body::with_capacity(shape, 1_000);
            let cap = b.buf.capacity();
            for &id in &ids {
                b.push(id);
            }
            let out = b.finish();
            assert!(out.capacity() == cap && out.len() <= cap, "{shape:?}");
        }
    }
}
