//! Moscow Ice (Kendall Johns, 2004), a race of nesting Icehouse pieces across a cross-shaped
//! board, for two players, four players each on their own, or four players in two partnerships.
//!
//! The seed leaves several points open; each choice is written in `statement.md` and in a comment
//! where the rule is coded (look for "Choice:"). `movegen.rs` holds the movement rules,
//! `end.rs` the end of the game and the ranking, `notation.rs` the texts (position, board lines,
//! view).
//!
//! Squares are `row * 8 + col`, row 0 being rank `1` and col 0 file `a`; the twelve corner squares
//! (three per corner) do not exist. Axis 0 runs from rank 1 (its start line) to rank 8 (its finish
//! line); axis 1 from file `a` to file `h`. With two seats seat 0 plays axis 0 and seat 1 axis 1;
//! with four seats, seats 0 and 2 share axis 0 and seats 1 and 3 axis 1; turns go 0, 1, 2, 3.

use super::{BoardView, Game, GameInfo, Outcome, PositionError, Rules, Setup, TextGame, Variant};

mod end;
mod movegen;
mod notation;
#[cfg(test)]
mod perft_tests;
#[cfg(test)]
mod tests;

pub use notation::{parse_square, square_name};

/// A square index, `row * 8 + col`.
pub type Square = u8;

/// No square: the origin of a pass.
const NONE: Square = u8::MAX;

/// Piece sizes, smallest first.
pub const SMALL: u8 = 0;
pub const MEDIUM: u8 = 1;
pub const LARGE: u8 = 2;

/// Letters of the sizes in texts.
const SIZE_LETTERS: [char; 3] = ['S', 'M', 'L'];

fn col(sq: Square) -> i8 {
    (sq % 8) as i8
}

fn row(sq: Square) -> i8 {
    (sq / 8) as i8
}

/// Whether (`col`, `row`) is one of the 52 squares: inside 8x8 and not one of the three squares
/// nearest each corner.
fn exists(col: i8, row: i8) -> bool {
    if !(0..8).contains(&col) || !(0..8).contains(&row) {
        return false;
    }
    col.min(7 - col) + row.min(7 - row) >= 2
}

/// The square at (`col`, `row`) if it exists.
fn at(col: i8, row: i8) -> Option<Square> {
    exists(col, row).then(|| (row * 8 + col) as Square)
}

/// How far `sq` lies along `axis` from that axis's start line: 0 on the start line, 6 on the
/// "7th rank", 7 on the finish line.
fn progress(axis: usize, sq: Square) -> i8 {
    if axis == 0 {
        row(sq)
    } else {
        col(sq)
    }
}

/// Whether `sq` is on the start or the finish line of `axis`.
fn on_line(axis: usize, sq: Square) -> bool {
    matches!(progress(axis, sq), 0 | 7)
}

/// One piece: its owner and size, packed as `seat * 3 + size + 1` (0 is no piece).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece(u8);

impl Piece {
    fn new(seat: usize, size: u8) -> Self {
        Piece(seat as u8 * 3 + size + 1)
    }
    fn seat(self) -> usize {
        usize::from((self.0 - 1) / 3)
    }
    fn size(self) -> u8 {
        (self.0 - 1) % 3
    }
}

/// The pieces on one square, bottom first. Every landing is on a smaller piece, so sizes grow
/// strictly upwards and three is the most a square holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cell {
    n: u8,
    p: [u8; 3],
}

impl Cell {
    fn top(&self) -> Option<Piece> {
        (self.n > 0).then(|| Piece(self.p[self.n as usize - 1]))
    }
    fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.p[..self.n as usize].iter().map(|&c| Piece(c))
    }
    fn push(&mut self, piece: Piece) {
        self.p[self.n as usize] = piece.0;
        self.n += 1;
    }
    fn pop(&mut self) -> Piece {
        self.n -= 1;
        Piece(self.p[self.n as usize])
    }
    /// Removes every piece of `seat`, keeping the others in order (sizes still grow upwards).
    fn remove_seat(&mut self, seat: usize) {
        let old = std::mem::take(self);
        for p in old.pieces().filter(|p| p.seat() != seat) {
            self.push(p);
        }
    }
}

type Board = [Cell; 64];

