//! A store URL as the CLI may show it: [`shown`] drops the userinfo (`USER:PASSWORD@`) of
//! every host, so that no password or user name reaches a log line, an error or the status
//! page; [`has_password`] finds one to refuse it.
//!
//! The URLs are `SCHEME://[USERINFO@]HOST:PORT[,HOST:PORT...][/PATH]`: Redis, etcd (a list
//! of endpoints, each may carry userinfo) and PostgreSQL.

/// The URL with the userinfo of every endpoint removed: `redis://bob:pw@h:6379/0` is
/// `redis://h:6379/0`, `etcd://u:p@a:1,b:2` is `etcd://a:1,b:2`. A text with no scheme is
/// shown as `(a URL without a scheme)` when it holds an `@`, since its user part cannot be
/// told apart.
pub fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return if url.contains('@') {
            "(a URL without a scheme)".to_owned()
        } else {
            url.to_owned()
        };
    };
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let hosts: Vec<&str> = authority
        .split(',')
        .map(|endpoint| endpoint.rsplit_once('@').map_or(endpoint, |(_, host)| host))
        .collect();
    format!("{scheme}://{}{path}", hosts.join(","))
}

/// `message` (a store's error) with every `USERINFO@HOST` of `url`'s endpoints written as
/// `HOST`, as [`shown`] writes the URL.
pub fn scrub(message: &str, url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let mut text = message.to_owned();
    for endpoint in authority.split(',') {
        if let Some((_, host)) = endpoint.rsplit_once('@') {
            text = text.replace(endpoint, host);
        }
    }
    text
}

/// Checks a Redis URL's database number (`redis://HOST:PORT/DB`): empty (0) or plain
/// decimal digits up to 2^31 - 1, Redis' own bound; the error names the URL as shown.
pub fn redis_db(url: &str) -> Result<(), String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("", |at| &rest[at + 1..]);
    let db = path.split(['?', '#']).next().unwrap_or("");
    if db.is_empty() || crate::value::parse_number(db).is_some_and(|n| n <= i32::MAX as u64) {
        return Ok(());
    }
    Err(format!(
        "--lease {}: the database {} is not a number from 0 to {}",
        shown(url),
        crate::escape::quoted(db),
        i32::MAX
    ))
}

/// Whether any endpoint's userinfo holds a password (`USER:PASS@` or `:PASS@`).
pub fn has_password(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.split(',').any(|endpoint| {
        endpoint
            .rsplit_once('@')
            .is_some_and(|(user_info, _)| user_info.contains(':'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_is_never_shown() {
        assert_eq!(shown("redis://bob:hunter2@h:6379/0"), "redis://h:6379/0");
        assert_eq!(shown("rediss://minter@h:6380/"), "rediss://h:6380/");
        assert_eq!(
            shown("etcd://bob:hunter2@127.0.0.1:1,x:y@h:2"),
            "etcd://127.0.0.1:1,h:2"
        );
        assert_eq!(
            shown("postgres://u:p@db/ids?sslmode=require"),
            "postgres://db/ids?sslmode=require"
        );
        assert_eq!(shown("redis://h:6379/"), "redis://h:6379/");
        assert_eq!(shown("bob:pw@h"), "(a URL without a scheme)");
    }

    #[test]
    fn messages_lose_the_user_part_of_endpoints() {
        assert_eq!(
            scrub(
                "etcd: bob@127.0.0.1:1: connect: refused",
                "etcd://bob@127.0.0.1:1"
            ),
            "etcd: 127.0.0.1:1: connect: refused"
        );
    }

    #[test]
    fn a_redis_database_is_a_number() {
        assert!(redis_db("redis://h:6379/").is_ok());
        assert!(redis_db("redis://h:6379").is_ok());
        assert!(redis_db("redis://h:6379/15").is_ok());
        assert!(redis_db("redis://h:6379/-1")
            .unwrap_err()
            .contains("'-1' is not a number"));
        assert!(redis_db("redis://h:6379/x?p=1").is_err());
    }

    #[test]
    fn a_password_is_found_in_any_endpoint() {
        assert!(has_password("rediss://minter:pw@h:6380/"));
        assert!(has_password("redis://:pw@h:6379/0"));
        assert!(has_password("etcd://a:1,bob:hunter2@b:2"));
        assert!(!has_password("rediss://minter@h:6380/"));
        assert!(!has_password("etcd://a:1,b:2"));
    }
}
