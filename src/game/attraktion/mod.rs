//! Attraktion (Jarosław Cichocki, 2005): a placement game in which every new piece pulls the pieces
//! of its row and column one cell closer, so that a player can be handed the win by the opponent's
//! own move. It exists here as one of the seed games every bot of arbiter can play.
//!
//! Choices where the rules leave room (all stated in `statement.md` and tested):
//! - Attraction works outward from the new piece in each of the four directions, nearest piece
//!   first: each piece moves one cell toward the new piece when that cell is empty at the moment it
//!   is considered, so a cell just vacated by a nearer piece can be entered (a chain closes up).
//!   No piece moves more than one cell in a turn.
//! - A winning shape is an own piece whose four diagonal neighbours are all on the board and all
//!   hold enemy pieces; both players' shapes are counted after every turn. More shapes wins, for
//!   either player; equal counts (zero included) play on.
//! - The game is a draw when the player to move has no piece left in hand or the board has no
//!   empty cell (on both boards the hands run out exactly when the board fills).
//! - Pieces in hand are not written in the position text: they are the starting hand minus the
//!   player's pieces on the board, since pieces never leave the board.
//!
//! Cells are `row * n + col`, row 0 being the board's row `1` (bottom) and col 0 column `a`.
//! Seat 0 is White (`w`) and moves first, seat 1 is Black (`b`).

use super::{
    BoardView, CellShape, DrawRule, GameInfo, Outcome, PositionError, Rules, Setup, TextGame,
    Variant,
};
use std::fmt::Write as _;

#[cfg(test)]
mod tests;

/// The largest board side of any variant.
const MAX_SIDE: usize = 10;
/// Cell characters indexed by code: empty, White, Black.
const CELL_CHARS: [char; 3] = ['.', 'w', 'b'];

/// The board side of a variant name.
fn side_of(variant: &str) -> usize {
    match variant {
        "10x10" => 10,
        _ => 8,
    }
}

/// An Attraktion position. A move is the cell a piece is placed on.
#[derive(Clone, Debug)]
pub struct Attraktion {
    /// The board side (8 or 10).
    n: usize,
    /// Cell codes (0 empty, 1 White, 2 Black), `row * n + col`.
    board: [u8; MAX_SIDE * MAX_SIDE],
    /// Pieces each seat still holds.
    hand: [u32; 2],
    to_move: usize,
    /// Winning shapes of each seat in the current position.
    shapes: [u32; 2],
    /// The result once the game has ended.
    end: Option<Outcome>,
}

/// Appends the name of cell (`col`, `row`) (0-based, row 0 at the bottom), e.g. `d5` or `a10`.
fn write_cell_name(out: &mut String, col: usize, row: usize) {
    out.push((b'a' + col as u8) as char);
    let _ = write!(out, "{}", row + 1);
}

/// The name of cell (`col`, `row`).
#[cfg(test)]
fn cell_name(col: usize, row: usize) -> String {
    let mut s = String::with_capacity(3);
    write_cell_name(&mut s, col, row);
    s
}

impl Attraktion {
    /// The empty start position on an `n` x `n` board, White to move, `n * n / 2` pieces each.
    pub fn new(n: usize) -> Self {
        assert!(
            (4..=MAX_SIDE).contains(&n) && n.is_multiple_of(2),
            "board side {n}"
        );
        let per_seat = (n * n / 2) as u32;
        Self::build(n, [0; MAX_SIDE * MAX_SIDE], [per_seat; 2], 0)
    }

    fn build(n: usize, board: [u8; MAX_SIDE * MAX_SIDE], hand: [u32; 2], to_move: usize) -> Self {
        let mut g = Attraktion {
            n,
            board,
            hand,
            to_move,
            shapes: [0; 2],
            end: None,
        };
        g.settle();
        g
    }

    /// Counts the shapes and decides whether the game has ended.
    fn settle(&mut self) {
        self.shapes = [self.count_shapes(0), self.count_shapes(1)];
        let [w, b] = self.shapes;
        self.end = if w != b {
            Some(Outcome::winner(2, usize::from(b > w)))
        } else if self.hand[self.to_move] == 0
            || self.board[..self.n * self.n].iter().all(|&c| c != 0)
        {
            Some(Outcome::draw(2))
        } else {
            None
        };
    }

