//! `arbiter league`: a tournament that never stops. One server process owns a league folder
//! (its settings, bots and the same crash-safe records every run writes), schedules games for
//! ever with a lease-based scheduler ([`scheduler`], pure), plays them on local workers with
//! the same engine, sandbox and clock as `tournament` ([`play`], the one adapter to the engine),
//! refreshes the ratings off the games' path ([`ratings`]) and serves the live page, the JSON API
//! and server-sent events over HTTP ([`http`], [`page`]). Bots come and go while it runs
//! (`league add`/`remove` reach it over HTTP with the admin token; bots uploaded over HTTP,
//! [`upload`], by the admin or their own author: [`authors`]). Remote workers (issue 38) lease
//! games over HTTP from the same scheduler ([`remote`] on the server, [`worker`] on their
//! machines, [`wire`] the messages they share, [`tokens`] says who may, [`bundle`] carries the
//! bots; [`client`] is the one HTTP client of the API, for the worker, the command line and the
//! load test; [`slurm`] writes a cluster's pool of them). [`settings`] holds `league.toml`'s
//! data; the files' layers are drawn in `docs/design.md`. What each party may do, and what nothing it
//! sends may do (issue 45), is checked where it comes in: [`names`] for the names that travel,
//! [`remote`]'s checks for workers' results, [`locks`] so that no panic takes the others down.

pub mod authors;
pub mod backoff;
pub mod bundle;
pub mod cached;
pub mod client;
pub mod error;
pub mod events;
pub mod folder;
pub mod http;
pub mod lines;
pub mod listen;
pub mod locks;
pub mod names;
pub mod page;
pub mod play;
pub mod ratings;
pub mod record_index;
pub mod remote;
pub mod residuals;
pub mod scheduler;
pub mod server;
pub mod settings;
pub mod slurm;
pub mod sprt;
pub mod tar_members;
pub mod token_file;
pub mod tokens;
pub mod trust;
pub mod unpack;
pub mod upload;
pub mod versions;
pub mod wire;
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
    Start(#[from] server::LeagueStartError),
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

/// A league's port, bound before anything is written into its folder: a start on a taken port
/// writes nothing.
pub struct Bound {
    rt: tokio::runtime::Runtime,
    listener: tokio::net::TcpListener,
    /// Where it listens (the port chosen, for port 0).
    pub addr: SocketAddr,
}

/// Binds `listen` for a league (on the runtime that will serve it).
pub fn bind_port(listen: SocketAddr) -> Result<Bound, ServeError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("league-http")
        .enable_all()
        .build()
        .map_err(ServeError::Serve)?;
    let listener = rt.block_on(async {
        match bind(listen) {
            Ok(l) => Ok(l),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                Err(ServeError::PortTaken { addr: listen })
            }
            Err(source) => Err(ServeError::Bind {
                addr: listen,
                source,
            }),
        }
    })?;
    let addr = listener.local_addr().map_err(ServeError::Serve)?;
    Ok(Bound { rt, listener, addr })
}

/// Serves the league in `dir` on the port `bound` with `workers` local workers, until killed.
/// Says where it listens on stdout (`league: listening on http://ADDR`) once it does.
pub fn serve(
    bound: Bound,
    lock: crate::results::lock::FolderLock,
    dir: PathBuf,
    settings: settings::LeagueSettings,
    workers: usize,
) -> Result<(), ServeError> {
    let Bound { rt, listener, addr } = bound;
    rt.block_on(async move {
        let limits = settings.http.clone();
        let cap = listen::connection_cap(
            limits.max_connections,
            crate::bot::open_files::limit(),
            workers,
        );
        let shared =
            tokio::task::block_in_place(|| server::start(lock, dir.clone(), settings, workers))?;
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
        if cap < limits.max_connections {
            eprintln!(
                "arbiter: note: the league takes at most {cap} connections at once, not {}: the \
                 open-file limit ({}) keeps the rest for its {workers} local workers' games \
                 (raise it with ulimit -n to take more)",
                limits.max_connections,
                crate::bot::open_files::limit()
            );
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
        listen::serve(listener, http::router(shared), &limits, cap)
            .await
            .map_err(ServeError::Serve)
    })
}
