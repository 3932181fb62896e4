//! The query strings of every endpoint, one grammar: `&`-separated `key=value` pairs, keys
//! and values percent-decoded as a path is (`%35` is `5`, `+` stays `+`), parameters an
//! endpoint does not take ignored (so a cache-busting `?_=123` works anywhere). `GET /ids`,
//! `/uuid7` and `/ulid` take `n`, the number of IDs, checked by hand so that every bad query gets its own message
//! naming the rule (a generic extractor would say "failed to deserialize").

use std::borrow::Cow;

use crate::escape::quoted;

use super::problem::Problem;

/// One `key=value` of a query, both percent-decoded.
pub type Pair<'a> = (Cow<'a, str>, Cow<'a, str>);

/// The pairs of `query`, percent-decoded, in order; an escape that is not `%` and two hex
/// digits, or bytes that are not UTF-8 once decoded, is a 400 naming the rule.
pub fn pairs(query: Option<&str>) -> impl Iterator<Item = Result<Pair<'_>, Problem>> {
    query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((percent_decoded(key)?, percent_decoded(value)?))
        })
}

/// Whether `query` follows the grammar: the first pair that does not decode, as a 400.
pub fn check(query: Option<&str>) -> Result<(), Problem> {
    pairs(query).try_for_each(|pair| pair.map(drop))
}

fn percent_decoded(text: &str) -> Result<Cow<'_, str>, Problem> {
    if !text.contains('%') {
        return Ok(Cow::Borrowed(text));
    }
    let bad = || {
        Problem::bad_request(
            "bad_query",
            format!(
                "the query part {} is not percent-encoded UTF-8: % must be followed by two hex digits (e.g. %35 for 5)",
                quoted(text)
            ),
        )
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or_else(bad)?;
            let hex = std::str::from_utf8(hex).map_err(|_| bad())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map(Cow::Owned).map_err(|_| bad())
}

/// The count asked for on `path`, checked against `1..=max`.
pub fn count(path: &str, query: Option<&str>, max: u64) -> Result<u64, Problem> {
    let rule = || format!("n: plain decimal digits, 1 to {max}");
    // The whole query first: a broken escape anywhere is its error, whatever else is wrong.
    check(query)?;
    let mut n = None;
    for pair in pairs(query) {
        let (key, value) = pair?;
        if key != "n" {
            continue;
        }
        if n.is_some() {
            return Err(Problem::bad_request(
                "n_repeated",
                format!("n is given more than once: give it once ({})", rule()),
            ));
        }
        n = Some(value);
    }
    let Some(text) = n else {
        return Err(Problem::bad_request(
            "n_missing",
            format!(
                "{path} needs n, the number of IDs, e.g. {path}?n=100 ({})",
                rule()
            ),
        ));
    };
    let value = crate::value::parse_number(&text).ok_or_else(|| {
        Problem::bad_request(
            "n_not_a_number",
            format!(
                "n={} is not a number: expected plain decimal digits (no sign, spaces or leading zeros), 1 to {max}",
                quoted(&*text)
            ),
        )
    })?;
    if value == 0 || value > max {
        return Err(Problem::bad_request(
            "n_out_of_range",
            format!("n={value} is out of range: allowed 1 to {max} (the server's --max-batch)"),
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(query: Option<&str>) -> &'static str {
        count("/ids", query, 100).unwrap_err().code
    }

    #[test]
    fn good_counts() {
        assert_eq!(count("/ids", Some("n=1"), 100), Ok(1));
        assert_eq!(count("/ids", Some("n=100"), 100), Ok(100));
        assert_eq!(count("/ids", Some("&n=5&"), 100), Ok(5));
        // Percent-decoded, as a path is: %35 is 5, and the key may be encoded too.
        assert_eq!(count("/ids", Some("n=%35"), 100), Ok(5));
        assert_eq!(count("/ids", Some("%6e=1%30"), 100), Ok(10));
        // Parameters /ids does not take are ignored, as on every endpoint.
        assert_eq!(count("/ids", Some("_=123&n=7&count=9"), 100), Ok(7));
    }

    #[test]
    fn every_bad_query_names_its_rule() {
        assert_eq!(code(None), "n_missing");
        assert_eq!(code(Some("")), "n_missing");
        assert_eq!(code(Some("n=0")), "n_out_of_range");
        assert_eq!(code(Some("n=101")), "n_out_of_range");
        assert_eq!(code(Some("n=99999999999999999999999")), "n_not_a_number");
        for bad in [
            "n=abc", "n=", "n", "n=+5", "n=05", "n=-1", "n=5%20", "n=1.0", "n=%2B5",
        ] {
            assert_eq!(code(Some(bad)), "n_not_a_number", "{bad}");
        }
        assert_eq!(code(Some("n=1&n=2")), "n_repeated");
        assert_eq!(code(Some("count=5")), "n_missing");
        assert_eq!(code(Some("n=1&%6e=2")), "n_repeated");
        for bad in ["n=%3", "n=%zz", "n=%ff", "x=%", "n=1&y=%e2%82"] {
            assert_eq!(code(Some(bad)), "bad_query", "{bad}");
        }
        let missing = count("/ulid", None, 100).unwrap_err().message;
        assert!(missing.starts_with("/ulid needs n"), "{missing}");
        let message = count("/ids", Some("n=0"), 100).unwrap_err().message;
        assert_eq!(
            message,
            "n=0 is out of range: allowed 1 to 100 (the server's --max-batch)"
        );
        // A decoded control character is shown escaped, never raw.
        let message = count("/ids", Some("n=%1b[2J"), 100).unwrap_err().message;
        assert!(!message.contains('\x1b'), "{message}");
        assert!(message.contains("is not a number"), "{message}");
    }
}