    /// The winning shapes of `seat`: its pieces whose four diagonal neighbours are all enemies.
    pub fn count_shapes(&self, seat: usize) -> u32 {
        let n = self.n;
        let (own, enemy) = (1 + seat as u8, 2 - seat as u8);
        let mut count = 0;
        for r in 1..n - 1 {
            for c in 1..n - 1 {
                let i = r * n + c;
                if self.board[i] == own
                    && [i - n - 1, i - n + 1, i + n - 1, i + n + 1]
                        .iter()
                        .all(|&d| self.board[d] == enemy)
                {
                    count += 1;
                }
            }
        }
        count
    }

    /// Places a piece of the seat to move on empty `cell` and lets it attract.
    ///
    /// In each direction the cells are visited from the new piece outward; a piece moves one cell
    /// inward when that cell is empty at that moment (possibly just vacated by the nearer piece).
    fn place(&mut self, cell: usize) {
        let n = self.n as isize;
        let (c0, r0) = (cell as isize % n, cell as isize / n);
        self.board[cell] = 1 + self.to_move as u8;
        for (dc, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let (mut c, mut r) = (c0 + 2 * dc, r0 + 2 * dr);
            while (0..n).contains(&c) && (0..n).contains(&r) {
                let from = (r * n + c) as usize;
                let to = ((r - dr) * n + (c - dc)) as usize;
                if self.board[from] != 0 && self.board[to] == 0 {
                    self.board[to] = self.board[from];
                    self.board[from] = 0;
                }
                (c, r) = (c + dc, r + dr);
            }
        }
    }

    /// Winning shapes of each seat in this position.
    pub fn shapes(&self) -> [u32; 2] {
        self.shapes
    }

    /// Pieces each seat still has in hand.
    pub fn hand(&self) -> [u32; 2] {
        self.hand
    }

    /// The rows from the top (row `n`) down, one string each.
    fn rows(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.n).rev().map(move |r| {
            (0..self.n)
                .map(|c| CELL_CHARS[self.board[r * self.n + c] as usize])
                .collect()
        })
    }
}

/// Reads the one-line form (rows from the top joined by `/`, a space, `w` or `b`) for a board of
/// side `n`.
pub fn from_position_text(n: usize, text: &str) -> Result<Attraktion, PositionError> {
    let (rows, side) = text
        .trim()
        .split_once(' ')
        .ok_or_else(|| PositionError::Form {
            expected: format!("{n} rows joined by '/', a space, and w or b (the side to move)")
                .into(),
            got: None,
        })?;
    let to_move = match side.trim() {
        "w" => 0,
        "b" => 1,
        other => return Err(PositionError::side_w_or_b(other)),
    };
    let rows: Vec<&str> = rows.split('/').collect();
    if rows.len() != n {
        return Err(PositionError::Count {
            expected: n,
            what: "rows",
            got: rows.len(),
        });
    }
    let mut board = [0u8; MAX_SIDE * MAX_SIDE];
    let mut count = [0u32; 2];
    for (i, line) in rows.iter().enumerate() {
        if line.chars().count() != n {
            return Err(PositionError::RowLength {
                what: "row",
                row: n - i,
                expected: n,
                line: line.to_string(),
            });
        }
        for (c, ch) in line.chars().enumerate() {
            let code = match ch {
                '.' => continue,
                'w' => 1,
                'b' => 2,
                _ => {
                    return Err(PositionError::Character {
                        what: "cell",
                        ch,
                        hint: " (use . w b)",
                    })
                }
            };
            board[(n - 1 - i) * n + c] = code;
            count[code as usize - 1] += 1;
        }
    }
    let per_seat = (n * n / 2) as u32;
    if let Some(seat) = (0..2).find(|&s| count[s] > per_seat) {
        return Err(PositionError::TooManyOnBoard {
            side: ["White", "Black"][seat],
            count: count[seat],
            max: per_seat,
        });
    }
    let hand = [per_seat - count[0], per_seat - count[1]];
    Ok(Attraktion::build(n, board, hand, to_move))
}

