//! The league's HTTP client ([`arbiter::league::client`]) against hostile servers: raw
//! sockets on loopback that send what no league would.

use arbiter::league::client::{Client, ClientError};
use std::time::Duration;

/// A server on loopback that answers one connection with `answer` once it has read a
/// request's head (and, with `stream`, then sends zeros until the client hangs up);
/// returns its address.
fn hostile(answer: &'static [u8], stream: bool) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && conn.read(&mut byte).unwrap_or(0) == 1 {
            head.push(byte[0]);
        }
        let _ = conn.write_all(answer);
        let zeros = vec![b'0'; 1 << 20];
        while stream && conn.write_all(&zeros).is_ok() {}
    });
    url
}

/// A server that sends more than an answer may hold is cut off at the limit, and the
/// call is not tried again (without the limit, the worker read it all into memory).
#[test]
fn an_answer_past_its_limit_is_refused_not_read_whole() {
    let url = hostile(
        b"HTTP/1.1 200 OK\r\nContent-Length: 4000000000\r\n\r\n",
        true,
    );
    let c = Client::new(&url, None, Duration::from_secs(5)).unwrap();
    let e = c.standings().unwrap_err();
    assert!(
        matches!(e, ClientError::TooLarge { limit, .. } if limit == 64 << 20),
        "{e:?}"
    );
    assert!(!e.transient());
}

/// A chunked answer whose chunk ends inside a multi-byte character (the old command-line
/// client sliced text by byte count there) is read whole; a refusal keeps its status and
/// the server's words.
#[test]
fn chunks_that_split_a_character_and_refusals_are_read() {
    let url = hostile(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
          7\r\n{\"s\":\"\xc3\r\n3\r\n\xa9\"}\r\n0\r\n\r\n",
        false,
    );
    let c = Client::new(&url, None, Duration::from_secs(5)).unwrap();
    assert_eq!(c.standings().unwrap(), serde_json::json!({ "s": "é" }));

    let url = hostile(
        b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 22\r\n\r\nover the cap of 1 MiB\n",
        false,
    );
    let c = Client::new(&url, Some("t"), Duration::from_secs(5)).unwrap();
    let e = c
        .upload("big", Some("big.py"), None, &[b'#'; 4096])
        .unwrap_err();
    assert_eq!(e.status(), Some(413), "{e:?}");
    assert_eq!(e.message(), Some("over the cap of 1 MiB"));
    assert!(!e.transient());
}
