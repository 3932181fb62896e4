//! gRPC status codes that mean what the HTTP answers' statuses do: a [`Problem`] or a
//! [`Refusal`] as a [`Status`]. 400 is `INVALID_ARGUMENT` (the message names the allowed
//! range), 503 `UNAVAILABLE` with the retry delay in the message and in the trailing
//! metadata `retry-after` (whole seconds, as HTTP's `Retry-After`) and the readiness state
//! in `snowmint-state`, 500 `INTERNAL`.

use axum::http::StatusCode;
use tonic::metadata::MetadataValue;
use tonic::{Code, Status};

use crate::serve::{Problem, Refusal};

/// The metadata key of the retry delay, whole seconds.
pub const RETRY_AFTER: &str = "retry-after";

/// The metadata key of the readiness state that refused.
pub const STATE: &str = "snowmint-state";

/// Bad input: `INVALID_ARGUMENT` with `message` (which names the allowed range).
pub fn invalid(message: String) -> Status {
    Status::invalid_argument(message)
}

/// An HTTP error answer as the gRPC status of the same meaning.
pub fn of_problem(problem: Problem) -> Status {
    let code = match problem.status {
        StatusCode::BAD_REQUEST => Code::InvalidArgument,
        StatusCode::SERVICE_UNAVAILABLE => Code::Unavailable,
        StatusCode::NOT_FOUND => Code::NotFound,
        _ => Code::Internal,
    };
    let mut message = problem.message;
    let wait = problem.retry_after.map(crate::serve::retry_after_secs);
    if let Some(secs) = wait {
        message.push_str(&format!(" (retry after {secs} s)"));
    }
    let mut status = Status::new(code, message);
    if let Some(secs) = wait {
        status
            .metadata_mut()
            .insert(RETRY_AFTER, MetadataValue::from(secs));
    }
    if let Some(state) = problem.state.as_deref().and_then(|s| s.parse().ok()) {
        status.metadata_mut().insert(STATE, state);
    }
    status
}

/// A refused mint as its status.
pub fn of_refusal(refusal: Refusal) -> Status {
    of_problem(Problem::from(refusal))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_refusal_for_now_is_unavailable_with_the_delay() {
        let status = of_refusal(Refusal::Unavailable {
            retry_after: Some(Duration::from_millis(1_500)),
            message: "node 3 is fenced".into(),
            state: Some("fenced: connection refused".into()),
        });
        assert_eq!(status.code(), Code::Unavailable);
        assert_eq!(status.message(), "node 3 is fenced (retry after 2 s)");
        assert_eq!(status.metadata().get(RETRY_AFTER).unwrap(), "2");
        assert_eq!(
            status.metadata().get(STATE).unwrap(),
            "fenced: connection refused"
        );
        let failed = of_refusal(Refusal::Failed {
            message: "expired".into(),
        });
        assert_eq!(failed.code(), Code::Internal);
        assert!(failed.metadata().get(RETRY_AFTER).is_none());
        let bad = of_problem(Problem::bad_request("bad_id", "no".into()));
        assert_eq!(bad.code(), Code::InvalidArgument);
    }
}
