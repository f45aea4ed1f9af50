//! Alva's moves: listing the compulsory capture paths (with the never-exactly-two rule and the
//! compulsory continuation), or else every placement with an optional shift first, and applying a
//! move to the board, hands and captured pieces (including the give-back rule).

use super::{point_name, Alva, Move, NONE, POINTS, SIDE};

/// The four line directions as (column step, row step): up, right, down, left. Jumps follow the
/// board's lines only, so there is no diagonal direction (a choice; see the module doc).
pub(super) const DIRECTIONS: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

/// The point one step from `p` in direction `d`, if it is on the board.
pub(super) fn step(p: u8, (dc, dr): (i8, i8)) -> Option<u8> {
    let c = (p % SIDE as u8) as i8 + dc;
    let r = (p / SIDE as u8) as i8 + dr;
    ((0..SIDE as i8).contains(&c) && (0..SIDE as i8).contains(&r))
        .then(|| (r * SIDE as i8 + c) as u8)
}

/// The jump of the piece on `from` in direction `d`, if there is one: the count of enemy pieces
/// jumped (1, or 3 and more: never exactly 2) and the landing point right after them.
pub(super) fn jump(board: &[u8; POINTS], from: u8, d: (i8, i8), enemy: u8) -> Option<(u8, u8)> {
    let mut count = 0u8;
    let mut p = step(from, d)?;
    while board[p as usize] == enemy {
        count += 1;
        p = step(p, d)?;
    }
    (board[p as usize] == 0 && count != 0 && count != 2).then_some((count, p))
}

impl Alva {
    /// Appends the moves of the seat to move: every capture path if there is one (captures are
    /// compulsory), else every placement, then every shift followed by each placement after it.
    pub(super) fn generate(&self, out: &mut Vec<Move>) {
        let start = out.len();
        let own = 1 + self.to_move as u8;
        let mut board = self.board;
        for p in 0..POINTS as u8 {
            if board[p as usize] == own {
                capture_paths(&mut board, p, p, 0, 0, own, out);
            }
        }
        if out.len() > start || self.hand[self.to_move] == 0 {
            return;
        }
        let mut buf = [0u8; POINTS];
        let mut n = 0;
        for p in 0..POINTS as u8 {
            if self.board[p as usize] == 0 {
                buf[n] = p;
                n += 1;
            }
        }
        let empties = &buf[..n];
        out.extend(empties.iter().map(|&at| Move::Place {
            from: NONE,
            to: NONE,
            at,
        }));
        for from in 0..POINTS as u8 {
            if self.board[from as usize] != own {
                continue;
            }
            for d in DIRECTIONS {
                let Some(to) = step(from, d).filter(|&t| self.board[t as usize] == 0) else {
                    continue;
                };
                // After the shift `to` is taken and `from` is free; placements in point order.
                let mut from_listed = false;
                for &e in empties {
                    if !from_listed && from < e {
                        out.push(Move::Place { from, to, at: from });
                        from_listed = true;
                    }
                    if e != to {
                        out.push(Move::Place { from, to, at: e });
                    }
                }
                if !from_listed {
                    out.push(Move::Place { from, to, at: from });
                }
            }
        }
    }

    /// Whether the seat to move has a capture (the first jump of any path).
    pub(super) fn can_capture(&self) -> bool {
        let own = 1 + self.to_move as u8;
        (0..POINTS as u8).any(|p| {
            self.board[p as usize] == own
                && DIRECTIONS
                    .iter()
                    .any(|&d| jump(&self.board, p, d, 3 - own).is_some())
        })
    }

