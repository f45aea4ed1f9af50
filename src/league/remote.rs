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
use super::residuals::{self, Played};
use super::scheduler::Game;
use super::server::{GameLine, Shared};
use super::tokens;
use super::trust::{self, Quarantined, Voided};
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
    /// What the worker should know of its standing (a bench too slow for timed games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
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
    /// The result was voided: the worker's load, not the bot, lost the game (see
    /// [`super::trust`]); it is played again, and this worker gets no game for a pause.
    #[serde(default)]
    pub voided: bool,
}

/// A registered worker process.
#[derive(Clone, Debug, Serialize)]
pub struct WorkerLine {
    pub session: String,
    pub name: String,
    #[serde(flatten)]
    pub info: Register,
    pub games: u64,
    /// Its games voided (lost to its load, played again elsewhere).
    pub voided: u64,
    /// Seconds since it was last heard from.
    pub last_seen_s: u64,
    /// Heard from within two lease times.
    pub alive: bool,
    /// Why it gets no games, when it gets none (its bench, a quarantine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle: Option<String>,
}

/// A worker whose bench figure is this many times the league's median gets no timed games.
pub const BENCH_FACTOR: f64 = 5.0;

struct Session {
    name: String,
    info: Register,
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
    /// How often each game was voided (from the folder's log at start).
    voids: Mutex<HashMap<u64, u32>>,
    /// The latest voided games, newest last, for the page.
    voided: Mutex<std::collections::VecDeque<Voided>>,
    /// Remote workers' recorded games (the residuals' input; kept in the folder's
    /// [`trust::PLAYED`] log, read back at start).
    played: Mutex<Vec<Played>>,
    /// Quarantined workers, by name.
    quarantined: Mutex<std::collections::BTreeMap<String, Quarantined>>,
    /// The server machine's own bench figure (milliseconds; see [`super::worker::bench`]).
    own_bench_ms: f64,
}

/// Voided games `/api/workers` lists.
const VOIDED_SHOWN: usize = 100;

