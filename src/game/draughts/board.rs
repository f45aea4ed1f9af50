//! The 10x10 board of international draughts and its move generator, kept apart from the game's
//! bookkeeping (draw counters, texts, history) so the capture rules can be read in one place.
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

/// One legal move: a step or a whole capture sequence. `landings` lists every square the piece
/// lands on, in order (the last is `to`); a step has the single landing `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    /// The pieces taken (empty for a step).
    pub captured: Squares,
    landing_count: u8,
    landings: [u8; MAX_PIECES],
}

impl Move {
    fn step(from: u8, to: u8) -> Self {
        let mut landings = [OFF; MAX_PIECES];
        landings[0] = to;
        Move {
            from,
            to,
            captured: 0,
            landing_count: 1,
            landings,
        }
    }

    /// The squares the piece lands on, in order, ending with `to`.
    pub fn landings(&self) -> &[u8] {
        &self.landings[..self.landing_count as usize]
    }

    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// The order the legal list is given in: by start, end, then landings.
    pub fn sort_key(&self) -> (u8, u8, &[u8]) {
        (self.from, self.to, self.landings())
    }
}

/// Fills `out` with the legal moves of `seat` (cleared first).
///
/// Rule: capturing is compulsory, and of all capture sequences only those taking the most pieces
/// may be played; a king and a man count the same (no preference for capturing with or capturing
/// kings). Only when no capture exists may a piece step.
pub fn generate(board: &Board, seat: usize, out: &mut Vec<Move>) {
    out.clear();
    let own = board.pieces[seat];
    let mut search = CaptureSearch {
        opponents: board.pieces[1 - seat],
        occupied: 0,
        from: 0,
        king: false,
        best: 1,
        landings: [OFF; MAX_PIECES],
        out,
    };
    let mut rest = own;
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
    if out.is_empty() {
        generate_steps(board, seat, out);
    }
    out.sort_unstable_by(|a, b| a.sort_key().cmp(&b.sort_key()));
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
    /// Landing squares of the sequence being walked.
    landings: [u8; MAX_PIECES],
    out: &'a mut Vec<Move>,
}

impl CaptureSearch<'_> {
    /// Continues a sequence standing on `at` after `depth` captures of the pieces in `captured`.
    fn extend(&mut self, at: u8, captured: Squares, depth: usize) {
        let mut continued = false;
        for dir in 0..4 {
            // The piece to jump in this direction, if one can be jumped.
            let (victim, mut land) = if self.king {
                // Rule: a king captures at a distance: it may cross empty squares to reach the
                // piece it jumps, and land on any empty square beyond it.
                let mut sq = step(at, dir);
                while sq != OFF && self.occupied & bit(sq) == 0 {
                    sq = step(sq, dir);
                }
                (sq, if sq == OFF { OFF } else { step(sq, dir) })
            } else {
                // Rule: a man captures an adjacent piece forward or backward, landing on the
                // square right behind it.
                let sq = step(at, dir);
                (sq, if sq == OFF { OFF } else { step(sq, dir) })
            };
            // Rule: only an opponent's piece not yet taken in this sequence may be jumped; a
            // taken piece stays on the board until the end and blocks the line (no piece is
            // jumped twice: the Turkish strike rule).
            if victim == OFF || self.opponents & bit(victim) == 0 || captured & bit(victim) != 0 {
                continue;
            }
            while land != OFF && self.occupied & bit(land) == 0 {
                continued = true;
                self.landings[depth] = land;
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
    fn record(&mut self, to: u8, captured: Squares, depth: usize) {
        let count = depth as u32;
        if count < self.best {
            return;
        }
        if count > self.best {
            self.best = count;
            self.out.clear();
        }
        let mut m = Move {
            from: self.from,
            to,
            captured,
            landing_count: depth as u8,
            landings: [OFF; MAX_PIECES],
        };
        m.landings[..depth].copy_from_slice(&self.landings[..depth]);
        // Rule: sequences with the same start, end and captured pieces are one move, however
        // the piece travelled; keep the smallest list of landings as its representative path.
        match self
            .out
            .iter_mut()
            .find(|o| o.from == m.from && o.to == m.to && o.captured == m.captured)
        {
            Some(o) if m.landings() < o.landings() => *o = m,
            Some(_) => {}
            None => self.out.push(m),
        }
    }
}
