//! Alva (Alvydas Jakeliūnas, 2001): a draughts-like game of placing pieces on the 81 points of a
//! 9x9 grid and capturing by compulsory jumps, one of the seed games every bot of arbiter can play.
//!
//! Choices where the rules leave room (all stated in `statement.md` and tested):
//! - Jumps go along the board's lines only (up, down, left, right), never diagonally; the same
//!   holds for every continuation of a multi-jump, which may turn or reverse at each step.
//! - A jump passes over one enemy piece or an unbroken row of three or more (never exactly two),
//!   all enemy, and lands on the empty point right after them. The jumped pieces leave the board
//!   after each jump, so later jumps of the same turn see them gone. A continuation is compulsory
//!   whenever one exists; among several the player chooses, and there is no duty to take most.
//! - A turn's captured pieces stay pending until the end of the opponent's next turn. If that turn
//!   captures exactly as many, both players get their pieces back into their hands (to be placed
//!   again) and nothing is pending. Otherwise the pending pieces become the captor's for good, and
//!   the new turn's capture (if any) is pending in its turn.
//! - A shift moves one own piece to an orthogonally adjacent empty point; the placement after it
//!   may use any empty point, the one just left included. Without a piece in hand there is no
//!   shift either, since the placement is compulsory.
//! - The game ends when the player to move can neither capture nor place (the rules say "either
//!   player"; whether the player not to move could act changes with the move, so it is asked at
//!   its turn). Each player scores the
//!   pieces it captured (a capture still pending at the end counts for its captor) plus the enemy
//!   pieces on edge points; more points wins, equal is a draw. At the turn limit the same count
//!   ranks the players.
//!
//! Points are `row * 9 + col`, row 0 being the board's row `1` and col 0 column `a`.
//! Seat 0 is White (`w`) and moves first, seat 1 is Black (`b`).

use super::{
    BoardView, CellShape, DrawRule, GameInfo, Outcome, PositionError, Rules, Setup, TextGame,
    Variant,
};
use std::fmt::Write as _;

mod movegen;
#[cfg(test)]
mod tests;

/// Points per line.
const SIDE: usize = 9;
/// Points on the board.
const POINTS: usize = SIDE * SIDE;
/// Pieces each player starts with in hand.
pub const PIECES: u32 = 32;
/// No point (the shift fields of a plain placement).
const NONE: u8 = u8::MAX;
/// Point characters indexed by code: empty, White, Black.
const POINT_CHARS: [char; 3] = ['.', 'w', 'b'];

/// One legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Optionally shift the piece on `from` to `to` (both `NONE` for no shift), then place on `at`.
    Place { from: u8, to: u8, at: u8 },
    /// A capture by the piece on `start`: `jumps` jumps, jump `i` in direction
    /// `movegen::DIRECTIONS[(dirs >> 2 * i) & 3]`. Each jump takes at least one of the enemy's 32
    /// pieces, so 32 jumps (64 bits) is the most there can be. Where a jump lands follows from the
    /// board (the first empty point after the run of enemy pieces), so the points visited are
    /// found again by replaying the jumps (see `movegen::replay`).
    Capture { start: u8, jumps: u8, dirs: u64 },
}

/// Appends the name of point `p`, e.g. `e6`.
fn point_name(out: &mut String, p: u8) {
    out.push((b'a' + p % SIDE as u8) as char);
    out.push((b'1' + p / SIDE as u8) as char);
}

/// Whether `p` lies on the board's edge (row 1 or 9, column a or i).
fn on_edge(p: usize) -> bool {
    let (c, r) = (p % SIDE, p / SIDE);
    c == 0 || r == 0 || c == SIDE - 1 || r == SIDE - 1
}

/// An Alva position (plain data: a copy is a copy of its bytes).
#[derive(Clone, Debug)]
pub struct Alva {
    /// Point codes (0 empty, 1 White, 2 Black).
    board: [u8; POINTS],
    /// Pieces each seat can still place.
    hand: [u32; 2],
    /// Enemy pieces each seat has captured for good.
    captured: [u32; 2],
    /// Pieces captured on the previous turn by the seat not to move, waiting beside the board.
    pending: u32,
    to_move: usize,
    /// Whether the player to move can neither capture nor place: the game is over.
    over: bool,
}

impl Default for Alva {
    fn default() -> Self {
        Self::new()
    }
}

