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
//! Refusals say which and what to do: a wrong or revoked token (401/403), another arbiter
//! version (409), a session the server does not know (410: the server restarted; register
//! again).

use super::bundle::{self, Sources};
use super::scheduler::Game;
use super::server::{GameLine, Shared};
use super::tokens;
use crate::engine::GameSettings;
use crate::referee::{GameResult, TurnRecord};
use crate::tournament::{Finished, GameSpec};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// The longest a lease request waits for a game.
pub const LONG_POLL: Duration = Duration::from_secs(20);
/// The largest result a worker may send (a game's turns included), in bytes.
pub const RESULT_LIMIT: usize = 64 << 20;
/// The version a worker must run: the server's own.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a worker says of itself when it registers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Register {
    pub version: String,
    pub host: String,
    pub cores: usize,
    pub memory_mb: u64,
    /// Whether bots run in arbiter's sandbox there.
    pub sandbox: bool,
    /// A quick CPU figure (milliseconds for a fixed amount of hashing; lower is faster).
    pub bench_ms: f64,
    pub concurrency: usize,
}

/// The answer to a registration.
#[derive(Debug, Serialize, Deserialize)]
pub struct Registered {
    pub session: String,
    pub game: GameSettings,
    /// How long a lease lasts unless renewed.
    pub lease_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct LeaseRequest {
    pub session: String,
    pub slots: usize,
    /// How long the server may wait for a game (at most [`LONG_POLL`]).
    pub wait_ms: u64,
}

/// A leased game and where each of its bots (by seat) comes from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LeasedGame {
    pub game: Game,
    pub bots: Vec<BotRef>,
}

/// A bot's archive (by hash) and the BOT argument that finds it once unpacked.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BotRef {
    pub hash: String,
    pub origin: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Leased {
    pub games: Vec<LeasedGame>,
    pub lease_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Renew {
    pub session: String,
}

/// A finished game as a worker sends it (the parts of [`GameResult`] its own serialisation
/// leaves out travel beside it).
#[derive(Debug, Serialize, Deserialize)]
pub struct ResultRequest {
    pub session: String,
    pub game_id: u64,
    pub result: GameResult,
    pub log: Vec<TurnRecord>,
    pub stderr_tails: Vec<String>,
    pub duration_us: u64,
}

/// The answer to a renewal or a result.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    /// The result was the first for its game (recorded); false: dropped (another came first).
    #[serde(default)]
    pub accepted: bool,
    /// The worker should stop (the league stops, or its token was revoked).
    pub stop: bool,
}

/// A registered worker process.
#[derive(Clone, Debug, Serialize)]
pub struct WorkerLine {
    pub session: String,
    pub name: String,
    #[serde(flatten)]
    pub info: Register,
    pub games: u64,
    /// Seconds since it was last heard from.
    pub last_seen_s: u64,
    /// Heard from within two lease times.
    pub alive: bool,
}

struct Session {
    name: String,
    info: Register,
    games: u64,
    last_seen: Instant,
}

struct Archive {
    sources: Sources,
    stamp: Vec<(u64, Option<SystemTime>)>,
    hash: String,
}

/// The remote side's state beside the league's.
pub struct Remote {
    s: Arc<Shared>,
    sessions: Mutex<HashMap<String, Session>>,
    next_session: Mutex<u64>,
    /// Each bot's latest archive, by name.
    archives: Mutex<HashMap<String, Archive>>,
    /// Archives by hash, for download.
    by_hash: Mutex<HashMap<String, Arc<Vec<u8>>>>,
    /// Held while an archive is made, so that it is made once (see [`archive`]).
    packing: Mutex<()>,
    /// Games leased to remote workers and not yet returned, by id.
    out: Mutex<HashMap<u64, Game>>,
}

pub fn routes(s: Arc<Shared>) -> Router {
    let r = Arc::new(Remote {
        s,
        sessions: Mutex::default(),
        next_session: Mutex::new(1),
        archives: Mutex::default(),
        by_hash: Mutex::default(),
        packing: Mutex::default(),
        out: Mutex::default(),
    });
    Router::new()
        .route("/api/work/register", post(register))
        .route("/api/work/lease", post(lease))
        .route("/api/work/renew", post(renew))
        .route("/api/work/result", post(result))
        .route("/api/work/bot/{hash}", get(bot))
        .route("/api/workers", get(workers))
        .layer(DefaultBodyLimit::max(RESULT_LIMIT))
        .with_state(r)
}

fn refuse(status: StatusCode, why: impl std::fmt::Display) -> Response {
    (status, format!("{why}\n")).into_response()
}

