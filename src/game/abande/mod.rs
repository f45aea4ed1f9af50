//! Abande (Dieter Stein, 2005) on the 37-cell hex board: pieces placed next to the group, captures
//! by moving onto an adjacent enemy stack while the whole group stays connected, and points at the
//! end for stacks that still touch an enemy, so a player scores only with the opponent's help.
//!
//! Seat 0 is Black, who places first (the initiative turn); seat 1 is White. The variant `square`
//! plays on 7x7 intersections where diagonal neighbours touch too. The choices where the rules
//! leave room are written in `statement.md` and by the code that makes them.

use super::stackboard::{self, Cell, Geometry, Kind, Stack, Stacks, HEX37, MAX_CELLS, SQUARE7};
use super::standard::{self, History};
use super::{BoardView, DrawRule, Game, GameInfo, Outcome, Setup, Variant};
use std::fmt::Write as _;

#[cfg(test)]
mod tests;

/// Pieces each player has in hand at the start.
pub const PIECES: u8 = 18;
/// Stacks never grow taller than this.
const MAX_HEIGHT: usize = 3;
/// Letters for the pieces of seat 0 (Black) and seat 1 (White).
const LETTERS: [char; 2] = ['b', 'w'];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    Place(Cell),
    /// A whole own stack one cell onto the adjacent enemy stack.
    Step(Cell, Cell),
    Pass,
}

/// An Abande position with its legal moves listed.
#[derive(Clone, Debug)]
pub struct Abande {
    geo: &'static Geometry,
    board: Stacks,
    hand: [u8; 2],
    to_move: usize,
    /// Passes played in a row just before this turn; two end the game.
    passes: u8,
    history: History,
    moves: Vec<Move>,
    texts: Vec<String>,
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
        let mut g = Abande {
            geo,
            board,
            hand,
            to_move,
            passes,
            history: History::new(2),
            moves: Vec::new(),
            texts: Vec::new(),
        };
        g.generate();
        g
    }

    /// Whether captures are open yet: only once Black (seat 0) has placed its second piece, so
    /// Black cannot take White's answer to the initiative turn at once.
    fn moving_allowed(&self) -> bool {
        self.hand[0] + 2 <= PIECES
    }

    fn generate(&mut self) {
        self.moves.clear();
        self.texts.clear();
        if self.passes >= 2 {
            return;
        }
        let me = self.to_move;
        let geo = self.geo;
        let occ = stackboard::occupied(&self.board);
        if self.hand[me] > 0 {
            for c in 0..geo.cells as Cell {
                let free = self.board[c as usize].is_empty();
                // The initiative turn goes anywhere; later pieces must touch the group.
                if free && (occ == 0 || geo.neighbours(c).any(|n| occ >> n & 1 == 1)) {
                    self.moves.push(Move::Place(c));
                }
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
                        self.moves.push(Move::Step(c, n));
                    }
                }
            }
        }
        // Passing is allowed with an empty hand, or when nothing else is (a full board).
        if self.hand[me] == 0 || self.moves.is_empty() {
            self.moves.push(Move::Pass);
        }
        self.texts = self.moves.iter().map(|&m| move_text(geo, m)).collect();
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

    /// Plays the move written `text` (tests and tools).
    pub fn play_text(&mut self, text: &str) -> Result<(), String> {
        let i = self
            .texts
            .iter()
            .position(|t| t == text)
            .ok_or_else(|| format!("'{text}' is not a legal move here"))?;
        self.play(i);
        Ok(())
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

fn move_text(geo: &Geometry, m: Move) -> String {
    match m {
        Move::Place(c) => geo.name(c),
        Move::Step(a, b) => format!("{}-{}", geo.name(a), geo.name(b)),
        Move::Pass => "pass".to_string(),
    }
}

impl Game for Abande {
    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn variant(&self) -> &'static str {
        match self.geo.kind {
            Kind::Hex37 => "standard",
            Kind::Square(_) => "square",
        }
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        self.to_move
    }

    fn legal_moves(&self) -> &[String] {
        &self.texts
    }

    fn play(&mut self, index: usize) {
        let m = self.moves[index];
        self.history.record(self.to_move, &self.texts[index]);
        self.apply(m);
        self.generate();
    }

    fn write_turn_input(&self, first_turn: bool, out: &mut String) {
        standard::write_input(self, &self.history, first_turn, out);
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
        let p = self.points();
        BoardView {
            shape: self.geo.shape,
            cells: self.geo.view_cells(&self.board, |_| String::new()),
            notes: vec![
                format!("in hand: Black {}, White {}", self.hand[0], self.hand[1]),
                format!("points now: Black {}, White {}", p[0], p[1]),
            ],
        }
    }

    fn box_clone(&self) -> Box<dyn Game> {
        Box::new(self.clone())
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
pub fn from_position_text(geo: &'static Geometry, text: &str) -> Result<Abande, String> {
    let stackboard::hand::HandPosition {
        board,
        to_move,
        hand,
        passes,
    } = stackboard::hand::parse(geo, text, LETTERS, ["Black", "White"], PIECES)?;
    if board.iter().any(|s| s.height() > MAX_HEIGHT) {
        return Err(format!("a stack is taller than {MAX_HEIGHT}"));
    }
    if !geo.connected(stackboard::occupied(&board)) {
        return Err("the pieces do not form one connected group".into());
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
    new: |setup: &Setup| Box::new(Abande::new(geometry(setup))),
    from_position: |setup: &Setup, text: &str| {
        Ok(Box::new(from_position_text(geometry(setup), text)?))
    },
};
