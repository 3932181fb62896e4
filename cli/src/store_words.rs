//! A lease store's error in the operator's words: what failed (the store and the call, as
//! the lease words them), the cause in plain words instead of an OS error number or a
//! client library's type name, and what to check (for a timeout: which one, and its value).

/// Where and how a call to a store was made, for the hints.
#[derive(Debug, Clone)]
pub struct Call {
    /// `Redis` or `etcd`.
    pub store: &'static str,
    /// The store's URL as shown (no userinfo).
    pub url: String,
    /// The timeout in force and where it came from: `--lease-timeout 1s`, or `200ms (a
    /// tenth of --ttl 2s; --lease-timeout sets it)`.
    pub timeout: String,
}

/// Causes as client libraries word them, and the plain words put in their place.
const PLAIN: [(&str, &str); 5] = [
    (
        "Resource temporarily unavailable (os error 11)",
        "no answer in time",
    ),
    ("Connection refused (os error 111)", "connection refused"),
    ("InvalidClientConfig", "invalid client settings"),
    ("Server(ResponseError)", "the server refused the request"),
    ("Incompatible type - ", ""),
];

/// `message` (the error and its causes, one line) with its causes in plain words and a hint
/// of what to check.
pub fn explain(message: &str, call: &Call) -> String {
    let mut text = message.to_owned();
    for (theirs, ours) in PLAIN {
        text = text.replace(theirs, ours);
    }
    let lower = message.to_ascii_lowercase();
    let hint = if lower.contains("(os error 11)")
        || lower.contains("timed out")
        || lower.contains("no answer within")
    {
        Some(format!(
            "the {} at {} did not answer within the timeout of each call, {}: check that it runs \
             and is reachable from here and not overloaded, or give a longer --lease-timeout",
            call.store, call.url, call.timeout
        ))
    } else if lower.contains("connection refused") {
        Some(format!(
            "nothing accepts connections at {}: check the URL's host and port, and that the {} \
             server runs",
            call.url, call.store
        ))
    } else if lower.contains("parse error")
        || lower.contains("unexpected")
        || lower.contains("incompatible type")
    {
        Some(format!(
            "what answers at {} does not speak {}'s protocol: check the port (is it another \
             service, or TLS where plain is expected?)",
            call.url, call.store
        ))
    } else {
        None
    };
    match hint {
        Some(hint) => format!("{text}; {hint}"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_worded_for_an_operator() {
        let call = Call {
            store: "Redis",
            url: "redis://h:1/".into(),
            timeout: "--lease-timeout 1s".into(),
        };
        let t = explain(
            "could not list in Redis: Resource temporarily unavailable (os error 11)",
            &call,
        );
        assert!(!t.contains("os error"), "{t}");
        assert!(
            t.contains("within the timeout of each call, --lease-timeout 1s"),
            "{t}"
        );
        let t = explain(
            "x: Incompatible type - Parse error at 1 / Unexpected `84`",
            &call,
        );
        assert!(
            t.contains("does not speak Redis's protocol") && !t.contains("Incompatible"),
            "{t}"
        );
    }
}