fn lease_time(r: &Remote) -> Duration {
    Duration::from_secs(r.s.sched.lock().unwrap().knobs().lease_s)
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
                "a worker needs a token: run `arbiter league work URL {} T` with one made by \
                 `arbiter league token DIR NAME` on the server",
                crate::options::Opt::Token
            ),
        )));
    };
    tokens::check(&r.s.dir, token).map_err(|why| {
        Box::new(match why {
            tokens::Refusal::Unknown => refuse(StatusCode::UNAUTHORIZED, why),
            tokens::Refusal::Revoked { .. } => refuse(StatusCode::FORBIDDEN, why),
        })
    })
}

/// The worker's session, checked against its token, marked as heard from.
fn session(r: &Remote, headers: &HeaderMap, id: &str) -> Result<(), Box<Response>> {
    let name = worker(r, headers)?;
    let mut sessions = r.sessions.lock().unwrap();
    match sessions.get_mut(id) {
        Some(s) if s.name == name => {
            s.last_seen = Instant::now();
            Ok(())
        }
        _ => Err(Box::new(refuse(
            StatusCode::GONE,
            format!("unknown session {id:?} (the server restarted?): register again"),
        ))),
    }
}

type Body<T> = Result<Json<T>, axum::extract::rejection::JsonRejection>;

fn body<T>(b: Body<T>) -> Result<T, Box<Response>> {
    b.map(|Json(t)| t).map_err(|e| {
        Box::new(refuse(
            StatusCode::BAD_REQUEST,
            format!("not a worker's request: {e}"),
        ))
    })
}

async fn register(State(r): State<Arc<Remote>>, headers: HeaderMap, b: Body<Register>) -> Response {
    let name = match worker(&r, &headers) {
        Ok(n) => n,
        Err(e) => return *e,
    };
    let info = match body(b) {
        Ok(i) => i,
        Err(e) => return *e,
    };
    if info.version != VERSION {
        return refuse(
            StatusCode::CONFLICT,
            format!(
                "this league runs arbiter {VERSION} and the worker arbiter {}: install arbiter \
                 {VERSION} on the worker (both must play games the same way)",
                info.version
            ),
        );
    }
    let id = {
        let mut n = r.next_session.lock().unwrap();
        *n += 1;
        format!("{name}#{}", *n - 1)
    };
    r.sessions.lock().unwrap().insert(
        id.clone(),
        Session {
            name,
            info,
            games: 0,
            last_seen: Instant::now(),
        },
    );
    Json(Registered {
        session: id,
        game: r.s.settings.game.clone(),
        lease_ms: lease_time(&r).as_millis() as u64,
    })
    .into_response()
}

/// The archive of bot `name` (made again when its files changed).
fn archive(r: &Remote, name: &str) -> Result<BotRef, String> {
    let bots = super::folder::load_bots(&r.s.dir).map_err(|e| e.to_string())?;
    let entry = bots
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| format!("bot {name} is not in the league"))?;
    let sources = bundle::sources(entry).map_err(|e| e.to_string())?;
    let stamp = bundle::fingerprint(&sources);
    let made = || {
        let archives = r.archives.lock().unwrap();
        let a = archives.get(name)?;
        (a.sources == sources && a.stamp == stamp).then(|| BotRef {
            hash: a.hash.clone(),
            origin: a.sources.origin.clone(),
        })
    };
    if let Some(made) = made() {
        return Ok(made);
    }
    // One archive is made at a time, and a lease that waited for it takes the one made: a
    // burst of leases (a server start, a new bot) would otherwise pack the same bot once each,
    // all in memory at once (100 workers and a 47 MB bot: 1.7 GB, and 75 s to a first game).
    let _one = r.packing.lock().unwrap();
    if let Some(made) = made() {
        return Ok(made);
    }
    let (bytes, hash) = bundle::pack(name, &sources).map_err(|e| e.to_string())?;
    r.by_hash
        .lock()
        .unwrap()
        .insert(hash.clone(), Arc::new(bytes));
    let origin = sources.origin.clone();
    let old = r.archives.lock().unwrap().insert(
        name.to_string(),
        Archive {
            sources,
            stamp,
            hash: hash.clone(),
        },
    );
    if let Some(old) = old.filter(|o| o.hash != hash) {
        r.by_hash.lock().unwrap().remove(&old.hash);
    }
    Ok(BotRef { hash, origin })
}

/// Leases up to `slots` games to `session` now, with their bots' archives.
fn lease_now(r: &Remote, session: &str, slots: usize) -> Vec<LeasedGame> {
    let games = r.s.lease_games(session, slots);
    let mut out = Vec::new();
    for game in games {
        let ready = {
            let specs = r.s.specs.read().unwrap();
            game.bots.iter().all(|b| specs.contains_key(b))
        };
        let refs: Result<Vec<BotRef>, String> = if ready {
            game.bots.iter().map(|b| archive(r, b)).collect()
        } else {
            Err("a bot is still being checked".into())
        };
        let Ok(refs) = refs else {
            // Not playable now (a bot being checked, or its files gone): back to the queue.
            r.s.sched.lock().unwrap().release(game.game_id);
            continue;
        };
        let line = GameLine {
            game_id: game.game_id,
            bots: game.bots.clone(),
            ranks: None,
            reason: None,
            worker: Some(session.to_string()),
        };
        r.s.live
            .lock()
            .unwrap()
            .running
            .insert(game.game_id, line.clone());
        r.s.tell("start", &line);
        r.out.lock().unwrap().insert(game.game_id, game.clone());
        out.push(LeasedGame { game, bots: refs });
    }
    out
}

