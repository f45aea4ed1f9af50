//! The 10x10 board of international draughts and its move generator, kept apart from the game's
//! bookkeeping (draw counters, texts) so the capture rules can be read in one place.
//!
//! Squares are the PDN numbers minus one (0..50). Square 0 (PDN 1) is on the top row, Black's
//! back row, in the second column; PDN 46 is the bottom-left corner seen from White, which is
//! dark. Row 0 is the top row, column 0 the left one. White (seat 0) moves up, toward row 0;
//! Black (seat 1) moves down.

/// Dark squares on the board.
pub const SQUARES: u8 = 50;
/// No square (off the board).
pub const OFF: u8 = u8::MAX;
/// The most pieces one side may have; a capture sequence takes at most this many.
pub const MAX_PIECES: usize = 20;

/// A set of squares, bit `s` for square `s`.
pub type Squares = u64;

/// The bit of square `sq`.
pub fn bit(sq: u8) -> Squares {
    1u64 << sq
}

/// Board row of a square, 0 at the top (Black's back row).
pub fn row(sq: u8) -> u8 {
    sq / 5
}

/// The square at (`row`, `col`), or `OFF` when it is off the board or a light square.
const fn square_at(row: i8, col: i8) -> u8 {
    if row < 0 || row > 9 || col < 0 || col > 9 || (row + col) % 2 == 0 {
        OFF
    } else {
        (row * 5 + col / 2) as u8
    }
}

/// The four diagonal directions as (row step, column step): 0 up-left, 1 up-right, 2 down-left,
/// 3 down-right. "Up" is toward row 0, White's forward direction.
const DIRS: [(i8, i8); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

const fn neighbours() -> [[u8; 4]; SQUARES as usize] {
    let mut table = [[OFF; 4]; SQUARES as usize];
    let mut sq = 0;
    while sq < SQUARES as usize {
        let r = (sq / 5) as i8;
        let c = (2 * (sq % 5)) as i8 + if r % 2 == 0 { 1 } else { 0 };
        let mut d = 0;
        while d < 4 {
            table[sq][d] = square_at(r + DIRS[d].0, c + DIRS[d].1);
            d += 1;
        }
        sq += 1;
    }
    table
}

/// `NEXT[sq][dir]`: the next square from `sq` in direction `dir`, or `OFF`.
static NEXT: [[u8; 4]; SQUARES as usize] = neighbours();

/// The next square from `sq` in direction `dir`, or `OFF`.
pub fn step(sq: u8, dir: usize) -> u8 {
    NEXT[sq as usize][dir]
}

/// The two directions in which `seat`'s men step (forward): up for White, down for Black.
fn forward_dirs(seat: usize) -> [usize; 2] {
    if seat == 0 {
        [0, 1]
    } else {
        [2, 3]
    }
}

/// The row on which `seat`'s men are crowned: Black's back row for White and the reverse.
pub fn crowning_row(seat: usize) -> u8 {
    if seat == 0 {
        0
    } else {
        9
    }
}

/// The pieces on the board: `pieces[seat]` (men and kings), and which of them are kings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    pub pieces: [Squares; 2],
    pub kings: Squares,
}

impl Board {
    /// The opening: Black's twenty men on 1-20, White's on 31-50.
    pub fn start() -> Self {
        Board {
            pieces: [((1u64 << 20) - 1) << 30, (1u64 << 20) - 1],
            kings: 0,
        }
    }

    pub fn occupied(&self) -> Squares {
        self.pieces[0] | self.pieces[1]
    }

    /// The seat owning the piece on `sq`, if any.
    pub fn owner(&self, sq: u8) -> Option<usize> {
        (0..2).find(|&s| self.pieces[s] & bit(sq) != 0)
    }

    pub fn is_king(&self, sq: u8) -> bool {
        self.kings & bit(sq) != 0
    }

    /// Plays `m` for `seat`: moves the piece, removes every captured piece (only now, at the end
    /// of the sequence), and crowns a man that ends its move on the crowning row.
    pub fn apply(&mut self, seat: usize, m: &Move) {
        let (from, to) = (bit(m.from), bit(m.to));
        let was_king = self.kings & from != 0;
        self.pieces[seat] = (self.pieces[seat] & !from) | to;
        self.pieces[1 - seat] &= !m.captured;
        self.kings &= !(m.captured | from);
        // Rule: a man becomes a king only when its move (step or whole capture) ends on the
        // opponent's back row; passing that row during a capture does not crown it.
        if was_king || row(m.to) == crowning_row(seat) {
            self.kings |= to;
        }
    }
}

