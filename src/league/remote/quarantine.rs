//! Quarantines: a worker whose results are off the league's fit ([`residuals`]) is logged
//! (`quarantined.jsonl`), refused with the reason, and its games are taken out of the
//! standings (kept in the records).

use super::{refuse, Remote};
use crate::league::residuals;
use crate::league::trust::{self, Quarantined};
use axum::http::StatusCode;
use axum::response::Response;
use std::collections::HashMap;
use std::time::{Duration, Instant};

pub(super) fn quarantine_text(q: &Quarantined) -> String {
    format!(
        "worker {:?} is quarantined since {}: {}",
        q.worker, q.at, q.why
    )
}

/// The refusal for a quarantined worker's session.
pub(super) fn quarantined(r: &Remote, session: &str) -> Option<Response> {
    let name = r.sessions.lock().unwrap().get(session)?.name.clone();
    let q = r.quarantined.lock().unwrap().get(&name).cloned()?;
    Some(refuse(StatusCode::FORBIDDEN, quarantine_text(&q)))
}

/// The least time between two checks of the workers' residuals. A check reads every game the
/// remote workers played, and the ratings it holds them to change once a fit anyway: run after
/// every result it cost the server 2.6 ms of CPU a result at 20,000 games (7.8 ms with 1,000
/// workers; `arbiter bench league`), several times the rest of a result's cost, and growing.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Quarantines every worker whose residual is far out ([`residuals::check`] against the
/// latest fit's ratings), at most once in [`CHECK_EVERY`].
pub(super) fn check_residuals(r: &Remote) {
    {
        let mut last = r.last_check.lock().unwrap();
        if last.is_some_and(|t| t.elapsed() < CHECK_EVERY) {
            return;
        }
        *last = Some(Instant::now());
    }
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
        // Held until it is quarantined: a result of it that comes meanwhile is among its games
        // or refused (see `results`).
        let played = r.played.lock().unwrap();
        let games = played
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
            at: crate::league::server::now_text(),
        };
        {
            // Results of several workers are checked at once: one check quarantines it.
            let mut known = r.quarantined.lock().unwrap();
            if known.contains_key(&x.worker) {
                continue;
            }
            known.insert(x.worker, q.clone());
        }
        drop(played);
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
pub(super) fn recount(r: &Remote) {
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
