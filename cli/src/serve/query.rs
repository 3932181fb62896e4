//! The query of `GET /ids`: `n`, the number of IDs, and nothing else. Checked by hand so that
//! every bad query gets its own message naming the rule (a generic extractor would say
//! "failed to deserialize").

use crate::escape::quoted;

use super::problem::Problem;

/// The count asked for, checked against `1..=max`.
pub fn count(query: Option<&str>, max: u64) -> Result<u64, Problem> {
    let rule = || format!("n: plain decimal digits, 1 to {max}");
    let mut n = None;
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key != "n" {
            return Err(Problem::bad_request(
                "unknown_parameter",
                format!(
                    "unknown query parameter {}: /ids takes only n, the number of IDs (1 to {max})",
                    quoted(key)
                ),
            ));
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
                "/ids needs n, the number of IDs, e.g. /ids?n=100 ({})",
                rule()
            ),
        ));
    };
    let value = snowmint::node::parse_number(text).ok_or_else(|| {
        Problem::bad_request(
            "n_not_a_number",
            format!(
                "n={} is not a number: expected plain decimal digits (no sign, spaces or leading zeros), 1 to {max}",
                quoted(text)
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
        count(query, 100).unwrap_err().code
    }

    #[test]
    fn good_counts() {
        assert_eq!(count(Some("n=1"), 100), Ok(1));
        assert_eq!(count(Some("n=100"), 100), Ok(100));
        assert_eq!(count(Some("&n=5&"), 100), Ok(5));
    }

    #[test]
    fn every_bad_query_names_its_rule() {
        assert_eq!(code(None), "n_missing");
        assert_eq!(code(Some("")), "n_missing");
        assert_eq!(code(Some("n=0")), "n_out_of_range");
        assert_eq!(code(Some("n=101")), "n_out_of_range");
        assert_eq!(code(Some("n=99999999999999999999999")), "n_not_a_number");
        for bad in [
            "n=abc", "n=", "n", "n=+5", "n=05", "n=-1", "n=5%20", "n=1.0",
        ] {
            assert_eq!(code(Some(bad)), "n_not_a_number", "{bad}");
        }
        assert_eq!(code(Some("n=1&n=2")), "n_repeated");
        assert_eq!(code(Some("count=5")), "unknown_parameter");
        let message = count(Some("n=0"), 100).unwrap_err().message;
        assert_eq!(
            message,
            "n=0 is out of range: allowed 1 to 100 (the server's --max-batch)"
        );
        let message = count(Some("n=%1b[2J"), 100).unwrap_err().message;
        assert!(
            message.starts_with("n='%1b[2J' is not a number"),
            "{message}"
        );
    }
}
