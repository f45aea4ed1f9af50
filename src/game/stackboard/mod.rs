//! The boards and stacks of Dieter Stein's stacking games (Accasta, Abande, Attangle), written
//! once: a [`Geometry`] (the 37-cell hex board of [`super::hex37`], or a square board whose
//! pieces connect and move along eight directions, for the `square` variants) and stacks of two
//! colours, with the position text, board lines and view every one of those games prints alike.
//!
//! Cells are indexed row by row from the first seat's side. A square board of side `n` names its
//! cells chess-like, column letter then row number (`a1` bottom left); the hex board names them
//! row letter then number (see [`super::hex37`]).

use super::hex37;
use super::{BoardView, CellShape, PositionError};

pub mod hand;
mod stack;
#[cfg(test)]
mod tests;

pub use stack::Stack;

/// A cell index, row by row from the first seat's side.
pub type Cell = u8;
/// The most cells a board has (8x8).
pub const MAX_CELLS: usize = 64;
/// The most directions a board has.
pub const MAX_DIRS: usize = 8;
const NO: u8 = u8::MAX;

/// Which board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardKind {
    /// The six-sided board of 37 cells, six directions.
    Hex37,
    /// `n` x `n` cells (or intersections), eight directions (orthogonal and diagonal).
    Square(u8),
}

/// One board: its cells, directions and neighbour table.
#[derive(Debug)]
pub struct Geometry {
    pub kind: BoardKind,
    /// Number of cells.
    pub cells: usize,
    /// Number of directions (6 or 8); direction `d` and `(d + dirs / 2) % dirs` are opposite.
    pub dirs: usize,
    /// How the viewer draws the cells.
    pub shape: CellShape,
    nb: [[u8; MAX_DIRS]; MAX_CELLS],
    /// The same neighbours as bit sets (bit `n` for neighbour `n`).
    nb_mask: [u64; MAX_CELLS],
}

/// The hex board of the standard games.
pub static HEX37: Geometry = Geometry::hex37();
/// Abande's square variant: 7x7 intersections.
pub static SQUARE7: Geometry = Geometry::square(7, CellShape::Point);
/// Attangle's square variant: 8x8 cells.
pub static SQUARE8: Geometry = Geometry::square(8, CellShape::Square);

/// Square directions as (column step, row step): E, NE, N, NW, W, SW, S, SE.
const SQUARE_DIRS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

impl Geometry {
    const fn hex37() -> Self {
        let hex = hex37::build_neighbours();
        let mut nb = [[NO; MAX_DIRS]; MAX_CELLS];
        let mut c = 0;
        while c < hex37::CELLS {
            let mut d = 0;
            while d < 6 {
                nb[c][d] = hex[c][d];
                d += 1;
            }
            c += 1;
        }
        Geometry {
            kind: BoardKind::Hex37,
            cells: hex37::CELLS,
            dirs: 6,
            shape: CellShape::Hex,
            nb,
            nb_mask: masks(&nb),
        }
    }

    const fn square(n: usize, shape: CellShape) -> Self {
        let mut nb = [[NO; MAX_DIRS]; MAX_CELLS];
        let mut c = 0;
        while c < n * n {
            let (x, y) = ((c % n) as i32, (c / n) as i32);
            let mut d = 0;
            while d < 8 {
                let (nx, ny) = (x + SQUARE_DIRS[d].0, y + SQUARE_DIRS[d].1);
                if nx >= 0 && ny >= 0 && nx < n as i32 && ny < n as i32 {
                    nb[c][d] = (ny * n as i32 + nx) as u8;
                }
                d += 1;
            }
            c += 1;
        }
        Geometry {
            kind: BoardKind::Square(n as u8),
            cells: n * n,
            dirs: 8,
            shape,
            nb,
            nb_mask: masks(&nb),
        }
    }

    /// The cell one step from `c` in direction `d`, if it is on the board.
    #[inline]
    pub fn step(&self, c: Cell, d: usize) -> Option<Cell> {
        let n = self.nb[c as usize][d];
        (n != NO).then_some(n)
    }

    /// The cells next to `c` as a bit set (bit `n` for cell `n`).
    #[inline]
    pub fn neighbour_mask(&self, c: Cell) -> u64 {
        self.nb_mask[c as usize]
    }

