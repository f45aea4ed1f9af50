//! `arbiter league`: a tournament that never stops. One server process owns a league folder
//! (its settings, bots and the same crash-safe records every run writes), schedules games for
//! ever with a lease-based scheduler ([`scheduler`], pure), plays them on local workers with
//! the same engine, sandbox and clock as `tournament` ([`play`], the one adapter to the engine),
//! refreshes the ratings off the games' path ([`ratings`]) and serves the live page, the JSON API
//! and server-sent events over HTTP ([`http`], [`page`]). Bots come and go while it runs
//! (`league add`/`remove` reach it over HTTP with the admin token, [`client`]; bots uploaded
//! over HTTP, [`upload`]). Remote workers
//! (issue 38) lease games over HTTP from the same scheduler ([`remote`] on the server,
//! [`worker`] on their machines, [`tokens`] says who may, [`bundle`] carries the bots;
//! [`slurm`] writes a cluster's pool of them).

pub mod bundle;
pub mod cached;
pub mod client;
pub mod folder;
pub mod http;
pub mod load;
pub mod page;
pub mod play;
pub mod ratings;
pub mod record_index;
pub mod remote;
pub mod residuals;
pub mod scheduler;
pub mod server;
pub mod slurm;
pub mod sprt;
pub mod token_file;
pub mod tokens;
pub mod trust;
pub mod upload;
pub mod worker;

use std::net::SocketAddr;
use std::path::PathBuf;

/// The port a league listens on unless told (on 127.0.0.1).
pub const DEFAULT_PORT: u16 = 8737;

/// A league server that could not serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "cannot listen on {addr}: the port is taken (another league or program listens there); \
         stop it, or choose another address with {} 127.0.0.1:PORT (port 0: any free one)",
        crate::options::Opt::Listen
    )]
    PortTaken { addr: SocketAddr },
    #[error(
        "cannot listen on {addr}: {source}; choose another address with {}",
        crate::options::Opt::Listen
    )]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Start(#[from] server::StartError),
    #[error(transparent)]
    Folder(#[from] folder::FolderError),
    #[error("the league's HTTP server failed: {0}")]
    Serve(std::io::Error),
}

/// Connections the kernel queues for the server before it accepts them (Linux caps it at
/// `net.core.somaxconn`, 4096 by default). The standard library's and tokio's 128 was too few
/// for a burst: at 1,000 simulated workers (`arbiter bench league`) 184 connections met a full
/// queue and were retried after a second.
const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `addr` with a queue of [`LISTEN_BACKLOG`] (`SO_REUSEADDR`, as tokio's own).
fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Serves the league in `dir` on `listen` with `workers` local workers, until killed. Says
/// where it listens on stdout (`league: listening on http://ADDR`) once it does.
pub fn serve(
    dir: PathBuf,
    settings: folder::LeagueSettings,
    listen: SocketAddr,
    workers: usize,
) -> Result<(), ServeError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("league-http")
        .enable_all()
        .build()
        .map_err(ServeError::Serve)?;
    rt.block_on(async move {
        // The port first: a taken one says so before any bot is built.
        let listener = match bind(listen) {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                return Err(ServeError::PortTaken { addr: listen })
            }
            Err(source) => {
                return Err(ServeError::Bind {
                    addr: listen,
                    source,
                })
            }
        };
        let addr = listener.local_addr().map_err(ServeError::Serve)?;
        let shared = tokio::task::block_in_place(|| server::start(dir.clone(), settings, workers))?;
        let url = format!("http://{addr}");
        folder::write_server(
            &dir,
            &folder::ServerNote {
                url: url.clone(),
                pid: std::process::id(),
            },
        )?;
        println!(
            "league: listening on {url} ({workers} local workers, folder {})",
            dir.display()
        );
        use std::io::Write;
        let _ = std::io::stdout().flush();
        axum::serve(listener, http::router(shared))
            .await
            .map_err(ServeError::Serve)
    })
}
