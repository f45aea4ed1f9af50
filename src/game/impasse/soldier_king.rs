//! Impasse told as soldiers and kings (seed 003), a variant of the arena's Impasse with rules of
//! its own: a promotion takes another soldier off the board, a king reaching its first row is
//! demoted instead of bearing off, the impasse ends the turn, and a player wins once at most one
//! of its pieces is left. It shares the arena's board, start position and square helpers but
//! none of its list-order quirks: moves are unique texts and the turn input is the standard shape.
//!
//! `soldier_king.md` (appended to the game's statement) lists every difference from the arena's
//! game and every choice made where the seed's text leaves room; the comments below point at them.

use super::{
    at, col, double_code, forward, from_position_text as arena_position, furthest_row, nearest_row,
    row, single_code, square_name, text_key, write_squares, Square, CELL_CHARS, NONE,
};
use crate::game::{BoardView, CellShape, GameInfo, Outcome, PositionError, Rules};
use std::fmt::Write as _;

#[cfg(test)]
#[path = "soldier_king_plain.rs"]
mod plain;
#[cfg(test)]
#[path = "soldier_king_tests.rs"]
mod tests;

/// The variant's name after `--variant`.
pub const VARIANT: &str = "soldier-king";
/// Pieces (soldiers and kings, a king counting one) per side at the start.
pub const PIECES: u8 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A soldier forward or a king backward over empty squares.
    Slide,
    /// A king and the own soldier diagonally behind it change places.
    Swap,
    /// Impasse: a soldier leaves the board.
    Remove,
    /// Impasse: a king becomes a soldier where it stands.
    Demote,
}

/// One complete turn (the typed move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    kind: Kind,
    /// The slid piece's square, the king's square of a swap, the impasse square.
    from: Square,
    /// A slide's destination or the swapped soldier's square; `NONE` at an impasse.
    to: Square,
    /// The soldier crowned king by a promotion, or `NONE`.
    promoted: Square,
    /// The soldier a promotion takes off the board, or `NONE`; the text's last square.
    removed: Square,
}

impl Move {
    fn new(kind: Kind, from: Square, to: Square) -> Self {
        Move {
            kind,
            from,
            to,
            promoted: NONE,
            removed: NONE,
        }
    }

    fn promoting(mut self, promoted: Square, removed: Square) -> Self {
        self.promoted = promoted;
        self.removed = removed;
        self
    }

    /// Orders like the move text (see `text_key`).
    fn key(&self) -> u32 {
        text_key([self.from, self.to, self.removed])
    }

    /// `c1a3` (slide or swap), `c1a3e1` (with the removed soldier of a promotion), `b6` (impasse),
    /// `b8d8` / `b8b8` (an impasse demotion followed by the two-soldier rule).
    fn write_text(&self, out: &mut String) {
        write_squares([self.from, self.to, self.removed], out);
    }
}

/// A position of the soldiers and kings variant (the rules; [`crate::game::TextGame`] adds the
/// texts and the history).
#[derive(Clone, Debug)]
pub struct SoldierKing {
    /// Cell codes indexed by square, as the arena's (`.wbWB`: a double is a king).
    board: [u8; 64],
    /// Soldiers plus kings on the board, per seat.
    pieces: [u8; 2],
    to_move: usize,
    winner: Option<usize>,
}

impl Default for SoldierKing {
    fn default() -> Self {
        Self::new()
    }
}

impl SoldierKing {
    /// The arena's start position (four soldiers and four kings a side), White to move.
    /// Choice: the seed does not say who starts; White at the bottom does, as in the arena.
    pub fn new() -> Self {
        let start = super::Impasse::new();
        Self::from_board(start.board, 0).expect("the start position is valid")
    }

    /// Checks a board against what play can reach and lists its moves.
    fn from_board(board: [u8; 64], to_move: usize) -> Result<Self, PositionError> {
        let side = ["White", "Black"];
        let mut pieces = [0u8; 2];
        for seat in 0..2 {
            let mut on_last_row = 0;
            for sq in 0..64u8 {
                let code = board[sq as usize];
                if code == single_code(seat) {
                    pieces[seat] += 1;
                    on_last_row += u8::from(row(sq) == furthest_row(seat));
                } else if code == double_code(seat) {
                    pieces[seat] += 1;
                    if row(sq) == nearest_row(seat) {
                        let [c, r] = square_name(sq);
                        return Err(PositionError::KingOnFirstRow {
                            side: side[seat],
                            square: format!("{}{}", c as char, r as char),
                        });
                    }
                }
            }
            if pieces[seat] > PIECES {
                return Err(PositionError::MoreThanAtStart {
                    side: side[seat],
                    count: pieces[seat],
                    max: PIECES,
                });
            }
            if on_last_row > 1 {
                return Err(PositionError::SoldiersOnLastRow {
                    side: side[seat],
                    count: on_last_row,
                });
            }
        }
        let done: Vec<usize> = (0..2).filter(|&s| pieces[s] <= 1).collect();
        if done.len() == 2 {
            return Err(PositionError::BothDown);
        }
        Ok(SoldierKing {
            board,
            pieces,
            to_move,
            winner: done.first().copied(),
        })
    }