impl Alva {
    /// The empty start position, White to move, 32 pieces in each hand.
    pub fn new() -> Self {
        Self::build([0; POINTS], [PIECES; 2], [0; 2], 0, 0)
    }

    fn build(
        board: [u8; POINTS],
        hand: [u32; 2],
        captured: [u32; 2],
        pending: u32,
        to_move: usize,
    ) -> Self {
        let mut g = Alva {
            board,
            hand,
            captured,
            pending,
            to_move,
            over: false,
        };
        g.settle();
        g
    }

    /// Ends the game if the player to move has no move. With a piece in hand there is always a
    /// placement (at most 64 of the 81 points are taken), so only an empty hand is asked whether
    /// a capture exists.
    fn settle(&mut self) {
        self.over = self.hand[self.to_move] == 0 && !self.can_capture();
    }

    /// The result once the game is over: more points wins.
    fn end(&self) -> Option<Outcome> {
        self.over
            .then(|| Outcome::from_values(&self.points().map(i64::from)))
    }

    /// Each seat's points now: its captured pieces (a pending capture counted for its captor) and
    /// the enemy pieces on edge points.
    pub fn points(&self) -> [u32; 2] {
        let mut points = self.captured;
        points[1 - self.to_move] += self.pending;
        for (p, &code) in self.board.iter().enumerate() {
            if code != 0 && on_edge(p) {
                points[2 - code as usize] += 1;
            }
        }
        points
    }

    /// Pieces each seat holds in hand.
    pub fn hand(&self) -> [u32; 2] {
        self.hand
    }

    /// Pieces each seat has captured for good, and the previous turn's pending capture.
    pub fn captured(&self) -> ([u32; 2], u32) {
        (self.captured, self.pending)
    }

    /// The rows from row 9 down to row 1.
    fn rows(&self) -> impl Iterator<Item = String> + '_ {
        (0..SIDE).rev().map(move |r| {
            (0..SIDE)
                .map(|c| POINT_CHARS[self.board[r * SIDE + c] as usize])
                .collect()
        })
    }
}

/// Reads the one-line form: nine rows from row 9 joined by `/`, the side to move (`w`/`b`), both
/// hands, both players' captured pieces, and the pending capture (see the statement).
pub fn from_position_text(text: &str) -> Result<Alva, PositionError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [rows, side, numbers @ ..] = &words[..] else {
        return Err(PositionError::Form {
            expected: "`rows side hands(2) captured(2) pending`".into(),
            got: None,
        });
    };
    if numbers.len() != 5 {
        return Err(PositionError::Count {
            expected: 5,
            what: "numbers after the side to move (White's and Black's hand, White's and \
                   Black's captured pieces, the pending capture)",
            got: numbers.len(),
        });
    }
    let to_move = match *side {
        "w" => 0,
        "b" => 1,
        other => return Err(PositionError::side_w_or_b(other)),
    };
    let mut n = [0u32; 5];
    for (slot, word) in n.iter_mut().zip(numbers) {
        *slot = word.parse().map_err(|_| PositionError::NotANumber {
            what: "count of pieces",
            text: word.to_string(),
        })?;
    }
    let [hw, hb, cw, cb, pending] = n;
    let rows: Vec<&str> = rows.split('/').collect();
    if rows.len() != SIDE {
        return Err(PositionError::Count {
            expected: SIDE,
            what: "rows",
            got: rows.len(),
        });
    }
    let mut board = [0u8; POINTS];
    let mut on_board = [0u32; 2];
    for (i, line) in rows.iter().enumerate() {
        if line.chars().count() != SIDE {
            return Err(PositionError::RowLength {
                what: "row",
                row: SIDE - i,
                expected: SIDE,
                line: line.to_string(),
            });
        }
        for (c, ch) in line.chars().enumerate() {
            let code = match ch {
                '.' => continue,
                'w' => 1,
                'b' => 2,
                _ => {
                    return Err(PositionError::Character {
                        what: "point",
                        ch,
                        hint: " (use . w b)",
                    })
                }
            };
            board[(SIDE - 1 - i) * SIDE + c] = code;
            on_board[code as usize - 1] += 1;
        }
    }
    // Every piece of a colour is on the board, in its owner's hand, or captured by the other.
    let pending_of = |seat: usize| if seat == to_move { 0 } else { pending };
    let accounted = [
        on_board[0] + hw + cb + pending_of(1),
        on_board[1] + hb + cw + pending_of(0),
    ];
    if let Some(seat) = (0..2).find(|&s| accounted[s] > PIECES) {
        return Err(PositionError::TooManyAccounted {
            side: ["White", "Black"][seat],
            count: accounted[seat],
            max: PIECES,
        });
    }
    Ok(Alva::build(board, [hw, hb], [cw, cb], pending, to_move))
}

