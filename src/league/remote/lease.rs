//! A worker's round: it registers (its version checked, its bench against the league's median),
//! long-polls for a lease of games with their bots' archives (each archive made once per
//! version of a bot and served by hash), and renews its lease while it plays.

use super::quarantine::{quarantine_text, quarantined};
use super::workers::{slow_bench, update_capacity};
use super::{
    body, from_worker, lease_time, refuse, worker, Archive, Body, BotRef, LeaseRequest, Leased,
    LeasedGame, Register, Registered, Remote, Renew, Reply, Session, LONG_POLL, VERSION,
};
use crate::league::bundle;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
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
    if let Some(q) = r.quarantined.lock().unwrap().get(&name) {
        return refuse(StatusCode::FORBIDDEN, quarantine_text(q));
    }
    let slow = slow_bench(&r, info.bench_ms);
    let id = {
        let mut n = r.next_session.lock().unwrap();
        *n += 1;
        format!("{name}#{}", *n - 1)
    };
    let lease = lease_time(&r);
    let mut sessions = r.sessions.lock().unwrap();
    super::workers::forget_gone(&mut sessions, Instant::now(), lease);
    sessions.insert(
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
    drop(sessions);
    update_capacity(&r);
    Json(Registered {
        session: id,
        game: r.s.settings.game.clone(),
        lease_ms: lease.as_millis() as u64,
        note: slow,
    })
    .into_response()
}

/// The archive of bot `name` (made again when its files changed).
pub(super) fn archive(r: &Remote, name: &str) -> Result<BotRef, String> {
    let bots = r
        .bots
        .get(|_| crate::league::folder::load_bots(&r.s.dir))
        .map_err(|e| e.to_string())?;
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
pub(super) fn lease_now(r: &Remote, session: &str, slots: usize) -> Vec<LeasedGame> {
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
        r.s.started(&game, session);
        r.out.lock().unwrap().insert(game.game_id, game.clone());
        out.push(LeasedGame { game, bots: refs });
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

pub(super) async fn bot(
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
