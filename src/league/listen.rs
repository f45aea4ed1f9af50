//! The league's connections, bounded in time and number, because anyone on the network can
//! reach its port. axum's own `serve` holds a connection for as long as its client likes: 1,100
//! half-sent requests held the server's descriptors until its standings stopped answering and
//! its local workers could start no game. Here each connection is served by hyper's HTTP/1
//! connection with axum's router, and:
//! - a request's header must arrive whole within `header_timeout_s` (also the longest a
//!   connection waits idle for its next request);
//! - a request body that stops arriving, or an answer its client stops taking, for
//!   `stall_timeout_s` ends the connection (a long poll or a build answered late is not a
//!   stall: nothing is pending on the connection meanwhile);
//! - at most `max_connections` are open at once, fewer where the open-file limit must also
//!   hold the local workers' games ([`connection_cap`]); when every one is taken, the one that
//!   has waited longest without a request under way is closed for the newcomer (a half-sent
//!   request holds no place a real client needs), and if every connection has a request under
//!   way the newcomer waits in the listen queue;
//! - headers are at most [`MAX_HEADER_BYTES`].
//!
//! The caps on event streams and on bodies are the routes' ([`super::http`], [`super::remote`]).

use super::settings::HttpLimits;
use axum::body::Body;
use axum::body::Bytes;
use axum::Router;
use http_body::Frame;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

/// The largest request header (its start line included), in bytes: beyond it, 431.
pub const MAX_HEADER_BYTES: usize = 16 << 10;

/// Files kept for the server itself beside its connections and its local workers' games
/// (records, replay pages, bot archives being packed, the runtime's own).
const FILES_KEPT: u64 = 128;

/// The fewest connections a server takes, however low the open-file limit.
const MIN_CONNECTIONS: usize = 8;

/// The body's length as its request announces it (`Content-Length`).
pub fn announced_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
}

/// The connections a server with `workers` local workers may hold under the open-file limit
/// `files` (and at most `asked`): each connection holds a file, and each game a local worker
/// plays holds many ([`crate::engine::files_for_games`]).
pub fn connection_cap(asked: usize, files: u64, workers: usize) -> usize {
    let kept = crate::engine::files_for_games(workers).saturating_add(FILES_KEPT);
    let room = usize::try_from(files.saturating_sub(kept)).unwrap_or(usize::MAX);
    asked.min(room).max(MIN_CONNECTIONS)
}

/// One open connection as the cap sees it.
struct Open {
    /// Requests under way (from the call until the answer's body is sent or dropped).
    busy: usize,
    /// Since when none has been under way.
    idle_since: Instant,
    /// Closes the connection.
    close: Arc<Notify>,
    /// Asked to close (to make room).
    closing: bool,
}

/// The open connections.
struct Registry {
    cap: usize,
    open: Mutex<(u64, HashMap<u64, Open>)>,
    /// A connection closed: there may be room.
    closed: Notify,
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, HashMap<u64, Open>)> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until a new connection may be taken, closing the connection idle longest when
    /// every place is taken.
    async fn room(&self) {
        loop {
            let closed = self.closed.notified();
            {
                let mut guard = self.lock();
                let open = &mut guard.1;
                if open.len() < self.cap {
                    return;
                }
                let closing = open.values().any(|o| o.closing);
                if !closing {
                    let oldest = open
                        .values_mut()
                        .filter(|o| o.busy == 0)
                        .min_by_key(|o| o.idle_since);
                    if let Some(o) = oldest {
                        o.closing = true;
                        o.close.notify_one();
                    }
                }
            }
            closed.await;
        }
    }

    /// A new connection: its id and what closes it.
    fn add(&self) -> (u64, Arc<Notify>) {
        let close = Arc::new(Notify::new());
        let mut guard = self.lock();
        guard.0 += 1;
        let id = guard.0;
        guard.1.insert(
            id,
            Open {
                busy: 0,
                idle_since: Instant::now(),
                close: close.clone(),
                closing: false,
            },
        );
        (id, close)
    }

    fn remove(&self, id: u64) {
        self.lock().1.remove(&id);
        self.closed.notify_one();
    }

    /// A request of connection `id` begins; it ends when the guard is dropped.
    fn busy(self: &Arc<Registry>, id: u64) -> InFlight {
        if let Some(o) = self.lock().1.get_mut(&id) {
            o.busy += 1;
        }
        InFlight {
            registry: self.clone(),
            id,
        }
    }
}

/// A request under way (see [`Registry::busy`]).
struct InFlight {
    registry: Arc<Registry>,
    id: u64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(o) = self.registry.lock().1.get_mut(&self.id) {
            o.busy = o.busy.saturating_sub(1);
            o.idle_since = Instant::now();
        }
    }
}

