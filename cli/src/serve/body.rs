//! Response bodies of minted IDs, written straight into one buffer: decimal digits through
//! `itoa` (no `fmt` machinery, no allocation per ID), as newline-terminated text or as a JSON
//! array of strings (JavaScript's numbers lose precision above 2^53). 128-bit IDs go in as
//! their canonical text, in the same two shapes.
//!
//! A 64-bit ID goes in as a whole record, its framing and digits together (`,"…"` in a JSON
//! array, whose first comma becomes the `[`; `…\n` in lines), appended by one copy of a
//! constant [`RECORD`] bytes and then cut to the record's own length: the compiler makes that
//! a few register moves, where a copy of the digits' varying length is a call to `memmove`.
//! An ID one more than the last (the next sequence number of a reservation, most IDs of a
//! batch) is written by incrementing the last record's digits: those in its last 8 bytes
//! (the last three digits of a 19-digit line, the last five in JSON) are one word, incremented
//! by an addition, so that the copy that follows reads the word as it was written (a byte
//! written into it would stall the copy's read until the byte reached the cache); a carry
//! past them goes through the bytes before, once in a thousand IDs or fewer.

use snowmint::source::IdBatch;

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

/// The last ID written and its record, split at byte [`HEAD`]: `head` then `tail`'s bytes
/// in little-endian order, of which the first `len` went into the body, the digits from
/// `start` to `len - 1` (`len` 0 before the first ID).
struct Record {
    id: u64,
    head: [u8; HEAD],
    tail: u64,
    /// Where the digits start: the length of the shape's bytes before them.
    start: usize,
    len: usize,
}

/// Where a record's bytes are split: the rest of [`RECORD`] is one `u64`.
const HEAD: usize = RECORD - 8;

impl Record {
    /// The record's bytes.
    #[inline]
    fn bytes(&self) -> [u8; RECORD] {
        let mut bytes = [0; RECORD];
        bytes[..HEAD].copy_from_slice(&self.head);
        bytes[HEAD..].copy_from_slice(&self.tail.to_le_bytes());
        bytes
    }

    /// Formats `id` afresh.
    fn set(&mut self, id: u64, shape: Shape, digits: &mut itoa::Buffer) {
        let mut bytes = self.bytes();
        let text = digits.format(id).as_bytes();
        let end = self.start + text.len();
        bytes[self.start..end].copy_from_slice(text);
        bytes[end] = shape.after();
        self.len = end + 1;
        self.id = id;
        self.store(bytes);
    }

    fn store(&mut self, bytes: [u8; RECORD]) {
        let (head, tail) = bytes.split_at(HEAD);
        self.head.copy_from_slice(head);
        self.tail = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
    }

    /// Turns the digits into those of the next number, if it has as many digits (not
    /// after 9, 99, ...; then the digits are left unusable and must be [`set`](Self::set)).
    #[inline]
    fn increment(&mut self) -> bool {
        let last = self.len - 2;
        if last >= HEAD {
            // The digits in the tail, from the last: each a byte of the word.
            let mut shift = 8 * (last - HEAD);
            loop {
                if (self.tail >> shift) as u8 != b'9' {
                    self.tail += 1 << shift;
                    self.id += 1;
                    return true;
                }
                // A '9' becomes a '0', and the carry moves on.
                self.tail -= u64::from(b'9' - b'0') << shift;
                if shift == 0 {
                    break;
                }
                shift -= 8;
            }
        }
        self.carry(last.min(HEAD - 1))
    }

    /// Increments the digits in the head up to the one at `last`.
    fn carry(&mut self, last: usize) -> bool {
        if last < self.start {
            return false;
        }
        for digit in self.head[self.start..=last].iter_mut().rev() {
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
        let mut head = [0; HEAD];
        head[..before.len()].copy_from_slice(before);
        Body {
            shape,
            buf: Vec::with_capacity(cap),
            digits: itoa::Buffer::new(),
            last: Record {
                id: 0,
                head,
                tail: 0,
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
        self.buf.extend_from_slice(&self.last.bytes());
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
        // 19 digits, carrying out of the last word's digits into the bytes before them (the
        // last three digits of a line, the last five in JSON).
        ids.extend(1_000_000_000_000_000_990..1_000_000_000_000_001_010);
        ids.extend(1_234_567_890_123_399_990..1_234_567_890_123_400_010);
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
