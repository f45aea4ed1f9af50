//! One place turns how a game ended into its [`GameResult`]: the ranks, the winner, the record's
//! scores and every forfeit, for every kind of game (built-in rules, an external referee's, a
//! game the referee could not play), so that a forfeit is ranked and scored the same whoever holds
//! the rules. What only the rules know (the ranks a forfeit leaves, the record's scores by how
//! the game ended, the game's own scores) comes from a [`Scoring`]: the game's, or [`NoRules`]
//! where the rules live outside arbiter.

use super::ranks::rank_with_eliminations;
use super::turns::Turns;
use super::verdict::Verdict;
use super::{Forfeit, GameResult, Reason};
use crate::game::{Game, Outcome, ScoreEnd};
use std::time::Duration;

/// How a game ended, whoever decided it.
pub(super) enum GameEnd {
    /// The rules (or the referee) ranked the seats; `reason` says how (a win, a draw, the turn
    /// limit).
    Ranked(Vec<u8>, Reason),
    /// This seat's forfeit ended the game: what it did.
    Forfeit(usize, Verdict),
    /// A forfeit made where it happened (its turn the game's own) ended the game: an SDK
    /// game's, by arbiter's verdict or the game's deactivation.
    Failed(Forfeit),
    /// The referee failed (what failed, as the detail): every seat shares first place.
    RefereeError(String),
}

/// What only the rules know about the end of a game.
pub(super) trait Scoring {
    fn seats(&self) -> usize;
    /// The ranks when `seat`'s forfeit ended the game.
    fn ranks_of_forfeit(&self, seat: usize) -> Vec<u8>;
    /// The record's scores by how the game ended, the forfeit that ended it included (seats
    /// eliminated on the way are then scored -1 by [`assemble`]).
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32>;
    /// The game's own scores at the end.
    fn own_scores(&self) -> Vec<i32>;
}

impl Scoring for Box<dyn Game> {
    fn seats(&self) -> usize {
        self.rules().seats()
    }
    fn ranks_of_forfeit(&self, seat: usize) -> Vec<u8> {
        self.outcome_of_forfeit(seat).ranks
    }
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32> {
        self.rules().record_scores(end)
    }
    fn own_scores(&self) -> Vec<i32> {
        self.scores()
    }
}

/// A game of `.0` seats whose rules live outside arbiter (an external referee's) or were never
/// reached (a game the referee could not start): no scores of its own, so the record scores a
/// forfeit as the CodinGame arena does (-1 for the seat, 0 for the others) and any other end 0;
/// the forfeiting seat ranks last, the others share first place.
pub(super) struct NoRules(pub usize);

impl Scoring for NoRules {
    fn seats(&self) -> usize {
        self.0
    }
    fn ranks_of_forfeit(&self, seat: usize) -> Vec<u8> {
        (0..self.0).map(|s| u8::from(s == seat)).collect()
    }
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32> {
        (0..self.0)
            .map(|s| match end {
                ScoreEnd::Forfeit(seat) if seat == s => -1,
                _ => 0,
            })
            .collect()
    }
    fn own_scores(&self) -> Vec<i32> {
        vec![0; self.0]
    }
}

/// What a game produced besides its end: who played, the turn loop's state (its turns, the
/// seats eliminated on the way, each seat's clock, the moves) and the bots' stderr.
pub(super) struct GameRun {
    pub game: String,
    pub seed: u64,
    pub bots: Vec<String>,
    pub opening: Vec<String>,
    pub turns: Turns,
    pub stderr_tails: Vec<String>,
    pub stderr_bytes: Vec<u64>,
    pub duration: Duration,
}

