//! A worker's result: checked against its lease (the first result for a game wins, a game
//! of the wrong shape is refused), voided when the worker's own load lost it ([`trust`]),
//! otherwise handed to the recorder, noted as played by that worker and the workers' residuals
//! checked again.

use super::quarantine::{check_residuals, quarantined};
use super::{from_worker, refuse, Body, Remote, Reply, ResultRequest, VOIDED_SHOWN};
use crate::league::residuals::Played;
use crate::league::scheduler::Game;
use crate::league::trust;
use crate::referee::GameResult;
use crate::tournament::{Finished, GameSpec};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) async fn result(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<ResultRequest>,
) -> Response {
    let req = match from_worker(&r, &headers, b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
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
        // Under the lock a quarantine takes its games with: a worker quarantined since its
        // result came in is refused here, or its game is among those taken out.
        let mut all = r.played.lock().unwrap();
        if let Some(e) = quarantined(&r, &req.session) {
            drop(all);
            r.s.sched.lock().unwrap().release(game.game_id);
            r.s.live.lock().unwrap().running.remove(&game.game_id);
            return e;
        }
        if let Err(e) = trust::append_played(&r.s.dir, &played) {
            eprintln!("arbiter: warning: {e}; the check of workers' results counts this game until a restart");
        }
        all.push(played);
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
pub(super) fn void(
    r: &Remote,
    game: &Game,
    session: &str,
    seat: usize,
    result: &GameResult,
) -> bool {
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
