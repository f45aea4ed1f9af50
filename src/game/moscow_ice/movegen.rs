//! Movement rules of Moscow Ice: which squares a piece may land on (during a jump chain and at
//! its end), steps and jump chains, the stalemate release rule, and the listing of legal moves.

use super::{
    at, col, on_line, progress, row, square_name, Board, MoscowIce, Move, Piece, Square, NONE,
    SMALL,
};

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

    /// All moves of the piece on top of `from` (owned by the seat to move), appended to `out`
    /// with their texts: steps to an adjacent square, then the squares reachable by a chain of
    /// jumps. Choice: a chain never visits a square twice (its origin included), and a square
    /// reachable by several chains is listed once, written with the chain of fewest jumps found
    /// first in direction order (the result on the board is the same).
    fn piece_moves(
        &self,
        board: &mut Board,
        seat: usize,
        from: Square,
        out: &mut Vec<(String, Move)>,
    ) {
        let axis = self.axis(seat);
        let piece = board[from as usize].pop();
        let size = piece.size();
        for d in directions(axis) {
            if let Some(to) = offset(from, d, 1) {
                if self.can_land(board, seat, size, to) && self.can_stop(board, seat, piece, to) {
                    out.push((step_text(from, to), Move { from, to }));
                }
            }
        }
        let mut parent = [NONE; 64];
        let mut queue = [0u8; 64];
        let (mut head, mut tail) = (0, 1);
        queue[0] = from;
        let mut visited = 1u64 << from;
        while head < tail {
            let cur = queue[head];
            head += 1;
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
                parent[to as usize] = cur;
                queue[tail] = to;
                tail += 1;
                if self.can_stop(board, seat, piece, to) {
                    out.push((chain_text(&parent, from, to), Move { from, to }));
                }
            }
        }
        board[from as usize].push(piece);
    }

    /// Lists the legal moves of the seat to move, sorted by text; `pass` alone when it has none.
    pub(super) fn generate(&mut self) {
        self.moves.clear();
        self.texts.clear();
        if self.result.is_some() {
            return;
        }
        let seat = self.to_move;
        let mut board = self.board;
        let mut found: Vec<(String, Move)> = Vec::with_capacity(64);
        for sq in 0..64u8 {
            if board[sq as usize].top().is_some_and(|t| t.seat() == seat) {
                self.piece_moves(&mut board, seat, sq, &mut found);
            }
        }
        // The stalemate rule: a seat that froze a stalled seat's piece must release one.
        // Choice: when none of the covering pieces can move, the seat plays any legal move.
        let release = self.release_squares(seat);
        if release != 0 && found.iter().any(|(_, m)| release & (1 << m.from) != 0) {
            found.retain(|(_, m)| release & (1 << m.from) != 0);
        }
        if found.is_empty() {
            found.push((
                "pass".to_string(),
                Move {
                    from: NONE,
                    to: NONE,
                },
            ));
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        for (text, m) in found {
            self.texts.push(text);
            self.moves.push(m);
        }
    }
}

fn push_square(s: &mut String, sq: Square) {
    let [c, r] = square_name(sq);
    s.push(c as char);
    s.push(r as char);
}

fn step_text(from: Square, to: Square) -> String {
    let mut s = String::with_capacity(5);
    push_square(&mut s, from);
    s.push('-');
    push_square(&mut s, to);
    s
}

/// `from-l1-l2-...-to`: every landing square of the chain in order.
fn chain_text(parent: &[Square; 64], from: Square, to: Square) -> String {
    let mut path = [0u8; 64];
    let mut n = 0;
    let mut cur = to;
    while cur != from {
        path[n] = cur;
        n += 1;
        cur = parent[cur as usize];
    }
    let mut s = String::with_capacity(3 * n + 2);
    push_square(&mut s, from);
    for &sq in path[..n].iter().rev() {
        s.push('-');
        push_square(&mut s, sq);
    }
    s
}
