//! The one HTTP client of a league's API, for every caller: the worker on another machine
//! (`league work`, [`super::worker`]), the command line's `league add`, `remove` and `status`,
//! and the load test (`arbiter bench league`). One typed call per endpoint, over the `wire`
//! messages ([`super::wire`]); a refusal keeps the server's status and message
//! ([`ClientError::Status`]), so that each caller decides what a 401, a 410 or a 503 means.
//!
//! Built on `ureq`: blocking, as the worker wants (each of its threads plays one game at a time
//! on the calling thread, and a long poll is one call with a read timeout; no runtime on the
//! worker), well kept, and it parses the answers (chunks, lengths, `100 Continue`) so that
//! this module does not. One request per connection (`Connection: close`, no pool), no
//! redirects followed, no proxy from the environment, plain `http://` only: the league is
//! reached over loopback or a trusted network (TLS is a proxy's job in front of it).

use super::wire::{AddRequest, Added, LeaseRequest, Leased, Register, Registered, Release};
use super::wire::{Renew, Reply, ResultRequest, LONG_POLL, RESULT_LIMIT};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::time::Duration;

/// How long the server may take to build and check bots added (`league add`, `remove`).
pub const BUILD_WAIT: Duration = Duration::from_secs(900);
/// How long an upload waits for the server's go-ahead before it sends its body anyway.
const CONTINUE_WAIT: Duration = Duration::from_secs(10);
/// The largest answer read but a bot's archive: a JSON message (a lease, the standings).
const ANSWER_LIMIT: u64 = RESULT_LIMIT as u64;
/// The largest bot archive fetched: its files are at most [`super::unpack::MAX_BYTES`], and
/// the tar headers and gzip's worst case cannot double that.
const ARCHIVE_LIMIT: u64 = 2 * super::unpack::MAX_BYTES;

/// The connection's buffers in each direction, in bytes: a request's or an answer's head must
/// fit (bodies pass through in pieces).
const BUFFER: usize = 16 << 10;

/// A call to the league that failed: not reached, not answered in full, or refused.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{url} is not a league's address: give it as http://HOST:PORT")]
    Url { url: String },
    #[error(
        "cannot reach the league at {url}: {source}; is `arbiter league serve` running there?"
    )]
    Connect { url: String, source: ureq::Error },
    #[error("the league at {url} did not answer in full: {source}")]
    Read { url: String, source: ureq::Error },
    #[error("the league at {url} answered something that is not HTTP: {source}")]
    NotHttp { url: String, source: ureq::Error },
    #[error(
        "the league at {url} sent an answer larger than {} MiB to {what}: is it a league of \
         this arbiter's version?", limit >> 20
    )]
    TooLarge {
        url: String,
        what: &'static str,
        limit: u64,
    },
    /// The server refused (any status but 2xx), with what it said.
    #[error("the league at {url} refused {what}: {status} {message}")]
    Status {
        url: String,
        what: &'static str,
        status: u16,
        message: String,
    },
    #[error(
        "the league at {url} answered {what} with something this arbiter cannot read \
         ({source}): are both the same version?"
    )]
    Decode {
        url: String,
        what: &'static str,
        source: serde_json::Error,
    },
}

impl ClientError {
    /// Whether trying again later may help: the server could not be reached or cut the
    /// answer short (the address is fine, and nothing was refused).
    pub fn transient(&self) -> bool {
        matches!(
            self,
            ClientError::Connect { .. } | ClientError::Read { .. } | ClientError::NotHttp { .. }
        )
    }

