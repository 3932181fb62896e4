//! Content negotiation of the minting routes: which of the bodies they offer ([`Media`]) the
//! `Accept` header asks for, by the rules of RFC 9110 §12.5.1. Each offered type takes the
//! quality of the most specific media range that matches it (`text/plain` before `text/*`
//! before `*/*`); the highest quality above zero wins, ties going to the more specific
//! match and then to the range the client listed first, so `application/json, */*` is
//! JSON. No `Accept` header (or an empty one), or `*/*`, is the default: text. A header nothing offered
//! matches is a 406 naming the offered types.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};

use super::problem::Problem;

/// A body the minting routes write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    /// One ID per line, `text/plain; charset=utf-8`: the default.
    Text,
    /// A JSON array of strings, `application/json`.
    Json,
    /// Packed big-endian values, `application/octet-stream`.
    Binary,
}

/// What the minting routes offer, in the order that breaks a tie the client left open.
const OFFERED: [Media; 3] = [Media::Text, Media::Json, Media::Binary];

impl Media {
    /// The media type, as `Accept` names it.
    fn essence(self) -> (&'static str, &'static str) {
        match self {
            Media::Text => ("text", "plain"),
            Media::Json => ("application", "json"),
            Media::Binary => ("application", "octet-stream"),
        }
    }

    /// The `Content-Type` of the answer.
    pub fn content_type(self) -> HeaderValue {
        match self {
            Media::Text => HeaderValue::from_static("text/plain; charset=utf-8"),
            Media::Json => HeaderValue::from_static("application/json"),
            Media::Binary => HeaderValue::from_static("application/octet-stream"),
        }
    }
}

/// One media range of an `Accept` header.
struct Range<'a> {
    kind: &'a str,
    subtype: &'a str,
    /// In thousandths, as the header's three decimals allow.
    quality: u16,
}

impl Range<'_> {
    /// How specifically the range names `media`: 3 exactly, 2 `type/*`, 1 `*/*`; 0 not at
    /// all.
    fn specificity(&self, media: Media) -> u8 {
        let (kind, subtype) = media.essence();
        if self.kind == "*" && self.subtype == "*" {
            1
        } else if !self.kind.eq_ignore_ascii_case(kind) {
            0
        } else if self.subtype == "*" {
            2
        } else if self.subtype.eq_ignore_ascii_case(subtype) {
            3
        } else {
            0
        }
    }
}

/// Reads `q=0.8` (`0` to `1`, at most three decimals); `None` when it is not one.
fn quality(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0u16, |q, d| q * 10 + u16::from(d - b'0'));
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1_000),
        _ => None,
    }
}

/// The media ranges of every `Accept` header, in order; a range whose `q` does not read is
/// left out (it asks for nothing).
fn ranges(headers: &HeaderMap) -> Vec<Range<'_>> {
    let mut out = Vec::new();
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let essence = parts.next().unwrap_or("").trim();
            let Some((kind, subtype)) = essence.split_once('/') else {
                continue;
            };
            let mut q = Some(1_000);
            for param in parts {
                if let Some((key, value)) = param.split_once('=') {
                    if key.trim().eq_ignore_ascii_case("q") {
                        q = quality(value.trim());
                    }
                }
            }
            if let Some(quality) = q {
                out.push(Range {
                    kind: kind.trim(),
                    subtype: subtype.trim(),
                    quality,
                });
            }
        }
    }
    out
}

/// How well a media range asks for an offered type: its quality, then how specifically it
/// names the type, then how early the client listed it.
type Score = (u16, u8, std::cmp::Reverse<usize>);

