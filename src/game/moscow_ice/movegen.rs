//! Movement rules of Moscow Ice: which squares a piece may land on (during a jump chain and at
//! its end), steps and jump chains, the stalemate release rule, the listing of legal moves in the
//! order of their texts (without writing them), and a move's text.

use super::{
    at, col, on_line, progress, row, square_name, Board, MoscowIce, Move, Piece, Square, NONE,
    PASS, SMALL,
};
use crate::game::Rules;

/// The eight directions as (file, rank) offsets: N, NE, E, SE, S, SW, W, NW.
const DIRS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The directions a piece of `axis` may move in: forwards (straight or diagonal) and sideways,
/// never with a backward component. Choice: steps and every jump of a chain use the same five
/// directions (the seed's jumps are draughts-like diagonals "and orthogonally too"; sideways
/// counts as not backwards for both).
fn directions(axis: usize) -> impl Iterator<Item = (i8, i8)> {
    DIRS.into_iter()
        .filter(move |&(dc, dr)| if axis == 0 { dr >= 0 } else { dc >= 0 })
}

fn offset(sq: Square, (dc, dr): (i8, i8), times: i8) -> Option<Square> {
    at(col(sq) + dc * times, row(sq) + dr * times)
}

impl MoscowIce {
    /// Whether a piece of `seat` and `size` may land on `to`, whether it stops there or jumps on.
    /// The square must be empty or topped by a smaller piece (any colour). On the mover's own
    /// finish line the order rule holds for every landing: a small only on an empty square, a
    /// medium only on its owner's small, a large only on its owner's medium.
    /// Choice: the order rule applies to landings inside a chain too, and the piece underneath
    /// must be the mover's own (a partner's or opposite player's piece would be frozen inside
    /// the joint line, which the four-player rules forbid).
    fn can_land(&self, board: &Board, seat: usize, size: u8, to: Square) -> bool {
        let top = board[to as usize].top();
        if top.is_some_and(|t| t.size() >= size) {
            return false;
        }
        if progress(self.axis(seat), to) == 7 {
            return match top {
                None => size == SMALL,
                Some(t) => t.seat() == seat && t.size() + 1 == size,
            };
        }
        true
    }

    /// Whether a piece of `seat` may end its move on `to` (already allowed by [`Self::can_land`]);
    /// `board` has the moving piece lifted off its origin.
    /// - Never on a start or finish line of the other axis (the opponents' lines); passing
    ///   through them inside a chain is fine.
    /// - Never on another seat's piece inside the mover's own start or finish line (with four
    ///   seats: the opposite player may not be frozen in the joint lines).
    /// - Never on another seat's piece if that seat would then be stalled (see [`Self::stalled`]).
    fn can_stop(&self, board: &Board, seat: usize, piece: Piece, to: Square) -> bool {
        let axis = self.axis(seat);
        if on_line(1 - axis, to) {
            return false;
        }
        let Some(top) = board[to as usize].top() else {
            return true;
        };
        let victim = top.seat();
        if victim == seat {
            return true;
        }
        if on_line(axis, to) {
            return false;
        }
        let mut after = *board;
        after[to as usize].push(piece);
        !self.stalled(&after, victim)
    }

    /// Whether `seat` is held up by the stalemate rule on `board`: some of its pieces lie frozen
    /// under another seat's piece, every one of its free pieces off its finish line stands on its
    /// 7th rank (one before the finish line), and none of those can step onto the finish line
    /// (from the 7th rank a piece can only step in; jumps would leave the board or stay on the
    /// rank). Choice: the seed ties the rule to exactly this situation (its note: only when the
    /// sole free pieces are on the 7th rank with nothing but sideways moves); "frozen by the other
    /// player" is read as "under a stack whose top piece belongs to another seat". A seat with no
    /// free piece off the finish line at all is stalled too when something of it is frozen.
    pub(super) fn stalled(&self, board: &Board, seat: usize) -> bool {
        if self.is_out(seat) {
            return false;
        }
        let axis = self.axis(seat);
        let mut frozen = false;
        for sq in 0..64u8 {
            let cell = &board[sq as usize];
            let Some(top) = cell.top() else { continue };
            if top.seat() != seat {
                frozen |= cell.pieces().any(|p| p.seat() == seat);
                continue;
            }
            match progress(axis, sq) {
                7 => {}
                6 => {
                    let enters = directions(axis)
                        .filter_map(|d| offset(sq, d, 1))
                        .filter(|&t| progress(axis, t) == 7)
                        .any(|t| self.can_land(board, seat, top.size(), t));
                    if enters {
                        return false;
                    }
                }
                _ => return false,
            }
            // A free piece of `seat` may still hide its own pieces underneath; those are not
            // frozen by another seat.
        }
        frozen
    }

