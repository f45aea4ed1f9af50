//! Attangle (Dieter Stein, 1998 rules) on the 37-cell hex board: pieces are placed anywhere, and
//! two own units (two singles, or a single and a triple) converge along straight lines on an
//! enemy stack to make a triple at 2:1 or a five-stack at 3:2; the third own five-stack wins.
//!
//! Seat 0 is White, who places first; seat 1 is Black. The variant `square` plays on 8x8 cells
//! with eight directions and needs five five-stacks. Where the rules leave room (a turn with
//! nothing to do, the order of the captured stack, the centre on the square board) the choice is
//! written in `statement.md` and by the code that makes it.

use super::stackboard::{BoardKind, Cell, Geometry, Stack, Stacks, HEX37, MAX_CELLS, SQUARE8};
use super::{
    BoardView, DrawRule, GameInfo, Outcome, PositionError, Rules, Setup, TextGame, Variant,
};
use std::fmt::Write as _;

#[cfg(test)]
mod tests;

/// Pieces each player has at the start.
pub const PIECES: u8 = 50;
/// Letters for the pieces of seat 0 (White) and seat 1 (Black).
const LETTERS: [char; 2] = ['w', 'b'];

/// One legal move (four bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// A piece from the hand onto an empty cell.
    Place(Cell),
    /// Units from the two cells (lower index first) onto the enemy stack on the third.
    Capture(Cell, Cell, Cell),
    /// Only when neither a placement nor a capture is possible.
    Pass,
}

/// The owner of a stack: the seat with more pieces in it (heights are always odd).
fn owner(st: Stack) -> Option<usize> {
    if st.is_empty() {
        None
    } else {
        Some(usize::from(st.count(1) > st.count(0)))
    }
}

/// An Attangle position.
#[derive(Clone, Debug)]
pub struct Attangle {
    geo: &'static Geometry,
    board: Stacks,
    hand: [u8; 2],
    to_move: usize,
    /// Passes played in a row just before this turn; two end the game in a draw.
    passes: u8,
    winner: Option<usize>,
}

impl Attangle {
    /// The empty board of `geo`, 50 pieces each in hand, White to move.
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
        let mut g = Attangle {
            geo,
            board,
            hand,
            to_move,
            passes,
            winner: None,
        };
        g.winner = (0..2).find(|&s| g.fives(s) >= g.fives_to_win());
        g
    }

    /// Five-stacks a player needs to win: 3 on the hex board, 5 on the square one.
    pub fn fives_to_win(&self) -> usize {
        match self.geo.kind {
            BoardKind::Hex37 => 3,
            BoardKind::Square(_) => 5,
        }
    }

    /// Whether the first placement of the game may not go on `c`: the centre `d4` of the hex
    /// board. The 8x8 board has no single centre cell; its four central cells are closed instead
    /// (our choice, in the spirit of the rule).
    fn closed_at_first(&self, c: Cell) -> bool {
        match self.geo.kind {
            BoardKind::Hex37 => c == 18,
            BoardKind::Square(n) => {
                let (x, y, lo, hi) = (c % n, c / n, n / 2 - 1, n / 2);
                (lo..=hi).contains(&x) && (lo..=hi).contains(&y)
            }
        }
    }

    /// The five-stacks `seat` owns.
    pub fn fives(&self, seat: usize) -> usize {
        self.board
            .iter()
            .filter(|s| s.height() == 5 && owner(**s) == Some(seat))
            .count()
    }

    /// Whether a player has won or both passed in a row: nothing is left to play.
    fn over(&self) -> bool {
        self.winner.is_some() || self.passes >= 2
    }

    /// Appends the placements (cell order), then the captures (ordered by their first unit, second
    /// unit, target), or else the pass.
    fn generate(&self, out: &mut Vec<Move>) {
        if self.over() {
            return;
        }
        let start = out.len();
        let me = self.to_move;
        let geo = self.geo;
        if self.hand[me] > 0 {
            let first = self.board.iter().all(|s| s.is_empty());
            for c in 0..geo.cells as Cell {
                if self.board[c as usize].is_empty() && !(first && self.closed_at_first(c)) {
                    out.push(Move::Place(c));
                }
            }
        }
        let placements = out.len();
        for t in 0..geo.cells as Cell {
            let target = self.board[t as usize];
            // Five-stacks are never captured (any capture of one would pass five pieces).
            if owner(target) != Some(1 - me) || target.height() >= 5 {
                continue;
            }
            // The unit that can reach the target from each direction: the first stack met on the
            // line, if it is an own single or triple. Anything nearer blocks the line.
            let mut units = [0 as Cell; 8];
            let mut n = 0;
            for d in 0..geo.dirs {
                if let Some(c) = geo.ray(t, d).find(|&c| !self.board[c as usize].is_empty()) {
                    let st = self.board[c as usize];
                    if owner(st) == Some(me) && matches!(st.height(), 1 | 3) {
                        units[n] = c;
                        n += 1;
                    }
                }
            }
            for i in 0..n {
                for j in i + 1..n {
                    let (a, b) = (units[i].min(units[j]), units[i].max(units[j]));
                    let (sa, sb) = (self.board[a as usize], self.board[b as usize]);
                    // Exactly two units, at most one of them a triple; the new stack must be a
                    // triple at 2:1 or a five at 3:2 for the mover (a lone unit would make a
                    // 2:2 four and is never offered).
                    let height = target.height() + sa.height() + sb.height();
                    let mine = target.count(me) + sa.count(me) + sb.count(me);
                    if height <= 5 && sa.height() + sb.height() <= 4 && 2 * mine == height + 1 {
                        out.push(Move::Capture(a, b, t));
                    }
                }
            }
        }
        out[placements..].sort_by_key(|m| match *m {
            Move::Capture(a, b, t) => (a, b, t),
            _ => (0, 0, 0),
        });
        // A turn is compulsory; with nothing to place and nothing to capture the player passes.
        if out.len() == start {
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
            Move::Capture(a, b, t) => {
                // The order of the two units on the new stack does not matter to the rules; the
                // first named goes below the second.
                let sa = std::mem::take(&mut self.board[a as usize]);
                let sb = std::mem::take(&mut self.board[b as usize]);
                self.board[t as usize].put(sa);
                self.board[t as usize].put(sb);
                self.passes = 0;
                if self.board[t as usize].height() == 5 && self.fives(me) >= self.fives_to_win() {
                    self.winner = Some(me);
                }
            }
            Move::Pass => self.passes += 1,
        }
        self.to_move = 1 - me;
    }
}

