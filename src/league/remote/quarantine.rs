//! Quarantines: a worker whose results are off the league's fit or the other workers' (seat 0,
//! a bot, a pair: [`residuals`]), or who voids far more games than they do, is logged
//! (`quarantined.jsonl`), refused with the reason, and its games are taken out of the
//! standings (kept in the records).

use super::{refuse, Remote};
use crate::league::locks::RwLocked;
use crate::league::residuals;
use crate::league::trust::{self, QuarantineWhy, Quarantined};
use axum::http::StatusCode;
use axum::response::Response;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

pub(super) fn quarantine_text(q: &Quarantined) -> String {
    format!(
        "worker {:?} is quarantined since {}: {}",
        q.worker, q.at, q.why
    )
}

/// The refusal for a quarantined worker's session.
pub(super) fn quarantined(r: &Remote, session: &str) -> Option<Response> {
    let text = {
        let state = r.state();
        let name = &state.sessions.get(session)?.name;
        quarantine_text(state.quarantined.get(name)?)
    };
    Some(refuse(StatusCode::FORBIDDEN, text))
}

/// The least time between two checks of the workers' residuals. A check reads every game the
/// remote workers played, and the ratings it holds them to change once a fit anyway: run after
/// every result it cost the server 2.6 ms of CPU a result at 20,000 games (7.8 ms with 1,000
/// workers; `arbiter bench league`), several times the rest of a result's cost, and growing.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Quarantines every worker whose residual is far out ([`residuals::check`] against the
/// latest fit's ratings, seat 0's, each bot's and each pair's) or who voids far more games than
/// the others ([`residuals::void_outliers`]), at most once in [`CHECK_EVERY`]. The check runs
/// on a snapshot of the games played, without the remote side's lock; the quarantines are made
/// under it, each with its worker's games as they are then.
pub(super) fn check_residuals(r: &Remote) {
    let (played, known, voided_by) = {
        let mut state = r.state();
        if state.last_check.is_some_and(|t| t.elapsed() < CHECK_EVERY) {
            return;
        }
        state.last_check = Some(Instant::now());
        let known: HashSet<String> = state.quarantined.keys().cloned().collect();
        (state.played.clone(), known, state.voided_by.clone())
    };
    let ratings: HashMap<String, f64> =
        r.s.standings
            .reading()
            .bots
            .iter()
            .filter_map(|b| Some((b.name.clone(), b.rating?)))
            .collect();
    let settings = residuals::Check::default();
    let flagged: Vec<(String, QuarantineWhy)> = {
        let mut flagged: Vec<(String, QuarantineWhy)> = Vec::new();
        let mut off: Vec<residuals::Residual> =
            residuals::check(&played, |b| ratings.get(b).copied(), settings)
                .into_iter()
                .filter(|x| x.flagged && !known.contains(&x.worker))
                .collect();
        // The cell furthest out of each worker says why.
        off.sort_by(|a, b| b.z.abs().total_cmp(&a.z.abs()));
        for x in off {
            if flagged.iter().any(|(w, _)| *w == x.worker) {
                continue;
            }
            flagged.push((x.worker.clone(), QuarantineWhy::OffFit(x)));
        }
        let mut counts: HashMap<&str, (u64, u64)> = HashMap::new();
        for g in played.iter() {
            counts.entry(&g.worker).or_default().0 += 1;
        }
        for (w, v) in voided_by.iter() {
            counts.entry(w).or_default().1 += v;
        }
        let counts: Vec<(String, u64, u64)> = counts
            .into_iter()
            .map(|(w, (n, v))| (w.to_string(), n, v))
            .collect();
        for x in residuals::void_outliers(&counts, settings) {
            if !x.flagged || known.contains(&x.worker) {
                continue;
            }
            if flagged.iter().any(|(w, _)| *w == x.worker) {
                continue;
            }
            flagged.push((x.worker.clone(), QuarantineWhy::Voids(x)));
        }
        flagged
    };
    drop(played);
    let mut made = Vec::new();
    {
        // Under the lock a result is noted with: a result of a worker that comes meanwhile
        // is among its games or refused (see `results`).
        let mut state = r.state();
        let state = &mut *state;
        for (worker, why) in flagged {
            // Results of several workers are checked at once: one check quarantines it.
            if state.quarantined.contains_key(&worker) {
                continue;
            }
            let games = state
                .played
                .iter()
                .filter(|g| g.worker == worker)
                .map(|g| g.game_id)
                .collect();
            let q = Quarantined {
                worker: worker.clone(),
                why,
                games,
                at: crate::utc::UtcTime::now(),
            };
            state.quarantined.insert(worker, q.clone());
            made.push(q);
        }
    }
    let any = !made.is_empty();
    for q in made {
        if let Err(e) = trust::append_quarantined(&r.s.dir, &q) {
            eprintln!(
                "arbiter: warning: {e}; the quarantine of {} lasts until a restart",
                q.worker
            );
        }
        eprintln!("arbiter: {}", quarantine_text(&q));
        r.s.tell(crate::league::events::LeagueEvent::Quarantined(q));
    }
    if any {
        recount(r);
    }
}

/// Counts the standings again without the quarantined workers' games, and refits.
pub(super) fn recount(r: &Remote) {
    let out: Vec<u64> = r
        .state()
        .quarantined
        .values()
        .flat_map(|q| q.games.iter().copied())
        .collect();
    let known: Vec<String> = r.s.state().sched.names().map(String::from).collect();
    if let Err(e) = r.s.recount(out, &known) {
        eprintln!("arbiter: warning: cannot count the standings again: {e}");
    }
}
