//! A worker's round: it registers (its version checked, its bench against the league's median,
//! its token's sessions counted), long-polls for a lease of games with their bots' archives
//! (each archive made once per version of a bot and served by hash to the sessions that hold a
//! game of it), and renews its lease while it plays.

use super::quarantine::{quarantine_text, quarantined};
use super::workers::{slow_bench, update_capacity};
use super::{body, from_worker, held, lease_time, refuse, worker, Archive, Body, Remote, Session};
use crate::league::bundle;
use crate::league::locks::Locked;
use crate::league::wire::{
    BotRef, LeaseRequest, Leased, LeasedGame, Register, Registered, Release, Renew, Reply,
    LONG_POLL, PROTOCOL_OPENINGS, VERSION,
};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) async fn register(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<Register>,
) -> Response {
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
    if info.protocol < PROTOCOL_OPENINGS && r.s.table.has_openings() {
        return refuse(
            StatusCode::CONFLICT,
            format!(
                "this league starts its games from openings ({}), which the worker's arbiter \
                 build does not play (it would play every game from the start): install the \
                 server's arbiter build on the worker",
                openings_text(&r.s.settings)
            ),
        );
    }
    let quarantine = r.state().quarantined.get(&name).cloned();
    if let Some(q) = quarantine {
        return refuse(StatusCode::FORBIDDEN, quarantine_text(&q));
    }
    let slow = slow_bench(&r, &name, info.bench_ms);
    let limits = &r.s.settings.workers;
    let slots = limits.slots(info.cores, info.concurrency);
    let capped = (slots < info.concurrency).then(|| {
        format!(
            "it may hold {slots} games at once, not {}: a worker plays at most as many games as \
             its cores ({}) and the league's [workers] max_concurrency ({})",
            info.concurrency, info.cores, limits.max_concurrency
        )
    });
    let lease = lease_time(&r);
    let now = Instant::now();
    let mut guard = r.state();
    let state = &mut *guard;
    let sessions = &mut state.sessions;
    super::workers::forget_gone(sessions, now, lease);
    // A session of this token not heard from in half a lease time (a live worker renews three
    // times a lease time) gives its place to the new one.
    let mine =
        |sessions: &HashMap<String, Session>| sessions.values().filter(|s| s.name == name).count();
    if mine(sessions) >= limits.sessions_per_token {
        sessions.retain(|_, s| s.name != name || now.duration_since(s.last_seen) < lease / 2);
    }
    if mine(sessions) >= limits.sessions_per_token {
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "worker token {name:?} has {} live sessions already, the league's cap \
                 ([workers] sessions_per_token in its league.toml): stop some of its workers, \
                 give the others tokens of their own (`arbiter league token DIR NAME`), or ask \
                 the league's owner to raise the cap",
                limits.sessions_per_token
            ),
        );
    }
    let id = format!("{name}#{}", state.next_session);
    state.next_session += 1;
    state.sessions.insert(
        id.clone(),
        Session {
            name,
            info,
            slots,
            games: 0,
            voided: 0,
            paused_until: None,
            slow: slow.clone(),
            last_seen: now,
        },
    );
    drop(guard);
    update_capacity(&r);
    let note = match (slow, capped) {
        (Some(slow), _) => Some(slow),
        (None, capped) => capped,
    };
    Json(Registered {
        session: id,
        game: r.s.settings.game.clone(),
        lease_ms: lease.as_millis() as u64,
        note,
        server: r.start_id.clone(),
    })
    .into_response()
}

/// The league's openings as its flags spell them (`--opening-plies 4`, `--openings FILE`).
fn openings_text(s: &crate::league::settings::LeagueSettings) -> String {
    use crate::options::Opt;
    let mut parts = Vec::new();
    if let Some(book) = &s.openings.openings {
        parts.push(format!("{} {book}", Opt::Openings));
    }
    if s.opening_plies > 0 {
        parts.push(format!("{} {}", Opt::OpeningPlies, s.opening_plies));
    }
    parts.join(" ")
}

