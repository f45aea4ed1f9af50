//! The league's door for workers on other machines (`arbiter league work`): JSON over HTTP,
//! every call with a worker token (`Authorization: Bearer`, see [`super::tokens`]). A worker
//! registers (its arbiter version, cores, memory, sandbox, a quick bench figure) and gets a
//! session and the league's game settings; it long-polls for a lease of a few games (each with
//! its bots' archives by hash, [`super::bundle`]), fetches each bot it lacks by hash, renews its
//! lease while it plays, and sends each result as it finishes. Results go to the same recorder
//! as local workers' ([`super::server::Shared::finished`]): the first result for a game id wins,
//! a late or second one is dropped. A lease that is not renewed (a worker killed, a machine
//! lost) expires in the scheduler and its games go to another worker.
//!
//! A worker token is trusted with little (issue 45): a result is heard only from the session
//! that holds its game's lease and only once every field is checked against that game
//! (`check`); an archive goes only to a session that holds a game of its bot; one token holds
//! at most `[workers] sessions_per_token` sessions, each at most as many games at once as its
//! cores (and `[workers] max_concurrency`); the bench gate's median counts each token once.
//!
//! Refusals say which and what to do: a wrong or revoked token (401/403), another arbiter
//! version (409), a session the server does not know (410: the server restarted; register
//! again), a result no referee could have made (400, naming the field), a game another worker
//! holds (403), too many sessions (429), a league that cannot record (503).
//!
//! Its parts (the messages, shared with the worker, are [`super::wire`]'s): `lease` (register, lease, renew,
//! the bots' archives), `held` (the games out and their holders), `check` (a result against its
//! game), `results` (a result recorded or voided), `workers` (`/api/workers`, the bench gate,
//! the league's capacity, the workers' knobs) and `quarantine` (workers whose results are off
//! the fit, or who void too often). This file holds the state they share and the token and
//! session checks every call makes.
//!
//! Their state (sessions, archives, the games out, voids, the games each worker played,
//! quarantines) is one [`RemoteState`] behind one lock ([`Remote::state`]), as the league's is
//! ([`super::server`]); it is taken after no lock of the league's and held only to compute:
//! the logs (`played.jsonl`, `voided.jsonl`, `quarantined.jsonl`) are appended after it is
//! dropped, and the workers' residuals are checked on a snapshot of the games played. Beside
//! it, `packing` guards nothing but the making of an archive (held while a bot is packed, so
//! that it is packed once).

use super::bundle::Sources;
use super::cached::Cached;
use super::folder::BotEntry;
use super::locks::Locked;
use super::residuals::PlayedBy;
use super::server::Shared;
use super::tokens;
use super::trust::{self, Quarantined, Voided};
use super::wire::{self, Register, REQUEST_LIMIT, RESULT_LIMIT};
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

pub mod check;
mod held;
mod lease;
mod quarantine;
mod results;
mod workers;

pub use workers::{worker_lines, BENCH_FACTOR};

struct Session {
    name: String,
    info: Register,
    /// Games it may hold at once: its concurrency, at most its cores and the league's
    /// `[workers] max_concurrency`.
    slots: usize,
    games: u64,
    voided: u64,
    /// No game until then (it voided one).
    paused_until: Option<Instant>,
    /// Why it gets no timed games: its bench figure was far off the league's median.
    slow: Option<String>,
    last_seen: Instant,
}

struct Archive {
    sources: Sources,
    stamp: Vec<(u64, Option<SystemTime>)>,
    hash: String,
}