/// The result of a game that ended as `end`. Seats eliminated on the way rank below every seat
/// still playing and score -1; the forfeit that ends a game scores as its rules say (-1 against
/// each other seat's own score in every built-in game but two, which their statements name:
/// Impasse's arena -1 against 0, draughts 0 against 2; an external referee's game -1 against 0).
pub(super) fn assemble(rules: &dyn Scoring, end: GameEnd, played: GameRun) -> GameResult {
    let seats = rules.seats();
    let GameRun {
        game,
        seed,
        bots,
        opening,
        turns,
        stderr_tails,
        stderr_bytes,
        duration,
    } = played;
    let (mut ranks, reason, detail, ending, score_end) = match end {
        GameEnd::Ranked(ranks, reason) => {
            let how = match reason {
                Reason::TurnLimit => ScoreEnd::TurnLimit,
                _ => ScoreEnd::Rules,
            };
            (ranks, reason, String::new(), None, how)
        }
        GameEnd::Forfeit(seat, verdict) => {
            let forfeit = Forfeit::of(seat, &verdict, turns.turn + 1);
            (
                rules.ranks_of_forfeit(seat),
                forfeit.reason,
                forfeit.detail.clone(),
                Some(forfeit),
                ScoreEnd::Forfeit(seat),
            )
        }
        GameEnd::Failed(forfeit) => {
            let seat = forfeit.seat;
            (
                rules.ranks_of_forfeit(seat),
                forfeit.reason,
                forfeit.detail.clone(),
                Some(forfeit),
                ScoreEnd::Forfeit(seat),
            )
        }
        GameEnd::RefereeError(detail) => (
            vec![0; seats],
            Reason::RefereeError,
            detail,
            None,
            ScoreEnd::Rules,
        ),
    };
    let offender = ending.as_ref().map(|f| f.seat);
    if !turns.forfeits.is_empty() {
        ranks = rank_with_eliminations(&ranks, &turns.forfeits, offender, turns.simultaneous);
    }
    // The reason says what the ranks say: a draw only where every seat shares first place
    // (players out on the way rank below the others, whatever the rest drew).
    let reason = match reason {
        Reason::Draw(_) | Reason::UnnamedDraw if ranks.iter().any(|&r| r != 0) => Reason::Win,
        reason => reason,
    };
    let game_scores = rules.own_scores();
    let mut scores = rules.record_scores(score_end);
    for f in &turns.forfeits {
        scores[f.seat] = -1;
    }
    let winner = Outcome {
        ranks: ranks.clone(),
    }
    .sole_winner();
    let mut forfeits = turns.forfeits;
    forfeits.extend(ending);
    GameResult {
        game,
        seed,
        bots,
        opening,
        winner,
        ranks,
        reason,
        detail,
        offender,
        forfeits,
        turns: turns.turn,
        scores,
        game_scores,
        stats: turns.stats,
        moves: turns.moves,
        log: turns.log,
        stderr_tails,
        stderr_bytes,
        duration,
        sdk: None,
    }
}

