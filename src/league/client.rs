//! The command line's side of a running league: a small HTTP/1.1 client over a plain TCP
//! connection (the server is on loopback or a trusted network; one request per connection),
//! for `league add` (bots uploaded to a league on another machine included), `league remove`
//! and `league status`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A league server that could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{url} is not a league's address: give it as http://HOST:PORT")]
    Url { url: String },
    #[error(
        "cannot reach the league at {url}: {source}; is `arbiter league serve` running there?"
    )]
    Connect { url: String, source: std::io::Error },
    #[error("the league at {url} did not answer in full: {source}")]
    Read { url: String, source: std::io::Error },
    #[error("the league at {url} answered something that is not HTTP")]
    NotHttp { url: String },
    #[error("the league at {url} refused: {status} {body}")]
    Refused {
        url: String,
        status: u16,
        body: String,
    },
}

/// `host:port` of an `http://host:port[/]` address.
fn authority(url: &str) -> Result<&str, ClientError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| ClientError::Url { url: url.into() })?;
    let host = rest.trim_end_matches('/');
    if host.is_empty() || host.contains('/') {
        return Err(ClientError::Url { url: url.into() });
    }
    Ok(host)
}

/// Sends one request and returns the body of a 2xx answer (`wait`: how long the server may
/// take, e.g. to build a bot).
pub fn request(
    url: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
    wait: Duration,
) -> Result<String, ClientError> {
    let body = body.unwrap_or("");
    let kind = (!body.is_empty()).then_some("application/json");
    exchange(url, method, path, token, body.as_bytes(), kind, false, wait)
}

/// How long an upload waits for the server's go-ahead before it sends its body anyway.
const CONTINUE_WAIT: Duration = Duration::from_secs(10);

/// POSTs `body` (a bot's file or archive) with `Expect: 100-continue`: a refusal (too large, a
/// wrong token) comes back before the body is sent, and is read whole.
pub fn upload(
    url: &str,
    path: &str,
    token: &str,
    body: &[u8],
    wait: Duration,
) -> Result<String, ClientError> {
    let kind = Some("application/octet-stream");
    exchange(url, "POST", path, Some(token), body, kind, true, wait)
}

#[allow(clippy::too_many_arguments)]
fn exchange(
    url: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
    kind: Option<&str>,
    expect: bool,
    wait: Duration,
) -> Result<String, ClientError> {
    let host = authority(url)?;
    let connect = |source| ClientError::Connect {
        url: url.into(),
        source,
    };
    let addr = std::net::ToSocketAddrs::to_socket_addrs(host)
        .map_err(connect)?
        .next()
        .ok_or_else(|| ClientError::Url { url: url.into() })?;
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(connect)?;
    stream.set_read_timeout(Some(wait)).map_err(connect)?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if let Some(t) = token {
        head += &format!("Authorization: Bearer {t}\r\n");
    }
    if let Some(k) = kind {
        head += &format!("Content-Type: {k}\r\n");
    }
    if expect {
        head += "Expect: 100-continue\r\n";
    }
    head += &format!("Content-Length: {}\r\n\r\n", body.len());
    let read = |source| ClientError::Read {
        url: url.into(),
        source,
    };
    stream.write_all(head.as_bytes()).map_err(read)?;
    let mut answer = Vec::new();
    let mut send = true;
    if expect {
        stream.set_read_timeout(Some(CONTINUE_WAIT)).map_err(read)?;
        match read_head(&mut stream, &mut answer) {
            Ok(end) if answer.starts_with(b"HTTP/1.1 100") => {
                answer.drain(..end);
            }
            // The final answer already: a refusal, and the body is not sent.
            Ok(_) => send = false,
            // No go-ahead in time: the body goes anyway (RFC 9110).
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(read(e)),
        }
        stream.set_read_timeout(Some(wait)).map_err(read)?;
    }
    if send {
        stream.write_all(body).map_err(read)?;
    }
    stream.read_to_end(&mut answer).map_err(read)?;
    let text = String::from_utf8_lossy(&answer);
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| ClientError::NotHttp { url: url.into() })?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| ClientError::NotHttp { url: url.into() })?;
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    if !(200..300).contains(&status) {
        return Err(ClientError::Refused {
            url: url.into(),
            status,
            body: body.trim().to_string(),
        });
    }
    Ok(body)
}

/// Reads until `answer` holds a whole head (or the connection ends); returns where the head
/// ends.
fn read_head(stream: &mut TcpStream, answer: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut buf = [0u8; 4096];
    loop {
        if let Some(at) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(at + 4);
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(answer.len());
        }
        answer.extend_from_slice(&buf[..n]);
    }
}

/// The body of a chunked answer.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn addresses_and_chunks() {
        assert_eq!(
            super::authority("http://127.0.0.1:8737/").unwrap(),
            "127.0.0.1:8737"
        );
        assert!(super::authority("127.0.0.1:8737").is_err());
        assert_eq!(super::dechunk("3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), "abcde");
    }
}