    /// Plays `m` for the seat to move, settling the previous turn's pending capture.
    pub(super) fn apply(&mut self, m: Move) {
        let seat = self.to_move;
        let own = 1 + seat as u8;
        let mut taken = 0u32;
        match m {
            Move::Place { from, to, at } => {
                if from != NONE {
                    self.board[from as usize] = 0;
                    self.board[to as usize] = own;
                }
                self.board[at as usize] = own;
                self.hand[seat] -= 1;
            }
            Move::Capture { .. } => {
                let land = replay(&mut self.board, m, own, |_, count| {
                    taken += u32::from(count)
                });
                self.board[land as usize] = own;
            }
        }
        // The opponent's capture of the previous turn: an equal capture now sends both back to
        // their owners' hands; anything else makes it final.
        let other = 1 - seat;
        if taken > 0 && taken == self.pending {
            self.hand[seat] += taken;
            self.hand[other] += taken;
            self.pending = 0;
        } else {
            self.captured[other] += self.pending;
            self.pending = taken;
        }
    }

    /// Appends the text of `m`: `c3xc5xe5`, `e6` or `d4-d5,e6`.
    pub(super) fn write_move_text(&self, m: Move, out: &mut String) {
        match m {
            Move::Place { from, to, at } => {
                if from != NONE {
                    point_name(out, from);
                    out.push('-');
                    point_name(out, to);
                    out.push(',');
                }
                point_name(out, at);
            }
            Move::Capture { start, .. } => {
                let mut board = self.board;
                point_name(out, start);
                replay(&mut board, m, 1 + self.to_move as u8, |land, _| {
                    out.push('x');
                    point_name(out, land);
                });
            }
        }
    }
}

/// Replays capture `m` by a piece of colour `own` on `board`: the jumper leaves its start and the
/// jumped pieces leave the board jump by jump, as when the path was found. Calls `visit` with
/// each jump's landing point and count of pieces taken, and returns the last landing point (left
/// empty: the caller puts the jumper there).
fn replay(board: &mut [u8; POINTS], m: Move, own: u8, mut visit: impl FnMut(u8, u8)) -> u8 {
    let Move::Capture { start, jumps, dirs } = m else {
        unreachable!("replay is given a capture");
    };
    let enemy = 3 - own;
    board[start as usize] = 0;
    let mut at = start;
    for i in 0..jumps {
        let d = DIRECTIONS[(dirs >> (2 * u32::from(i))) as usize & 3];
        let (count, land) = jump(board, at, d, enemy).expect("a listed capture replays");
        let mut p = at;
        for _ in 0..count {
            p = step(p, d).expect("jumped point");
            board[p as usize] = 0;
        }
        visit(land, count);
        at = land;
    }
    at
}

/// Extends the capture path of the piece that started on `start` and now stands on `at`, after
/// `jumps` jumps in directions `dirs` (see [`Move::Capture`]), by every possible jump in direction
/// order, appending each path that cannot be continued. The jumped pieces are off `board` while
/// the path goes on (they are removed after each jump), and put back when the search returns.
fn capture_paths(
    board: &mut [u8; POINTS],
    start: u8,
    at: u8,
    jumps: u8,
    dirs: u64,
    own: u8,
    out: &mut Vec<Move>,
) {
    let enemy = 3 - own;
    let mut continued = false;
    for (di, d) in DIRECTIONS.into_iter().enumerate() {
        let Some((count, land)) = jump(board, at, d, enemy) else {
            continue;
        };
        continued = true;
        debug_assert!(jumps < 32, "each jump takes one of 32 enemy pieces");
        let mut p = at;
        for _ in 0..count {
            p = step(p, d).expect("jumped point");
            board[p as usize] = 0;
        }
        board[at as usize] = 0;
        board[land as usize] = own;
        let dirs = dirs | (di as u64) << (2 * u32::from(jumps));
        capture_paths(board, start, land, jumps + 1, dirs, own, out);
        board[land as usize] = 0;
        board[at as usize] = own;
        let mut p = at;
        for _ in 0..count {
            p = step(p, d).expect("jumped point");
            board[p as usize] = enemy;
        }
    }
    if !continued && jumps > 0 {
        out.push(Move::Capture { start, jumps, dirs });
    }
}