    /// Pieces `seat` has taken off the board: 8 minus its soldiers and kings.
    pub fn removed(&self, seat: usize) -> u8 {
        PIECES - self.pieces[seat]
    }

    /// The seat that is down to one piece or none, if any.
    pub fn winner(&self) -> Option<usize> {
        self.winner
    }

    /// Appends the legal moves of the seat to move to `moves`, sorted by text.
    fn generate(&self, moves: &mut Vec<Move>) {
        let start = moves.len();
        if self.winner.is_none() {
            let p = self.to_move;
            let (soldier, king) = (single_code(p), double_code(p));
            let fwd = forward(p);
            for from in 0..64u8 {
                let code = self.board[from as usize];
                if code == soldier {
                    for dc in [-1, 1] {
                        let (mut c, mut r) = (col(from) + dc, row(from) + fwd);
                        while let Some(to) = at(c, r).filter(|&to| self.board[to as usize] == 0) {
                            let m = Move::new(Kind::Slide, from, to);
                            self.push_arrival(moves, m, from, to);
                            (c, r) = (c + dc, r + fwd);
                        }
                    }
                } else if code == king {
                    for dc in [-1, 1] {
                        let (mut c, mut r) = (col(from) + dc, row(from) - fwd);
                        while let Some(to) = at(c, r).filter(|&to| self.board[to as usize] == 0) {
                            // A king that lands on its first row is demoted: never a promotion.
                            moves.push(Move::new(Kind::Slide, from, to));
                            (c, r) = (c + dc, r - fwd);
                        }
                        // The swap: the own soldier one step diagonally behind the king moves
                        // to the king's square, the king to the soldier's. Choice: "adjacent"
                        // is diagonal (pieces stand on dark squares only), and a swap counts as
                        // arriving for both pieces (promotion here, demotion in `apply`).
                        let behind = at(col(from) + dc, row(from) - fwd);
                        if let Some(to) = behind.filter(|&to| self.board[to as usize] == soldier) {
                            let m = Move::new(Kind::Swap, from, to);
                            self.push_arrival(moves, m, to, from);
                        }
                    }
                }
            }
            // The impasse, only when no slide or swap exists at the start of the turn.
            if moves.len() == start {
                for from in 0..64u8 {
                    let code = self.board[from as usize];
                    if code == soldier {
                        moves.push(Move::new(Kind::Remove, from, NONE));
                    } else if code == king {
                        self.push_impasse_demotion(moves, from);
                    }
                }
            }
        }
        // Texts are unique (a slide's destination is empty, a swap's holds a soldier; the last
        // square names a different soldier in each promotion), so any sort gives one order.
        moves[start..].sort_unstable_by_key(Move::key);
    }

    /// The own soldier on the last row other than `except`, if any (play keeps it to one).
    fn last_row_soldier(&self, except: Square) -> Option<Square> {
        let p = self.to_move;
        (0..8)
            .filter_map(|c| at(c, furthest_row(p)))
            .find(|&sq| sq != except && self.board[sq as usize] == single_code(p))
    }

    /// Pushes `m`, in which a soldier moves from `origin` to `dest`, once per way it can end.
    /// Reaching the last row promotes it and takes another soldier off: with a soldier already
    /// on the last row, one of the two is promoted and the other removed (either way round);
    /// otherwise any other soldier is removed. A soldier with no other soldier left stays one.
    fn push_arrival(&self, out: &mut Vec<Move>, m: Move, origin: Square, dest: Square) {
        let p = self.to_move;
        if row(dest) != furthest_row(p) {
            out.push(m);
            return;
        }
        if let Some(other) = self.last_row_soldier(origin) {
            out.push(m.promoting(dest, other));
            out.push(m.promoting(other, dest));
            return;
        }
        let before = out.len();
        for sq in 0..64u8 {
            if sq != origin && self.board[sq as usize] == single_code(p) {
                out.push(m.promoting(dest, sq));
            }
        }
        if out.len() == before {
            out.push(m);
        }
    }