impl Rules for Alva {
    type Move = Move;

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

    /// The capture paths, or else every placement with an optional shift first (see
    /// `movegen`).
    fn legal_moves(&self, out: &mut Vec<Move>) {
        if !self.over {
            self.generate(out);
        }
    }

    fn play(&mut self, m: Move) {
        let seat = self.to_move;
        self.apply(m);
        self.to_move = 1 - seat;
        self.settle();
    }

    fn write_move(&self, m: Move, out: &mut String) {
        self.write_move_text(m, out);
    }

    fn write_board(&self, out: &mut String) {
        for row in self.rows() {
            out.push_str(&row);
            out.push('\n');
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end()
    }

    fn is_over(&self) -> bool {
        self.over
    }

    fn draw_rule(&self) -> Option<DrawRule> {
        let p = self.points();
        (self.over && p[0] == p[1]).then_some(DrawRule::EqualPoints)
    }

    fn outcome_at_turn_limit(&self) -> Outcome {
        Outcome::from_values(&self.points().map(i64::from))
    }

    fn scores(&self) -> Vec<i32> {
        self.points().iter().map(|&p| p as i32).collect()
    }

    fn position_text(&self) -> String {
        let mut s = self.rows().collect::<Vec<_>>().join("/");
        let _ = write!(
            s,
            " {} {} {} {} {} {}",
            ["w", "b"][self.to_move],
            self.hand[0],
            self.hand[1],
            self.captured[0],
            self.captured[1],
            self.pending
        );
        s
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| self.view_into(v))
    }

    fn view_into(&self, out: &mut BoardView) {
        out.reshape(CellShape::Point, POINTS, 3);
        let mut i = 0;
        for r in (0..SIDE).rev() {
            for c in 0..SIDE {
                let p = r * SIDE + c;
                let mark = if on_edge(p) { "edge" } else { "" };
                let cell = out.cell(i, c as f32, (SIDE - 1 - r) as f32, mark);
                cell.name.clear();
                point_name(&mut cell.name, p as u8);
                let code = self.board[p];
                cell.set_pieces((code != 0).then(|| (code as usize - 1, "")));
                i += 1;
            }
        }
        let points = self.points();
        let _ = write!(
            out.note(0),
            "in hand: White {}, Black {}",
            self.hand[0],
            self.hand[1]
        );
        let _ = write!(
            out.note(1),
            "captured: White {}, Black {}; pending for {}: {}",
            self.captured[0],
            self.captured[1],
            ["White", "Black"][1 - self.to_move],
            self.pending
        );
        let _ = write!(
            out.note(2),
            "points: White {}, Black {}",
            points[0],
            points[1]
        );
    }

    fn describe(&self) -> String {
        let mut s = String::with_capacity(160);
        self.write_board(&mut s);
        let side = ["White", "Black"];
        match &self.end() {
            Some(o) => match o.sole_winner() {
                Some(w) => {
                    let _ = write!(s, "{} has won", side[w]);
                }
                None => s.push_str("drawn"),
            },
            None => {
                let _ = write!(s, "{} to move", side[self.to_move]);
            }
        }
        let points = self.points();
        let _ = write!(
            s,
            " (points: White {}, Black {}; in hand: White {}, Black {}; pending {})",
            points[0], points[1], self.hand[0], self.hand[1], self.pending
        );
        s
    }
}

/// The registry entry.
pub static INFO: GameInfo = GameInfo {
    name: "alva",
    title: "Alva",
    about: "Alvydas Jakeliūnas's placement and jumping game on the 81 points of a 9x9 grid",
    variants: &[Variant {
        name: "standard",
        about: "9x9 points, 32 pieces each, jumps along the lines",
        seats: &[2],
    }],
    default_max_turns: 400,
    books: &[],
    score_name: "points",
    statement: include_str!("statement.md"),
    new: |_: &Setup| Box::new(TextGame::new(Alva::new())),
    from_position: |_: &Setup, text: &str| Ok(Box::new(TextGame::new(from_position_text(text)?))),
};