/// One move: a piece from `from` to `to` (a step or the end of a jump chain), or a pass
/// (`from == NONE`). A chain's landings are not kept: the text finds them again (see
/// `movegen.rs`), since only the referee's texts need them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    from: Square,
    to: Square,
}

/// The pass, a seat's only move when it has nothing to move.
const PASS: Move = Move {
    from: NONE,
    to: NONE,
};

/// How the game stands; the outcome is built from the (final) board when asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Race {
    Playing,
    /// This seat (or its team) has won.
    Won(u8),
    /// A full round of passes: ranked by progress.
    Stuck,
}

/// A Moscow Ice position: no heap data, so a copy for search is one memory copy.
#[derive(Clone, Debug)]
pub struct MoscowIce {
    seats: usize,
    partners: bool,
    board: Board,
    to_move: usize,
    /// Consecutive passes; when every seat still playing has passed in a row nothing can change
    /// any more and the game ends (ranked by progress).
    passes: u8,
    /// Bit `s` set: seat `s` was eliminated (forfeited); its pieces left the board.
    eliminated: u8,
    /// Set once the rules end the game.
    end: Race,
}

impl MoscowIce {
    /// The start position: `seats` is 2 or 4; `partners` only with 4.
    pub fn new(seats: usize, partners: bool) -> Self {
        let mut board = [Cell::default(); 64];
        let sq = |name: &str| parse_square(name).expect("start square") as usize;
        // Choice: the second player starts on the west line (the seed allows west or east).
        let owners: Vec<(&str, usize)> = if seats == 2 {
            vec![
                ("c1", 0),
                ("d1", 0),
                ("e1", 0),
                ("f1", 0),
                ("a3", 1),
                ("a4", 1),
                ("a5", 1),
                ("a6", 1),
            ]
        } else {
            // Choice: partners on one axis alternate squares, the earlier seat first from the
            // low end (c1 e1 for seat 0, d1 f1 for seat 2, a3 a5 for seat 1, a4 a6 for seat 3).
            vec![
                ("c1", 0),
                ("d1", 2),
                ("e1", 0),
                ("f1", 2),
                ("a3", 1),
                ("a4", 3),
                ("a5", 1),
                ("a6", 3),
            ]
        };
        for (name, seat) in owners {
            for size in [SMALL, MEDIUM, LARGE] {
                board[sq(name)].push(Piece::new(seat, size));
            }
        }
        Self::build(seats, partners, board, 0, 0, 0)
    }

    fn build(
        seats: usize,
        partners: bool,
        board: Board,
        to_move: usize,
        passes: u8,
        eliminated: u8,
    ) -> Self {
        let mut game = MoscowIce {
            seats,
            partners,
            board,
            to_move,
            passes,
            eliminated,
            end: Race::Playing,
        };
        game.check_end();
        game
    }

    /// The axis `seat` races along.
    fn axis(&self, seat: usize) -> usize {
        seat % 2
    }

    fn is_out(&self, seat: usize) -> bool {
        self.eliminated & (1 << seat) != 0
    }

    fn active(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.seats).filter(|&s| !self.is_out(s))
    }

    /// Bit `s` set: seat `s` still plays.
    fn active_mask(&self) -> u8 {
        ((1u8 << self.seats) - 1) & !self.eliminated
    }

    fn next_seat(&self, seat: usize) -> usize {
        let mut s = seat;
        loop {
            s = (s + 1) % self.seats;
            if !self.is_out(s) || s == seat {
                return s;
            }
        }
    }
}