async fn lease(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<LeaseRequest>,
) -> Response {
    let req = match body(b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
    if let Err(e) = session(&r, &headers, &req.session) {
        return *e;
    }
    let deadline = Instant::now() + Duration::from_millis(req.wait_ms).min(LONG_POLL);
    let mut events = r.s.events.subscribe();
    loop {
        let r2 = r.clone();
        let (id, slots) = (req.session.clone(), req.slots.clamp(1, 64));
        let games = tokio::task::spawn_blocking(move || lease_now(&r2, &id, slots))
            .await
            .unwrap_or_default();
        let now = Instant::now();
        if !games.is_empty() || now >= deadline || r.s.stop.load(Ordering::Relaxed) {
            return Json(Leased {
                games,
                lease_ms: lease_time(&r).as_millis() as u64,
            })
            .into_response();
        }
        // A finished game or a new bot may make one; expired leases are looked at each second.
        let wait = (deadline - now).min(Duration::from_secs(1));
        let _ = tokio::time::timeout(wait, events.recv()).await;
    }
}

async fn renew(State(r): State<Arc<Remote>>, headers: HeaderMap, b: Body<Renew>) -> Response {
    let req = match body(b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
    if let Err(e) = session(&r, &headers, &req.session) {
        return *e;
    }
    r.s.sched
        .lock()
        .unwrap()
        .renew(&req.session, Instant::now());
    Json(Reply {
        accepted: true,
        stop: r.s.stop.load(Ordering::Relaxed),
    })
    .into_response()
}

async fn result(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<ResultRequest>,
) -> Response {
    let req = match body(b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
    if let Err(e) = session(&r, &headers, &req.session) {
        return *e;
    }
    let stop = r.s.stop.load(Ordering::Relaxed);
    let Some(game) = r.out.lock().unwrap().remove(&req.game_id) else {
        // Another worker's result came first (or the server restarted and plays it again).
        return Json(Reply {
            accepted: false,
            stop,
        })
        .into_response();
    };
    let seats = game.bots.len();
    let mut result = req.result;
    if result.ranks.len() != seats || result.stats.len() != seats {
        r.out.lock().unwrap().insert(game.game_id, game);
        return refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "the result of game {} is not one of {seats} seats",
                req.game_id
            ),
        );
    }
    // The league's names and seed, whatever the worker called them.
    result.bots = game.bots.clone();
    result.seed = game.seed;
    result.log = req.log;
    result.stderr_tails = req.stderr_tails;
    result.duration = Duration::from_micros(req.duration_us);
    let spec = GameSpec {
        game_id: game.game_id,
        pair_id: game.pair_id,
        seed: game.seed,
        seats: (0..seats).collect(),
    };
    if let Some(s) = r.sessions.lock().unwrap().get_mut(&req.session) {
        s.games += 1;
    }
    r.s.finished(game, Finished { spec, result });
    Json(Reply {
        accepted: true,
        stop,
    })
    .into_response()
}

async fn bot(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    Path(hash): Path<String>,
) -> Response {
    if let Err(e) = worker(&r, &headers) {
        return *e;
    }
    let bytes = r.by_hash.lock().unwrap().get(&hash).cloned();
    match bytes {
        Some(b) => (
            [(axum::http::header::CONTENT_TYPE, "application/gzip")],
            b.as_ref().clone(),
        )
            .into_response(),
        None => refuse(
            StatusCode::NOT_FOUND,
            format!("no bot archive {hash} here (its bot changed since): lease again"),
        ),
    }
}

/// The workers this server has seen since it started.
pub fn worker_lines(r: &Remote) -> Vec<WorkerLine> {
    let lease = lease_time(r);
    let sessions = r.sessions.lock().unwrap();
    let mut lines: Vec<WorkerLine> = sessions
        .iter()
        .map(|(id, s)| WorkerLine {
            session: id.clone(),
            name: s.name.clone(),
            info: s.info.clone(),
            games: s.games,
            last_seen_s: s.last_seen.elapsed().as_secs(),
            alive: s.last_seen.elapsed() < 2 * lease,
        })
        .collect();
    lines.sort_by(|a, b| a.session.cmp(&b.session));
    lines
}

async fn workers(State(r): State<Arc<Remote>>) -> Response {
    Json(serde_json::json!({ "workers": worker_lines(&r) })).into_response()
}
