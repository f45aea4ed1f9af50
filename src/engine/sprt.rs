//! An SPRT's decision as it follows a run: the candidate's score in each recorded game is
//! counted by pair of games (same seed and opening, seats swapped), and the sequential
//! probability ratio test on the pentanomial pair counts accepts H0 or H1, or asks for more.
//! It runs on the engine's thread (as a [`super::Consumer`] wrapped by the command with its
//! progress display), so the run stops handing out games the moment it decides. Games already
//! under way then still finish, are recorded and are counted: the decision is always the one
//! the games counted so far give, so the result, the exit status and every figure computed
//! later from games.csv agree (a game finishing after the stop may undo the decision; the
//! command then plays on).

use crate::rating::{self, Decision, PairCounter, SprtParams};
use crate::referee::Reason;
use crate::results::games_csv::ReadError;
use crate::tournament::Finished;
use std::path::Path;

/// The candidate's score in a two-seat game where `bot0` sat first and `winner` won (`None`: a
/// draw); `None` for a game the referee could not play ([`Reason::RefereeError`]), which voids
/// its pair.
pub fn new_score(
    bot0: &str,
    new_name: &str,
    winner: Option<u8>,
    reason: Option<Reason>,
) -> Option<f64> {
    if reason == Some(Reason::RefereeError) {
        return None;
    }
    let bot0_score = match winner {
        Some(0) => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    };
    Some(if bot0 == new_name {
        bot0_score
    } else {
        1.0 - bot0_score
    })
}

/// The test between the candidate `new_name` and the reference, as games come in.
pub struct SprtFollower {
    pub params: SprtParams,
    new_name: String,
    /// The games and pairs counted.
    pub pairs: PairCounter,
    /// The decision on the pairs counted (always the one their LLR gives: a game that finishes
    /// after the test decided may take it back between the bounds).
    pub decision: Decision,
}

impl SprtFollower {
    /// The test with nothing counted yet.
    pub fn new(params: SprtParams, new_name: &str) -> SprtFollower {
        SprtFollower {
            params,
            new_name: new_name.to_string(),
            pairs: PairCounter::default(),
            decision: Decision::Continue,
        }
    }

    /// Counts the games recorded in `games_csv` (a continued test) and decides on them.
    pub fn read(&mut self, games_csv: &Path) -> Result<(), ReadError> {
        crate::results::games_csv::for_each_result(&[games_csv.to_path_buf()], |row| {
            if let Some(pair) = row.pair_id {
                let score = new_score(
                    &row.bots[0],
                    &self.new_name,
                    row.winner().map(|w| w as u8),
                    row.reason,
                );
                self.pairs.add(pair, score);
            }
            Ok(())
        })?;
        self.decision = rating::decide(self.llr(), &self.params);
        Ok(())
    }

    /// The log-likelihood ratio of the pairs counted.
    pub fn llr(&self) -> f64 {
        rating::llr_pentanomial(&self.pairs.penta, &self.params)
    }

    /// Counts one recorded game; returns the LLR when the game completed a pair (the decision
    /// is then taken again on every pair counted).
    pub fn add(&mut self, finished: &Finished) -> Option<f64> {
        let r = &finished.result;
        let score = new_score(
            &r.bots[0],
            &self.new_name,
            r.winner.map(|w| w as u8),
            Some(r.reason),
        );
        if !self.pairs.add(finished.spec.pair_id, score) {
            return None;
        }
        let now = self.llr();
        self.decision = rating::decide(now, &self.params);
        Some(now)
    }

    /// Whether the test has decided (no more games are needed).
    pub fn decided(&self) -> bool {
        self.decision != Decision::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_candidates_score_follows_its_seat_and_a_referee_error_voids_it() {
        let win = Some(Reason::Win);
        assert_eq!(new_score("new", "new", Some(0), win), Some(1.0));
        assert_eq!(new_score("old", "new", Some(0), win), Some(0.0));
        assert_eq!(
            new_score("old", "new", None, Some(Reason::UnnamedDraw)),
            Some(0.5)
        );
        assert_eq!(new_score("new", "new", Some(1), None), Some(0.0));
        assert_eq!(
            new_score("new", "new", Some(0), Some(Reason::RefereeError)),
            None
        );
    }
}