pub fn routes(s: Arc<Shared>) -> Router {
    let s_dir = s.dir.clone();
    let r = Arc::new(Remote {
        s,
        sessions: Mutex::default(),
        next_session: Mutex::new(1),
        archives: Mutex::default(),
        by_hash: Mutex::default(),
        packing: Mutex::default(),
        out: Mutex::default(),
        voids: Mutex::default(),
        voided: Mutex::default(),
        played: Mutex::new(trust::read_played(&s_dir)),
        quarantined: Mutex::default(),
        own_bench_ms: super::worker::bench().as_secs_f64() * 1000.0,
    });
    let quarantined = trust::read_quarantined(&r.s.dir);
    if !quarantined.is_empty() {
        r.quarantined
            .lock()
            .unwrap()
            .extend(quarantined.into_iter().map(|q| (q.worker.clone(), q)));
        recount(&r);
    }
    {
        let log = trust::read(&r.s.dir);
        *r.voids.lock().unwrap() = trust::counts(&log);
        let skip = log.len().saturating_sub(VOIDED_SHOWN);
        r.voided.lock().unwrap().extend(log.into_iter().skip(skip));
    }
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
    if let Some(q) = r.quarantined.lock().unwrap().get(&name) {
        return refuse(StatusCode::FORBIDDEN, quarantine_text(q));
    }
    let slow = slow_bench(&r, info.bench_ms);
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
            voided: 0,
            paused_until: None,
            slow: slow.clone(),
            last_seen: Instant::now(),
        },
    );
    update_capacity(&r);
    Json(Registered {
        session: id,
        game: r.s.settings.game.clone(),
        lease_ms: lease_time(&r).as_millis() as u64,
        note: slow,
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
    update_capacity(r);
    let idle = r.sessions.lock().unwrap().get(session).is_none_or(|s| {
        s.slow.is_some() || s.paused_until.is_some_and(|until| Instant::now() < until)
    });
    if idle {
        return Vec::new();
    }
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
    if let Some(e) = quarantined(&r, &req.session) {
        return e;
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
        voided: false,
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
    if let Some(e) = quarantined(&r, &req.session) {
        // Its game goes to another worker.
        if r.out.lock().unwrap().remove(&req.game_id).is_some() {
            r.s.sched.lock().unwrap().release(req.game_id);
            r.s.live.lock().unwrap().running.remove(&req.game_id);
        }
        return e;
    }
    let Some(game) = r.out.lock().unwrap().remove(&req.game_id) else {
        // Another worker's result came first (or the server restarted and plays it again).
        return Json(Reply {
            accepted: false,
            stop,
            voided: false,
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
    if let Some(seat) = trust::spoiled_seat(&result) {
        if void(&r, &game, &req.session, seat, &result) {
            return Json(Reply {
                accepted: false,
                stop,
                voided: true,
            })
            .into_response();
        }
    }
    let spec = GameSpec {
        game_id: game.game_id,
        pair_id: game.pair_id,
        seed: game.seed,
        seats: (0..seats).collect(),
    };
    let name = {
        let mut sessions = r.sessions.lock().unwrap();
        let s = sessions.get_mut(&req.session);
        s.map(|s| {
            s.games += 1;
            s.name.clone()
        })
    };
    if let Some(worker) = name {
        let played = Played {
            worker,
            game_id: game.game_id,
            bots: game.bots.clone(),
            ranks: result.ranks.clone(),
        };
        if let Err(e) = trust::append_played(&r.s.dir, &played) {
            eprintln!("arbiter: warning: {e}; the check of workers' results counts this game until a restart");
        }
        r.played.lock().unwrap().push(played);
    }
    r.s.finished(game, Finished { spec, result });
    check_residuals(&r);
    Json(Reply {
        accepted: true,
        stop,
        voided: false,
    })
    .into_response()
}

/// Voids `game`, which `session` lost to its machine's load at `seat`: its evidence logged, the
/// game queued again, the worker paused. False when it stands after all (voided too often, or
/// the evidence cannot be kept).
fn void(r: &Remote, game: &Game, session: &str, seat: usize, result: &GameResult) -> bool {
    {
        let mut voids = r.voids.lock().unwrap();
        let n = voids.entry(game.game_id).or_default();
        if *n >= trust::MAX_VOIDS {
            return false;
        }
        *n += 1;
    }
    let v = trust::evidence(game, session, seat, result);
    if let Err(e) = trust::append(&r.s.dir, &v) {
        eprintln!(
            "arbiter: warning: {e}; game {} is recorded as played",
            game.game_id
        );
        return false;
    }
    r.s.sched.lock().unwrap().release(game.game_id);
    r.s.live.lock().unwrap().running.remove(&game.game_id);
    if let Some(s) = r.sessions.lock().unwrap().get_mut(session) {
        s.voided += 1;
        s.paused_until = Some(Instant::now() + trust::VOID_PAUSE);
    }
    {
        let mut shown = r.voided.lock().unwrap();
        shown.push_back(v.clone());
        if shown.len() > VOIDED_SHOWN {
            shown.pop_front();
        }
    }
    r.s.tell("voided", &v);
    r.s.wake();
    true
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
            voided: s.voided,
            idle: r
                .quarantined
                .lock()
                .unwrap()
                .get(&s.name)
                .map(quarantine_text)
                .or_else(|| s.slow.clone()),
            last_seen_s: s.last_seen.elapsed().as_secs(),
            alive: s.last_seen.elapsed() < 2 * lease,
        })
        .collect();
    lines.sort_by(|a, b| a.session.cmp(&b.session));
    lines
}

async fn workers(State(r): State<Arc<Remote>>) -> Response {
    let voided: Vec<Voided> = r.voided.lock().unwrap().iter().rev().cloned().collect();
    let quarantined: Vec<Quarantined> = r.quarantined.lock().unwrap().values().cloned().collect();
    Json(serde_json::json!({
        "workers": worker_lines(&r),
        "voided": voided,
        "quarantined": quarantined,
        "bench_ms": r.own_bench_ms,
        "capacity": r.s.sched.lock().unwrap().capacity(),
    }))
    .into_response()
}

/// Why `bench_ms` is too slow for timed games: over [`BENCH_FACTOR`] times the median of the
/// server's own figure and the live workers'.
fn slow_bench(r: &Remote, bench_ms: f64) -> Option<String> {
    let lease = lease_time(r);
    let mut all: Vec<f64> = r
        .sessions
        .lock()
        .unwrap()
        .values()
        .filter(|s| s.last_seen.elapsed() < 2 * lease && s.slow.is_none())
        .map(|s| s.info.bench_ms)
        .chain([r.own_bench_ms])
        .collect();
    all.sort_by(f64::total_cmp);
    let median = all[all.len() / 2];
    // A figure that is not a number is no figure: no timed games either.
    let fast_enough = bench_ms.is_finite() && bench_ms <= BENCH_FACTOR * median;
    (!fast_enough).then(|| {
        format!(
            "its bench took {bench_ms:.0} ms, over {BENCH_FACTOR} times the league's median \
             ({median:.0} ms): a machine that slow (or that busy) gets no timed games; stop \
             other work on it, or run the worker on a faster machine, then start it again"
        )
    })
}

/// The league's capacity for the scheduler (a slow bot's cap is a share of it): the local
/// workers' slots and every live, playing remote worker's.
fn update_capacity(r: &Remote) {
    let lease = lease_time(r);
    let remote: usize = r
        .sessions
        .lock()
        .unwrap()
        .values()
        .filter(|s| s.last_seen.elapsed() < 2 * lease && s.slow.is_none())
        .map(|s| s.info.concurrency.max(1))
        .sum();
    let slots = r.s.local_workers + remote;
    r.s.sched.lock().unwrap().set_capacity(slots);
}

fn quarantine_text(q: &Quarantined) -> String {
    format!(
        "worker {:?} is quarantined since {}: {}",
        q.worker, q.at, q.why
    )
}

/// The refusal for a quarantined worker's session.
fn quarantined(r: &Remote, session: &str) -> Option<Response> {
    let name = r.sessions.lock().unwrap().get(session)?.name.clone();
    let q = r.quarantined.lock().unwrap().get(&name).cloned()?;
    Some(refuse(StatusCode::FORBIDDEN, quarantine_text(&q)))
}

/// Quarantines every worker whose residual is far out ([`residuals::check`] against the
/// latest fit's ratings).
fn check_residuals(r: &Remote) {
    let ratings: HashMap<String, f64> =
        r.s.standings
            .read()
            .unwrap()
            .bots
            .iter()
            .filter_map(|b| Some((b.name.clone(), b.rating?)))
            .collect();
    let flagged: Vec<residuals::Residual> = {
        let played = r.played.lock().unwrap();
        let known = r.quarantined.lock().unwrap();
        residuals::check(
            &played,
            |b| ratings.get(b).copied(),
            residuals::Check::default(),
        )
        .into_iter()
        .filter(|x| x.flagged && !known.contains_key(&x.worker))
        .collect()
    };
    let mut any = false;
    for x in flagged {
        let games = r
            .played
            .lock()
            .unwrap()
            .iter()
            .filter(|g| g.worker == x.worker)
            .map(|g| g.game_id)
            .collect();
        let q = Quarantined {
            worker: x.worker.clone(),
            why: format!(
                "its results are off the league's fit: over {} games its seat 0 scored {:+.2} \
                 a game against the ratings' expectation, z = {:.1} against the other workers \
                 (at most {:.1} for an honest one); its games are out of the ratings (kept in \
                 the records). Check that machine and its arbiter, then give it a new token",
                x.games, x.mean, x.z, x.threshold
            ),
            games,
            at: super::server::now_text(),
        };
        {
            // Results of several workers are checked at once: one check quarantines it.
            let mut known = r.quarantined.lock().unwrap();
            if known.contains_key(&x.worker) {
                continue;
            }
            known.insert(x.worker, q.clone());
        }
        any = true;
        if let Err(e) = trust::append_quarantined(&r.s.dir, &q) {
            eprintln!(
                "arbiter: warning: {e}; the quarantine of {} lasts until a restart",
                q.worker
            );
        }
        eprintln!("arbiter: {}", quarantine_text(&q));
        r.s.tell("quarantined", &q);
    }
    if any {
        recount(r);
    }
}

/// Counts the standings again without the quarantined workers' games, and refits.
fn recount(r: &Remote) {
    let out: Vec<u64> = r
        .quarantined
        .lock()
        .unwrap()
        .values()
        .flat_map(|q| q.games.iter().copied())
        .collect();
    let known: Vec<String> =
        r.s.sched
            .lock()
            .unwrap()
            .names()
            .map(String::from)
            .collect();
    if let Err(e) = r.s.recount(out, &known) {
        eprintln!("arbiter: warning: cannot count the standings again: {e}");
    }
}