    /// The machine's fault that kept the call from being made or read (this machine out of
    /// descriptors or memory: no socket could be opened), if it was one: the league is not
    /// lost, this machine is short of something.
    pub fn machine(&self) -> Option<crate::bot::MachineFault> {
        let source = match self {
            ClientError::Connect { source, .. }
            | ClientError::Read { source, .. }
            | ClientError::NotHttp { source, .. } => source,
            _ => return None,
        };
        let mut inner: Option<&(dyn std::error::Error + 'static)> = Some(source);
        while let Some(err) = inner {
            if let Some(fault) = err
                .downcast_ref::<std::io::Error>()
                .and_then(crate::bot::MachineFault::of)
            {
                return Some(fault);
            }
            if let Some(ureq::Error::Io(io)) = err.downcast_ref::<ureq::Error>() {
                return crate::bot::MachineFault::of(io);
            }
            inner = err.source();
        }
        None
    }

    /// What the server said with a refusal.
    pub fn message(&self) -> Option<&str> {
        match self {
            ClientError::Status { message, .. } => Some(message),
            _ => None,
        }
    }

    /// The HTTP status of a refusal.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// `host:port` of an `http://host:port[/]` address.
pub fn authority(url: &str) -> Option<&str> {
    let host = url.strip_prefix("http://")?.trim_end_matches('/');
    (!host.is_empty() && !host.contains('/')).then_some(host)
}

/// What may stand in a URL as itself (RFC 3986's unreserved characters); every other byte is
/// percent-encoded.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `text` as one URL path segment or query value.
pub fn segment(text: &str) -> String {
    utf8_percent_encode(text, UNRESERVED).to_string()
}

/// An answer read whole (any status).
struct HttpAnswer {
    status: u16,
    body: Vec<u8>,
}

impl HttpAnswer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).trim().to_string()
    }
}

/// A league's API at one address, with one token (none for the public pages).
#[derive(Clone)]
pub struct Client {
    url: String,
    token: Option<String>,
    agent: ureq::Agent,
    /// How long every call may wait for each read, instead of its endpoint's own wait.
    wait: Option<Duration>,
}

impl Client {
    /// A client of the league at `url` (`http://HOST:PORT`); `connect` bounds each connection.
    pub fn new(url: &str, token: Option<&str>, connect: Duration) -> Result<Client, ClientError> {
        let url = url.trim_end_matches('/');
        if authority(url).is_none() {
            return Err(ClientError::Url { url: url.into() });
        }
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .proxy(None)
            .max_idle_connections(0)
            .max_idle_connections_per_host(0)
            .timeout_connect(Some(connect))
            .timeout_await_100(Some(CONTINUE_WAIT))
            // ureq's 128 KiB buffers, zeroed for each connection, cost more than the rest of
            // a call to a server on loopback; the league's heads are well under 16 KiB.
            .input_buffer_size(BUFFER)
            .output_buffer_size(BUFFER)
            .max_response_header_size(BUFFER)
            .user_agent(format!("arbiter/{}", super::wire::VERSION))
            .build();
        Ok(Client {
            url: url.to_string(),
            token: token.map(str::to_string),
            agent: config.into(),
            wait: None,
        })
    }

