//! The texts of Moscow Ice: square names, the one-line position text (written and read back with
//! validation), the board lines of the turn input, and the neutral view.

use super::{exists, progress, Board, Cell, MoscowIce, Piece, Square, SIZE_LETTERS};
use crate::game::{BoardView, CellShape, PositionError, Rules};
use std::fmt::Write as _;

/// The two-character name of a square, e.g. `c7`.
pub fn square_name(sq: Square) -> [u8; 2] {
    [b'a' + sq % 8, b'1' + sq / 8]
}

/// Parses a square name such as `c7`; `None` for text that is not one of the 52 squares.
pub fn parse_square(name: &str) -> Option<Square> {
    match name.as_bytes() {
        &[c @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            let (c, r) = ((c - b'a') as i8, (r - b'1') as i8);
            exists(c, r).then_some((r * 8 + c) as Square)
        }
        _ => None,
    }
}

fn write_cell(cell: &Cell, out: &mut String) {
    for p in cell.pieces() {
        let _ = write!(out, "{}{}", p.seat(), SIZE_LETTERS[p.size() as usize]);
    }
}

/// Eight lines, rank 8 first; each holds eight space-separated words for files `a` to `h`: `#`
/// for a square that does not exist, `.` for an empty one, else the pieces bottom first as
/// seat digit and size letter (`0S1L`).
pub(super) fn write_board(board: &Board, out: &mut String) {
    for r in (0..8i8).rev() {
        for c in 0..8i8 {
            if c > 0 {
                out.push(' ');
            }
            let cell = &board[(r * 8 + c) as usize];
            if !exists(c, r) {
                out.push('#');
            } else if cell.n == 0 {
                out.push('.');
            } else {
                write_cell(cell, out);
            }
        }
        out.push('\n');
    }
}

/// `to_move passes eliminated cells`: the seat to move, the count of consecutive passes, the
/// eliminated seats as digits (`-` for none) and the occupied squares in index order (rank 1
/// first, files `a` to `h`) as `square:pieces` joined by commas (`-` for none).
pub(super) fn position_text(game: &MoscowIce) -> String {
    let mut s = String::with_capacity(96);
    let _ = write!(s, "{} {} ", game.to_move, game.passes);
    if game.eliminated == 0 {
        s.push('-');
    }
    for seat in 0..game.seats {
        if game.is_out(seat) {
            let _ = write!(s, "{seat}");
        }
    }
    s.push(' ');
    let mut any = false;
    for sq in 0..64u8 {
        let cell = &game.board[sq as usize];
        if cell.n == 0 {
            continue;
        }
        if any {
            s.push(',');
        }
        any = true;
        let [c, r] = square_name(sq);
        s.push(c as char);
        s.push(r as char);
        s.push(':');
        write_cell(cell, &mut s);
    }
    if !any {
        s.push('-');
    }
    s
}

