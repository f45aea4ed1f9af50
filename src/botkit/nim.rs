//! A tiny game in the standard input shape for the bot toolkit's tests: the search needs a game
//! whose best move is known and that any number of seats can play.
//!
//! The rules: a pile of stones; the seats in turn take 1, 2 or 3 (never more than are left);
//! whoever takes the last stone wins and every other seat shares second place. With two seats the
//! seat to move wins exactly when the pile is not a multiple of 4, by leaving a multiple of 4.
//!
//! It is also the smallest example of a game's [`Rules`]: a move is the count of stones taken,
//! and [`TextGame`] gives it its texts, history and [`Game`].

use crate::game::{
    BoardView, CellShape, CellView, Game, GameInfo, Outcome, PositionError, Rules, Setup, TextGame,
    Variant,
};
use std::fmt::Write as _;

/// A pile and whose turn it is.
#[derive(Clone, Debug)]
pub struct Nim {
    seats: usize,
    pile: u32,
    to_move: usize,
    winner: Option<usize>,
}

impl Nim {
    /// The game as the referee plays it: `seats` seats, `pile` stones, seat `to_move` first.
    pub fn new(seats: usize, pile: u32, to_move: usize) -> TextGame<Self> {
        TextGame::new(Nim {
            seats,
            pile,
            to_move,
            winner: None,
        })
    }
}

impl Rules for Nim {
    /// The count of stones taken.
    type Move = u8;

    fn info(&self) -> &'static GameInfo {
        &INFO
    }
    fn variant(&self) -> &'static str {
        "standard"
    }
    fn seats(&self) -> usize {
        self.seats
    }
    fn to_move(&self) -> usize {
        self.to_move
    }
    /// Take 1, 2 or 3, at most the pile.
    fn legal_moves(&self, out: &mut Vec<u8>) {
        if self.winner.is_none() {
            out.extend(1..=self.pile.min(3) as u8);
        }
    }
    fn play(&mut self, take: u8) {
        self.pile -= u32::from(take);
        if self.pile == 0 {
            self.winner = Some(self.to_move);
        } else {
            self.to_move = (self.to_move + 1) % self.seats;
        }
    }
    fn write_move(&self, take: u8, out: &mut String) {
        let _ = write!(out, "{take}");
    }
    fn write_board(&self, out: &mut String) {
        // Two lines, so that a reader has to skip the right count.
        out.push_str(&"o".repeat(self.pile as usize));
        out.push_str("\n--\n");
    }
    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(|w| Outcome::winner(self.seats, w))
    }
    fn is_over(&self) -> bool {
        self.winner.is_some()
    }
    fn scores(&self) -> Vec<i32> {
        (0..self.seats)
            .map(|s| i32::from(self.winner == Some(s)))
            .collect()
    }
    fn position_text(&self) -> String {
        format!("{} {}", self.pile, self.to_move)
    }
    fn view(&self) -> BoardView {
        BoardView {
            shape: CellShape::Point,
            cells: vec![CellView {
                name: "pile".into(),
                col: 0.0,
                row: 0.0,
                mark: String::new(),
                pieces: Vec::new(),
            }],
            notes: Vec::new(),
            diagonals: false,
        }
    }
    fn describe(&self) -> String {
        self.position_text()
    }
}

fn from_position(setup: &Setup, text: &str) -> Result<Box<dyn Game>, PositionError> {
    let (pile, seat) = text.split_once(' ').ok_or(PositionError::Form {
        expected: "`pile seat`".into(),
        got: None,
    })?;
    let pile = pile.parse().map_err(|_| PositionError::NotANumber {
        what: "pile",
        text: pile.to_string(),
    })?;
    let seat: usize = seat
        .parse()
        .ok()
        .filter(|&s| s < setup.seats)
        .ok_or_else(|| PositionError::SeatToMove {
            max: setup.seats - 1,
            got: seat.to_string(),
        })?;
    Ok(Box::new(Nim::new(setup.seats, pile, seat)))
}

/// Not in the registry: the toolkit's tests resolve its intro line themselves.
pub static INFO: GameInfo = GameInfo {
    name: "nim",
    title: "Nim (test game)",
    about: "take 1 to 3 stones; the last stone wins",
    variants: &[Variant {
        name: "standard",
        about: "a pile of 21",
        seats: &[2, 3, 4],
    }],
    default_max_turns: 100,
    books: &[],
    score_name: "scores",
    statement: "",
    new: |setup: &Setup| Box::new(Nim::new(setup.seats, 21, 0)),
    from_position,
};

#[cfg(test)]
mod tests {
    use super::Nim;
    use crate::game::{perft, perft_by_text, perft_rules, Game};

    #[test]
    fn moves_are_the_counts_taken_and_perft_agrees_typed_and_by_text() {
        let g = Nim::new(2, 4, 0);
        assert_eq!(g.legal_moves(), ["1", "2", "3"]);
        assert_eq!(Nim::new(3, 2, 1).legal_moves(), ["1", "2"]);
        // From 4 stones: take 1, 2 or 3 (3); then 3 + 2 + 1 (6); then 2 + 1 from the pile of
        // 3 (its take of 3 ended the game) and 1 from the pile of 2: 4.
        for (depth, n) in [(1, 3), (2, 6), (3, 4), (4, 1), (5, 0)] {
            assert_eq!(perft(&g, depth), n, "perft({depth})");
        }
        for (seats, pile, to_move) in [(2, 21, 0), (3, 10, 2), (4, 7, 1)] {
            let g = Nim::new(seats, pile, to_move);
            for depth in 1..=5 {
                let typed = perft_rules(g.rules(), depth);
                assert_eq!(
                    typed,
                    perft_by_text(&g, depth),
                    "{seats} seats, pile {pile}"
                );
            }
        }
    }
}