    /// The same client with every call waiting `wait` for each read (e.g. a quick check
    /// that a server runs).
    pub fn waiting(mut self, wait: Duration) -> Client {
        self.wait = Some(wait);
        self
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends one request and reads its answer whole, whatever its status (`upload`: the body
    /// waits for the server's `100 Continue`, so that a refusal comes before it is sent).
    #[allow(clippy::too_many_arguments)]
    fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<(&[u8], &str)>,
        upload: bool,
        wait: Duration,
        limit: u64,
        what: &'static str,
    ) -> Result<HttpAnswer, ClientError> {
        let url = &self.url;
        let mut req = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{url}{path}"))
            .header("Connection", "close");
        if let Some(t) = &self.token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        if let Some((_, kind)) = body {
            req = req.header("Content-Type", kind);
        }
        if upload {
            req = req.header("Expect", "100-continue");
        }
        let bad_url = |_| ClientError::Url { url: url.clone() };
        let wait = self.wait.unwrap_or(wait);
        let sent = match body {
            Some((bytes, _)) => {
                let req = req.body(bytes).map_err(bad_url)?;
                let req = self.agent.configure_request(req);
                self.agent.run(req.timeout_per_read(Some(wait)).build())
            }
            None => {
                let req = req.body(()).map_err(bad_url)?;
                let req = self.agent.configure_request(req);
                self.agent.run(req.timeout_per_read(Some(wait)).build())
            }
        };
        let mut answer = sent.map_err(|e| self.failed(e))?;
        let status = answer.status().as_u16();
        let body = answer
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(limit) => ClientError::TooLarge {
                    url: url.clone(),
                    what,
                    limit,
                },
                e => self.failed(e),
            })?;
        Ok(HttpAnswer { status, body })
    }

    /// What a failed exchange was.
    fn failed(&self, e: ureq::Error) -> ClientError {
        use std::io::ErrorKind as K;
        let url = self.url.clone();
        match e {
            ureq::Error::BadUri(_) | ureq::Error::Http(_) => ClientError::Url { url },
            ureq::Error::HostNotFound
            | ureq::Error::ConnectionFailed
            | ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => {
                ClientError::Connect { url, source: e }
            }
            ureq::Error::Io(ref io)
                if matches!(
                    io.kind(),
                    K::ConnectionRefused
                        | K::AddrNotAvailable
                        | K::NetworkUnreachable
                        | K::HostUnreachable
                ) =>
            {
                ClientError::Connect { url, source: e }
            }
            ureq::Error::Protocol(_) => ClientError::NotHttp { url, source: e },
            e => ClientError::Read { url, source: e },
        }
    }

    /// One call whose 2xx answer is the body as it came; any other status is refused.
    #[allow(clippy::too_many_arguments)]
    fn bytes(
        &self,
        method: &str,
        path: &str,
        body: Option<(&[u8], &str)>,
        upload: bool,
        wait: Duration,
        limit: u64,
        what: &'static str,
    ) -> Result<Vec<u8>, ClientError> {
        let a = self.send(method, path, body, upload, wait, limit, what)?;
        if !(200..300).contains(&a.status) {
            return Err(ClientError::Status {
                url: self.url.clone(),
                what,
                status: a.status,
                message: a.text(),
            });
        }
        Ok(a.body)
    }

    /// One JSON call: `ask` sent (POST) or nothing (GET), the 2xx answer read as `T`.
    fn json<T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        ask: Option<&impl Serialize>,
        wait: Duration,
        what: &'static str,
    ) -> Result<T, ClientError> {
        let body = ask.map(|a| serde_json::to_vec(a).expect("a wire message serialises"));
        let body = body.as_deref().map(|b| (b, "application/json"));
        let got = self.bytes(method, path, body, false, wait, ANSWER_LIMIT, what)?;
        serde_json::from_slice(&got).map_err(|source| ClientError::Decode {
            url: self.url.clone(),
            what,
            source,
        })
    }

    fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        ask: &impl Serialize,
        wait: Duration,
        what: &'static str,
    ) -> Result<T, ClientError> {
        self.json("POST", path, Some(ask), wait, what)
    }

    /// `POST /api/work/register`: a worker's session.
    pub fn register(&self, me: &Register) -> Result<Registered, ClientError> {
        let wait = Duration::from_secs(60);
        self.post("/api/work/register", me, wait, "the registration")
    }

    /// `POST /api/work/lease`: games to play (none when the long poll ends first).
    pub fn lease(&self, ask: &LeaseRequest) -> Result<Leased, ClientError> {
        let wait = LONG_POLL + Duration::from_secs(30);
        self.post("/api/work/lease", ask, wait, "the lease")
    }

    /// `POST /api/work/renew`: the session's leases renewed.
    pub fn renew(&self, ask: &Renew) -> Result<Reply, ClientError> {
        self.post(
            "/api/work/renew",
            ask,
            Duration::from_secs(30),
            "the renewal",
        )
    }

    /// `POST /api/work/release`: a leased game given back unplayed.
    pub fn release(&self, ask: &Release) -> Result<(), ClientError> {
        let body = serde_json::to_vec(ask).expect("a wire message serialises");
        let wait = Duration::from_secs(30);
        let body = Some((&body[..], "application/json"));
        let path = "/api/work/release";
        self.bytes("POST", path, body, false, wait, ANSWER_LIMIT, "the release")
            .map(drop)
    }

    /// `POST /api/work/result`: a finished game.
    pub fn result(&self, done: &ResultRequest) -> Result<Reply, ClientError> {
        let wait = Duration::from_secs(120);
        self.post("/api/work/result", done, wait, "the result")
    }

    /// `GET /api/work/bot/HASH`: a bot's archive, for session `session` (which must hold one
    /// of its games).
    pub fn bot_archive(&self, hash: &str, session: &str) -> Result<Vec<u8>, ClientError> {
        let path = format!(
            "/api/work/bot/{}?session={}",
            segment(hash),
            segment(session)
        );
        let wait = Duration::from_secs(600);
        self.bytes(
            "GET",
            &path,
            None,
            false,
            wait,
            ARCHIVE_LIMIT,
            "a bot's archive",
        )
    }

    /// `GET /api/standings`, as the page's script reads it.
    pub fn standings(&self) -> Result<serde_json::Value, ClientError> {
        let wait = Duration::from_secs(30);
        self.json("GET", "/api/standings", None::<&()>, wait, "the standings")
    }

    /// `POST /api/bots`: bots on the server's machine added (built and checked first).
    pub fn add(&self, ask: &AddRequest) -> Result<Added, ClientError> {
        self.post("/api/bots", ask, BUILD_WAIT, "adding bots")
    }

    /// `POST /api/bots/NAME`: a bot's source file (`file`: its name) or folder (a `.tar.gz`,
    /// `file` none) uploaded, built and checked; `candidate`: an SPRT against that bot.
    pub fn upload(
        &self,
        name: &str,
        file: Option<&str>,
        candidate: Option<&str>,
        bytes: &[u8],
    ) -> Result<Added, ClientError> {
        let mut query = Vec::new();
        if let Some(f) = file {
            query.push(format!("file={}", segment(f)));
        }
        if let Some(old) = candidate {
            query.push(format!("candidate={}", segment(old)));
        }
        let mut path = format!("/api/bots/{}", segment(name));
        if !query.is_empty() {
            path += &format!("?{}", query.join("&"));
        }
        let what = "the upload";
        let body = Some((bytes, "application/octet-stream"));
        let got = self.bytes("POST", &path, body, true, BUILD_WAIT, ANSWER_LIMIT, what)?;
        serde_json::from_slice(&got).map_err(|source| ClientError::Decode {
            url: self.url.clone(),
            what,
            source,
        })
    }

    /// `DELETE /api/bots/NAME`: a bot removed.
    pub fn remove(&self, name: &str) -> Result<(), ClientError> {
        let path = format!("/api/bots/{}", segment(name));
        let what = "the removal";
        self.bytes("DELETE", &path, None, false, BUILD_WAIT, ANSWER_LIMIT, what)
            .map(drop)
    }

    /// `GET path`, any status: its status and text (the load test's floor, a page that is
    /// not there).
    pub fn probe(&self, path: &str) -> Result<(u16, String), ClientError> {
        let wait = Duration::from_secs(60);
        let a = self.send("GET", path, None, false, wait, ANSWER_LIMIT, "a page")?;
        Ok((a.status, a.text()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The hand-written encoder `commands/league.rs` had before the crate: the new one must
    /// give the same bytes.
    fn reference(name: &str) -> String {
        name.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect()
    }

    #[test]
    fn addresses() {
        assert_eq!(authority("http://127.0.0.1:8737/"), Some("127.0.0.1:8737"));
        assert_eq!(authority("http://h:1"), Some("h:1"));
        assert_eq!(authority("127.0.0.1:8737"), None);
        assert_eq!(authority("https://h:1"), None);
        assert_eq!(authority("http://h:1/api"), None);
        assert!(matches!(
            Client::new("h:1", None, Duration::from_secs(1)),
            Err(ClientError::Url { .. })
        ));
    }

    #[test]
    fn segments_are_encoded_as_before() {
        for s in [
            "",
            "w#1",
            "a b/c?d&e=f",
            "é-ü_~.",
            "%41",
            "-rf",
            "\u{0}\u{7f}\u{10ffff}",
        ] {
            assert_eq!(segment(s), reference(s), "{s:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn any_text_is_encoded_as_before(s in any::<String>()) {
            prop_assert_eq!(segment(&s), reference(&s));
        }
    }

    /// No server at the address: a connection error, which a worker tries again.
    #[test]
    fn a_closed_port_cannot_be_reached_and_may_be_tried_again() {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", free.local_addr().unwrap());
        drop(free);
        let c = Client::new(&url, None, Duration::from_secs(5)).unwrap();
        let e = c.standings().unwrap_err();
        assert!(matches!(e, ClientError::Connect { .. }), "{e:?}");
        assert!(e.transient());
        assert!(e.to_string().contains("cannot reach the league"), "{e}");
    }
}
