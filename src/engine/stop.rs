//! Whether a finished game was spoilt by a stop of the whole job, decided without holding up
//! any game.
//!
//! A batch system that stops a job (Slurm's scancel or time limit) signals every process of the
//! job at once, so a bot may die of that signal before the referee's own handler runs: recorded,
//! that game would count as the bot's crash. So a game in which a bot was killed by a signal a
//! stop sends (TERM, INT, HUP, KILL: see [`ExitKind::may_be_a_stop`]) is held back for
//! [`GRACE`]; it is recorded if no stop came by then, and dropped if one did (a continued run
//! plays it again). The decision reads the forfeit's typed exit kind, never its text; a bot that
//! crashed by itself (SIGSEGV, SIGABRT, an exit status) is recorded at once. Held games wait in
//! [`Held`] while the engine goes on recording the others and the games go on being played.
//!
//! [`ExitKind::may_be_a_stop`]: crate::bot::ExitKind::may_be_a_stop

use crate::tournament::Finished;
use std::time::{Duration, Instant};

/// How long a game whose bot may have been killed by a stop is held back. A batch system signals
/// a job's processes at once, but on a loaded machine the referee's own signal can be noticed
/// hundreds of milliseconds after a bot's death (0.5 s was exceeded at load 20 on 2 cores); only
/// the game is held, never the games being played.
pub const GRACE: Duration = Duration::from_secs(2);

/// Whether a stop signal has reached the referee.
pub fn stopping() -> bool {
    crate::bot::cleanup::stopping_within(Duration::ZERO)
}

/// Whether a bot of this game was killed by a signal that a stop of the job sends.
pub fn may_be_a_stop(f: &Finished) -> bool {
    f.result
        .forfeits
        .iter()
        .any(|forfeit| forfeit.exit.is_some_and(|e| e.may_be_a_stop()))
}

/// What to do with a finished game now.
pub enum Step {
    Record(Finished),
    /// Drop the game: a stop is under way.
    Discard(Finished),
}

/// The games held back, each until its deadline.
#[derive(Default)]
pub struct Held {
    games: Vec<(Instant, Finished)>,
}

impl Held {
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The earliest deadline of a held game.
    pub fn deadline(&self) -> Option<Instant> {
        self.games.iter().map(|(at, _)| *at).min()
    }

    /// A game that just ended: recorded at once, held, or dropped if a stop is under way and a
    /// bot forfeited (the stop kills bots, which may then crash, lose their pipes or time out).
    pub fn admit(&mut self, f: Finished, now: Instant, stopping: bool) -> Option<Step> {
        if stopping && !f.result.forfeits.is_empty() {
            return Some(Step::Discard(f));
        }
        if may_be_a_stop(&f) {
            self.games.push((now + GRACE, f));
            return None;
        }
        Some(Step::Record(f))
    }

    /// The held games decided by now: all of them (dropped) once a stop is under way, else
    /// those whose deadline has passed (recorded).
    pub fn release(&mut self, now: Instant, stopping: bool) -> Vec<Step> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.games.len() {
            if stopping {
                let (_, f) = self.games.swap_remove(i);
                out.push(Step::Discard(f));
            } else if self.games[i].0 <= now {
                let (_, f) = self.games.swap_remove(i);
                out.push(Step::Record(f));
            } else {
                i += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::ExitKind;
    use crate::referee::{Forfeit, GameResult, Reason, SeatStats};
    use crate::tournament::{schedule, Format};

    fn ended_by(exit: Option<ExitKind>, id: usize) -> Finished {
        let spec = schedule(2, Format::RoundRobin, 4, 1)[id].clone();
        Finished {
            spec,
            result: GameResult {
                sdk: None,
                game: "impasse".into(),
                seed: 1,
                bots: vec!["a".into(), "b".into()],
                opening: Vec::new(),
                winner: Some(1),
                ranks: vec![1, 0],
                reason: Reason::Crash,
                detail: "ended".into(),
                offender: Some(0),
                forfeits: vec![Forfeit {
                    seat: 0,
                    reason: Reason::Crash,
                    detail: "ended".into(),
                    turn: 1,
                    exit,
                }],
                turns: 0,
                scores: vec![-1, 0],
                game_scores: vec![0, 0],
                stats: vec![SeatStats::default(); 2],
                moves: Vec::new(),
                log: Vec::new(),
                stderr_tails: vec![String::new(); 2],
                stderr_bytes: vec![0; 2],
                duration: Duration::ZERO,
            },
        }
    }

    fn id(step: &Step) -> (bool, u64) {
        match step {
            Step::Record(f) => (true, f.spec.game_id),
            Step::Discard(f) => (false, f.spec.game_id),
        }
    }

    #[test]
    fn a_crash_of_the_bots_own_is_recorded_at_once() {
        let mut held = Held::default();
        let now = Instant::now();
        for exit in [
            Some(ExitKind::Signal(libc::SIGSEGV)),
            Some(ExitKind::Status(3)),
            None,
        ] {
            let step = held.admit(ended_by(exit, 0), now, false);
            assert_eq!(step.as_ref().map(id), Some((true, 0)), "{exit:?}");
        }
        assert!(held.is_empty());
    }

    #[test]
    fn a_bot_killed_by_term_is_held_then_recorded_without_a_stop_or_dropped_with_one() {
        let now = Instant::now();
        let mut held = Held::default();
        let term = Some(ExitKind::Signal(libc::SIGTERM));
        assert!(held.admit(ended_by(term, 1), now, false).is_none());
        assert!(held.admit(ended_by(term, 2), now, false).is_none());
        assert_eq!(held.deadline(), Some(now + GRACE));
        assert!(
            held.release(now, false).is_empty(),
            "held until the deadline"
        );
        let out: Vec<_> = held.release(now + GRACE, false).iter().map(id).collect();
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|&(recorded, _)| recorded));

        assert!(held.admit(ended_by(term, 3), now, false).is_none());
        let out: Vec<_> = held.release(now, true).iter().map(id).collect();
        assert_eq!(out, vec![(false, 3)], "a stop drops it before its deadline");
        let late = held.admit(ended_by(None, 0), now, true);
        let late = late.as_ref().map(id);
        assert_eq!(
            late,
            Some((false, 0)),
            "no forfeit is recorded once stopping"
        );
    }
}
