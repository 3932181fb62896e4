//! [`Problem`]: an error answer, as JSON `{"error": CODE, "message": TEXT}` with its status:
//! 400 for a bad request (the code names the rule broken, the message the allowed range),
//! 503 with `Retry-After` when minting is refused for now (and `"state"`, the service's
//! readiness state, when that is why), 500 when it cannot succeed.

use std::time::Duration;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::source::Refusal;

/// Every route, as `serve --help` and the 404 answer list them.
pub const ROUTES: &str = "GET /id, /ids?n=N, /uuid7?n=N, /ulid?n=N, /decode/{id}, /livez, \
                          /readyz, /healthz, /metrics, / (the status page)";

/// An error answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub status: StatusCode,
    /// Stable, for programs: `n_out_of_range`, `bad_id`, `unavailable`...
    pub code: &'static str,
    /// For people: what was wrong and what is allowed.
    pub message: String,
    /// `Retry-After`, rounded up to whole seconds (at least 1).
    pub retry_after: Option<Duration>,
    /// The readiness state that refused (`claiming`, `fenced: ...`), as `/readyz` names it.
    pub state: Option<String>,
}

impl Problem {
    /// 400 Bad Request.
    pub fn bad_request(code: &'static str, message: String) -> Problem {
        Problem {
            status: StatusCode::BAD_REQUEST,
            code,
            message,
            retry_after: None,
            state: None,
        }
    }

    /// 404 Not Found, listing the endpoints.
    pub fn not_found(path: &str) -> Problem {
        Problem {
            status: StatusCode::NOT_FOUND,
            code: "not_found",
            message: format!("no endpoint {}: {}", crate::escape::quoted(path), ROUTES),
            retry_after: None,
            state: None,
        }
    }
}

impl From<Refusal> for Problem {
    fn from(refusal: Refusal) -> Problem {
        match refusal {
            Refusal::Unavailable {
                retry_after,
                message,
                state,
            } => Problem {
                status: StatusCode::SERVICE_UNAVAILABLE,
                code: "unavailable",
                message,
                retry_after,
                state,
            },
            Refusal::Failed { message } => Problem {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                code: "mint_failed",
                message,
                retry_after: None,
                state: None,
            },
        }
    }
}

/// Whole seconds, rounded up, at least 1: `Retry-After` has no fractions, and 0 would invite
/// a client to hammer.
pub fn retry_after_secs(wait: Duration) -> u64 {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    secs.max(1)
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut body = serde_json::Map::new();
        body.insert("error".into(), self.code.into());
        body.insert("message".into(), self.message.as_str().into());
        if let Some(state) = &self.state {
            body.insert("state".into(), state.as_str().into());
        }
        let body = serde_json::Value::Object(body).to_string();
        let mut response = (
            self.status,
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                ),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
            body,
        )
            .into_response();
        if let Some(wait) = self.retry_after {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(retry_after_secs(wait)),
            );
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(Duration::from_micros(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_millis(1_001)), 2);
    }

    #[test]
    fn a_refusal_for_now_is_503_with_retry_after() {
        let p = Problem::from(Refusal::Unavailable {
            retry_after: Some(Duration::from_millis(300)),
            message: "node 3 is fenced".into(),
            state: Some("fenced: connection refused".into()),
        });
        let r = p.into_response();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "1");
        let lost = Problem::from(Refusal::Unavailable {
            retry_after: None,
            message: "lost".into(),
            state: Some("lost".into()),
        })
        .into_response();
        assert!(lost.headers().get(header::RETRY_AFTER).is_none());
    }
}