/// One legal move: a step or a whole capture sequence, as its start, its end and the pieces it
/// takes (16 bytes). The squares a capture lands on on the way are not kept: only the text of a
/// capture that shares its start and end with another needs them, and `path` finds them again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The pieces taken (empty for a step).
    pub captured: Squares,
    pub from: u8,
    pub to: u8,
    /// Another legal capture of the position has the same start and end (and takes other
    /// pieces), so the text lists the landing squares to tell them apart.
    pub ambiguous: bool,
}

impl Move {
    fn step(from: u8, to: u8) -> Self {
        Move {
            captured: 0,
            from,
            to,
            ambiguous: false,
        }
    }

    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }
}

/// The squares a capture lands on, in order, ending with its end square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    len: u8,
    squares: [u8; MAX_PIECES],
}

impl Path {
    pub fn squares(&self) -> &[u8] {
        &self.squares[..self.len as usize]
    }
}

/// The piece a capture from `at` along `dir` would jump (the first piece on the line for a king,
/// the neighbour for a man) and the first square beyond it, when both are on the board. Whether
/// the piece may be taken and the square landed on is the caller's to check.
fn jump(at: u8, dir: usize, king: bool, occupied: Squares) -> Option<(u8, u8)> {
    let mut sq = step(at, dir);
    if king {
        // Rule: a king captures at a distance: it may cross empty squares to reach the piece it
        // jumps, and land on any empty square beyond it.
        while sq != OFF && occupied & bit(sq) == 0 {
            sq = step(sq, dir);
        }
    }
    // Rule: a man captures an adjacent piece forward or backward, landing right behind it.
    if sq == OFF {
        return None;
    }
    let land = step(sq, dir);
    (land != OFF).then_some((sq, land))
}

/// Appends the legal moves of `seat` to `out`, sorted by start, end, then the squares landed on.
///
/// Rule: capturing is compulsory, and of all capture sequences only those taking the most pieces
/// may be played; a king and a man count the same (no preference for capturing with or capturing
/// kings). Only when no capture exists may a piece step.
pub fn generate(board: &Board, seat: usize, out: &mut Vec<Move>) {
    let base = out.len();
    let mut search = CaptureSearch {
        opponents: board.pieces[1 - seat],
        occupied: 0,
        from: 0,
        king: false,
        best: 1,
        base,
        out,
    };
    let mut rest = board.pieces[seat];
    while rest != 0 {
        let from = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        search.from = from;
        search.king = board.is_king(from);
        // Rule: the moving piece has left its square, which counts as empty during the
        // sequence (it may pass over it or land on it again).
        search.occupied = board.occupied() & !bit(from);
        search.extend(from, 0, 0);
    }
    if out.len() == base {
        generate_steps(board, seat, out);
    }
    let moves = &mut out[base..];
    moves.sort_unstable_by_key(|m| (m.from, m.to));
    // Captures with the same start and end (other pieces taken) are ordered by their landings.
    let mut i = 0;
    while i < moves.len() {
        let (from, to) = (moves[i].from, moves[i].to);
        let n = moves[i..]
            .iter()
            .take_while(|m| m.from == from && m.to == to)
            .count();
        if n > 1 {
            let group = &mut moves[i..i + n];
            group.iter_mut().for_each(|m| m.ambiguous = true);
            group.sort_by_cached_key(|m| path(board, m).squares().to_vec());
        }
        i += n;
    }
}

/// Whether `seat` has a legal move (a capture or a step), without listing them.
pub fn has_move(board: &Board, seat: usize) -> bool {
    let occupied = board.occupied();
    let opponents = board.pieces[1 - seat];
    let mut rest = board.pieces[seat];
    while rest != 0 {
        let from = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let king = board.is_king(from);
        for dir in 0..4 {
            let next = step(from, dir);
            if next == OFF {
                continue;
            }
            if occupied & bit(next) == 0 && (king || forward_dirs(seat).contains(&dir)) {
                return true;
            }
            if let Some((victim, land)) = jump(from, dir, king, occupied) {
                if opponents & bit(victim) != 0 && occupied & bit(land) == 0 {
                    return true;
                }
            }
        }
    }
    false
}

