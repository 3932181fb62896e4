//! One `GET /ids?n=N` with `Accept: application/octet-stream` over a keep-alive HTTP/1.1
//! connection ([`Connection`]), bounded by a deadline, its answer checked against
//! [`Expected`] and read as big-endian `u64`s.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::error::Cause;
use crate::expected::{Declared, Expected, Mismatch};
use crate::service::Service;

/// The longest response head read.
const MAX_HEAD: usize = 16 * 1024;
/// The most of an error body kept for the message.
const MAX_ERROR_BODY: usize = 4 * 1024;

/// A service's connection, kept open between requests.
#[derive(Default)]
pub struct Connection {
    stream: Option<TcpStream>,
}

impl Connection {
    /// Asks `service` for `n` IDs, within `timeout`; appends them to `out`. A connection
    /// kept from an earlier request that turns out closed is replaced once.
    pub fn fetch(
        &mut self,
        service: &Service,
        expected: &Expected,
        n: usize,
        timeout: Duration,
        out: &mut Vec<u64>,
    ) -> Result<(), Cause> {
        let deadline = Instant::now() + timeout;
        let reused = self.stream.is_some();
        match self.exchange(service, expected, n, deadline, out) {
            // An idle connection the service closed fails at once: try a fresh one.
            Err(Cause::Io(_) | Cause::Malformed(_)) if reused && Instant::now() < deadline => {
                self.stream = None;
                self.exchange(service, expected, n, deadline, out)
            }
            other => other,
        }
    }

    fn exchange(
        &mut self,
        service: &Service,
        expected: &Expected,
        n: usize,
        deadline: Instant,
        out: &mut Vec<u64>,
    ) -> Result<(), Cause> {
        let result = self.exchange_once(service, expected, n, deadline, out);
        if result.is_err() {
            // Whatever is left unread on it, the connection is not reused.
            self.stream = None;
        }
        result
    }

    fn exchange_once(
        &mut self,
        service: &Service,
        expected: &Expected,
        n: usize,
        deadline: Instant,
        out: &mut Vec<u64>,
    ) -> Result<(), Cause> {
        let stream = match &mut self.stream {
            Some(stream) => stream,
            None => self.stream.insert(connect(&service.authority, deadline)?),
        };
        let request = format!(
            "GET /ids?n={n} HTTP/1.1\r\nHost: {}\r\nAccept: application/octet-stream\r\nUser-Agent: snowmint-client\r\n\r\n",
            service.authority
        );
        stream
            .set_write_timeout(Some(left(deadline)?))
            .map_err(io_cause)?;
        stream.write_all(request.as_bytes()).map_err(io_cause)?;
        let (head, mut body) = read_head(stream, deadline)?;
        let head = Head::parse(&head)?;
        let want = if head.status == 200 {
            n * 8
        } else {
            MAX_ERROR_BODY
        };
        let length = head
            .content_length
            .ok_or_else(|| Cause::Malformed("no Content-Length".to_owned()))?;
        if head.status == 200 && length != want {
            return Err(Cause::Malformed(format!(
                "{length} bytes for {n} IDs: expected {want} (8 per ID)"
            )));
        }
        if length > want.max(MAX_ERROR_BODY) {
            return Err(Cause::Malformed(format!("a body of {length} bytes")));
        }
        read_to(stream, &mut body, length, deadline)?;
        if head.close {
            self.stream = None;
        }
        if head.status != 200 {
            return Err(Cause::Status {
                status: head.status,
                body: String::from_utf8_lossy(&body).trim().to_owned(),
            });
        }
        if !head.binary {
            return Err(Cause::Malformed(
                "not application/octet-stream (a service older than binary bodies?)".to_owned(),
            ));
        }
        check(service, expected, &head)?;
        out.extend(
            body.chunks_exact(8)
                .map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes"))),
        );
        Ok(())
    }
}

/// Whether the answer declared the expected layout and node.
fn check(service: &Service, expected: &Expected, head: &Head) -> Result<(), Cause> {
    let mismatch = |field, expected: String, declared: &Option<String>| {
        Cause::Mismatch(Mismatch {
            url: service.url.clone(),
            field,
            expected,
            declared: declared.clone().unwrap_or_else(|| "(none)".to_owned()),
        })
    };
    if !head
        .layout
        .as_deref()
        .is_some_and(|l| expected.matches_layout(l))
    {
        return Err(mismatch(
            Declared::Layout,
            expected.spec().to_owned(),
            &head.layout,
        ));
    }
    if let Some(node) = expected.get_node() {
        if head.node.as_deref() != Some(node.to_string().as_str()) {
            return Err(mismatch(Declared::Node, node.to_string(), &head.node));
        }
    }
    Ok(())
}