    /// Pushes the impasse demotion of the king on `from`. The impasse ends the turn: no
    /// promotion follows it, except that a king demoted on the last row beside a soldier already
    /// there makes two soldiers on that row, and the two-soldier rule applies at once (promote
    /// one, remove the other; the text ends with the removed one).
    fn push_impasse_demotion(&self, out: &mut Vec<Move>, from: Square) {
        let m = Move::new(Kind::Demote, from, NONE);
        match self.last_row_soldier(from) {
            Some(other) if row(from) == furthest_row(self.to_move) => {
                out.push(m.promoting(from, other));
                out.push(m.promoting(other, from));
            }
            _ => out.push(m),
        }
    }

    /// Applies `m` for the seat to move: the action, a demotion on the first row, a promotion,
    /// then the win check.
    fn apply(&mut self, m: Move) {
        let p = self.to_move;
        let (soldier, king) = (single_code(p), double_code(p));
        let (from, to) = (m.from as usize, m.to as usize);
        let demoted = |sq: Square, code: u8| {
            if code == king && row(sq) == nearest_row(p) {
                soldier
            } else {
                code
            }
        };
        match m.kind {
            Kind::Slide => {
                let piece = self.board[from];
                self.board[from] = 0;
                self.board[to] = demoted(m.to, piece);
            }
            Kind::Swap => {
                self.board[from] = soldier;
                self.board[to] = demoted(m.to, king);
            }
            Kind::Remove => {
                self.board[from] = 0;
                self.pieces[p] -= 1;
            }
            Kind::Demote => self.board[from] = soldier,
        }
        if m.promoted != NONE {
            self.board[m.promoted as usize] = king;
            self.board[m.removed as usize] = 0;
            self.pieces[p] -= 1;
        }
        // Choice: "removes all, or all but one" of its pieces is at most one piece left.
        if self.pieces[p] <= 1 {
            self.winner = Some(p);
        } else {
            self.to_move = 1 - p;
        }
    }

    /// Appends the eight rows from row 8 to row 1, each followed by `sep`.
    fn push_rows(&self, sep: char, out: &mut String) {
        for r in (0..8).rev() {
            for c in 0..8 {
                out.push(CELL_CHARS[self.board[r * 8 + c] as usize] as char);
            }
            out.push(sep);
        }
    }
}

impl Rules for SoldierKing {
    type Move = Move;

    fn info(&self) -> &'static GameInfo {
        &super::INFO
    }

    fn variant(&self) -> &'static str {
        VARIANT
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

    fn write_move(&self, m: Move, out: &mut String) {
        m.write_text(out);
    }

    fn write_board(&self, out: &mut String) {
        self.push_rows('\n', out);
    }

    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(|w| Outcome::winner(2, w))
    }

    fn is_over(&self) -> bool {
        self.winner.is_some()
    }

    fn scores(&self) -> Vec<i32> {
        (0..2).map(|s| i32::from(self.removed(s))).collect()
    }

    fn position_text(&self) -> String {
        let mut s = String::with_capacity(74);
        self.push_rows('/', &mut s);
        s.pop();
        s.push_str(if self.to_move == 0 { " w" } else { " b" });
        s
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| self.view_into(v))
    }

    fn view_into(&self, out: &mut BoardView) {
        out.reshape(CellShape::Square, 64, 1);
        let mut i = 0;
        for r in (0..8).rev() {
            for c in 0..8 {
                let sq = (r * 8 + c) as Square;
                let [file, rank] = square_name(sq);
                let mark = if (r + c) % 2 == 0 { "dark" } else { "" };
                let cell = out.cell(i, c as f32, (7 - r) as f32, mark);
                cell.name.clear();
                cell.name.push(char::from(file));
                cell.name.push(char::from(rank));
                let code = self.board[sq as usize];
                let label = if code >= 3 { "K" } else { "" };
                let piece = (code != 0).then(|| (usize::from((code - 1) % 2), label));
                cell.set_pieces(piece);
                i += 1;
            }
        }
        let _ = write!(
            out.note(0),
            "pieces removed: White {}, Black {}",
            self.removed(0),
            self.removed(1)
        );
    }

    fn describe(&self) -> String {
        let mut s = String::with_capacity(128);
        self.push_rows('\n', &mut s);
        let side = ["White", "Black"];
        let (who, verb) = match self.winner {
            Some(w) => (side[w], "has won"),
            None => (side[self.to_move], "to move"),
        };
        let _ = write!(
            s,
            "{who} {verb} (pieces removed: White {}, Black {})",
            self.removed(0),
            self.removed(1)
        );
        s
    }
}

/// Reads the one-line form, the arena's (eight rows from row 8 joined by `/`, a space, `w` or
/// `b`; a double is a king), and checks it against what play can reach in this variant.
pub fn from_position_text(text: &str) -> Result<SoldierKing, PositionError> {
    let arena = arena_position(text)?;
    SoldierKing::from_board(arena.board, arena.to_move)
}
