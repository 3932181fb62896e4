//! [`Gateway`]: POSTs JSON to etcd's v3 gateway (`/v3/...`) over plain HTTP/1.0, trying
//! each endpoint in turn.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use serde_json::Value;

/// Why a request got no answer from any endpoint, or an error answer from one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayError {
    /// The endpoint of the last attempt (`host:port`).
    pub endpoint: String,
    /// What went wrong there.
    pub reason: String,
}

impl core::fmt::Display for GatewayError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.endpoint, self.reason)
    }
}

impl std::error::Error for GatewayError {}

/// What an endpoint answered: the JSON of a 200, or the gateway's error object.
pub(crate) enum Answer {
    /// HTTP 200 and its JSON body.
    Ok(Value),
    /// A gRPC error the cluster returned (e.g. `requested lease not found`): the request
    /// reached the cluster, which refused it.
    Refused(GatewayError),
}

/// The cluster's client endpoints and the one that answered last.
#[derive(Debug, Clone)]
pub(crate) struct Gateway {
    endpoints: Vec<String>,
    current: usize,
    timeout: Duration,
}

impl Gateway {
    pub(crate) fn new(endpoints: Vec<String>, timeout: Duration) -> Gateway {
        Gateway {
            endpoints,
            current: 0,
            timeout,
        }
    }

    /// POSTs `body` to `path` on the endpoint that answered last, then on each of the
    /// others: the first answer (200, or an error the cluster gave), or the last failure if
    /// none answered. A request that timed out may have been applied: callers make every
    /// request safe to repeat.
    pub(crate) fn post(&mut self, path: &str, body: &str) -> Result<Answer, GatewayError> {
        let mut last = None;
        for i in 0..self.endpoints.len() {
            let at = (self.current + i) % self.endpoints.len();
            let endpoint = &self.endpoints[at];
            match post_once(endpoint, path, body, self.timeout) {
                Ok((200, json)) => {
                    self.current = at;
                    return Ok(Answer::Ok(json));
                }
                Ok((status, json)) => {
                    let reason = json
                        .get("error")
                        .or_else(|| json.get("message"))
                        .and_then(Value::as_str)
                        .map_or_else(
                            || format!("HTTP {status}"),
                            |m| format!("HTTP {status}: {m}"),
                        );
                    let e = GatewayError {
                        endpoint: endpoint.clone(),
                        reason,
                    };
                    // A member without a leader, or one that timed out: try another.
                    if status >= 500 && !refusal_is_final(&e.reason) {
                        last = Some(e);
                        continue;
                    }
                    self.current = at;
                    return Ok(Answer::Refused(e));
                }
                Err(reason) => {
                    last = Some(GatewayError {
                        endpoint: endpoint.clone(),
                        reason,
                    })
                }
            }
        }
        Err(last.unwrap_or(GatewayError {
            endpoint: String::new(),
            reason: "no endpoint given".to_string(),
        }))
    }
}

/// A 5xx whose cause another member would give too: no point trying it elsewhere.
fn refusal_is_final(reason: &str) -> bool {
    reason.contains("requested lease not found") || reason.contains("lease not found")
}

/// One request on a fresh connection: the status and the JSON body.
fn post_once(
    endpoint: &str,
    path: &str,
    body: &str,
    timeout: Duration,
) -> Result<(u16, Value), String> {
    let addr = endpoint
        .to_socket_addrs()
        .map_err(|e| format!("resolve: {e}"))?
        .next()
        .ok_or_else(|| "resolves to no address".to_string())?;
    let mut stream =
        TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("connect: {e}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(|e| format!("set timeouts: {e}"))?;
    let request = format!(
        "POST {path} HTTP/1.0\r\nHost: {endpoint}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("send: {e}"))?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .map_err(|e| format!("receive: {e}"))?;
    parse_response(&response)
}

/// The status and JSON body of an HTTP/1.x response read to its end.
fn parse_response(response: &[u8]) -> Result<(u16, Value), String> {
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| "an incomplete HTTP response".to_string())?;
    let head = std::str::from_utf8(&response[..split]).map_err(|_| "a non-UTF-8 header")?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {:?}", head.lines().next().unwrap_or("")))?;
    let mut body = response[split + 4..].to_vec();
    if head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    }) {
        body = dechunk(&body).ok_or("a malformed chunked body")?;
    }
    let json = serde_json::from_slice(&body).map_err(|e| format!("not JSON ({e})"))?;
    Ok((status, json))
}

/// The data of a chunked body.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use super::{dechunk, parse_response};

    #[test]
    fn responses_parse_with_and_without_chunks() {
        let plain = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}";
        let (status, json) = parse_response(plain).unwrap();
        assert_eq!((status, json["a"].as_u64()), (200, Some(1)));
        let chunked = b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":2}\r\n0\r\n\r\n";
        let (status, json) = parse_response(chunked).unwrap();
        assert_eq!((status, json["a"].as_u64()), (404, Some(2)));
        assert_eq!(dechunk(b"5\r\nab"), None, "a chunk cut short");
        assert!(parse_response(b"HTTP/1.0 200 OK\r\n").is_err());
    }
}