/// The time left before `deadline`, or [`Cause::TimedOut`].
fn left(deadline: Instant) -> Result<Duration, Cause> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(Cause::TimedOut)
    } else {
        Ok(left)
    }
}

fn io_cause(e: io::Error) -> Cause {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Cause::TimedOut,
        _ => Cause::Io(e.to_string()),
    }
}

fn connect(authority: &str, deadline: Instant) -> Result<TcpStream, Cause> {
    let addrs = authority.to_socket_addrs().map_err(io_cause)?;
    let mut last = Cause::Io(format!("{authority} resolves to no address"));
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, left(deadline)?) {
            Ok(stream) => {
                // Requests are small and wait for their answer: send each at once.
                stream.set_nodelay(true).map_err(io_cause)?;
                return Ok(stream);
            }
            Err(e) => last = io_cause(e),
        }
    }
    Err(last)
}

/// Reads up to the end of the head: the head's bytes and those of the body read with it.
fn read_head(stream: &mut TcpStream, deadline: Instant) -> Result<(Vec<u8>, Vec<u8>), Cause> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        stream
            .set_read_timeout(Some(left(deadline)?))
            .map_err(io_cause)?;
        let read = stream.read(&mut chunk).map_err(io_cause)?;
        if read == 0 {
            return Err(Cause::Io(
                "the connection closed before an answer".to_owned(),
            ));
        }
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..read]);
        if let Some(end) = buf[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            let body = buf.split_off(from + end + 4);
            return Ok((buf, body));
        }
        if buf.len() > MAX_HEAD {
            return Err(Cause::Malformed(format!(
                "a head longer than {MAX_HEAD} bytes"
            )));
        }
    }
}

/// Reads until `body` holds `length` bytes.
fn read_to(
    stream: &mut TcpStream,
    body: &mut Vec<u8>,
    length: usize,
    deadline: Instant,
) -> Result<(), Cause> {
    if body.len() > length {
        return Err(Cause::Malformed(
            "more bytes than Content-Length".to_owned(),
        ));
    }
    let start = body.len();
    body.resize(length, 0);
    let mut at = start;
    while at < length {
        stream
            .set_read_timeout(Some(left(deadline)?))
            .map_err(io_cause)?;
        let read = stream.read(&mut body[at..]).map_err(io_cause)?;
        if read == 0 {
            return Err(Cause::Io(
                "the connection closed inside the body".to_owned(),
            ));
        }
        at += read;
    }
    Ok(())
}

/// What is read of a response head.
struct Head {
    status: u16,
    content_length: Option<usize>,
    binary: bool,
    close: bool,
    layout: Option<String>,
    node: Option<String>,
}

impl Head {
    fn parse(bytes: &[u8]) -> Result<Head, Cause> {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Cause::Malformed("a head that is not UTF-8".to_owned()))?;
        let mut lines = text.split("\r\n");
        let status_line = lines.next().unwrap_or("");
        let status = status_line
            .strip_prefix("HTTP/1.1 ")
            .and_then(|rest| rest.get(..3))
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| Cause::Malformed(format!("status line {status_line:?}")))?;
        let mut head = Head {
            status,
            content_length: None,
            binary: false,
            close: false,
            layout: None,
            node: None,
        };
        for line in lines.filter(|l| !l.is_empty()) {
            let Some((name, value)) = line.split_once(':') else {
                return Err(Cause::Malformed(format!("header line {line:?}")));
            };
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => {
                    head.content_length = Some(
                        value
                            .parse()
                            .map_err(|_| Cause::Malformed(format!("Content-Length {value:?}")))?,
                    );
                }
                "content-type" => {
                    head.binary = value.eq_ignore_ascii_case("application/octet-stream");
                }
                "connection" => head.close = value.eq_ignore_ascii_case("close"),
                "transfer-encoding" => {
                    return Err(Cause::Malformed(format!("Transfer-Encoding {value:?}")));
                }
                "x-snowmint-layout" => head.layout = Some(value.to_owned()),
                "x-snowmint-node" => head.node = Some(value.to_owned()),
                _ => {}
            }
        }
        Ok(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let h = Head::parse(b"HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\nContent-Length: 16\r\nx-snowmint-layout: time=41\r\nx-snowmint-node: 5\r\n\r\n").unwrap();
        assert_eq!(
            (h.status, h.content_length, h.binary, h.close),
            (200, Some(16), true, false)
        );
        assert_eq!(h.layout.as_deref(), Some("time=41"));
        assert_eq!(h.node.as_deref(), Some("5"));
        assert!(Head::parse(b"HTTP/1.0 200 OK\r\n\r\n").is_err());
        assert!(Head::parse(b"HTTP/1.1 200 OK\r\nbroken\r\n\r\n").is_err());
    }
}