/// Serves `app` on `listener` until the listener fails, each connection bounded as the
/// module's doc says, at most `cap` at once ([`connection_cap`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: &HttpLimits,
    cap: usize,
) -> std::io::Result<()> {
    let registry = Arc::new(Registry {
        cap: cap.max(1),
        open: Mutex::new((0, HashMap::new())),
        closed: Notify::new(),
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.header_timeout())
        .max_header_size(MAX_HEADER_BYTES);
    let stall = limits.stall_timeout();
    let mut told_full = false;
    loop {
        registry.room().await;
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                told_full = false;
                stream
            }
            Err(e) if out_of_files(&e) => {
                // The connections and games hold every descriptor the limit allows: a place
                // frees when a connection or a game ends.
                if !std::mem::replace(&mut told_full, true) {
                    eprintln!(
                        "arbiter: warning: the league cannot take a connection: {e}; it tries \
                         again as connections close (raise the open-file limit, ulimit -n, or \
                         lower [http] max_connections in league.toml)"
                    );
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Err(e) if connection_error(&e) => continue,
            Err(e) => return Err(e),
        };
        let _ = stream.set_nodelay(true);
        let (id, close) = registry.add();
        let io = hyper_util::rt::TokioIo::new(Stalling::new(stream, stall));
        let service = {
            let (registry, app) = (registry.clone(), app.clone());
            hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let busy = registry.busy(id);
                let mut app = app.clone();
                let req = req.map(|b| Body::new(StallingBody::new(b, stall)));
                async move {
                    let answer = tower_service::Service::call(&mut app, req).await;
                    answer.map(|a| {
                        a.map(|b| {
                            Body::new(Finishing {
                                inner: b,
                                _busy: busy,
                            })
                        })
                    })
                }
            })
        };
        let conn = http.serve_connection(io, service);
        let registry = registry.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = conn => {}
                _ = close.notified() => {}
            }
            registry.remove(id);
        });
    }
}

/// Whether an accept failed for want of descriptors.
fn out_of_files(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// Whether an accept failed for that one connection only (it was reset before it was taken).
fn connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset | Interrupted
    )
}

/// A deadline armed while something waits, disarmed when it moves on.
struct Stall {
    after: Duration,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Stall {
    fn new(after: Duration) -> Stall {
        Stall { after, timer: None }
    }

    /// `Ready` once the wait that just returned `Pending` has lasted the whole stall time.
    fn pending(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let after = self.after;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(after)));
        timer.as_mut().poll(cx)
    }

    fn moved(&mut self) {
        self.timer = None;
    }
}

fn stalled(what: &str, after: Duration) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!("{what} did not move for {} s", after.as_secs()),
    )
}

/// A connection whose writes may wait at most the stall time for the client to take them.
/// (Reads are bounded elsewhere: a header by hyper's timeout, a body by [`StallingBody`]; a
/// client waiting for a slow answer is not stalled.)
struct Stalling<S> {
    inner: S,
    write: Stall,
}

impl<S> Stalling<S> {
    fn new(inner: S, after: Duration) -> Stalling<S> {
        Stalling {
            inner,
            write: Stall::new(after),
        }
    }

    fn write_poll<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        match poll {
            Poll::Pending => match self.write.pending(cx) {
                Poll::Ready(()) => Poll::Ready(Err(stalled("the answer", self.write.after))),
                Poll::Pending => Poll::Pending,
            },
            ready => {
                self.write.moved();
                ready
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Stalling<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Stalling<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.write_poll(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.write_poll(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.write_poll(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.write_poll(cx, poll)
    }
}

/// A request body that fails once no byte of it arrived for the stall time.
struct StallingBody {
    inner: hyper::body::Incoming,
    stall: Stall,
}

impl StallingBody {
    fn new(inner: hyper::body::Incoming, after: Duration) -> StallingBody {
        StallingBody {
            inner,
            stall: Stall::new(after),
        }
    }
}

impl http_body::Body for StallingBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Pending => match self.stall.pending(cx) {
                Poll::Ready(()) => {
                    let after = self.stall.after;
                    Poll::Ready(Some(Err(Box::new(stalled("the request's body", after)))))
                }
                Poll::Pending => Poll::Pending,
            },
            Poll::Ready(frame) => {
                self.stall.moved();
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// An answer's body that ends its request's [`InFlight`] when it is sent (or dropped).
struct Finishing {
    inner: Body,
    _busy: InFlight,
}

impl http_body::Body for Finishing {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_keeps_files_for_the_local_workers_games() {
        let games = crate::engine::files_for_games(2);
        assert_eq!(connection_cap(4096, 1 << 20, 2), 4096, "asked for fewer");
        assert_eq!(
            connection_cap(4096, 1024, 2),
            (1024 - games - FILES_KEPT) as usize
        );
        assert_eq!(connection_cap(4096, 100, 2), MIN_CONNECTIONS);
        assert!(connection_cap(4096, 1024, 8) < connection_cap(4096, 1024, 2));
    }
}
