//! Impasse (Mark Steere, 2003) exactly as the CodinGame arena referees it, so that a bot written
//! for that arena sees the same input, the same offered moves in the same order, and the same
//! consequences of its answer here.
//!
//! The arena's quirks are reproduced on purpose: crowns are enumerated from per-side lists of
//! singles and doubles kept in the arena's order (squares leave a list where they are and join at
//! its end), a slid single that does not reach the furthest row is never a crown source that turn,
//! and several actions may print the same text (the referee plays the first one listed).
//! `/work/shared/specs/impasse-codingame.md` is the reference for every rule below.
//!
//! The soldiers and kings variant (seed 003), with rules and input of its own, is in
//! [`soldier_king`]; it reuses the square helpers below.
//!
//! Squares are `row * 8 + col`, with row 0 being the board's row `1` and col 0 column `a`.
//! Seat 0 is White (moves up, bears off on row 1, crowns on row 8), seat 1 is Black.

use super::{
    BoardView, CellShape, GameInfo, Outcome, PositionError, Rules, ScoreEnd, Setup, TextGame,
    TurnText, Variant,
};
pub use action::Action;
use action::{stable_sort_by_key, text_key, write_squares, ActionKind};
use std::fmt::Write as _;

mod action;
mod registry_entry;
pub mod soldier_king;
#[cfg(test)]
mod tests;

/// A square index, `row * 8 + col` (row 0 is the board's row `1`, col 0 is column `a`).
pub type Square = u8;

/// No square (an unused optional square field).
const NONE: Square = u8::MAX;
/// Checkers per side at the start; removing them all wins.
pub const CHECKERS: i32 = 12;
/// Board characters indexed by cell code: empty, White single, Black single, White double, Black
/// double.
const CELL_CHARS: [u8; 5] = *b".wbWB";

fn single_code(seat: usize) -> u8 {
    1 + seat as u8
}

fn double_code(seat: usize) -> u8 {
    3 + seat as u8
}

fn col(sq: Square) -> i8 {
    (sq % 8) as i8
}

fn row(sq: Square) -> i8 {
    (sq / 8) as i8
}

/// The square at (`col`, `row`), if it is on the board.
fn at(col: i8, row: i8) -> Option<Square> {
    ((0..8).contains(&col) && (0..8).contains(&row)).then(|| (row * 8 + col) as Square)
}

/// Row direction in which `seat`'s singles move.
fn forward(seat: usize) -> i8 {
    if seat == 0 {
        1
    } else {
        -1
    }
}

/// The row where `seat` bears off (0-based).
fn nearest_row(seat: usize) -> i8 {
    if seat == 0 {
        0
    } else {
        7
    }
}

/// The row where `seat` crowns (0-based).
fn furthest_row(seat: usize) -> i8 {
    7 - nearest_row(seat)
}

/// How many rows `square` lies beyond `seat`'s nearest row: 0 on the bear-off row, 7 on the crown
/// row. Singles want it high, doubles low.
pub fn rows_from_nearest(seat: usize, square: Square) -> u8 {
    (row(square) - nearest_row(seat)).unsigned_abs()
}

/// The two-character name of a square, e.g. `c7`.
pub fn square_name(sq: Square) -> [u8; 2] {
    [b'a' + sq % 8, b'1' + sq / 8]
}

/// One of a side's checkers on the board, as bots iterate them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checker {
    pub square: Square,
    /// A stack of two checkers.
    pub double: bool,
}

/// An ordered set of squares with the arena's list behaviour: removal keeps the others in order,
/// insertion appends. A side never has more than 12 singles or 6 doubles.
#[derive(Clone, Copy, Debug, Default)]
struct SquareList {
    len: u8,
    squares: [Square; 12],
}

impl SquareList {
    fn from_slice(squares: &[Square]) -> Self {
        let mut list = SquareList::default();
        squares.iter().for_each(|&sq| list.push(sq));
        list
    }

    fn as_slice(&self) -> &[Square] {
        &self.squares[..self.len as usize]
    }

    fn push(&mut self, sq: Square) {
        self.squares[self.len as usize] = sq;
        self.len += 1;
    }

    /// Removes `sq` if present, keeping the order of the rest.
    fn remove(&mut self, sq: Square) {
        if let Some(i) = self.as_slice().iter().position(|&s| s == sq) {
            self.squares.copy_within(i + 1..self.len as usize, i);
            self.len -= 1;
        }
    }
}

/// An Impasse position (the rules; [`TextGame`] adds the texts and the history).
#[derive(Clone, Debug)]
pub struct Impasse {
    /// Cell codes indexed by square (see `CELL_CHARS`).
    board: [u8; 64],
    singles: [SquareList; 2],
    doubles: [SquareList; 2],
    score: [i32; 2],
    to_move: usize,
    winner: Option<usize>,
}

impl Default for Impasse {
    fn default() -> Self {
        Self::new()
    }
}

