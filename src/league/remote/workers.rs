//! The workers as the league sees them: `/api/workers` and the page's table (alive, games,
//! voided, why idle), the bench gate (a machine far slower than the league's median gets no
//! timed games; the median counts each token once, so that one token's many sessions cannot
//! move it), the league's capacity (every live, playing worker's slots, each session's at most
//! its cores and `[workers] max_concurrency`) and the workers' knobs (`[workers]` in
//! `league.toml`).

use super::quarantine::quarantine_text;
use super::{lease_time, Remote, Session};
use crate::league::trust::{Quarantined, Voided};
use crate::league::wire::WorkerLine;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Lease times after which a session not heard from is forgotten.
pub const FORGET_AFTER_LEASES: u32 = 3;

/// Forgets the sessions not heard from in [`FORGET_AFTER_LEASES`] lease times: their leases
/// expired long ago, and a worker that comes back is told to register again (410), which it
/// does. The map holds the workers seen lately, not every registration since the start.
pub(super) fn forget_gone(sessions: &mut HashMap<String, Session>, now: Instant, lease: Duration) {
    sessions
        .retain(|_, s| now.saturating_duration_since(s.last_seen) < FORGET_AFTER_LEASES * lease);
}

/// A worker whose bench figure is this many times the league's median gets no timed games.
pub const BENCH_FACTOR: f64 = 5.0;

/// The workers this server has seen since it started.
pub fn worker_lines(r: &Remote) -> Vec<WorkerLine> {
    let lease = lease_time(r);
    let state = r.state();
    let mut lines: Vec<WorkerLine> = state
        .sessions
        .iter()
        .map(|(id, s)| WorkerLine {
            session: id.clone(),
            name: s.name.clone(),
            info: s.info.clone(),
            games: s.games,
            voided: s.voided,
            idle: state
                .quarantined
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
    let (voided, quarantined): (Vec<Voided>, Vec<Quarantined>) = {
        let state = r.state();
        (
            state.voided.iter().rev().cloned().collect(),
            state.quarantined.values().cloned().collect(),
        )
    };
    Json(serde_json::json!({
        "workers": worker_lines(&r),
        "voided": voided,
        "quarantined": quarantined,
        "bench_ms": r.own_bench_ms,
        "capacity": r.s.state().sched.capacity(),
    }))
    .into_response()
}

/// Why `bench_ms` (of a worker of token `name`) is too slow for timed games: over
/// [`BENCH_FACTOR`] times the median of the server's own figure and the live workers' of the
/// other tokens, each token counted once (the median of its sessions' figures).
pub(super) fn slow_bench(r: &Remote, name: &str, bench_ms: f64) -> Option<String> {
    let lease = lease_time(r);
    let mut by_token: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let state = r.state();
    for s in state.sessions.values() {
        if s.last_seen.elapsed() < 2 * lease && s.slow.is_none() && s.name != name {
            by_token.entry(&s.name).or_default().push(s.info.bench_ms);
        }
    }
    let mut all: Vec<f64> = by_token
        .into_values()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .chain([r.own_bench_ms])
        .collect();
    drop(state);
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
        .state()
        .sessions
        .values()
        .filter(|s| s.last_seen.elapsed() < 2 * lease && s.slow.is_none())
        .map(|s| s.slots)
        .sum();
    let slots = r.s.local_workers + remote;
    r.s.state().sched.set_capacity(slots);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::league::wire::Register;

    fn session(last_seen: Instant) -> Session {
        Session {
            name: "lab".into(),
            info: Register {
                version: String::new(),
                host: "h".into(),
                cores: 1,
                memory_mb: 1,
                sandbox: true,
                bench_ms: 1.0,
                concurrency: 1,
                protocol: 0,
            },
            slots: 1,
            games: 0,
            voided: 0,
            paused_until: None,
            slow: None,
            last_seen,
        }
    }

    #[test]
    fn sessions_not_heard_from_in_three_lease_times_are_forgotten() {
        let lease = Duration::from_secs(10);
        let now = Instant::now() + Duration::from_secs(3600);
        let mut sessions: HashMap<String, Session> = [
            ("now#1", now),
            ("a-lease-ago#2", now - lease),
            ("almost#3", now - 3 * lease + Duration::from_millis(1)),
            ("three#4", now - 3 * lease),
            ("long-ago#5", now - 100 * lease),
        ]
        .into_iter()
        .map(|(id, seen)| (id.to_string(), session(seen)))
        .collect();
        forget_gone(&mut sessions, now, lease);
        let mut kept: Vec<&str> = sessions.keys().map(String::as_str).collect();
        kept.sort_unstable();
        assert_eq!(kept, ["a-lease-ago#2", "almost#3", "now#1"]);
    }
}
