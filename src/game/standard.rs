//! The one input shape every game but the arena's Impasse follows, so that a stateless bot in any
//! language can play any game, and the history each game keeps to fill it.
//!
//! One turn's input, every line ending in `\n`:
//!
//! ```text
//! 0 2 moscow-ice standard      first turn only: own seat, number of seats, game, variant
//! <position text>              the whole position in the game's one-line form
//! 8                            B: lines picturing the board (the same count every turn)
//! <board lines>                B lines, game-specific
//! 1                            M: moves played since this seat's previous turn (on its first
//!                              turn: every move of the game, opening plies included)
//! 1 c2-c3                      M lines: the seat that played, a space, the move
//! 3                            N: legal moves
//! a2-a3                        N lines, one move each; the answer is one of them (or `random`)
//! ```
//!
//! Every section after the position is counted, so a bot can read any game's input without
//! knowing the game. [`parse_input`] reads it back (the conformance suite checks that every turn
//! of every game does), and the generic bots play from it through the library.

use super::{registry, Game, GameError, GameInfo, Setup};
use std::fmt::Write as _;

/// The moves of the game and, for each seat, the first it has not seen. Every move is kept: a
/// bot's first turn lists the whole game (after an opening it did not play, a bot tracking the
/// game needs every ply). Search copies start from a position, so their histories stay short.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// `(seat, move)` in the order played; `moves[0]` is move number `base`.
    moves: Vec<(usize, String)>,
    base: usize,
    /// For each seat, the number of the first move it has not seen (its last move + 1);
    /// `usize::MAX` for an eliminated seat, which sees nothing more.
    seen: Vec<usize>,
}

impl History {
    pub fn new(seats: usize) -> Self {
        History {
            moves: Vec::new(),
            base: 0,
            seen: vec![0; seats],
        }
    }

    /// Records that `seat` played `text`.
    pub fn record(&mut self, seat: usize, text: impl Into<String>) {
        self.moves.push((seat, text.into()));
        self.seen[seat] = self.base + self.moves.len();
    }

    /// Every move of the game, in order.
    pub fn all(&self) -> &[(usize, String)] {
        &self.moves
    }

    /// A seat that will never move again (eliminated) no longer holds old moves.
    pub fn retire(&mut self, seat: usize) {
        self.seen[seat] = usize::MAX;
    }

    /// The moves `seat` has not seen: everything since its previous move.
    pub fn since(&self, seat: usize) -> &[(usize, String)] {
        let from = self.seen[seat]
            .saturating_sub(self.base)
            .min(self.moves.len());
        &self.moves[from..]
    }

    /// The last move played, if any is still kept.
    pub fn last(&self) -> Option<&(usize, String)> {
        self.moves.last()
    }
}

/// Writes one turn's input in the standard shape for the seat to move.
pub fn write_input(game: &dyn Game, history: &History, first_turn: bool, out: &mut String) {
    let seat = game.to_move();
    if first_turn {
        let _ = writeln!(
            out,
            "{seat} {} {} {}",
            game.seats(),
            game.name(),
            game.variant()
        );
    }
    out.push_str(&game.position_text());
    out.push('\n');
    let mut board = String::new();
    game.write_board(&mut board);
    let _ = writeln!(out, "{}", board.lines().count());
    out.push_str(&board);
    let since = if first_turn {
        history.all()
    } else {
        history.since(seat)
    };
    let _ = writeln!(out, "{}", since.len());
    for (s, m) in since {
        let _ = writeln!(out, "{s} {m}");
    }
    let moves = game.legal_moves();
    let _ = writeln!(out, "{}", moves.len());
    for m in moves {
        out.push_str(m);
        out.push('\n');
    }
}

/// The first-turn line: who the bot is and what it plays.
#[derive(Clone, Debug)]
pub struct Intro {
    pub seat: usize,
    pub seats: usize,
    pub info: &'static GameInfo,
    pub setup: Setup,
}

/// Reads a first-turn line (`seat seats game variant`).
pub fn parse_intro(line: &str) -> Result<Intro, InputError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [seat, seats, game, variant] = words[..] else {
        return Err(InputError::Shape(format!(
            "the first line should be `seat seats game variant`, got {line:?}"
        )));
    };
    let number = |w: &str| {
        w.parse::<usize>()
            .map_err(|_| InputError::Shape(format!("{w:?} is not a number in {line:?}")))
    };
    let (seat, seats) = (number(seat)?, number(seats)?);
    let (info, setup) = registry::lookup(game, Some(variant), Some(seats), 0)?;
    if seat >= seats {
        return Err(InputError::Shape(format!("seat {seat} of {seats}")));
    }
    Ok(Intro {
        seat,
        seats,
        info,
        setup,
    })
}