impl GameResult {
    /// The record of a game of `game` between `bots` that the referee could not play (a bot
    /// that cannot start, a bad opening, a panic): `referee-error` with what failed, after the
    /// `opening` plies it got to.
    pub fn unplayed(
        game: &str,
        seed: u64,
        bots: Vec<String>,
        opening: Vec<String>,
        detail: String,
    ) -> GameResult {
        let seats = bots.len();
        let played = GameRun {
            game: game.to_string(),
            seed,
            bots,
            opening,
            turns: Turns::new(seats, seed, 0),
            stderr_tails: vec![String::new(); seats],
            stderr_bytes: vec![0; seats],
            duration: Duration::ZERO,
        };
        assemble(&NoRules(seats), GameEnd::RefereeError(detail), played)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::GameChoice;

    /// A game of `seats` ended as `end` after seven turns, in which `eliminated` forfeited on
    /// the way, as `rules` score it; as JSON (what records and `play --json` keep), the game's
    /// name left out.
    fn result_of(
        rules: &dyn Scoring,
        end: GameEnd,
        seats: usize,
        eliminated: Option<usize>,
    ) -> serde_json::Value {
        let mut turns = Turns::new(seats, 1, 7);
        turns.forfeits.extend(eliminated.map(|seat| Forfeit {
            seat,
            reason: Reason::Crash,
            detail: "exited".into(),
            turn: 3,
            exit: None,
        }));
        let played = GameRun {
            game: "g".into(),
            seed: 1,
            bots: (0..seats).map(|s| format!("b{s}")).collect(),
            opening: Vec::new(),
            turns,
            stderr_tails: vec![String::new(); seats],
            stderr_bytes: vec![0; seats],
            duration: Duration::ZERO,
        };
        let r = assemble(rules, end, played);
        serde_json::to_value(&r).unwrap()
    }

    fn timeout(seat: usize) -> GameEnd {
        GameEnd::Forfeit(
            seat,
            Verdict::PipeFull {
                waited: Duration::from_secs(2),
            },
        )
    }

    fn built_in(name: &str, seats: usize) -> Box<dyn Game> {
        GameChoice::new(name, None, Some(seats), None)
            .unwrap()
            .start(1)
            .unwrap()
    }

    /// An external referee's game ranks and scores a forfeit as a built-in game whose rules
    /// score it as the arena does: two seats (Impasse: -1 for the seat, 0 for the other), four
    /// (Moscow Ice, every player for themselves: -1 for the seat, and for a seat eliminated
    /// before, ranked below the survivors).
    #[test]
    fn built_in_and_external_games_score_a_forfeit_the_same_way() {
        let impasse = result_of(&built_in("impasse", 2), timeout(1), 2, None);
        let external = result_of(&NoRules(2), timeout(1), 2, None);
        assert_eq!(impasse, external);
        assert_eq!(external["scores"], serde_json::json!([0, -1]));
        assert_eq!(external["ranks"], serde_json::json!([0, 1]));
        assert_eq!(external["winner"], serde_json::json!(0));
        assert_eq!(external["offender"], serde_json::json!(1));
        assert_eq!(external["forfeits"][0]["turn"], serde_json::json!(8));

        for eliminated in [None, Some(3)] {
            let moscow = result_of(&built_in("moscow-ice", 4), timeout(2), 4, eliminated);
            let external = result_of(&NoRules(4), timeout(2), 4, eliminated);
            assert_eq!(moscow["ranks"], external["ranks"], "{eliminated:?}");
            assert_eq!(moscow["scores"], external["scores"], "{eliminated:?}");
            assert_eq!(moscow["forfeits"], external["forfeits"], "{eliminated:?}");
            assert_eq!(moscow["winner"], external["winner"], "{eliminated:?}");
            let scored = match eliminated {
                None => serde_json::json!([0, 0, -1, 0]),
                Some(_) => serde_json::json!([0, 0, -1, -1]),
            };
            assert_eq!(external["scores"], scored, "{eliminated:?}");
        }
    }

    /// The reason says what the ranks say: a game the referee called a draw in which a player
    /// was out on the way ranks that player last, so it is no draw ("draw-referee" with a
    /// winner was recorded); one in which every seat still shares first place stays a draw.
    #[test]
    fn a_draw_with_a_player_out_on_the_way_is_won_by_the_others() {
        let draw = || GameEnd::Ranked(vec![0; 3], Reason::Draw(crate::game::DrawRule::Referee));
        let r = result_of(&NoRules(3), draw(), 3, Some(1));
        assert_eq!(r["reason"], "win");
        assert_eq!(r["ranks"], serde_json::json!([0, 2, 0]));
        let r = result_of(&NoRules(3), draw(), 3, None);
        assert_eq!(r["reason"], "draw-referee");
    }

    /// A game the referee could not play and an external referee's failure read the same.
    #[test]
    fn a_referee_error_ranks_everyone_first_and_scores_nothing() {
        let failed = |rules: &dyn Scoring| {
            let r = result_of(rules, GameEnd::RefereeError("crashed".into()), 3, None);
            (r["ranks"].clone(), r["scores"].clone(), r["winner"].clone())
        };
        let unplayed = GameResult::unplayed(
            "g",
            1,
            vec!["a".into(), "b".into(), "c".into()],
            Vec::new(),
            "crashed".into(),
        );
        assert_eq!(
            failed(&NoRules(3)),
            (
                serde_json::json!([0, 0, 0]),
                serde_json::json!([0, 0, 0]),
                serde_json::Value::Null
            )
        );
        assert_eq!(unplayed.reason, Reason::RefereeError);
        assert_eq!(unplayed.ranks, vec![0, 0, 0]);
        assert_eq!(unplayed.scores, vec![0, 0, 0]);
        assert!(unplayed.forfeits.is_empty() && unplayed.offender.is_none());
    }
}