/// The remote side's state, behind one lock ([`Remote::state`]; see the module's doc).
#[derive(Default)]
struct RemoteState {
    sessions: HashMap<String, Session>,
    /// The number of the next session.
    next_session: u64,
    /// Each bot's latest archive, by name.
    archives: HashMap<String, Archive>,
    /// Archives by hash, for download.
    by_hash: HashMap<String, Arc<Vec<u8>>>,
    /// Games leased to remote workers and not yet returned, with their holders.
    held: held::HeldGames,
    /// How often each game was voided (from the folder's log at start).
    voids: HashMap<u64, u32>,
    /// Games each worker (by name) voided (from the folder's log at start).
    voided_by: HashMap<String, u64>,
    /// The latest voided games, newest last, for the page.
    voided: std::collections::VecDeque<Voided>,
    /// Remote workers' recorded games (the residuals' input; kept in the folder's
    /// [`trust::PLAYED`] log, read back at start). Shared with a check of the residuals
    /// running meanwhile (a game played then copies it).
    played: Arc<Vec<PlayedBy>>,
    /// Quarantined workers, by name.
    quarantined: std::collections::BTreeMap<String, Quarantined>,
    /// When the workers' residuals were last checked ([`quarantine::CHECK_EVERY`]).
    last_check: Option<Instant>,
}

/// The remote side beside the league's.
pub struct Remote {
    s: Arc<Shared>,
    state: Mutex<RemoteState>,
    /// Held while an archive is made, so that it is made once (see [`lease::archive`]); it
    /// guards no state.
    packing: Mutex<()>,
    /// The worker tokens (read again when the file changes).
    tokens: tokens::Tokens,
    /// The league's bot list (read again when the file changes).
    bots: Cached<Vec<BotEntry>>,
    /// The server machine's own bench figure (milliseconds; see [`super::wire::bench`]).
    own_bench_ms: f64,
    /// This start of the server ([`Registered::server`]).
    start_id: String,
}

impl Remote {
    /// The remote side's state, under its one lock: hold it only to compute (no file written
    /// meanwhile). The only lock taken under it is the league's state's ([`Shared::state`]),
    /// briefly; never the other way round.
    fn state(&self) -> MutexGuard<'_, RemoteState> {
        self.state.locked()
    }
}

/// Voided games `/api/workers` lists.
const VOIDED_SHOWN: usize = 100;

pub fn routes(s: Arc<Shared>) -> Router {
    let s_dir = s.dir.clone();
    // What the folder's logs say: the games remote workers played, the quarantines, and the
    // voided games (how often each was, which worker may not play each again, and how many
    // each worker voided).
    let played = trust::read_played(&s_dir);
    let quarantined = trust::read_quarantined(&s_dir);
    let log = trust::read(&s_dir);
    let mut voided_by: HashMap<String, u64> = HashMap::new();
    {
        let mut league = s.state();
        let now = Instant::now();
        for v in &log {
            *voided_by
                .entry(held::name_of(&v.worker).to_string())
                .or_default() += 1;
            league.sched.avoid(v.game_id, held::name_of(&v.worker), now);
        }
    }
    let any_quarantined = !quarantined.is_empty();
    let state = RemoteState {
        next_session: 1,
        voids: trust::counts(&log),
        voided_by,
        voided: log
            .iter()
            .skip(log.len().saturating_sub(VOIDED_SHOWN))
            .cloned()
            .collect(),
        played: Arc::new(played),
        quarantined: quarantined
            .into_iter()
            .map(|q| (q.worker.clone(), q))
            .collect(),
        ..RemoteState::default()
    };
    let r = Arc::new(Remote {
        s,
        state: Mutex::new(state),
        packing: Mutex::default(),
        tokens: tokens::Tokens::new(&s_dir),
        bots: Cached::new(s_dir.join(super::folder::BOTS)),
        own_bench_ms: super::wire::bench().as_secs_f64() * 1000.0,
        start_id: start_id(),
    });
    if any_quarantined {
        quarantine::recount(&r);
    }
    // A worker's token is checked before its request's body is read (a stranger's body is
    // never read); only a result may be large.
    let work = Router::new()
        .route("/api/work/register", post(lease::register))
        .route("/api/work/lease", post(lease::lease))
        .route("/api/work/renew", post(lease::renew))
        .route("/api/work/release", post(lease::release))
        .route(
            "/api/work/result",
            post(results::result).layer(DefaultBodyLimit::max(RESULT_LIMIT)),
        )
        .route("/api/work/bot/{hash}", get(lease::bot))
        .route_layer(axum::middleware::from_fn_with_state(r.clone(), token_first));
    Router::new()
        .merge(work)
        .route("/api/workers", get(workers::workers))
        .layer(DefaultBodyLimit::max(REQUEST_LIMIT))
        .with_state(r)
}