impl Rules for Attangle {
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

    /// `c3`, `d2,d6-d4` (the two units, then the target) or `pass`.
    fn write_move(&self, m: Move, out: &mut String) {
        match m {
            Move::Place(c) => self.geo.write_name(out, c),
            Move::Capture(a, b, t) => {
                self.geo.write_name(out, a);
                out.push(',');
                self.geo.write_name(out, b);
                out.push('-');
                self.geo.write_name(out, t);
            }
            Move::Pass => out.push_str("pass"),
        }
    }

    fn write_board(&self, out: &mut String) {
        self.geo.write_board_lines(out, &self.board, LETTERS);
        let _ = writeln!(out, "{} {}", self.hand[0], self.hand[1]);
    }

    fn is_over(&self) -> bool {
        self.over()
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner {
            Some(w) => Some(Outcome::winner(2, w)),
            None => (self.passes >= 2).then(|| Outcome::draw(2)),
        }
    }

    fn draw_rule(&self) -> Option<DrawRule> {
        (self.winner.is_none() && self.passes >= 2).then_some(DrawRule::TwoPasses)
    }

    fn scores(&self) -> Vec<i32> {
        (0..2).map(|s| self.fives(s) as i32).collect()
    }

    /// Rule: a capture's two units may be named in either order (`f5,c5-e6` is `c5,f5-e6`); the
    /// offered text names them in cell order.
    fn index_of_move(&self, text: &str, texts: &[String]) -> Option<usize> {
        let exact = texts.iter().position(|m| m == text);
        exact.or_else(|| {
            let (units, target) = text.split_once('-')?;
            let (a, b) = units.split_once(',')?;
            let swapped = format!("{b},{a}-{target}");
            texts.iter().position(|m| *m == swapped)
        })
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
        self.geo.view_cells_into(&self.board, |_| "", out, 2);
        let _ = write!(
            out.note(0),
            "in hand: White {}, Black {}",
            self.hand[0],
            self.hand[1]
        );
        let _ = write!(
            out.note(1),
            "five-stacks: White {}, Black {}",
            self.fives(0),
            self.fives(1)
        );
    }

    fn describe(&self) -> String {
        let mut s = String::new();
        self.write_board(&mut s);
        let side = ["White", "Black"];
        match (self.winner, self.passes >= 2) {
            (Some(w), _) => {
                let _ = write!(s, "{} has won", side[w]);
            }
            (None, true) => s.push_str("draw: neither player could move"),
            (None, false) => {
                let _ = write!(s, "{} to move", side[self.to_move]);
            }
        }
        s
    }
}

/// Reads the one-line form: the board rows (see [`Geometry::write_rows`], `w` White, `b` Black),
/// the side to move, White's and Black's pieces in hand, and the passes just played in a row.
pub fn from_position_text(geo: &'static Geometry, text: &str) -> Result<Attangle, PositionError> {
    let super::stackboard::hand::HandPosition {
        board,
        to_move,
        hand,
        passes,
    } = super::stackboard::hand::parse(geo, text, LETTERS, ["White", "Black"], PIECES)?;
    for (c, st) in board.iter().enumerate() {
        let ok = match st.height() {
            0 | 1 => true,
            3 | 5 => st.count(0).abs_diff(st.count(1)) == 1,
            _ => false,
        };
        if !ok {
            return Err(PositionError::StackShape {
                cell: geo.name(c as Cell),
            });
        }
    }
    let g = Attangle::from_parts(geo, board, hand, to_move, passes);
    if (0..2).all(|s| g.fives(s) >= g.fives_to_win()) {
        return Err(PositionError::BothHaveFives);
    }
    Ok(g)
}

/// The board of a variant.
fn geometry(setup: &Setup) -> &'static Geometry {
    if setup.variant == "square" {
        &SQUARE8
    } else {
        &HEX37
    }
}

/// The registry entry.
pub static INFO: GameInfo = GameInfo {
    name: "attangle",
    title: "Attangle",
    about: "Dieter Stein's Attangle: place anywhere, capture with two converging units, three five-stacks win (37-cell hex board)",
    variants: &[
        Variant {
            name: "standard",
            about: "the six-sided board of 37 cells, 50 pieces each, three five-stacks to win",
            seats: &[2],
        },
        Variant {
            name: "square",
            about: "8x8 cells, eight directions, five five-stacks to win",
            seats: &[2],
        },
    ],
    default_max_turns: 400,
    books: &[],
    score_name: "fives",
    statement: include_str!("statement.md"),
    new: |setup: &Setup| Box::new(TextGame::new(Attangle::new(geometry(setup)))),
    from_position: |setup: &Setup, text: &str| {
        Ok(Box::new(TextGame::new(from_position_text(
            geometry(setup),
            text,
        )?)))
    },
};
