//! Accasta (Dieter Stein, 1998; the game as the seed describes it, with unmarked pieces) on the
//! 37-cell hex board: stacks split and travel in straight lines, a turn chains up to three moves
//! from one cell, and three controlled stacks in the enemy castle win.
//!
//! Seat 0 is White (castle on rows `a` to `c`, moves first); seat 1 is Black (castle on rows `e`
//! to `g`). A whole turn is one legal move (a typed [`WholeTurn`], written as one text), listed by
//! a small depth-first search over the turn's moves (see `turns.rs`). The choices where the rules
//! leave room are written in `statement.md` and by the code that makes them.

use super::hex37::{self, Cell};
use super::stackboard::{Stack, Stacks, HEX37, MAX_CELLS};
use super::{BoardView, GameInfo, Outcome, PositionError, Rules, Setup, TextGame, Variant};
use std::fmt::Write as _;

#[cfg(test)]
mod tests;
mod turns;

pub use turns::WholeTurn;
use turns::{apply_turn, has_turn, list_turns, write_turn};

/// Letters for the pieces of seat 0 (White) and seat 1 (Black).
const LETTERS: [char; 2] = ['w', 'b'];
/// No stack ever holds more pieces of one colour than this.
const MAX_OF_A_COLOUR: usize = 3;
/// Moves in one turn at most.
const MAX_MOVES: usize = 3;
/// Controlled stacks in the enemy castle that win.
const CASTLE_WIN: usize = 3;
/// White's castle (the cells of its starting set-up); Black's is the mirror image.
const WHITE_CASTLE: [&str; 9] = ["a1", "a2", "a3", "a4", "b2", "b3", "b4", "c3", "c4"];

/// The castles' cells as bit sets: White's a1-a4 (0-3), b2-b4 (5-7), c3 and c4 (11, 12); Black's
/// g1-g4 (33-36), f2-f4 (29-31), e3 and e4 (24, 25). A test checks them against the names.
const CASTLES: [u64; 2] = [
    0b1111 | 0b111 << 5 | 0b11 << 11,
    0b1111 << 33 | 0b111 << 29 | 0b11 << 24,
];

/// The bit set of `seat`'s castle.
fn castle(seat: usize) -> u64 {
    CASTLES[seat]
}

/// How many stacks `seat` controls (top piece) in the other seat's castle.
fn in_enemy_castle(board: &Stacks, seat: usize) -> usize {
    let mut cells = castle(1 - seat);
    let mut n = 0;
    while cells != 0 {
        let c = cells.trailing_zeros() as usize;
        cells &= cells - 1;
        n += usize::from(board[c].top() == Some(seat));
    }
    n
}

/// An Accasta position. A move is a whole [`WholeTurn`].
#[derive(Clone, Debug)]
pub struct Accasta {
    board: Stacks,
    to_move: usize,
    /// Set as soon as a side holds three stacks in the enemy castle, or the side to move has no
    /// legal turn.
    winner: Option<usize>,
}

/// The starting stacks: White three each on a1-a4, two each on b2-b4, one each on c3 and c4;
/// Black the same on the mirror cells.
fn start_board() -> Stacks {
    let mut board = [Stack::EMPTY; MAX_CELLS];
    let heights = [3, 3, 3, 3, 2, 2, 2, 1, 1];
    for (name, h) in WHITE_CASTLE.iter().zip(heights) {
        let c = hex37::parse_cell(name).unwrap_or(0);
        board[c as usize] = Stack::of(0, h);
        board[hex37::mirror(c) as usize] = Stack::of(1, h);
    }
    board
}

impl Accasta {
    /// The starting position, White to move.
    pub fn new() -> Self {
        Self::from_parts(start_board(), 0)
    }

    fn from_parts(board: Stacks, to_move: usize) -> Self {
        let mut g = Accasta {
            board,
            to_move,
            winner: None,
        };
        // The side that just moved is looked at first (the win is checked as it happens).
        g.winner = [1 - to_move, to_move]
            .into_iter()
            .find(|&s| in_enemy_castle(&g.board, s) >= CASTLE_WIN);
        g.check_stuck();
        g
    }

    /// A player without any legal turn has lost.
    fn check_stuck(&mut self) {
        if self.winner.is_none() && !has_turn(&self.board, self.to_move) {
            self.winner = Some(1 - self.to_move);
        }
    }
}

impl Default for Accasta {
    fn default() -> Self {
        Self::new()
    }
}

