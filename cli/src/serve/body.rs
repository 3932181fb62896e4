//! Response bodies of minted IDs, written straight into one buffer: decimal digits through
//! `itoa` (no `fmt` machinery, no allocation per ID), as newline-terminated text or as a JSON
//! array of strings (JavaScript's numbers lose precision above 2^53). 128-bit IDs go in as
//! their canonical text, in the same two shapes.

use snowmint::IdBatch;

/// Bytes per ID, at most: 20 decimal digits and a newline, or quotes and a comma.
const MAX_PER_ID: usize = 23;

/// The room each ID's text takes besides itself: a newline, or quotes and a comma.
const FRAMING: usize = 3;

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
    /// A body for `n` 64-bit IDs, its buffer allocated once for the longest IDs.
    pub fn with_capacity(shape: Shape, n: u64) -> Body {
        Body::for_texts(shape, n, MAX_PER_ID - FRAMING)
    }

    /// A body for `n` IDs whose texts are at most `max_text` bytes long, its buffer
    /// allocated once.
    pub fn for_texts(shape: Shape, n: u64, max_text: usize) -> Body {
        let cap = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_mul(max_text + FRAMING)
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
        push_text(&mut self.buf, self.shape, &mut self.empty, text);
    }

    /// Appends one ID's text (ASCII, needing no JSON escape: digits, letters, hyphens).
    #[inline]
    pub fn push_text(&mut self, text: &str) {
        push_text(&mut self.buf, self.shape, &mut self.empty, text.as_bytes());
    }

    /// The finished bytes.
    pub fn finish(mut self) -> Vec<u8> {
        if self.shape == Shape::JsonArray {
            self.buf.push(b']');
        }
        self.buf
    }
}

/// One ID's text in its shape; the one place the shapes are written.
#[inline]
fn push_text(buf: &mut Vec<u8>, shape: Shape, empty: &mut bool, text: &[u8]) {
    match shape {
        Shape::Lines => {
            buf.extend_from_slice(text);
            buf.push(b'\n');
        }
        Shape::JsonArray => {
            if !*empty {
                buf.push(b',');
            }
            buf.push(b'"');
            buf.extend_from_slice(text);
            buf.push(b'"');
        }
    }
    *empty = false;
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
            let uuid = "01a2426b-73d1-721e-8ade-35644d4eb1b3";
            let mut b = Body::for_texts(shape, 1_000, uuid.len());
            let cap = b.buf.capacity();
            for _ in 0..1_000 {
                b.push_text(uuid);
            }
            let out = b.finish();
            assert!(out.capacity() == cap && out.len() <= cap, "{shape:?}");
        }
    }
}