    /// Squares whose top piece belongs to `seat` and covers a piece of a stalled seat: the stacks
    /// `seat` must release. Choice: with several freezers, whichever of them comes to play first
    /// while the victim is still stalled must release (the rule is checked afresh every turn).
    fn release_squares(&self, seat: usize) -> u64 {
        let mut mask = 0u64;
        for victim in self.active().filter(|&v| v != seat) {
            if !self.stalled(&self.board, victim) {
                continue;
            }
            for sq in 0..64u8 {
                let cell = &self.board[sq as usize];
                if cell.top().is_some_and(|t| t.seat() == seat)
                    && cell.pieces().any(|p| p.seat() == victim)
                {
                    mask |= 1 << sq;
                }
            }
        }
        mask
    }

    /// The squares the piece of `seat` and `size` lifted off `from` reaches by chains of jumps,
    /// whether or not it may stop there. Choice: a chain never visits a square twice (its origin
    /// included), and a square reachable by several chains is reached by the chain of fewest
    /// jumps found first in direction order (breadth first; the result on the board is the same).
    fn chains(&self, board: &Board, seat: usize, size: u8, from: Square) -> Chains {
        let axis = self.axis(seat);
        let mut c = Chains {
            squares: [NONE; CLASS],
            parent: [0; CLASS],
            len: 1,
        };
        c.squares[0] = from;
        let mut visited = 1u64 << from;
        let mut head = 0;
        while head < c.len {
            let cur = c.squares[head];
            for d in directions(axis) {
                let (Some(over), Some(to)) = (offset(cur, d, 1), offset(cur, d, 2)) else {
                    continue;
                };
                if board[over as usize].n == 0
                    || visited & (1 << to) != 0
                    || !self.can_land(board, seat, size, to)
                {
                    continue;
                }
                visited |= 1 << to;
                c.squares[c.len] = to;
                c.parent[c.len] = head as u8;
                c.len += 1;
            }
            head += 1;
        }
        c
    }

    /// All moves of the piece on top of `from` (owned by the seat to move), appended to `out` in
    /// the order of their texts: steps to an adjacent square and the ends of jump chains.
    fn piece_moves(&self, board: &mut Board, seat: usize, from: Square, out: &mut Vec<Move>) {
        let axis = self.axis(seat);
        let piece = board[from as usize].pop();
        // Each move with the key of its text (see `landing_key`); at most five steps and one
        // chain to each other square of the origin's class.
        let mut found = [(0u128, PASS); CLASS + 5];
        let mut n = 0;
        for d in directions(axis) {
            if let Some(to) = offset(from, d, 1) {
                if self.can_land(board, seat, piece.size(), to)
                    && self.can_stop(board, seat, piece, to)
                {
                    found[n] = (landing_key(to, 1), Move { from, to });
                    n += 1;
                }
            }
        }
        let chains = self.chains(board, seat, piece.size(), from);
        let mut keys = [0u128; CLASS];
        let mut jumps = [0u32; CLASS];
        for i in 1..chains.len {
            let parent = usize::from(chains.parent[i]);
            let to = chains.squares[i];
            jumps[i] = jumps[parent] + 1;
            keys[i] = keys[parent] | landing_key(to, jumps[i]);
            if self.can_stop(board, seat, piece, to) {
                found[n] = (keys[i], Move { from, to });
                n += 1;
            }
        }
        board[from as usize].push(piece);
        let found = &mut found[..n];
        found.sort_unstable_by_key(|&(key, _)| key);
        out.extend(found.iter().map(|&(_, m)| m));
    }

