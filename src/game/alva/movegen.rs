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
    /// Lists the moves of the seat to move into `moves`, `paths` and `texts`.
    pub(super) fn generate(&mut self) {
        let mut moves = std::mem::take(&mut self.moves);
        let mut paths = std::mem::take(&mut self.paths);
        moves.clear();
        paths.clear();
        let own = 1 + self.to_move as u8;
        let mut board = self.board;
        let mut path = Vec::with_capacity(16);
        for p in 0..POINTS as u8 {
            if board[p as usize] == own {
                path.clear();
                path.push(p);
                capture_paths(&mut board, &mut path, own, &mut moves, &mut paths);
            }
        }
        if moves.is_empty() && self.hand[self.to_move] > 0 {
            let mut buf = [0u8; POINTS];
            let mut n = 0;
            for p in 0..POINTS as u8 {
                if self.board[p as usize] == 0 {
                    buf[n] = p;
                    n += 1;
                }
            }
            let empties = &buf[..n];
            moves.extend(empties.iter().map(|&at| Move::Place {
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
                            moves.push(Move::Place { from, to, at: from });
                            from_listed = true;
                        }
                        if e != to {
                            moves.push(Move::Place { from, to, at: e });
                        }
                    }
                    if !from_listed {
                        moves.push(Move::Place { from, to, at: from });
                    }
                }
            }
        }
        self.texts.truncate(moves.len());
        for (i, m) in moves.iter().enumerate() {
            if i == self.texts.len() {
                self.texts.push(String::with_capacity(12));
            }
            let t = &mut self.texts[i];
            t.clear();
            write_move(t, m, &paths);
        }
        self.moves = moves;
        self.paths = paths;
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
            Move::Capture { start, len } => {
                let path = &self.paths[start as usize..start as usize + len as usize];
                self.board[path[0] as usize] = 0;
                for w in path.windows(2) {
                    let (a, b) = (w[0], w[1]);
                    let d = direction(a, b);
                    let mut p = step(a, d).expect("jumped point on the board");
                    while p != b {
                        self.board[p as usize] = 0;
                        taken += 1;
                        p = step(p, d).expect("jump stays on the board");
                    }
                }
                self.board[path[len as usize - 1] as usize] = own;
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
}

/// The direction of a straight jump from `a` to `b`.
fn direction(a: u8, b: u8) -> (i8, i8) {
    let (dc, dr) = (
        (b % SIDE as u8) as i8 - (a % SIDE as u8) as i8,
        (b / SIDE as u8) as i8 - (a / SIDE as u8) as i8,
    );
    debug_assert!(dc == 0 || dr == 0, "jumps are straight");
    (dc.signum(), dr.signum())
}

/// Extends the capture path ending on `path.last()` by every possible jump, in direction order,
/// recording each path that cannot be continued. The jumped pieces are off `board` while the path
/// goes on (they are removed after each jump), and put back when the search returns.
fn capture_paths(
    board: &mut [u8; POINTS],
    path: &mut Vec<u8>,
    own: u8,
    moves: &mut Vec<Move>,
    paths: &mut Vec<u8>,
) {
    let enemy = 3 - own;
    let at = *path.last().expect("a path has a start");
    let mut continued = false;
    for d in DIRECTIONS {
        let Some((count, land)) = jump(board, at, d, enemy) else {
            continue;
        };
        continued = true;
        let mut p = at;
        for _ in 0..count {
            p = step(p, d).expect("jumped point");
            board[p as usize] = 0;
        }
        board[at as usize] = 0;
        board[land as usize] = own;
        path.push(land);
        capture_paths(board, path, own, moves, paths);
        path.pop();
        board[land as usize] = 0;
        board[at as usize] = own;
        let mut p = at;
        for _ in 0..count {
            p = step(p, d).expect("jumped point");
            board[p as usize] = enemy;
        }
    }
    if !continued && path.len() > 1 {
        moves.push(Move::Capture {
            start: paths.len() as u16,
            len: path.len() as u8,
        });
        paths.extend_from_slice(path);
    }
}

/// Appends the text of `m`: `c3xc5xe5`, `e6` or `d4-d5,e6`.
fn write_move(out: &mut String, m: &Move, paths: &[u8]) {
    match *m {
        Move::Place { from, to, at } => {
            if from != NONE {
                point_name(out, from);
                out.push('-');
                point_name(out, to);
                out.push(',');
            }
            point_name(out, at);
        }
        Move::Capture { start, len } => {
            for (i, &p) in paths[start as usize..start as usize + len as usize]
                .iter()
                .enumerate()
            {
                if i > 0 {
                    out.push('x');
                }
                point_name(out, p);
            }
        }
    }
}