/// Reads a position text back, checking every field.
pub(super) fn parse_position(
    seats: usize,
    partners: bool,
    text: &str,
) -> Result<MoscowIce, PositionError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [to_move, passes, out, cells] = words[..] else {
        return Err(PositionError::Form {
            expected: "four fields `to_move passes eliminated cells`".into(),
            got: Some(text.to_string()),
        });
    };
    let to_move: usize =
        to_move
            .parse()
            .ok()
            .filter(|&s| s < seats)
            .ok_or_else(|| PositionError::SeatToMove {
                max: seats - 1,
                got: to_move.to_string(),
            })?;
    let mut eliminated = 0u8;
    if out != "-" {
        if seats == 2 {
            return Err(PositionError::EliminatedOfTwo);
        }
        for ch in out.chars() {
            let seat = ch
                .to_digit(10)
                .map(|d| d as usize)
                .filter(|&s| s < seats)
                .ok_or_else(|| PositionError::EliminatedSeats {
                    seats,
                    got: out.to_string(),
                })?;
            if eliminated & (1 << seat) != 0 {
                return Err(PositionError::EliminatedTwice { seat });
            }
            eliminated |= 1 << seat;
        }
    }
    if eliminated & (1 << to_move) != 0 {
        return Err(PositionError::EliminatedToMove { seat: to_move });
    }
    let active = (0..seats).filter(|&s| eliminated & (1 << s) == 0).count();
    let passes: u8 = passes
        .parse()
        .ok()
        .filter(|&p: &u8| usize::from(p) <= active)
        .ok_or_else(|| PositionError::Passes {
            max: active,
            got: passes.to_string(),
        })?;
    let per_size = if seats == 2 { 4 } else { 2 };
    let mut count = vec![[0u8; 3]; seats];
    let mut board: Board = [Cell::default(); 64];
    if cells != "-" {
        for item in cells.split(',') {
            let (name, pieces) = item
                .split_once(':')
                .ok_or_else(|| PositionError::SquareItem {
                    item: item.to_string(),
                })?;
            let sq = parse_square(name).ok_or_else(|| PositionError::NoSuchSquare {
                name: name.to_string(),
                squares: 52,
            })?;
            let cell = &mut board[sq as usize];
            if cell.n != 0 {
                return Err(PositionError::SquareTwice {
                    square: name.to_string(),
                });
            }
            let square = || name.to_string();
            let chars: Vec<char> = pieces.chars().collect();
            if chars.is_empty() || !chars.len().is_multiple_of(2) || chars.len() > 6 {
                return Err(PositionError::SquarePieces {
                    square: square(),
                    pieces: pieces.to_string(),
                });
            }
            for pair in chars.chunks(2) {
                let seat = pair[0]
                    .to_digit(10)
                    .map(|d| d as usize)
                    .filter(|&s| s < seats)
                    .ok_or_else(|| PositionError::PieceSeat {
                        square: square(),
                        seat: pair[0],
                    })?;
                let size = SIZE_LETTERS
                    .iter()
                    .position(|&l| l == pair[1])
                    .ok_or_else(|| PositionError::PieceSize {
                        square: square(),
                        size: pair[1],
                    })? as u8;
                if cell.top().is_some_and(|t| t.size() >= size) {
                    return Err(PositionError::NotNested {
                        square: square(),
                        pieces: pieces.to_string(),
                    });
                }
                if eliminated & (1 << seat) != 0 {
                    return Err(PositionError::EliminatedPieces {
                        square: square(),
                        seat,
                    });
                }
                count[seat][size as usize] += 1;
                if count[seat][size as usize] > per_size {
                    return Err(PositionError::TooManyOfSize {
                        seat,
                        max: per_size,
                        size: SIZE_LETTERS[size as usize],
                    });
                }
                cell.push(Piece::new(seat, size));
            }
        }
    }
    Ok(MoscowIce::build(
        seats, partners, board, to_move, passes, eliminated,
    ))
}

/// Every square with its lines marked (`start-S`/`finish-S` with the lowest seat of that axis),
/// the others chequered; pieces bottom first labelled by size. Written over `out`, whose
/// storage is reused.
pub(super) fn view_into(game: &MoscowIce, out: &mut BoardView) {
    const START: [&str; 2] = ["start-0", "start-1"];
    const FINISH: [&str; 2] = ["finish-0", "finish-1"];
    const SIZES: [&str; 3] = ["S", "M", "L"];
    out.reshape(CellShape::Square, 52, 2);
    let mut i = 0;
    for r in (0..8i8).rev() {
        for c in 0..8i8 {
            if !exists(c, r) {
                continue;
            }
            let sq = (r * 8 + c) as Square;
            let [file, rank] = square_name(sq);
            let mark = (0..2)
                .find_map(|axis| match progress(axis, sq) {
                    0 => Some(START[axis]),
                    7 => Some(FINISH[axis]),
                    _ => None,
                })
                .unwrap_or(if (r + c) % 2 == 0 { "dark" } else { "" });
            let cell = out.cell(i, f32::from(c), f32::from(7 - r), mark);
            cell.name.clear();
            cell.name.push(char::from(file));
            cell.name.push(char::from(rank));
            cell.set_pieces(
                game.board[sq as usize]
                    .pieces()
                    .map(|p| (p.seat(), SIZES[p.size() as usize])),
            );
            i += 1;
        }
    }
    debug_assert_eq!(i, 52, "Moscow Ice has 52 squares");
    let note = out.note(0);
    let _ = match game.outcome() {
        Some(o) => write!(note, "game over, ranks {:?}", o.ranks),
        None => write!(note, "seat {} to move", game.to_move),
    };
    let note = out.note(1);
    for s in 0..game.seats {
        if s > 0 {
            note.push_str(", ");
        }
        let _ = if game.is_out(s) {
            write!(note, "seat {s}: out")
        } else {
            write!(note, "seat {s}: {} home", game.home(s))
        };
    }
}