impl Impasse {
    /// The start position, White to move, with the arena's list order.
    pub fn new() -> Self {
        let sq = |name: &str| parse_square(name).expect("valid square");
        let list = |names: [&str; 4]| SquareList::from_slice(&names.map(sq));
        Self::build(
            [
                list(["a1", "d2", "e1", "h2"]),
                list(["a7", "d8", "e7", "h8"]),
            ],
            [
                list(["b8", "c7", "f8", "g7"]),
                list(["b2", "c1", "f2", "g1"]),
            ],
            0,
        )
    }

    /// A position from the eight board lines a bot receives (row 8 first; characters `.wbWB`;
    /// trailing whitespace ignored), with `to_move` (0 White, 1 Black) to play. Each side's score is
    /// taken as 12 minus its checkers on the board (a double counts 2), which always holds in play.
    ///
    /// The arena's singles and doubles lists are not visible in the input, so they are rebuilt in
    /// reading order (row 8 to row 1, each from `a` to `h`). This changes nothing but the order in
    /// which identical move texts are listed, which only a position with two singles on a side's
    /// furthest row can produce.
    pub fn from_rows(rows: &[&str], to_move: usize) -> Result<Self, PositionError> {
        if rows.len() != 8 {
            return Err(PositionError::Count {
                expected: 8,
                what: "board rows",
                got: rows.len(),
            });
        }
        if to_move > 1 {
            return Err(PositionError::NoSuchSeat { seat: to_move });
        }
        let mut singles = [SquareList::default(); 2];
        let mut doubles = [SquareList::default(); 2];
        let mut count = [0; 2];
        for (i, line) in rows.iter().enumerate() {
            let text = line.trim_end();
            let line = text.as_bytes();
            if line.len() != 8 {
                return Err(PositionError::RowLength {
                    what: "board row",
                    row: 8 - i,
                    expected: 8,
                    line: text.to_string(),
                });
            }
            for (c, &ch) in line.iter().enumerate() {
                let sq = ((7 - i) * 8 + c) as Square;
                let (seat, double) = match ch {
                    b'.' => continue,
                    b'w' => (0, false),
                    b'b' => (1, false),
                    b'W' => (0, true),
                    b'B' => (1, true),
                    _ => {
                        return Err(PositionError::Character {
                            what: "board",
                            ch: ch as char,
                            hint: "",
                        })
                    }
                };
                count[seat] += 1 + i32::from(double);
                if count[seat] > CHECKERS {
                    return Err(PositionError::TooManyCheckers {
                        seat,
                        max: CHECKERS,
                    });
                }
                let list = if double { &mut doubles } else { &mut singles };
                list[seat].push(sq);
            }
        }
        Ok(Self::build(singles, doubles, to_move))
    }

    fn build(singles: [SquareList; 2], doubles: [SquareList; 2], to_move: usize) -> Self {
        let mut board = [0u8; 64];
        let mut score = [CHECKERS; 2];
        for seat in 0..2 {
            for &sq in singles[seat].as_slice() {
                board[sq as usize] = single_code(seat);
                score[seat] -= 1;
            }
            for &sq in doubles[seat].as_slice() {
                board[sq as usize] = double_code(seat);
                score[seat] -= 2;
            }
        }
        let mut game = Impasse {
            board,
            singles,
            doubles,
            score,
            to_move,
            winner: None,
        };
        game.winner = (0..2).find(|&s| game.score[s] >= CHECKERS);
        game
    }

    /// Checkers `seat` has removed from the board (bear-offs and impasse removals).
    pub fn score(&self, seat: usize) -> i32 {
        self.score[seat]
    }

    /// The seat that has removed all its checkers, if any.
    pub fn winner(&self) -> Option<usize> {
        self.winner
    }