/// Why a game's bots cannot be handed to a worker now (the game goes back to the queue).
#[derive(Debug, thiserror::Error)]
pub(super) enum ArchiveError {
    #[error("a bot is still being checked")]
    Checking,
    #[error("bot {0} is not in the league")]
    NotInLeague(String),
    #[error(transparent)]
    Folder(#[from] crate::league::folder::FolderError),
    #[error(transparent)]
    Bundle(#[from] bundle::BundleError),
}

/// The archive of bot `name` (made again when its files changed).
pub(super) fn archive(r: &Remote, name: &str) -> Result<BotRef, ArchiveError> {
    let bots = r.bots.get(|_| crate::league::folder::load_bots(&r.s.dir))?;
    let entry = bots
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| ArchiveError::NotInLeague(name.to_string()))?;
    let sources = bundle::sources(entry)?;
    let stamp = bundle::fingerprint(&sources);
    let made = || {
        let state = r.state();
        let a = state.archives.get(name)?;
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
    let _one = r.packing.locked();
    if let Some(made) = made() {
        return Ok(made);
    }
    let (bytes, hash) = bundle::pack(name, &sources)?;
    let origin = sources.origin.clone();
    let mut state = r.state();
    state.by_hash.insert(hash.clone(), Arc::new(bytes));
    let old = state.archives.insert(
        name.to_string(),
        Archive {
            sources,
            stamp,
            hash: hash.clone(),
        },
    );
    if let Some(old) = old.filter(|o| o.hash != hash) {
        state.by_hash.remove(&old.hash);
    }
    Ok(BotRef { hash, origin })
}

/// Leases up to `slots` games to `session` (of worker `name`) now, with their bots' archives:
/// no more than its slots less the games it holds, none it voided before.
pub(super) fn lease_now(r: &Remote, session: &str, slots: usize) -> Vec<LeasedGame> {
    update_capacity(r);
    let free = {
        let state = r.state();
        let Some(s) = state.sessions.get(session) else {
            return Vec::new();
        };
        if s.slow.is_some() || s.paused_until.is_some_and(|until| Instant::now() < until) {
            return Vec::new();
        }
        s.slots.saturating_sub(state.held.held_by(session))
    };
    if free == 0 {
        return Vec::new();
    }
    let games =
        r.s.lease_games(session, held::name_of(session), slots.min(free));
    let mut out = Vec::new();
    for game in games {
        let ready = {
            let state = r.s.state();
            game.bots.iter().all(|b| state.specs.contains_key(b))
        };
        let refs: Result<Vec<BotRef>, ArchiveError> = if ready {
            game.bots.iter().map(|b| archive(r, b)).collect()
        } else {
            Err(ArchiveError::Checking)
        };
        let Ok(refs) = refs else {
            // Not playable now (a bot being checked, or its files gone): back to the queue.
            r.s.state().sched.release(game.game_id);
            continue;
        };
        // The book and the rules were checked at the server's start: this cannot fail.
        let opening = match r.s.table.opening(&game) {
            Ok(o) => o,
            Err(e) => {
                eprintln!(
                    "arbiter: warning: the opening of game {} cannot be made ({e}); it is not \
                     handed to workers",
                    game.game_id
                );
                r.s.state().sched.release(game.game_id);
                continue;
            }
        };
        r.s.started(&game, session);
        let hashes = refs.iter().map(|b| b.hash.clone()).collect();
        r.state().held.lease(game.clone(), session, hashes);
        out.push(LeasedGame {
            game,
            bots: refs,
            opening,
        });
    }
    out
}

pub(super) async fn lease(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<LeaseRequest>,
) -> Response {
    let req = match from_worker(&r, &headers, b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
    if let Some(e) = quarantined(&r, &req.session) {
        return e;
    }
    if let Some(e) = super::not_recording(&r) {
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

pub(super) async fn renew(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<Renew>,
) -> Response {
    let req = match from_worker(&r, &headers, b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
    r.s.state().sched.renew(&req.session, Instant::now());
    Json(Reply {
        accepted: true,
        stop: r.s.stop.load(Ordering::Relaxed),
        voided: false,
    })
    .into_response()
}

/// A leased game the worker's machine could not start goes back to the queue (only from the
/// session that holds its lease); accepted: it was that session's.
pub(super) async fn release(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<Release>,
) -> Response {
    let req = match from_worker(&r, &headers, b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
    // Only the session holding the lease may give it back (game ids are public).
    let held = r.state().held.take(req.game_id, &req.session);
    if held {
        r.s.release(req.game_id);
    }
    Json(Reply {
        accepted: held,
        stop: r.s.stop.load(Ordering::Relaxed),
        voided: false,
    })
    .into_response()
}

/// Which session asks for an archive (`?session=ID`).
#[derive(serde::Deserialize)]
pub(super) struct ForSession {
    session: Option<String>,
}

/// `GET /api/work/bot/HASH?session=ID`: the archive, to a session of the token that holds a
/// game of its bot (403 to any other: an archive is a bot's sources).
pub(super) async fn bot(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    Path(hash): Path<String>,
    Query(q): Query<ForSession>,
) -> Response {
    if let Err(e) = worker(&r, &headers) {
        return *e;
    }
    let Some(session) = q.session else {
        return refuse(
            StatusCode::FORBIDDEN,
            "a bot's archive goes to the session that holds a game of it: ask with \
             ?session=ID (the session your registration gave)",
        );
    };
    if let Err(e) = super::session(&r, &headers, &session) {
        return *e;
    }
    if !r.state().held.needs_archive(&session, &hash) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!(
                "session {session:?} holds no game of the bot of archive {hash}: a bot's \
                 archive goes only to a worker playing one of its games"
            ),
        );
    }
    let bytes = r.state().by_hash.get(&hash).cloned();
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
