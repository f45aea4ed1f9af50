//! The texts of draughts: PDN move notation for the legal list and the PDN FEN-like position line
//! (with the draw counters appended), written and read back here so the rules never see a string.

use super::board::{bit, path, Board, Move, Squares, SQUARES};
use crate::game::PositionError;
use std::fmt::Write as _;

/// Appends the text of `m`, a legal move on `board`.
///
/// A step is `32-28`. A capture is `28x19` when no other legal capture has the same start and
/// end; when several do (they differ in the pieces taken), each of them lists every landing
/// square instead (`28x19x10`), which tells them apart because a landing square and the next
/// one enclose exactly one taken piece.
pub fn write_move(board: &Board, m: &Move, out: &mut String) {
    if !m.is_capture() {
        let _ = write!(out, "{}-{}", m.from + 1, m.to + 1);
    } else if m.ambiguous {
        let _ = write!(out, "{}", m.from + 1);
        for sq in path(board, m).squares() {
            let _ = write!(out, "x{}", sq + 1);
        }
    } else {
        let _ = write!(out, "{}x{}", m.from + 1, m.to + 1);
    }
}

/// The FEN part of the position line: side to move, then White's and Black's pieces in square
/// order, kings marked `K` (`W:W31,32,K46:B1,2`).
pub fn write_fen(board: &Board, to_move: usize, out: &mut String) {
    out.push(if to_move == 0 { 'W' } else { 'B' });
    for (seat, letter) in [(0, 'W'), (1, 'B')] {
        out.push(':');
        out.push(letter);
        let mut first = true;
        for sq in 0..SQUARES {
            if board.pieces[seat] & bit(sq) == 0 {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            if board.is_king(sq) {
                out.push('K');
            }
            let _ = write!(out, "{}", sq + 1);
        }
    }
}

/// Reads a FEN part: `W` or `B`, then a `W` and a `B` section in either order, each a comma list
/// of squares, `K` marking kings and `a-b` ranges allowed (`W:W31-50:B1-20`). A trailing `.` is
/// allowed. Returns the board and the side to move (0 White, 1 Black).
pub fn read_fen(text: &str) -> Result<(Board, usize), PositionError> {
    let text = text.strip_suffix('.').unwrap_or(text);
    let parts: Vec<&str> = text.split(':').collect();
    let [side, a, b] = parts[..] else {
        return Err(PositionError::Form {
            expected: "three parts joined by ':' (side to move, White's pieces, Black's pieces, \
                       as in W:W31-50:B1-20)"
                .into(),
            got: Some(text.to_string()),
        });
    };
    let to_move = match side.trim() {
        "W" => 0,
        "B" => 1,
        other => {
            return Err(PositionError::SideToMove {
                sides: ['W', 'B'],
                note: " (upper case, as PDN writes it and arbiter prints it)",
                got: other.to_string(),
            })
        }
    };
    let mut board = Board::default();
    let mut seen = [false; 2];
    for part in [a, b] {
        let part = part.trim();
        let seat = match part.chars().next() {
            Some('W' | 'w') => 0,
            Some('B' | 'b') => 1,
            _ => {
                return Err(PositionError::PieceList {
                    got: part.to_string(),
                })
            }
        };
        if std::mem::replace(&mut seen[seat], true) {
            return Err(PositionError::PiecesTwice { side: colour(seat) });
        }
        read_pieces(&part[1..], seat, &mut board)?;
    }
    for seat in 0..2 {
        let n = board.pieces[seat].count_ones() as usize;
        if n > super::board::MAX_PIECES {
            return Err(PositionError::TooManyForASide {
                side: colour(seat),
                count: n,
                max: super::board::MAX_PIECES,
            });
        }
        let men = board.pieces[seat] & !board.kings;
        let row = super::board::crowning_row(seat);
        if let Some(sq) = (0..SQUARES).find(|&s| men & bit(s) != 0 && super::board::row(s) == row) {
            return Err(PositionError::ManOnCrowningRow {
                side: colour(seat),
                square: sq + 1,
            });
        }
    }
    Ok((board, to_move))
}

pub(super) fn colour(seat: usize) -> &'static str {
    ["White", "Black"][seat]
}

/// Reads one colour's comma list into `board`.
fn read_pieces(list: &str, seat: usize, board: &mut Board) -> Result<(), PositionError> {
    for item in list.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (king, squares) = match item.strip_prefix(['K', 'k']) {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let number = |s: &str| -> Result<u8, PositionError> {
            match s.trim().parse::<u8>() {
                Ok(n) if (1..=SQUARES).contains(&n) => Ok(n - 1),
                _ => Err(PositionError::SquareNumber {
                    text: s.to_string(),
                    item: item.to_string(),
                }),
            }
        };
        let (lo, hi) = match squares.split_once('-') {
            Some((lo, hi)) => (number(lo)?, number(hi)?),
            None => {
                let n = number(squares)?;
                (n, n)
            }
        };
        if lo > hi {
            return Err(PositionError::Backwards {
                item: item.to_string(),
            });
        }
        for sq in lo..=hi {
            let b: Squares = bit(sq);
            if board.occupied() & b != 0 {
                return Err(PositionError::SquareTwice {
                    square: (sq + 1).to_string(),
                });
            }
            board.pieces[seat] |= b;
            if king {
                board.kings |= b;
            }
        }
    }
    Ok(())
}