impl Rules for Attraktion {
    type Move = u8;

    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn variant(&self) -> &'static str {
        if self.n == 10 {
            "10x10"
        } else {
            "8x8"
        }
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        self.to_move
    }

    /// The empty cells, from a1 row by row.
    fn legal_moves(&self, out: &mut Vec<u8>) {
        if self.end.is_none() {
            let n = self.n;
            out.extend((0..n * n).filter(|&i| self.board[i] == 0).map(|i| i as u8));
        }
    }

    fn play(&mut self, cell: u8) {
        let seat = self.to_move;
        self.place(cell as usize);
        self.hand[seat] -= 1;
        self.to_move = 1 - seat;
        self.settle();
    }

    fn write_move(&self, cell: u8, out: &mut String) {
        write_cell_name(out, cell as usize % self.n, cell as usize / self.n);
    }

    fn write_board(&self, out: &mut String) {
        for row in self.rows() {
            out.push_str(&row);
            out.push('\n');
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end.clone()
    }

    fn is_over(&self) -> bool {
        self.end.is_some()
    }

    fn draw_rule(&self) -> Option<DrawRule> {
        let end = self.end.as_ref()?;
        end.sole_winner().is_none().then_some(DrawRule::FullBoard)
    }

    fn scores(&self) -> Vec<i32> {
        self.shapes.iter().map(|&s| s as i32).collect()
    }

    fn position_text(&self) -> String {
        let mut s = self.rows().collect::<Vec<_>>().join("/");
        s.push_str(if self.to_move == 0 { " w" } else { " b" });
        s
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| self.view_into(v))
    }

    fn view_into(&self, out: &mut BoardView) {
        let n = self.n;
        out.reshape(CellShape::Square, n * n, 2);
        let mut i = 0;
        for r in (0..n).rev() {
            for c in 0..n {
                let code = self.board[r * n + c];
                let cell = out.cell(i, c as f32, (n - 1 - r) as f32, "");
                cell.name.clear();
                write_cell_name(&mut cell.name, c, r);
                cell.set_pieces((code != 0).then(|| (code as usize - 1, "")));
                i += 1;
            }
        }
        let _ = write!(
            out.note(0),
            "in hand: White {}, Black {}",
            self.hand[0],
            self.hand[1]
        );
        let _ = write!(
            out.note(1),
            "winning shapes: White {}, Black {}",
            self.shapes[0],
            self.shapes[1]
        );
    }

    fn describe(&self) -> String {
        let mut s = String::with_capacity(128);
        self.write_board(&mut s);
        let side = ["White", "Black"];
        match &self.end {
            Some(o) => match o.sole_winner() {
                Some(w) => {
                    let _ = write!(s, "{} has won", side[w]);
                }
                None => s.push_str("drawn"),
            },
            None => {
                let _ = write!(s, "{} to move", side[self.to_move]);
            }
        }
        let _ = write!(
            s,
            " (shapes: White {}, Black {}; in hand: White {}, Black {})",
            self.shapes[0], self.shapes[1], self.hand[0], self.hand[1]
        );
        s
    }
}

/// The registry entry.
pub static INFO: GameInfo = GameInfo {
    name: "attraktion",
    title: "Attraktion",
    about: "Jarosław Cichocki's placement game: each new piece pulls its row and column closer",
    variants: &[
        Variant {
            name: "8x8",
            about: "8x8 board, 32 pieces each",
            seats: &[2],
        },
        Variant {
            name: "10x10",
            about: "10x10 board, 50 pieces each",
            seats: &[2],
        },
    ],
    default_max_turns: 100,
    books: &[],
    score_name: "winning shapes",
    statement: include_str!("statement.md"),
    new: |s: &Setup| Box::new(TextGame::new(Attraktion::new(side_of(s.variant)))),
    from_position: |s: &Setup, text: &str| {
        Ok(Box::new(TextGame::new(from_position_text(
            side_of(s.variant),
            text,
        )?)))
    },
};
