//! One HTTP/1.1 `GET` on a new connection to a server in its namespace (`serve_support`'s
//! client speaks to loopback only): the status and the body, or `None` (refused, timed out).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub fn get(addr: &str, port: u16, path: &str, within: Duration) -> Option<(u16, String)> {
    let to: SocketAddr = format!("{addr}:{port}").parse().ok()?;
    let mut s = TcpStream::connect_timeout(&to, Duration::from_secs(1)).ok()?;
    s.set_read_timeout(Some(within)).ok()?;
    s.set_write_timeout(Some(within)).ok()?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8(raw).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    Some((
        status,
        if chunked {
            dechunk(body)?
        } else {
            body.to_string()
        },
    ))
}

fn dechunk(mut data: &str) -> Option<String> {
    let mut out = String::new();
    loop {
        let (size, rest) = data.split_once("\r\n")?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        out.push_str(rest.get(..size)?);
        data = rest.get(size + 2..)?;
    }
}