/// The body `headers` ask for, or a 406 naming what `path` offers.
pub fn choose(path: &str, headers: &HeaderMap) -> Result<Media, Problem> {
    // No header, or only empty ones: anything goes.
    let blank = headers
        .get_all(header::ACCEPT)
        .iter()
        .all(|v| v.as_bytes().trim_ascii().is_empty());
    if blank {
        return Ok(Media::Text);
    }
    let ranges = ranges(headers);
    // For each offered type: (quality, specificity, the client's order reversed).
    let score = |media: Media| {
        ranges
            .iter()
            .enumerate()
            .map(|(i, r)| (r.specificity(media), i, r.quality))
            .filter(|&(specificity, _, _)| specificity > 0)
            // The most specific range decides; the first of equally specific ones.
            .max_by_key(|&(specificity, i, _)| (specificity, std::cmp::Reverse(i)))
            .map(|(specificity, i, quality)| (quality, specificity, std::cmp::Reverse(i)))
    };
    let mut best: Option<(Media, Score)> = None;
    for media in OFFERED {
        if let Some(s) = score(media).filter(|s| s.0 > 0) {
            if best.as_ref().is_none_or(|(_, b)| s > *b) {
                best = Some((media, s));
            }
        }
    }
    best.map(|(media, _)| media).ok_or_else(|| Problem {
        status: StatusCode::NOT_ACCEPTABLE,
        code: "not_acceptable",
        message: format!(
            "the Accept header asks for nothing {} answers: it offers text/plain (the default), application/json and application/octet-stream",
            crate::escape::quoted(path)
        ),
        retry_after: None,
        state: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(accept: &[&str]) -> Result<Media, &'static str> {
        let mut h = HeaderMap::new();
        for a in accept {
            h.append(header::ACCEPT, HeaderValue::from_str(a).unwrap());
        }
        choose("/ids", &h).map_err(|p| p.code)
    }

    #[test]
    fn quality_values_rank_the_offered_types() {
        use Media::*;
        assert_eq!(chosen(&[]), Ok(Text));
        assert_eq!(chosen(&["*/*"]), Ok(Text));
        assert_eq!(chosen(&[""]), Ok(Text));
        assert_eq!(chosen(&["application/octet-stream"]), Ok(Binary));
        assert_eq!(chosen(&["Application/JSON"]), Ok(Json));
        assert_eq!(chosen(&["text/plain, application/json;q=0.9"]), Ok(Text));
        assert_eq!(
            chosen(&["text/plain;q=0.5, application/json;q=0.9"]),
            Ok(Json)
        );
        assert_eq!(
            chosen(&["application/octet-stream;q=1.0, text/plain;q=0.999"]),
            Ok(Binary)
        );
        // Axios' default: the first listed of the equally good ones.
        assert_eq!(chosen(&["application/json, text/plain, */*"]), Ok(Json));
        // A browser's: everything through */* alike, so the default.
        assert_eq!(
            chosen(&["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]),
            Ok(Text)
        );
        // The most specific range decides: text is refused although */* takes anything.
        assert_eq!(chosen(&["text/plain;q=0, */*"]), Ok(Json));
        assert_eq!(chosen(&["application/*"]), Ok(Json));
        assert_eq!(chosen(&["application/*, application/json;q=0"]), Ok(Binary));
        // Two headers are one list.
        assert_eq!(
            chosen(&["image/png", "application/octet-stream"]),
            Ok(Binary)
        );
    }

    #[test]
    fn nothing_offered_is_406() {
        assert_eq!(chosen(&["image/png"]), Err("not_acceptable"));
        assert_eq!(
            chosen(&["text/html, application/xml"]),
            Err("not_acceptable")
        );
        assert_eq!(chosen(&["*/*;q=0"]), Err("not_acceptable"));
        // A quality that does not read asks for nothing.
        assert_eq!(chosen(&["text/plain;q=2"]), Err("not_acceptable"));
        assert_eq!(chosen(&["text/plain;q=0.1234"]), Err("not_acceptable"));
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("image/png"));
        let message = choose("/ulid", &h).unwrap_err().message;
        assert!(
            message.contains("'/ulid'") && message.contains("application/octet-stream"),
            "{message}"
        );
    }
}
