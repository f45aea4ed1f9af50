//! The worker's HTTP client: blocking HTTP/1.1 over a plain TCP connection, one request per
//! connection, bytes in and out (bot archives are binary). Blocking is what the worker wants:
//! each of its threads plays one game at a time on the calling thread, as local workers do, and
//! a long poll is one read with a timeout; no runtime and no new dependency are needed for that.
//! The league is reached over loopback or a trusted network (TLS is a proxy's job in front of it).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A request that did not get an HTTP answer (the server is down, unreachable or cut off).
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("{url} is not a league's address: give it as http://HOST:PORT")]
    Url { url: String },
    #[error("cannot reach {url}: {source}")]
    Connect { url: String, source: std::io::Error },
    #[error("{url} did not answer in full: {source}")]
    Read { url: String, source: std::io::Error },
    #[error("{url} answered something that is not HTTP")]
    NotHttp { url: String },
}

impl NetError {
    /// Whether trying again later may help (the address itself is fine).
    pub fn transient(&self) -> bool {
        !matches!(self, NetError::Url { .. })
    }
}

/// An HTTP answer.
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).trim().to_string()
    }
}

/// `host:port` of an `http://host:port[/]` address.
pub fn authority(url: &str) -> Option<&str> {
    let host = url.strip_prefix("http://")?.trim_end_matches('/');
    (!host.is_empty() && !host.contains('/')).then_some(host)
}

/// Sends one request; `wait` bounds the answer.
pub fn call(
    url: &str,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&[u8]>,
    wait: Duration,
) -> Result<Answer, NetError> {
    let host = authority(url).ok_or_else(|| NetError::Url { url: url.into() })?;
    let connect = |source| NetError::Connect {
        url: url.into(),
        source,
    };
    let addr = std::net::ToSocketAddrs::to_socket_addrs(host)
        .map_err(connect)?
        .next()
        .ok_or_else(|| NetError::Url { url: url.into() })?;
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).map_err(connect)?;
    stream.set_read_timeout(Some(wait)).map_err(connect)?;
    let body = body.unwrap_or_default();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
         Authorization: Bearer {token}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        head += "Content-Type: application/json\r\n";
    }
    head += "\r\n";
    let read = |source| NetError::Read {
        url: url.into(),
        source,
    };
    stream.write_all(head.as_bytes()).map_err(read)?;
    stream.write_all(body).map_err(read)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).map_err(read)?;
    let not_http = || NetError::NotHttp { url: url.into() };
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(not_http)?;
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let rest = &answer[split + 4..];
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(not_http)?;
    let chunked = head
        .lines()
        .any(|l| l.starts_with("transfer-encoding:") && l.contains("chunked"));
    let length = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .and_then(|v| v.trim().parse::<usize>().ok())
    });
    let body = if chunked {
        dechunk(rest).ok_or_else(not_http)?
    } else {
        if let Some(n) = length {
            if rest.len() < n {
                return Err(read(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("{} of {n} bytes", rest.len()),
                )));
            }
        }
        rest.to_vec()
    };
    Ok(Answer { status, body })
}

/// The body of a chunked answer (`None`: cut short).
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&rest[..end]).ok()?;
        let n = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[end + 2..];
        if n == 0 {
            return Some(out);
        }
        if rest.len() < n {
            return None;
        }
        out.extend_from_slice(&rest[..n]);
        rest = rest[n..].strip_prefix(b"\r\n").unwrap_or(&rest[n..]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn chunks_and_addresses() {
        assert_eq!(
            super::dechunk(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n").unwrap(),
            b"abcde"
        );
        assert!(super::dechunk(b"9\r\nabc").is_none());
        assert_eq!(super::authority("http://h:1/"), Some("h:1"));
        assert_eq!(super::authority("h:1"), None);
    }
}