/// Steps, used only when no capture exists.
fn generate_steps(board: &Board, seat: usize, out: &mut Vec<Move>) {
    let occupied = board.occupied();
    let mut rest = board.pieces[seat];
    while rest != 0 {
        let from = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        if board.is_king(from) {
            // Rule: a king (flying king) moves any number of empty squares along a diagonal,
            // forward or backward.
            for dir in 0..4 {
                let mut to = step(from, dir);
                while to != OFF && occupied & bit(to) == 0 {
                    out.push(Move::step(from, to));
                    to = step(to, dir);
                }
            }
        } else {
            // Rule: a man steps one square diagonally forward onto an empty square.
            for dir in forward_dirs(seat) {
                let to = step(from, dir);
                if to != OFF && occupied & bit(to) == 0 {
                    out.push(Move::step(from, to));
                }
            }
        }
    }
}

/// A depth-first walk over the capture sequences of one piece, keeping only the longest ones
/// found so far over all pieces.
struct CaptureSearch<'a> {
    opponents: Squares,
    /// Every piece on the board but the moving one. Captured pieces stay in it until the move
    /// ends, so they block lines and cannot be landed on.
    occupied: Squares,
    from: u8,
    king: bool,
    /// The most pieces taken by a sequence kept in `out` (at least 1).
    best: u32,
    /// Where this position's moves start in `out`.
    base: usize,
    out: &'a mut Vec<Move>,
}

impl CaptureSearch<'_> {
    /// Continues a sequence standing on `at` after `depth` captures of the pieces in `captured`.
    fn extend(&mut self, at: u8, captured: Squares, depth: u32) {
        let mut continued = false;
        for dir in 0..4 {
            let Some((victim, mut land)) = jump(at, dir, self.king, self.occupied) else {
                continue;
            };
            // Rule: only an opponent's piece not yet taken in this sequence may be jumped; a
            // taken piece stays on the board until the end and blocks the line (no piece is
            // jumped twice: the Turkish strike rule).
            if self.opponents & bit(victim) == 0 || captured & bit(victim) != 0 {
                continue;
            }
            while land != OFF && self.occupied & bit(land) == 0 {
                continued = true;
                // Rule: a sequence must go on while the piece can capture again.
                self.extend(land, captured | bit(victim), depth + 1);
                if !self.king {
                    break;
                }
                land = step(land, dir);
            }
        }
        if !continued && depth > 0 {
            self.record(at, captured, depth);
        }
    }

    /// Keeps a finished sequence if it takes at least as many pieces as the best so far.
    fn record(&mut self, to: u8, captured: Squares, count: u32) {
        if count < self.best {
            return;
        }
        if count > self.best {
            self.best = count;
            self.out.truncate(self.base);
        }
        // Rule: sequences with the same start, end and captured pieces are one move, however
        // the piece travelled.
        let from = self.from;
        if !self.out[self.base..]
            .iter()
            .any(|o| o.from == from && o.to == to && o.captured == captured)
        {
            self.out.push(Move {
                captured,
                from,
                to,
                ambiguous: false,
            });
        }
    }
}

/// The squares capture `m` (legal on `board`) lands on: when several ways take the same pieces
/// from the same start to the same end, the smallest list of landings represents them all.
pub fn path(board: &Board, m: &Move) -> Path {
    let mut walk = PathSearch {
        target: *m,
        occupied: board.occupied() & !bit(m.from),
        king: board.is_king(m.from),
        current: Path {
            len: 0,
            squares: [OFF; MAX_PIECES],
        },
        best: None,
    };
    walk.extend(m.from, 0);
    walk.best.expect("a legal capture has a path")
}

/// A depth-first walk over the ways a piece takes exactly the pieces of one capture.
struct PathSearch {
    target: Move,
    occupied: Squares,
    king: bool,
    current: Path,
    best: Option<Path>,
}

impl PathSearch {
    fn extend(&mut self, at: u8, captured: Squares) {
        if captured == self.target.captured {
            // The capture takes the most pieces possible, so no way of taking them goes on.
            let done = self.current;
            if at == self.target.to && self.best.is_none_or(|b| done.squares() < b.squares()) {
                self.best = Some(done);
            }
            return;
        }
        for dir in 0..4 {
            let Some((victim, mut land)) = jump(at, dir, self.king, self.occupied) else {
                continue;
            };
            let wanted = self.target.captured & !captured;
            if wanted & bit(victim) == 0 {
                continue;
            }
            while land != OFF && self.occupied & bit(land) == 0 {
                let depth = self.current.len as usize;
                self.current.squares[depth] = land;
                self.current.len += 1;
                self.extend(land, captured | bit(victim));
                self.current.len -= 1;
                if !self.king {
                    break;
                }
                land = step(land, dir);
            }
        }
    }
}
