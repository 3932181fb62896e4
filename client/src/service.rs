//! [`Service`]: one `snowmint serve` URL, parsed, and its keep-alive connection.

/// A service's address: `http://HOST:PORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// The URL as given (without a trailing `/`), for messages.
    pub url: String,
    /// `HOST:PORT`, for the connection and the `Host` header.
    pub authority: String,
}

impl Service {
    /// Reads `http://HOST:PORT` (a trailing `/` allowed); or says what is wrong with `url`
    /// (the `why` of [`SettingsError::Url`](crate::SettingsError::Url)).
    pub fn parse(url: &str) -> Result<Service, &'static str> {
        let rest = if let Some(rest) = url.strip_prefix("http://") {
            rest
        } else if url.starts_with("https://") {
            return Err("is https: this client speaks plaintext HTTP/1.1 only");
        } else {
            return Err("does not start with http://");
        };
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() {
            return Err("has no host");
        }
        if authority.contains(['/', '?', '#', '@', ' ']) {
            return Err("has a path, query, user or space");
        }
        let port = authority
            .rsplit_once(':')
            .map(|(_, port)| port)
            .filter(|port| !port.contains(']'));
        match port.map(str::parse::<u16>) {
            Some(Ok(p)) if p > 0 => {}
            Some(_) => return Err("has a port that is not 1 to 65535"),
            None => return Err("has no port"),
        }
        Ok(Service {
            url: format!("http://{authority}"),
            authority: authority.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let s = Service::parse("http://127.0.0.1:8080/").unwrap();
        assert_eq!(s.authority, "127.0.0.1:8080");
        assert_eq!(s.url, "http://127.0.0.1:8080");
        assert_eq!(
            Service::parse("http://[::1]:80").unwrap().authority,
            "[::1]:80"
        );
        for bad in [
            "https://a:1",
            "ftp://a:1",
            "http://",
            "http://a",
            "http://[::1]",
            "http://a:0",
            "http://a:99999",
            "http://a:1/ids",
            "http://u@a:1",
        ] {
            assert!(Service::parse(bad).is_err(), "{bad}");
        }
    }
}
