//! A tiny game in the standard input shape for the bot toolkit's tests: the registry holds only
//! Impasse (the arena's own format) on this branch, and the search needs a game whose best move
//! is known and that any number of seats can play.
//!
//! The rules: a pile of stones; the seats in turn take 1, 2 or 3 (never more than are left);
//! whoever takes the last stone wins and every other seat shares second place. With two seats the
//! seat to move wins exactly when the pile is not a multiple of 4, by leaving a multiple of 4.

use crate::game::standard::{self, History};
use crate::game::{BoardView, CellShape, CellView, Game, GameInfo, Outcome, Setup, Variant};

#[derive(Clone, Debug)]
pub struct Nim {
    seats: usize,
    pile: u32,
    to_move: usize,
    winner: Option<usize>,
    moves: Vec<String>,
    history: History,
}

impl Nim {
    pub fn new(seats: usize, pile: u32, to_move: usize) -> Self {
        let mut g = Nim {
            seats,
            pile,
            to_move,
            winner: None,
            moves: Vec::new(),
            history: History::new(seats),
        };
        g.generate();
        g
    }

    fn generate(&mut self) {
        self.moves.clear();
        if self.winner.is_none() {
            for take in 1..=self.pile.min(3) {
                self.moves.push(take.to_string());
            }
        }
    }
}

impl Game for Nim {
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
    fn legal_moves(&self) -> &[String] {
        &self.moves
    }
    fn play(&mut self, index: usize) {
        let take = index as u32 + 1;
        self.history.record(self.to_move, &self.moves[index]);
        self.pile -= take;
        if self.pile == 0 {
            self.winner = Some(self.to_move);
        } else {
            self.to_move = (self.to_move + 1) % self.seats;
        }
        self.generate();
    }
    fn write_turn_input(&self, first_turn: bool, out: &mut String) {
        standard::write_input(self, &self.history, first_turn, out);
    }
    fn write_board(&self, out: &mut String) {
        // Two lines, so that a reader has to skip the right count.
        out.push_str(&"o".repeat(self.pile as usize));
        out.push_str("\n--\n");
    }
    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(|w| Outcome::winner(self.seats, w))
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
        }
    }
    fn box_clone(&self) -> Box<dyn Game> {
        Box::new(self.clone())
    }
    fn describe(&self) -> String {
        self.position_text()
    }
}

fn from_position(setup: &Setup, text: &str) -> Result<Box<dyn Game>, String> {
    let (pile, seat) = text.split_once(' ').ok_or("expected `pile seat`")?;
    let pile = pile.parse().map_err(|_| format!("bad pile {pile:?}"))?;
    let seat: usize = seat.parse().map_err(|_| format!("bad seat {seat:?}"))?;
    if seat >= setup.seats {
        return Err(format!("seat {seat} of {}", setup.seats));
    }
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
