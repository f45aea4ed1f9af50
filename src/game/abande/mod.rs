//! Abande (Dieter Stein, 2005) on the 37-cell hex board: pieces placed next to the group, captures
//! by moving onto an adjacent enemy stack while the whole group stays connected, and points at the
//! end for stacks that still touch an enemy, so a player scores only with the opponent's help.
//!
//! Seat 0 is Black, who places first (the initiative turn); seat 1 is White. The variant `square`
//! plays on 7x7 intersections where diagonal neighbours touch too. The choices where the rules
//! leave room are written in `statement.md` and by the code that makes them.

use super::stackboard::{
    self, BoardKind, Cell, Geometry, Stack, Stacks, HEX37, MAX_CELLS, SQUARE7,
};
use super::{
    BoardView, DrawRule, GameInfo, Outcome, PositionError, Rules, SeatColour, Setup, TextGame,
    Variant,
};
use std::fmt::Write as _;

#[cfg(test)]
mod tests;

/// Pieces each player has in hand at the start.
pub const PIECES: u8 = 18;
/// Stacks never grow taller than this.
const MAX_HEIGHT: usize = 3;
/// Letters for the pieces of seat 0 (Black) and seat 1 (White).
const LETTERS: [char; 2] = ['b', 'w'];

/// One move (three bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// A piece from the hand onto an empty cell.
    Place(Cell),
    /// A whole own stack one cell onto the adjacent enemy stack.
    Step(Cell, Cell),
    /// Nothing (allowed with an empty hand, or when nothing else is).
    Pass,
}

/// An Abande position.
#[derive(Clone, Debug)]
pub struct Abande {
    geo: &'static Geometry,
    board: Stacks,
    hand: [u8; 2],
    to_move: usize,
    /// Passes played in a row just before this turn; two end the game.
    passes: u8,
}

impl Abande {
    /// The empty board of `geo`, both hands full, Black to move.
    pub fn new(geo: &'static Geometry) -> Self {
        Self::from_parts(geo, [Stack::EMPTY; MAX_CELLS], [PIECES; 2], 0, 0)
    }

    fn from_parts(
        geo: &'static Geometry,
        board: Stacks,
        hand: [u8; 2],
        to_move: usize,
        passes: u8,
    ) -> Self {
        Abande {
            geo,
            board,
            hand,
            to_move,
            passes,
        }
    }

    /// Whether captures are open yet: only once Black (seat 0) has placed its second piece, so
    /// Black cannot take White's answer to the initiative turn at once.
    fn moving_allowed(&self) -> bool {
        self.hand[0] + 2 <= PIECES
    }

    /// Appends the legal moves: placements from a1 on, then captures by starting cell, then the
    /// pass.
    fn generate(&self, out: &mut Vec<Move>) {
        if self.passes >= 2 {
            return;
        }
        let start = out.len();
        let me = self.to_move;
        let geo = self.geo;
        let occ = stackboard::occupied(&self.board);
        if self.hand[me] > 0 {
            // The initiative turn goes anywhere; later pieces must touch the group.
            let mut free = if occ == 0 {
                u64::MAX >> (64 - geo.cells)
            } else {
                geo.touching(occ) & !occ
            };
            while free != 0 {
                out.push(Move::Place(free.trailing_zeros() as Cell));
                free &= free - 1;
            }
        }
        if self.moving_allowed() {
            for c in 0..geo.cells as Cell {
                let st = self.board[c as usize];
                if st.top() != Some(me) {
                    continue;
                }
                // Whether the group holds together without c: asked once, when needed.
                let mut holds: Option<bool> = None;
                for n in geo.neighbours(c) {
                    let target = self.board[n as usize];
                    if target.top() == Some(1 - me)
                        && st.height() + target.height() <= MAX_HEIGHT
                        && *holds.get_or_insert_with(|| geo.connected(occ & !(1u64 << c)))
                    {
                        out.push(Move::Step(c, n));
                    }
                }
            }
        }
        // Passing is allowed with an empty hand, or when nothing else is (a full board).
        if self.hand[me] == 0 || out.len() == start {
            out.push(Move::Pass);
        }
    }

    fn apply(&mut self, m: Move) {
        let me = self.to_move;
        match m {
            Move::Place(c) => {
                self.board[c as usize].push(me);
                self.hand[me] -= 1;
                self.passes = 0;
            }
            Move::Step(from, to) => {
                let st = std::mem::take(&mut self.board[from as usize]);
                self.board[to as usize].put(st);
                self.passes = 0;
            }
            Move::Pass => self.passes += 1,
        }
        self.to_move = 1 - me;
    }

    /// Whether the stack on `c` counts at the end: its top touches an enemy top.
    fn awake(&self, c: usize) -> bool {
        let Some(owner) = self.board[c].top() else {
            return false;
        };
        self.geo
            .neighbours(c as Cell)
            .any(|n| self.board[n as usize].top() == Some(1 - owner))
    }

