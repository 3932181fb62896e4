//! How the PostgreSQL store words a failure: a [`LeaseError::Store`] whose [`StoreError`]
//! names the servers asked and what was said, with the server's SQLSTATE when it sent one;
//! never a password (the driver's errors quote none, and the lease gives it apart).

use crate::{LeaseError, StoreError, StoreErrorKind};

/// A driver's error while `action` on `servers`: the server's SQLSTATE and message if it sent
/// one (the store refused), else the error and each of its causes (the store was not reached).
pub(super) fn pg_error(
    action: &'static str,
    servers: &str,
    e: &tokio_postgres::Error,
) -> LeaseError {
    let (kind, sqlstate, message) = match e.as_db_error() {
        Some(db) => (
            StoreErrorKind::Refused,
            Some(db.code().code().to_string()),
            format!("{}: {}", db.severity(), db.message()),
        ),
        None => {
            let mut message = e.to_string();
            let mut cause = std::error::Error::source(e);
            while let Some(c) = cause {
                let text = c.to_string();
                if !message.ends_with(&text) {
                    message.push_str(": ");
                    message.push_str(&text);
                }
                cause = c.source();
            }
            (StoreErrorKind::Unreachable, None, message)
        }
    };
    failed(kind, action, servers, sqlstate, message)
}

/// A failure while `action` on `servers`, of `kind`: `SERVERS: MESSAGE (SQLSTATE CODE)`.
pub(super) fn failed(
    kind: StoreErrorKind,
    action: &'static str,
    servers: &str,
    sqlstate: Option<String>,
    message: String,
) -> LeaseError {
    let mut text = format!("{servers}: {message}");
    if let Some(code) = sqlstate {
        text.push_str(&format!(" (SQLSTATE {code})"));
    }
    LeaseError::Store {
        store: "postgres",
        action,
        cause: StoreError::new(kind, text),
    }
}

#[cfg(test)]
mod tests {
    use super::failed;
    use crate::StoreErrorKind;

    #[test]
    fn the_sqlstate_is_in_the_message() {
        let err = failed(
            StoreErrorKind::Refused,
            "acquire a node",
            "db1:5432",
            Some("28P01".to_string()),
            "FATAL: password authentication failed".to_string(),
        );
        assert_eq!(
            err.to_string(),
            "could not acquire a node in PostgreSQL: db1:5432: FATAL: password authentication failed (SQLSTATE 28P01)"
        );
    }
}
