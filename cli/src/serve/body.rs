//! Response bodies of minted IDs, written straight into one buffer: decimal digits through
//! `itoa` (no `fmt` machinery, no allocation per ID), as newline-terminated text or as a JSON
//! array of strings (JavaScript's numbers lose precision above 2^53). 128-bit IDs go in as
//! their canonical text, in the same two shapes.
//!
//! A 64-bit ID goes in as a whole record, its framing and digits together (`,"…"` in a JSON
//! array, whose first comma becomes the `[`; `…\n` in lines), kept in a fixed array of
//! [`RECORD`] bytes and appended by one copy of that constant length, then cut to the
//! record's own: the compiler makes it a few register moves where a copy of the digits'
//! varying length was a call to `memmove` per ID (perf: 17 % of the server's time under
//! `wrk` on `/ids?n=1000`, and `Body::push` 9 % more). An ID one more than the last (the
//! next sequence number of a reservation, most IDs of a batch) is written by incrementing
//! the record's digits in place; any other is formatted afresh.

use snowmint::IdBatch;

/// Bytes per ID, at most: 20 decimal digits and a newline, or quotes and a comma.
const MAX_PER_ID: usize = 23;

/// The room each ID's text takes besides itself: a newline, or quotes and a comma.
const FRAMING: usize = 3;

/// The bytes a record is copied with: the longest record, `,"` 20 digits `"`, rounded up.
const RECORD: usize = 24;

/// How the IDs of one response are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One decimal ID per line, each line ending in `\n`.
    Lines,
    /// `["1","2"]`.
    JsonArray,
}

impl Shape {
    /// The bytes before an ID's text: in a JSON array a comma (the first becomes the `[`)
    /// and a quote.
    fn before(self) -> &'static [u8] {
        match self {
            Shape::Lines => b"",
            Shape::JsonArray => b",\"",
        }
    }

    /// The byte after an ID's text.
    fn after(self) -> u8 {
        match self {
            Shape::Lines => b'\n',
            Shape::JsonArray => b'"',
        }
    }
}

/// A body under construction.
pub struct Body {
    shape: Shape,
    buf: Vec<u8>,
    digits: itoa::Buffer,
    last: Record,
}

/// The last ID written and its record: `bytes[..len]` is what went into the body, the
/// digits are `bytes[start..len - 1]` (`len` 0 before the first ID).
struct Record {
    id: u64,
    bytes: [u8; RECORD],
    /// Where the digits start: the length of the shape's bytes before them.
    start: usize,
    len: usize,
}

impl Record {
    /// Formats `id` afresh.
    fn set(&mut self, id: u64, shape: Shape, digits: &mut itoa::Buffer) {
        let text = digits.format(id).as_bytes();
        let end = self.start + text.len();
        self.bytes[self.start..end].copy_from_slice(text);
        self.bytes[end] = shape.after();
        self.len = end + 1;
        self.id = id;
    }

    /// Turns the digits into those of the next number, if it has as many digits (not
    /// after 9, 99, ...; then the digits are left unusable and must be [`set`](Self::set)).
    #[inline]
    fn increment(&mut self) -> bool {
        for digit in self.bytes[self.start..self.len - 1].iter_mut().rev() {
            if *digit == b'9' {
                *digit = b'0';
            } else {
                *digit += 1;
                self.id += 1;
                return true;
            }
        }
        false
    }
}

impl Body {
    /// A body for `n` 64-bit IDs, its buffer allocated once for the longest IDs.
    pub fn with_capacity(shape: Shape, n: u64) -> Body {
        Body::for_texts(shape, n, MAX_PER_ID - FRAMING)
    }

    /// A body for `n` IDs whose texts are at most `max_text` bytes long, its buffer
    /// allocated once (with room for the last record's whole copy).
    pub fn for_texts(shape: Shape, n: u64, max_text: usize) -> Body {
        let cap = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_mul(max_text + FRAMING)
            .saturating_add(2 + RECORD);
        let before = shape.before();
        let mut bytes = [0; RECORD];
        bytes[..before.len()].copy_from_slice(before);
        Body {
            shape,
            buf: Vec::with_capacity(cap),
            digits: itoa::Buffer::new(),
            last: Record {
                id: 0,
                bytes,
                start: before.len(),
                len: 0,
            },
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
        let next = self.last.len > 0 && self.last.id.checked_add(1) == Some(id);
        if !(next && self.last.increment()) {
            self.last.set(id, self.shape, &mut self.digits);
        }
        let end = self.buf.len() + self.last.len;
        // The whole array, a copy of constant length; then cut to the record's.
        self.buf.extend_from_slice(&self.last.bytes);
        self.buf.truncate(end);
    }

    /// Appends one ID's text (ASCII, needing no JSON escape: digits, letters, hyphens).
    #[inline]
    pub fn push_text(&mut self, text: &str) {
        self.buf.extend_from_slice(self.shape.before());
        self.buf.extend_from_slice(text.as_bytes());
        self.buf.push(self.shape.after());
    }

    /// The finished bytes.
    pub fn finish(mut self) -> Vec<u8> {
        if self.shape == Shape::JsonArray {
            match self.buf.first_mut() {
                // The first record's comma.
                Some(first) => *first = b'[',
                None => self.buf.push(b'['),
            }
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
    fn texts_take_the_same_shapes() {
        let texts = |shape: Shape, texts: &[&str]| {
            let mut b = Body::for_texts(shape, texts.len() as u64, 26);
            for t in texts {
                b.push_text(t);
            }
            String::from_utf8(b.finish()).unwrap()
        };
        let ulid = "01KBQ0PZ8R2V3C8WYD6X9JG4TM";
        assert_eq!(texts(Shape::JsonArray, &[]), "[]");
        assert_eq!(texts(Shape::JsonArray, &[ulid]), format!(r#"["{ulid}"]"#));
        assert_eq!(
            texts(Shape::JsonArray, &[ulid, ulid]),
            format!(r#"["{ulid}","{ulid}"]"#)
        );
        assert_eq!(
            texts(Shape::Lines, &[ulid, ulid]),
            format!("{ulid}\n{ulid}\n")
        );
    }

    #[test]
    fn runs_of_consecutive_ids_are_written_exactly() {
        // Across every carry: 9 to 10, 99 to 100, 1999 to 2000, the largest ID; and jumps.
        let mut ids: Vec<u64> = (0..=1_001).collect();
        ids.extend(1_995..2_004);
        ids.extend([7, 8, 9, 10, 5, 6]);
        ids.extend(u64::MAX - 12..=u64::MAX);
        ids.extend(9_999_999_999_999_999_990..10_000_000_000_000_000_010);
        ids.extend([0, 1, 0]);
        for shape in [Shape::Lines, Shape::JsonArray] {
            let expected: Vec<String> = ids.iter().map(u64::to_string).collect();
            let expected = match shape {
                Shape::Lines => expected.iter().map(|t| format!("{t}\n")).collect(),
                Shape::JsonArray => {
                    let quoted: Vec<String> = expected.iter().map(|t| format!("\"{t}\"")).collect();
                    format!("[{}]", quoted.join(","))
                }
            };
            assert_eq!(body(shape, &ids), expected, "{shape:?}");
        }
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