    /// `seat`'s checkers on the board: singles first, then doubles.
    pub fn checkers(&self, seat: usize) -> impl Iterator<Item = Checker> + '_ {
        let singles = self.singles[seat].as_slice().iter();
        let doubles = self.doubles[seat].as_slice().iter();
        singles
            .map(|&square| Checker {
                square,
                double: false,
            })
            .chain(doubles.map(|&square| Checker {
                square,
                double: true,
            }))
    }

    /// Slides and transposes `seat` could make if it were to move (crowns not expanded); 0 means
    /// that seat would be at an impasse.
    pub fn basic_move_count(&self, seat: usize) -> usize {
        let mut n = 0;
        self.each_basic_move(seat, |_, _| n += 1);
        n
    }

    /// Calls `f(action, [removed, added])` for every basic move of `seat` in the arena's order.
    /// `removed` is a single that stops being one, `added` a new single that may take part in a
    /// crown (see `push_crowned`); either may be `NONE`.
    fn each_basic_move(&self, seat: usize, mut f: impl FnMut(Action, [Square; 2])) {
        let fwd = forward(seat);
        let own_single = single_code(seat);
        for &from in self.singles[seat].as_slice() {
            for dc in [-1, 1] {
                let (mut c, mut r) = (col(from) + dc, row(from) + fwd);
                while let Some(to) = at(c, r).filter(|&to| self.board[to as usize] == 0) {
                    let added = if r == furthest_row(seat) { to } else { NONE };
                    f(
                        Action::new(ActionKind::SingleSlide, from, to, false),
                        [from, added],
                    );
                    (c, r) = (c + dc, r + fwd);
                }
            }
        }
        for &from in self.doubles[seat].as_slice() {
            for dc in [-1, 1] {
                let (mut c, mut r) = (col(from) + dc, row(from) - fwd);
                while let Some(to) = at(c, r).filter(|&to| self.board[to as usize] == 0) {
                    let bear = r == nearest_row(seat);
                    let added = if bear { to } else { NONE };
                    f(
                        Action::new(ActionKind::DoubleSlide, from, to, bear),
                        [NONE, added],
                    );
                    (c, r) = (c + dc, r - fwd);
                }
            }
        }
        for &from in self.doubles[seat].as_slice() {
            for dc in [-1, 1] {
                let r = row(from) - fwd;
                let Some(to) = at(col(from) + dc, r) else {
                    continue;
                };
                if self.board[to as usize] == own_single {
                    let bear = r == nearest_row(seat);
                    let removed = if bear { NONE } else { to };
                    f(
                        Action::new(ActionKind::Transpose, from, to, bear),
                        [removed, from],
                    );
                }
            }
        }
    }

    /// Appends the legal moves of the seat to move to `out`, sorted by text (stable: duplicate
    /// texts keep the arena's generation order).
    fn generate(&self, out: &mut Vec<Action>) {
        let start = out.len();
        if self.winner.is_none() {
            let seat = self.to_move;
            let singles = &self.singles[seat];
            self.each_basic_move(seat, |a, changes| {
                push_crowned(out, singles, seat, a, changes)
            });
            if out.len() == start {
                for &from in singles.as_slice() {
                    out.push(Action::new(ActionKind::ImpasseSingle, from, NONE, false));
                }
                for &from in self.doubles[seat].as_slice() {
                    let a = Action::new(ActionKind::ImpasseDouble, from, NONE, false);
                    push_crowned(out, singles, seat, a, [NONE, from]);
                }
            }
        }
        stable_sort_by_key(&mut out[start..], Action::key);
    }

    /// Applies `a` for the seat to move, in the arena's order: action, bear-off, crown.
    fn apply(&mut self, a: Action) {
        let p = self.to_move;
        let (single, double) = (single_code(p), double_code(p));
        let (from, to) = (a.from as usize, a.to as usize);
        match a.kind {
            ActionKind::SingleSlide => {
                (self.board[from], self.board[to]) = (0, single);
                self.singles[p].remove(a.from);
                self.singles[p].push(a.to);
            }
            ActionKind::DoubleSlide => {
                (self.board[from], self.board[to]) = (0, double);
                self.doubles[p].remove(a.from);
                self.doubles[p].push(a.to);
            }
            ActionKind::Transpose => {
                (self.board[from], self.board[to]) = (single, double);
                self.doubles[p].remove(a.from);
                self.singles[p].push(a.from);
                self.singles[p].remove(a.to);
                self.doubles[p].push(a.to);
            }
            ActionKind::ImpasseSingle => {
                self.board[from] = 0;
                self.singles[p].remove(a.from);
                self.score[p] += 1;
            }
            ActionKind::ImpasseDouble => {
                self.board[from] = single;
                self.doubles[p].remove(a.from);
                self.singles[p].push(a.from);
                self.score[p] += 1;
            }
        }
        if a.bear_off {
            self.board[to] = single;
            self.doubles[p].remove(a.to);
            self.singles[p].push(a.to);
            self.score[p] += 1;
        }
        if a.crown_from != NONE {
            self.board[a.crown_from as usize] = 0;
            self.board[a.crown_to as usize] = double;
            self.singles[p].remove(a.crown_from);
            self.singles[p].remove(a.crown_to);
            self.doubles[p].push(a.crown_to);
        }
        if self.score[p] >= CHECKERS {
            self.winner = Some(p);
        } else {
            self.to_move = 1 - p;
        }
    }
}

/// Pushes `action` once per crown the arena offers after it, or once uncrowned if none.
/// The candidate singles are `seat`'s singles before the action, less `removed`, with `added`
/// appended: every one on the furthest row may be crowned from every other one.
fn push_crowned(
    out: &mut Vec<Action>,
    singles: &SquareList,
    seat: usize,
    action: Action,
    [removed, added]: [Square; 2],
) {
    let mut local = *singles;
    local.remove(removed);
    if added != NONE {
        local.push(added);
    }
    let before = out.len();
    for &to in local.as_slice() {
        if row(to) != furthest_row(seat) {
            continue;
        }
        for &from in local.as_slice() {
            if from != to {
                out.push(action.crowned(from, to));
            }
        }
    }
    if out.len() == before {
        out.push(action);
    }
}

/// Parses a square name such as `c7`.
pub fn parse_square(name: &str) -> Option<Square> {
    match name.as_bytes() {
        &[c @ b'a'..=b'h', r @ b'1'..=b'8'] => Some((r - b'1') * 8 + (c - b'a')),
        _ => None,
    }
}

pub use registry_entry::{from_position_text, INFO};