    /// Appends the legal moves of the seat to move, sorted by text; `pass` alone when it has
    /// none, nothing once the game is over. The texts are never written here: origins are taken
    /// in the order of their names (file, then rank) and each origin's moves are sorted by a key
    /// that orders like their texts.
    pub(super) fn generate(&self, out: &mut Vec<Move>) {
        if self.is_over() {
            return;
        }
        let seat = self.to_move;
        let mut board = self.board;
        let start = out.len();
        for c in 0..8u8 {
            for r in 0..8u8 {
                let sq = r * 8 + c;
                if board[sq as usize].top().is_some_and(|t| t.seat() == seat) {
                    self.piece_moves(&mut board, seat, sq, out);
                }
            }
        }
        // The stalemate rule: a seat that froze a stalled seat's piece must release one.
        // Choice: when none of the covering pieces can move, the seat plays any legal move.
        let release = self.release_squares(seat);
        let releases = |m: &Move| release & (1 << m.from) != 0;
        if release != 0 && out[start..].iter().any(releases) {
            let mut kept = start;
            for i in start..out.len() {
                if releases(&out[i]) {
                    out[kept] = out[i];
                    kept += 1;
                }
            }
            out.truncate(kept);
        }
        if out.len() == start {
            out.push(PASS);
        }
    }

    /// Appends the text of `m`, one of the legal moves: `pass`, `from-to` for a step, or every
    /// landing square of the chain in order, `from-l1-l2-...-to`, found again as the move
    /// generation found it.
    pub(super) fn write_move_text(&self, m: Move, out: &mut String) {
        if m.from == NONE {
            out.push_str("pass");
            return;
        }
        push_square(out, m.from);
        let step = (col(m.to) - col(m.from)).abs() <= 1 && (row(m.to) - row(m.from)).abs() <= 1;
        if step {
            out.push('-');
            push_square(out, m.to);
            return;
        }
        let mut board = self.board;
        let piece = board[m.from as usize].pop();
        let chains = self.chains(&board, self.to_move, piece.size(), m.from);
        let mut at = chains.squares[..chains.len]
            .iter()
            .position(|&sq| sq == m.to)
            .expect("a legal chain's end is reachable");
        let mut path = [NONE; CLASS];
        let mut n = 0;
        while at != 0 {
            path[n] = chains.squares[at];
            n += 1;
            at = usize::from(chains.parent[at]);
        }
        for &sq in path[..n].iter().rev() {
            out.push('-');
            push_square(out, sq);
        }
    }
}

/// The most squares a chain can visit, its origin included: a jump moves two files, two ranks or
/// both, so a chain stays on the 16 squares sharing its origin's file and rank parity.
const CLASS: usize = 16;

/// The squares reached by jump chains from one origin (index 0), in the order found, each with
/// the index of the square it was jumped to from.
struct Chains {
    squares: [Square; CLASS],
    parent: [u8; CLASS],
    len: usize,
}

/// The part of a move's sort key given by its `k`-th landing square (1 for the first after the
/// origin). A text is its squares' names joined by `-`, names being a file letter then a rank
/// digit, so texts from one origin order like their landings' (file, rank) sequences, a shorter
/// chain before its own extensions. Each landing takes 7 bits (1 to 64, 0 for none), the first
/// in the highest: comparing keys compares texts. At most 15 landings: 105 bits.
fn landing_key(sq: Square, k: u32) -> u128 {
    let name = u128::from(sq % 8 * 8 + sq / 8 + 1);
    name << (128 - 7 * k)
}

fn push_square(s: &mut String, sq: Square) {
    let [c, r] = square_name(sq);
    s.push(c as char);
    s.push(r as char);
}
