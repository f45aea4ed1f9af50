//! A worker's result: heard only from the session that holds its game's lease (another
//! session's is refused, a late one dropped), checked field by field against that game
//! ([`super::check`]: a result no referee could have made is refused naming the field), voided
//! when the worker's own load lost it ([`trust`]), otherwise handed to the recorder (503 while
//! the league cannot record), noted as played by that worker and the workers' residuals checked
//! again.

use super::held::{name_of, Taken};
use super::quarantine::{check_residuals, quarantine_text, quarantined};
use super::{check, from_worker, refuse, Body, Remote, VOIDED_SHOWN};
use crate::league::residuals::PlayedBy;
use crate::league::scheduler::LeagueGame;
use crate::league::trust;
use crate::league::wire::{Reply, ResultRequest};
use crate::referee::GameResult;
use crate::tournament::{Finished, GameSpec};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn reply(accepted: bool, stop: bool, voided: bool) -> Response {
    Json(Reply {
        accepted,
        stop,
        voided,
    })
    .into_response()
}

pub(super) async fn result(
    State(r): State<Arc<Remote>>,
    headers: HeaderMap,
    b: Body<ResultRequest>,
) -> Response {
    let req = match from_worker(&r, &headers, b) {
        Ok(q) => q,
        Err(e) => return *e,
    };
    let (id, session) = (req.game_id, req.session.as_str());
    let stop = r.s.stop.load(Ordering::Relaxed);
    if let Some(e) = quarantined(&r, session) {
        // Its game goes to another worker.
        let taken = r.state().held.take(id, session);
        if taken {
            let mut state = r.s.state();
            state.sched.release(id);
            state.live.running.remove(&id);
        }
        return e;
    }
    if let Some(e) = super::not_recording(&r) {
        return e;
    }
    let claim = r.state().held.claim(id, session);
    let game = match claim {
        Taken::Yours(game) => game,
        // Another worker's result came first, its lease ran out, or the server restarted and
        // plays it again: dropped, as a late result.
        Taken::Former | Taken::NotOut => return reply(false, stop, false),
        // Another session of the same token (a worker that registered again): not its game.
        Taken::Other(holder) if name_of(&holder) == name_of(session) => {
            return reply(false, stop, false)
        }
        Taken::Other(_) => {
            return refuse(
                StatusCode::FORBIDDEN,
                format!(
                    "the result of game {id} was refused: game {id} is leased to another \
                     worker, not to session {session:?}; a worker sends the results of its own \
                     games only"
                ),
            )
        }
    };
    // The opening the game was leased with (a game whose opening cannot be made is never
    // leased, so none is held for it).
    let told = r.s.table.opening(&game).unwrap_or_default();
    if let Err(e) = check::check(&req, &game, r.s.table.referee.max_turns, &told) {
        // The game stays the worker's: an honest result for it is still taken.
        return refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "the result of game {id} was refused, nothing of it kept: {e} (a result must be \
                 one arbiter's referee could have made of that game; is the worker's arbiter \
                 the server's own?)"
            ),
        );
    }
    let taken = r.state().held.take(id, session);
    if !taken {
        // The same result twice at once: the other one is heard.
        return reply(false, stop, false);
    }
    let seats = game.bots.len();
    let mut result = req.result;
    // The league's names, seed and game, whatever the worker called them.
    result.bots = game.bots.clone();
    result.seed = game.seed;
    result.game = r.s.table.choice.name().to_string();
    result.log = req.log;
    result.stderr_tails = req.stderr_tails;
    result.duration = Duration::from_micros(req.duration_us);
    if let Some(seat) = trust::spoiled_seat(&result) {
        if void(&r, &game, session, seat, &result) {
            check_residuals(&r);
            return reply(false, stop, true);
        }
    }
    let spec = GameSpec {
        game_id: game.game_id,
        pair_id: game.pair_id,
        seed: game.seed,
        seats: (0..seats).collect(),
    };
    let noted = {
        let mut guard = r.state();
        let state = &mut *guard;
        let worker = state.sessions.get_mut(session).map(|s| {
            s.games += 1;
            s.name.clone()
        });
        match worker {
            None => Ok(None),
            // Under the lock a quarantine takes its games with: a worker quarantined since
            // its result came in is refused here, or its game is among those taken out.
            Some(worker) => match state.quarantined.get(&worker) {
                Some(q) => Err(refuse(StatusCode::FORBIDDEN, quarantine_text(q))),
                None => {
                    let played = PlayedBy {
                        worker,
                        game_id: game.game_id,
                        bots: game.bots.clone(),
                        ranks: result.ranks.clone(),
                    };
                    Arc::make_mut(&mut state.played).push(played.clone());
                    Ok(Some(played))
                }
            },
        }
    };
    match noted {
        Err(e) => {
            let mut state = r.s.state();
            state.sched.release(game.game_id);
            state.live.running.remove(&game.game_id);
            return e;
        }
        Ok(Some(played)) => {
            // Logged once the lock is dropped.
            if let Err(e) = trust::append_played(&r.s.dir, &played) {
                eprintln!("arbiter: warning: {e}; the check of workers' results counts this game until a restart");
            }
        }
        Ok(None) => {}
    }
    if !r.s.finished(Finished { spec, result }) {
        if let Some(e) = super::not_recording(&r) {
            return e;
        }
    }
    check_residuals(&r);
    reply(true, stop, false)
}

/// Voids `game`, which `session` lost to its machine's load at `seat`: its evidence logged, the
/// game queued again first for a worker of another token, the worker paused and its voids
/// counted. False when it stands after all (voided too often, or the evidence cannot
/// be kept).
pub(super) fn void(
    r: &Remote,
    game: &LeagueGame,
    session: &str,
    seat: usize,
    result: &GameResult,
) -> bool {
    {
        let mut state = r.state();
        let n = state.voids.entry(game.game_id).or_default();
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
    {
        let mut state = r.s.state();
        state
            .sched
            .release_to_others(game.game_id, name_of(session), Instant::now());
        state.live.running.remove(&game.game_id);
    }
    {
        let mut state = r.state();
        *state
            .voided_by
            .entry(name_of(session).to_string())
            .or_default() += 1;
        if let Some(s) = state.sessions.get_mut(session) {
            s.voided += 1;
            s.paused_until = Some(Instant::now() + trust::VOID_PAUSE);
        }
        state.voided.push_back(v.clone());
        if state.voided.len() > VOIDED_SHOWN {
            state.voided.pop_front();
        }
    }
    r.s.tell(crate::league::events::LeagueEvent::Voided(v));
    r.s.wake();
    true
}