impl Rules for Accasta {
    type Move = WholeTurn;

    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn variant(&self) -> &'static str {
        "standard"
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<WholeTurn>) {
        if self.winner.is_none() {
            list_turns(&self.board, self.to_move, out);
        }
    }

    fn play(&mut self, t: WholeTurn) {
        let me = self.to_move;
        apply_turn(&mut self.board, t);
        if in_enemy_castle(&self.board, me) >= CASTLE_WIN {
            self.winner = Some(me);
        }
        self.to_move = 1 - me;
        self.check_stuck();
    }

    fn write_move(&self, t: WholeTurn, out: &mut String) {
        write_turn(&self.board, self.to_move, t, out);
    }

    fn write_board(&self, out: &mut String) {
        HEX37.write_board_lines(out, &self.board, LETTERS);
    }

    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(|w| Outcome::winner(2, w))
    }

    fn is_over(&self) -> bool {
        self.winner.is_some()
    }

    fn scores(&self) -> Vec<i32> {
        (0..2)
            .map(|s| in_enemy_castle(&self.board, s) as i32)
            .collect()
    }

    fn position_text(&self) -> String {
        let mut s = String::with_capacity(120);
        HEX37.write_rows(&mut s, &self.board, LETTERS);
        s.push(' ');
        s.push(LETTERS[self.to_move]);
        s
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| self.view_into(v))
    }

    fn view_into(&self, out: &mut BoardView) {
        let (w, b) = (castle(0), castle(1));
        let mark = |c: Cell| {
            if w >> c & 1 == 1 {
                "castle-0"
            } else if b >> c & 1 == 1 {
                "castle-1"
            } else {
                ""
            }
        };
        HEX37.view_cells_into(&self.board, mark, out, 1);
        let _ = write!(
            out.note(0),
            "controlled in the enemy castle: White {}, Black {}",
            in_enemy_castle(&self.board, 0),
            in_enemy_castle(&self.board, 1)
        );
    }

    fn describe(&self) -> String {
        let mut s = String::new();
        self.write_board(&mut s);
        let side = ["White", "Black"];
        match self.winner {
            Some(w) => {
                let _ = write!(s, "{} has won", side[w]);
            }
            None => {
                let _ = write!(s, "{} to move", side[self.to_move]);
            }
        }
        s
    }
}

/// Reads the one-line form: the board rows (see [`super::stackboard::Geometry::write_rows`], `w`
/// White, `b` Black) and the side to move.
pub fn from_position_text(text: &str) -> Result<Accasta, PositionError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [rows, side] = words[..] else {
        return Err(PositionError::Form {
            expected: "`rows side`".into(),
            got: None,
        });
    };
    let board = HEX37.parse_rows(rows, LETTERS)?;
    let to_move = match side {
        "w" => 0,
        "b" => 1,
        other => return Err(PositionError::side_w_or_b(other)),
    };
    for (c, st) in board.iter().enumerate() {
        if (0..2).any(|s| st.count(s) > MAX_OF_A_COLOUR) {
            return Err(PositionError::StackColour {
                cell: hex37::name(c as Cell),
                max: MAX_OF_A_COLOUR,
            });
        }
    }
    for seat in 0..2 {
        let n: usize = board.iter().map(|s| s.count(seat)).sum();
        // Fewer is accepted so that small positions can be written by hand.
        if n > 20 {
            return Err(PositionError::TooManyPieces {
                side: ["White", "Black"][seat],
                count: n,
                max: 20,
            });
        }
    }
    if (0..2).all(|s| in_enemy_castle(&board, s) >= CASTLE_WIN) {
        return Err(PositionError::BothInCastle);
    }
    Ok(Accasta::from_parts(board, to_move))
}

/// The registry entry.
pub static INFO: GameInfo = GameInfo {
    name: "accasta",
    title: "Accasta",
    about: "Dieter Stein's Accasta: stacks split and travel on a 37-cell hex board, three controlled stacks in the enemy castle win",
    variants: &[Variant {
        name: "standard",
        about: "the seed's game with unmarked pieces, 20 each",
        seats: &[2],
    }],
    default_max_turns: 300,
    books: &[],
    score_name: "pieces in the enemy castle",
    statement: include_str!("statement.md"),
    new: |_: &Setup| Box::new(TextGame::new(Accasta::new())),
    from_position: |_: &Setup, text: &str| {
        Ok(Box::new(TextGame::new(from_position_text(text)?)))
    },
};