    /// Points per seat as the end would count them: stacks whose top touches no enemy top are
    /// removed first (the pieces inside mixed stacks stay where they are), then every owned stack
    /// scores its height.
    pub fn points(&self) -> [i32; 2] {
        let mut p = [0; 2];
        for c in 0..self.geo.cells {
            if self.awake(c) {
                let st = self.board[c];
                p[st.top().unwrap_or(0)] += st.height() as i32;
            }
        }
        p
    }
}

impl Rules for Abande {
    type Move = Move;

    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn variant(&self) -> &'static str {
        match self.geo.kind {
            BoardKind::Hex37 => "standard",
            BoardKind::Square(_) => "square",
        }
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        self.to_move
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        self.generate(out);
    }

    fn play(&mut self, m: Move) {
        self.apply(m);
    }

    /// A placement is its cell (`d4`), a capture its two cells (`d5-e4`), a pass `pass`.
    fn write_move(&self, m: Move, out: &mut String) {
        match m {
            Move::Place(c) => self.geo.write_name(out, c),
            Move::Step(a, b) => {
                self.geo.write_name(out, a);
                out.push('-');
                self.geo.write_name(out, b);
            }
            Move::Pass => out.push_str("pass"),
        }
    }

    fn write_board(&self, out: &mut String) {
        self.geo.write_board_lines(out, &self.board, LETTERS);
        let _ = writeln!(out, "{} {}", self.hand[0], self.hand[1]);
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.passes >= 2).then(|| {
            let p = self.points();
            Outcome::from_values(&[i64::from(p[0]), i64::from(p[1])])
        })
    }

    fn is_over(&self) -> bool {
        self.passes >= 2
    }

    fn draw_rule(&self) -> Option<DrawRule> {
        let p = self.points();
        (self.passes >= 2 && p[0] == p[1]).then_some(DrawRule::EqualPoints)
    }

    fn scores(&self) -> Vec<i32> {
        self.points().to_vec()
    }

    fn position_text(&self) -> String {
        let mut s = String::with_capacity(120);
        self.geo.write_rows(&mut s, &self.board, LETTERS);
        let _ = write!(
            s,
            " {} {} {} {}",
            LETTERS[self.to_move], self.hand[0], self.hand[1], self.passes
        );
        s
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| self.view_into(v))
    }

    fn view_into(&self, out: &mut BoardView) {
        let p = self.points();
        self.geo.view_cells_into(&self.board, |_| "", out, 2);
        // Stones connect along diagonals too (on the square board; hexagons have none).
        out.diagonals = true;
        let _ = write!(
            out.note(0),
            "in hand: Black {}, White {}",
            self.hand[0],
            self.hand[1]
        );
        let _ = write!(out.note(1), "points now: Black {}, White {}", p[0], p[1]);
    }

    /// Seat 0 is Black, seat 1 White.
    fn seat_colours(&self) -> Vec<SeatColour> {
        vec![SeatColour::BLACK, SeatColour::WHITE]
    }

    fn describe(&self) -> String {
        let mut s = String::new();
        self.write_board(&mut s);
        let side = ["Black", "White"];
        if self.passes >= 2 {
            let p = self.points();
            let _ = write!(s, "game over, points Black {} White {}", p[0], p[1]);
        } else {
            let _ = write!(s, "{} to move", side[self.to_move]);
        }
        s
    }
}

/// Reads the one-line form: the board rows (see [`Geometry::write_rows`], `b` Black, `w` White),
/// the side to move, Black's and White's pieces in hand, and the passes just played in a row.
pub fn from_position_text(geo: &'static Geometry, text: &str) -> Result<Abande, PositionError> {
    let stackboard::hand::HandPosition {
        board,
        to_move,
        hand,
        passes,
    } = stackboard::hand::parse(geo, text, LETTERS, ["Black", "White"], PIECES)?;
    if board.iter().any(|s| s.height() > MAX_HEIGHT) {
        return Err(PositionError::TooTall { max: MAX_HEIGHT });
    }
    if !geo.connected(stackboard::occupied(&board)) {
        return Err(PositionError::NotConnected);
    }
    Ok(Abande::from_parts(geo, board, hand, to_move, passes))
}

/// The board of a variant.
fn geometry(setup: &Setup) -> &'static Geometry {
    if setup.variant == "square" {
        &SQUARE7
    } else {
        &HEX37
    }
}

/// The registry entry.
pub static INFO: GameInfo = GameInfo {
    name: "abande",
    title: "Abande",
    about: "Dieter Stein's Abande: place and capture on a 37-cell hex board, one connected group, points for stacks touching the enemy",
    variants: &[
        Variant {
            name: "standard",
            about: "the six-sided board of 37 cells, 18 pieces each",
            seats: &[2],
        },
        Variant {
            name: "square",
            about: "7x7 intersections, diagonal neighbours touch too",
            seats: &[2],
        },
    ],
    default_max_turns: 200,
    books: &[],
    score_name: "points",
    statement: include_str!("statement.md"),
    new: |setup: &Setup| Box::new(TextGame::new(Abande::new(geometry(setup)))),
    from_position: |setup: &Setup, text: &str| {
        Ok(Box::new(TextGame::new(from_position_text(
            geometry(setup),
            text,
        )?)))
    },
};