/// Refuses a request without a valid worker token, or one that announces a body past its
/// route's limit, before anything reads its body (the body extractors read up to the limit
/// before they refuse).
async fn token_first(
    axum::extract::State(r): axum::extract::State<Arc<Remote>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Err(refused) = worker(&r, request.headers()) {
        return *refused;
    }
    let limit = match request.uri().path() {
        "/api/work/result" => RESULT_LIMIT,
        _ => REQUEST_LIMIT,
    };
    let announced = super::listen::announced_length(request.headers());
    if announced.is_some_and(|n| n > limit as u64) {
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a worker's request here is at most {limit} bytes"),
        );
    }
    next.run(request).await
}

/// An id of this start of the server: its process and the time it started, in nanoseconds
/// (two starts of one league never share both).
fn start_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos:x}", std::process::id())
}

fn refuse(status: StatusCode, why: impl std::fmt::Display) -> Response {
    (status, format!("{why}\n")).into_response()
}

fn lease_time(r: &Remote) -> Duration {
    Duration::from_secs(r.s.state().sched.knobs().lease_s)
}

/// The refusal of every result and lease while the league cannot record (its recorder
/// failed: [`Shared::recording_failure`]).
fn not_recording(r: &Remote) -> Option<Response> {
    let why = r.s.recording_failure()?;
    Some(refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "the league stopped recording ({why}): no result is accepted and no game leased \
             until its owner fixes that and starts it again"
        ),
    ))
}

/// The worker name a request's token belongs to.
fn worker(r: &Remote, headers: &HeaderMap) -> Result<String, Box<Response>> {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let Some(token) = token else {
        return Err(Box::new(refuse(
            StatusCode::UNAUTHORIZED,
            format!(
                "a worker needs a token: run `arbiter league work URL {} FILE`, FILE holding \
                 one made by `arbiter league token DIR NAME` on the server",
                crate::options::Opt::TokenFile
            ),
        )));
    };
    r.tokens.check(token).map_err(|why| {
        Box::new(match why {
            tokens::Refusal::Unknown { .. } => refuse(StatusCode::UNAUTHORIZED, why),
            tokens::Refusal::Revoked { .. } => refuse(StatusCode::FORBIDDEN, why),
        })
    })
}

/// The worker's session, checked against its token, marked as heard from; its worker's name.
fn session(r: &Remote, headers: &HeaderMap, id: &str) -> Result<String, Box<Response>> {
    let name = worker(r, headers)?;
    let mut state = r.state();
    match state.sessions.get_mut(id) {
        Some(s) if s.name == name => {
            s.last_seen = Instant::now();
            Ok(name)
        }
        _ => Err(Box::new(refuse(
            StatusCode::GONE,
            format!("unknown session {id:?} (the server restarted?): register again"),
        ))),
    }
}

type Body<T> = Result<Json<T>, axum::extract::rejection::JsonRejection>;

/// A request of a registered worker: the body read and its session checked (see [`session`]).
fn from_worker<T: wire::OfSession>(
    r: &Remote,
    headers: &HeaderMap,
    b: Body<T>,
) -> Result<T, Box<Response>> {
    let req = body(b)?;
    session(r, headers, req.session())?;
    Ok(req)
}

fn body<T>(b: Body<T>) -> Result<T, Box<Response>> {
    b.map(|Json(t)| t).map_err(|e| {
        Box::new(refuse(
            StatusCode::BAD_REQUEST,
            format!("not a worker's request: {e}"),
        ))
    })
}