/// One turn's input, read back.
pub struct TurnInput {
    /// The position, rebuilt from its text.
    pub game: Box<dyn Game>,
    /// The moves since the reader's previous turn, with the seat that played each.
    pub since: Vec<(usize, String)>,
    /// The legal moves as listed.
    pub moves: Vec<String>,
}

/// Why an input does not follow the standard shape.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("the input ended early")]
    Ended,
    #[error("{0}")]
    Shape(String),
    #[error(transparent)]
    Game(#[from] GameError),
}

/// Reads one turn (after the intro line, if any) from `lines` for a game of `info` and `setup`.
pub fn parse_input<'a>(
    info: &'static GameInfo,
    setup: &Setup,
    lines: &mut impl Iterator<Item = &'a str>,
) -> Result<TurnInput, InputError> {
    let mut next = || lines.next().ok_or(InputError::Ended);
    let position = next()?;
    let game = info.position(setup, position)?;
    let mut count = |what: &str| -> Result<usize, InputError> {
        let l = next()?;
        l.trim()
            .parse()
            .map_err(|_| InputError::Shape(format!("expected the number of {what}, got {l:?}")))
    };
    let b = count("board lines")?;
    let mut drawn = String::new();
    game.write_board(&mut drawn);
    if b != drawn.lines().count() {
        return Err(InputError::Shape(format!(
            "{b} board lines announced, the position draws {}",
            drawn.lines().count()
        )));
    }
    for _ in 0..b {
        lines.next().ok_or(InputError::Ended)?;
    }
    let m = {
        let l = lines.next().ok_or(InputError::Ended)?;
        l.trim().parse::<usize>().map_err(|_| {
            InputError::Shape(format!(
                "expected the number of moves since the previous turn, got {l:?}"
            ))
        })?
    };
    let mut since = Vec::with_capacity(m);
    for _ in 0..m {
        let l = lines.next().ok_or(InputError::Ended)?;
        let (seat, text) = l
            .split_once(' ')
            .ok_or_else(|| InputError::Shape(format!("expected `seat move`, got {l:?}")))?;
        let seat = seat
            .parse()
            .map_err(|_| InputError::Shape(format!("bad seat in {l:?}")))?;
        since.push((seat, text.to_string()));
    }
    let n = {
        let l = lines.next().ok_or(InputError::Ended)?;
        l.trim().parse::<usize>().map_err(|_| {
            InputError::Shape(format!("expected the number of legal moves, got {l:?}"))
        })?
    };
    let mut moves = Vec::with_capacity(n);
    for _ in 0..n {
        moves.push(lines.next().ok_or(InputError::Ended)?.to_string());
    }
    Ok(TurnInput { game, since, moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_turn_lists_every_move_of_the_game_opening_plies_included() {
        // Two opening plies, one by each seat, then seat 0's first turn as a bot.
        let info = registry::find("draughts").unwrap();
        let setup = Setup {
            seats: 2,
            variant: "international",
            seed: 0,
        };
        let mut g = info.start(&setup);
        let a = g.legal_moves()[0].clone();
        g.play(0);
        let b = g.legal_moves()[0].clone();
        g.play(0);
        let mut first = String::new();
        g.write_turn_input(true, &mut first);
        let turn = parse_input(info, &setup, &mut first.lines().skip(1)).unwrap();
        assert_eq!(turn.since, [(0, a.clone()), (1, b.clone())], "{first}");
        // A later turn lists only what the seat has not seen.
        let mut later = String::new();
        g.write_turn_input(false, &mut later);
        let turn = parse_input(info, &setup, &mut later.lines()).unwrap();
        assert_eq!(turn.since, [(1, b)], "{later}");
    }

    #[test]
    fn history_keeps_what_each_seat_has_not_seen() {
        let mut h = History::new(3);
        h.record(0, "a");
        h.record(1, "b");
        assert_eq!(h.since(2), &[(0, "a".into()), (1, "b".into())]);
        assert_eq!(h.since(0), &[(1, "b".into())]);
        h.record(2, "c");
        // Seat 0 has not seen b and c; a is gone.
        assert_eq!(h.since(0), &[(1, "b".into()), (2, "c".into())]);
        assert_eq!(h.since(1), &[(2, "c".into())]);
        assert_eq!(h.all().len(), 3);
        h.retire(1);
        h.record(0, "d");
        h.record(2, "e");
        assert_eq!(h.since(0), &[(2, "e".into())]);
        assert_eq!(h.since(2), &[]);
        assert_eq!(h.all().len(), 5);
    }

    #[test]
    fn a_seat_that_has_not_moved_sees_everything_from_the_start() {
        let mut h = History::new(2);
        assert!(h.since(0).is_empty());
        h.record(0, "x");
        assert_eq!(h.since(1), &[(0, "x".into())]);
        assert_eq!(h.last(), Some(&(0, "x".into())));
    }
}
