//! The workers as the league sees them: `/api/workers` and the page's table (alive, games,
//! voided, why idle), the bench gate (a machine far slower than the league's median gets no
//! timed games) and the league's capacity (every live, playing worker's slots).

use super::quarantine::quarantine_text;
use super::{lease_time, Remote, WorkerLine};
use crate::league::trust::{Quarantined, Voided};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

/// A worker whose bench figure is this many times the league's median gets no timed games.
pub const BENCH_FACTOR: f64 = 5.0;

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

pub(super) async fn workers(State(r): State<Arc<Remote>>) -> Response {
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
pub(super) fn slow_bench(r: &Remote, bench_ms: f64) -> Option<String> {
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
pub(super) fn update_capacity(r: &Remote) {
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
