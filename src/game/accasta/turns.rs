//! Accasta's turns as typed values: the depth-first search that lists every legal turn of a
//! position into the caller's buffer (no allocation: one board copied on the stack, each move
//! tried on it and taken back), the check that a side has any turn at all, playing a turn, and
//! writing its text.

use super::{castle, in_enemy_castle, CASTLE_WIN, MAX_MOVES, MAX_OF_A_COLOUR};
use crate::game::hex37::{self, Cell, CELLS};
use crate::game::stackboard::{Stack, Stacks};
use std::fmt::Write as _;

/// One whole turn: up to three moves from the same cell, each taking some pieces off its top.
/// Eight bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WholeTurn {
    from: Cell,
    /// How many of `steps` are played.
    n: u8,
    /// (pieces moved, destination)
    steps: [(u8, Cell); MAX_MOVES],
}

impl WholeTurn {
    /// The cell the turn's moves start from.
    pub fn from(self) -> Cell {
        self.from
    }

    /// The turn's moves as (pieces moved, destination).
    pub fn steps(&self) -> &[(u8, Cell)] {
        &self.steps[..self.n as usize]
    }
}

/// Whether the pieces of `moving` may land on `target`: no stack holds more than three pieces
/// of one colour.
fn fits(target: Stack, moving: Stack) -> bool {
    (0..2).all(|s| target.count(s) + moving.count(s) <= MAX_OF_A_COLOUR)
}

/// Whether lifting `k` pieces off `st` on `from` is allowed for `me`: a release (an enemy piece
/// left on top) is not allowed from a cell of the mover's own castle. Returns what stays.
fn lift(st: Stack, from: Cell, k: usize, me: usize) -> Option<(Stack, Stack)> {
    let mut rest = st;
    let moving = rest.split_top(k);
    let released = rest.top() == Some(1 - me);
    (!(released && castle(me) >> from & 1 == 1)).then_some((rest, moving))
}

/// Appends to `out` every legal turn of `me` on `board`, grouped by starting cell, in the order
/// the bots have always received them.
pub fn list_turns(board: &Stacks, me: usize, out: &mut Vec<WholeTurn>) {
    // One working copy, changed in place by each move tried and restored after.
    let mut work = *board;
    let held = in_enemy_castle(board, me);
    for from in 0..CELLS as Cell {
        if board[from as usize].top() == Some(me) {
            let turn = WholeTurn {
                from,
                n: 0,
                steps: [(0, 0); MAX_MOVES],
            };
            extend(&mut work, me, held, turn, out);
        }
    }
}

/// Appends every turn that continues `turn` (whose start cell is still topped by `me` on
/// `board`, where `me` controls `held` stacks in the enemy castle) by one more move, and
/// recursively their continuations. `board` is left as it was found.
fn extend(board: &mut Stacks, me: usize, held: usize, turn: WholeTurn, out: &mut Vec<WholeTurn>) {
    let from = turn.from;
    let st = board[from as usize];
    let enemy_castle = castle(1 - me);
    // The controlling piece moves as far as its place among its own colour in the stack.
    let range = st.count(me);
    for k in 1..=st.height() {
        let Some((rest, moving)) = lift(st, from, k, me) else {
            continue;
        };
        // A release ends the turn, as does the third move. Otherwise the start cell stays
        // topped by the mover, so a move changes the castle count only where it lands.
        let may_go_on = rest.top() == Some(me) && (turn.n as usize) + 1 < MAX_MOVES;
        for d in 0..6 {
            for to in hex37::ray(from, d).take(range) {
                let target = board[to as usize];
                if fits(target, moving) {
                    let mut t = turn;
                    t.steps[t.n as usize] = (k as u8, to);
                    t.n += 1;
                    out.push(t);
                    if may_go_on {
                        let gained = enemy_castle >> to & 1 == 1 && target.top() != Some(me);
                        let now = held + usize::from(gained);
                        // The win is checked after every move: a winning move ends the turn.
                        if now < CASTLE_WIN {
                            board[from as usize] = rest;
                            board[to as usize].put(moving);
                            extend(board, me, now, t, out);
                            board[from as usize] = st;
                            board[to as usize] = target;
                        }
                    }
                }
                if !target.is_empty() {
                    break; // nothing is jumped
                }
            }
        }
    }
}

/// Whether `me` has any legal turn on `board`, without listing them: every first move is a turn,
/// and a first move exists when some controlled stack may lift some pieces onto the nearest cell
/// in some direction (a farther cell is reached only over empty cells, and an empty nearest cell
/// always takes the pieces).
pub fn has_turn(board: &Stacks, me: usize) -> bool {
    (0..CELLS as Cell).any(|from| {
        let st = board[from as usize];
        st.top() == Some(me)
            && (1..=st.height()).any(|k| {
                lift(st, from, k, me).is_some_and(|(_, moving)| {
                    (0..6).any(|d| {
                        hex37::step(from, d).is_some_and(|to| fits(board[to as usize], moving))
                    })
                })
            })
    })
}

/// Plays the moves of `t` on `board`.
pub fn apply_turn(board: &mut Stacks, t: WholeTurn) {
    for &(k, to) in t.steps() {
        let moving = board[t.from as usize].split_top(k as usize);
        board[to as usize].put(moving);
    }
}

/// Appends the text of `t`, a legal turn of `me` on `board`: the start cell and `:`, then the
/// moves joined by `,`, each the number of pieces when more than one, `-` onto an empty cell,
/// `+` onto an own stack or `x` onto an enemy one, and the destination (`d1:2-d3,+d2`).
pub fn write_turn(board: &Stacks, me: usize, t: WholeTurn, out: &mut String) {
    let mut board = *board;
    hex37::write_name(out, t.from);
    out.push(':');
    for (i, &(k, to)) in t.steps().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if k > 1 {
            let _ = write!(out, "{k}");
        }
        out.push(match board[to as usize].top() {
            None => '-',
            Some(s) if s == me => '+',
            Some(_) => 'x',
        });
        hex37::write_name(out, to);
        let moving = board[t.from as usize].split_top(k as usize);
        board[to as usize].put(moving);
    }
}