    /// The cells next to any cell of the bit set `set`, as a bit set (`set`'s own cells
    /// included where they touch each other).
    pub fn touching(&self, set: u64) -> u64 {
        let (mut rest, mut out) = (set, 0);
        while rest != 0 {
            out |= self.nb_mask[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        out
    }

    /// The cells next to `c`.
    pub fn neighbours(&self, c: Cell) -> impl Iterator<Item = Cell> + '_ {
        self.nb[c as usize][..self.dirs]
            .iter()
            .copied()
            .filter(|&n| n != NO)
    }

    /// The cells beyond `c` in direction `d`, nearest first, up to the edge.
    pub fn ray(&self, c: Cell, d: usize) -> impl Iterator<Item = Cell> + '_ {
        let mut at = c;
        std::iter::from_fn(move || {
            let n = self.step(at, d)?;
            at = n;
            Some(n)
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        match self.kind {
            BoardKind::Hex37 => hex37::ROWS,
            BoardKind::Square(n) => n as usize,
        }
    }

    /// The first cell and the length of row `r` (0 on the first seat's side).
    pub fn row(&self, r: usize) -> (usize, usize) {
        match self.kind {
            BoardKind::Hex37 => (hex37::ROW_START[r], hex37::ROW_LEN[r]),
            BoardKind::Square(n) => (r * n as usize, n as usize),
        }
    }

    /// The label of row `r` in the board lines: its letter on the hex board, its number on a
    /// square one.
    pub fn row_label(&self, r: usize) -> char {
        match self.kind {
            BoardKind::Hex37 => (b'a' + r as u8) as char,
            BoardKind::Square(_) => (b'1' + r as u8) as char,
        }
    }

    /// Appends the cell's name.
    pub fn write_name(&self, out: &mut String, c: Cell) {
        match self.kind {
            BoardKind::Hex37 => hex37::write_name(out, c),
            BoardKind::Square(n) => {
                out.push((b'a' + c % n) as char);
                out.push((b'1' + c / n) as char);
            }
        }
    }

    /// The cell's name.
    pub fn name(&self, c: Cell) -> String {
        let mut s = String::with_capacity(2);
        self.write_name(&mut s, c);
        s
    }

    /// The cell called `s`.
    pub fn parse_cell(&self, s: &str) -> Option<Cell> {
        match self.kind {
            BoardKind::Hex37 => hex37::parse_cell(s),
            BoardKind::Square(n) => {
                let b = s.as_bytes();
                if b.len() != 2 {
                    return None;
                }
                let (x, y) = (b[0].wrapping_sub(b'a'), b[1].wrapping_sub(b'1'));
                (x < n && y < n).then_some(y * n + x)
            }
        }
    }

    /// Where the viewer draws the cell: column and row in cell units, row 0 at the top.
    pub fn view_place(&self, c: Cell) -> (f32, f32) {
        match self.kind {
            BoardKind::Hex37 => hex37::view_place(c),
            BoardKind::Square(n) => ((c % n) as f32, (n - 1 - c / n) as f32),
        }
    }

    /// Appends the board as the games' position text starts: rows from the first seat's side
    /// joined by `/`, the cells of a row by `,`, each stack bottom first (`.` when empty).
    pub fn write_rows(&self, out: &mut String, board: &Stacks, letters: [char; 2]) {
        for r in 0..self.rows() {
            if r > 0 {
                out.push('/');
            }
            let (start, len) = self.row(r);
            for i in 0..len {
                if i > 0 {
                    out.push(',');
                }
                board[start + i].write(out, letters);
            }
        }
    }

    /// Reads what [`Geometry::write_rows`] printed.
    pub fn parse_rows(&self, s: &str, letters: [char; 2]) -> Result<Stacks, PositionError> {
        let rows: Vec<&str> = s.split('/').collect();
        if rows.len() != self.rows() {
            return Err(PositionError::Count {
                expected: self.rows(),
                what: "rows joined by '/'",
                got: rows.len(),
            });
        }
        let mut board = [Stack::EMPTY; MAX_CELLS];
        for (r, row) in rows.iter().enumerate() {
            let (start, len) = self.row(r);
            let cells: Vec<&str> = row.split(',').collect();
            if cells.len() != len {
                return Err(PositionError::RowCells {
                    row: self.row_label(r),
                    expected: len,
                    got: cells.len(),
                });
            }
            for (i, c) in cells.iter().enumerate() {
                board[start + i] = Stack::parse(c, letters)?;
            }
        }
        Ok(board)
    }

    /// Appends one board line per row, the far row first: the row's label, then its cells'
    /// stacks in order, separated by spaces.
    pub fn write_board_lines(&self, out: &mut String, board: &Stacks, letters: [char; 2]) {
        for r in (0..self.rows()).rev() {
            out.push(self.row_label(r));
            let (start, len) = self.row(r);
            for st in &board[start..start + len] {
                out.push(' ');
                st.write(out, letters);
            }
            out.push('\n');
        }
    }

    /// Makes `out` this board's view with `notes` notes (to be written), every cell placed with
    /// its stack and the mark `mark` gives it, reusing the storage already in `out`.
    pub fn view_cells_into(
        &self,
        board: &Stacks,
        mark: impl Fn(Cell) -> &'static str,
        out: &mut BoardView,
        notes: usize,
    ) {
        out.reshape(self.shape, self.cells, notes);
        for c in 0..self.cells as Cell {
            let (col, row) = self.view_place(c);
            let st = board[c as usize];
            let cell = out.cell(c as usize, col, row, mark(c));
            cell.name.clear();
            self.write_name(&mut cell.name, c);
            cell.set_pieces((0..st.height()).map(|i| (st.seat_at(i), "")));
        }
    }

    /// Whether the cells of the bit set `set` form one connected group (an empty set does).
    pub fn connected(&self, set: u64) -> bool {
        if set == 0 {
            return true;
        }
        // Grow from the lowest cell, one ring of newly reached cells at a time.
        let mut seen = set & set.wrapping_neg();
        let mut ring = seen;
        while ring != 0 {
            let next = self.touching(ring) & set & !seen;
            seen |= next;
            ring = next;
        }
        seen == set
    }
}

/// The neighbour table as bit sets.
const fn masks(nb: &[[u8; MAX_DIRS]; MAX_CELLS]) -> [u64; MAX_CELLS] {
    let mut out = [0u64; MAX_CELLS];
    let mut c = 0;
    while c < MAX_CELLS {
        let mut d = 0;
        while d < MAX_DIRS {
            if nb[c][d] != NO {
                out[c] |= 1 << nb[c][d];
            }
            d += 1;
        }
        c += 1;
    }
    out
}

/// Occupied cells as a bit set (bit `c` for cell `c`).
pub fn occupied(board: &Stacks) -> u64 {
    board
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .fold(0, |m, (c, _)| m | 1 << c)
}

/// The board of any of the games: one stack per cell (cells past the geometry's count stay
/// empty).
pub type Stacks = [Stack; MAX_CELLS];