impl Rules for MoscowIce {
    type Move = Move;

    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn variant(&self) -> &'static str {
        if self.partners {
            "partners"
        } else {
            "standard"
        }
    }

    fn seats(&self) -> usize {
        self.seats
    }

    fn to_move(&self) -> usize {
        self.to_move
    }

    /// Sorted by text (see `movegen.rs`); `pass` alone when the seat has nothing to move.
    fn legal_moves(&self, out: &mut Vec<Move>) {
        self.generate(out);
    }

    fn play(&mut self, m: Move) {
        let seat = self.to_move;
        // Only a pass (the count of passes) or a landing on the mover's finish line (the mover
        // may have finished) can end the game: no other seat's pieces moved, no piece ever
        // leaves its finish line, and the position before was checked already.
        let may_end = m.from == NONE || progress(self.axis(seat), m.to) == 7;
        if m.from == NONE {
            self.passes += 1;
        } else {
            self.passes = 0;
            let piece = self.board[m.from as usize].pop();
            self.board[m.to as usize].push(piece);
        }
        self.to_move = self.next_seat(seat);
        if may_end {
            self.check_end();
        }
    }

    fn write_move(&self, m: Move, out: &mut String) {
        self.write_move_text(m, out);
    }

    fn write_board(&self, out: &mut String) {
        notation::write_board(&self.board, out);
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.end {
            Race::Playing => None,
            Race::Won(w) => Some(self.ranks(Some(usize::from(w)))),
            Race::Stuck => Some(self.ranks(None)),
        }
    }

    fn is_over(&self) -> bool {
        self.end != Race::Playing
    }

    /// Choice: at the turn limit seats are ranked by progress (pieces home, then distance).
    fn outcome_at_turn_limit(&self) -> Outcome {
        self.outcome().unwrap_or_else(|| self.ranks(None))
    }

    fn scores(&self) -> Vec<i32> {
        (0..self.seats).map(|s| self.home(s)).collect()
    }

    /// Choice: with four seats the forfeiting seat's pieces leave the board (pieces they covered
    /// are free again) and the others play on; two seats end the game. True while the game goes
    /// on: false when the forfeit leaves one seat (or one team) standing, which then wins.
    /// Rule (partners): a forfeit ends its team's chances, so it ends the game at once (see
    /// [`Rules::outcome_of_forfeit`]); a partner left alone could otherwise win for the team by
    /// bringing home only its own pieces.
    fn eliminate(&mut self, seat: usize) -> bool {
        if self.seats == 2 || self.partners || self.is_over() {
            return false;
        }
        if self.is_out(seat) {
            return true;
        }
        self.eliminated |= 1 << seat;
        for cell in self.board.iter_mut() {
            cell.remove_seat(seat);
        }
        self.passes = 0;
        if self.to_move == seat {
            self.to_move = self.next_seat(seat);
        }
        self.check_end();
        !self.is_over()
    }

    /// Partners: the intact team shares first place, the forfeiting seat's partner is third and
    /// the forfeiting seat last. Otherwise the default (the seat last, the others first; seats
    /// eliminated before are ranked by the referee below everyone still playing).
    fn outcome_of_forfeit(&self, seat: usize) -> Outcome {
        if !self.partners {
            return Outcome {
                ranks: (0..self.seats).map(|s| u8::from(s == seat)).collect(),
            };
        }
        let ranks = (0..self.seats)
            .map(|s| match (s == seat, s % 2 == seat % 2) {
                (true, _) => 3,
                (false, true) => 2,
                (false, false) => 0,
            })
            .collect();
        Outcome { ranks }
    }

    fn position_text(&self) -> String {
        notation::position_text(self)
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| notation::view_into(self, v))
    }

    fn view_into(&self, out: &mut BoardView) {
        notation::view_into(self, out)
    }

    fn describe(&self) -> String {
        let mut s = String::new();
        notation::write_board(&self.board, &mut s);
        match self.outcome() {
            Some(o) => s.push_str(&format!("game over, ranks {:?}", o.ranks)),
            None => s.push_str(&format!("seat {} to move", self.to_move)),
        }
        s
    }
}

fn start(setup: &Setup) -> Box<dyn Game> {
    Box::new(TextGame::new(MoscowIce::new(
        setup.seats,
        setup.variant == "partners",
    )))
}

fn from_position(setup: &Setup, text: &str) -> Result<Box<dyn Game>, PositionError> {
    Ok(Box::new(TextGame::new(notation::parse_position(
        setup.seats,
        setup.variant == "partners",
        text,
    )?)))
}

/// The registry entry.
pub static INFO: GameInfo = GameInfo {
    name: "moscow-ice",
    title: "Moscow Ice",
    about: "Kendall Johns' race of nesting pieces across a cross-shaped board (2 or 4 players)",
    variants: &[
        Variant {
            name: "standard",
            about: "every player for themselves (2 players on adjacent sides, or 4)",
            seats: &[2, 4],
        },
        Variant {
            name: "partners",
            about: "4 players in two teams, seats 0+2 against 1+3; both partners must finish",
            seats: &[4],
        },
    ],
    default_max_turns: 800,
    books: &[],
    score_name: "pieces home",
    statement: include_str!("statement.md"),
    new: start,
    from_position,
};
