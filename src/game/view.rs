//! A neutral picture of any game's position: cells placed on a plane, each with the pieces on it
//! from bottom to top. The HTML viewer and the terminal printer draw every game from this one
//! shape, so a new game needs no drawing code of its own.

use serde::Serialize;

/// How cells are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellShape {
    /// Squares of a chequered board (draughts, Impasse, Attraktion, Moscow Ice).
    Square,
    /// Hexagons of a hex board (Stein's games); `col` counts half-cell offsets.
    Hex,
    /// Intersections of lines (Alva).
    Point,
}

/// One piece on a cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PieceView {
    /// Its owner's seat.
    pub seat: usize,
    /// A short label drawn on it (`K` for a king, `S`/`M`/`L` for sizes), often empty.
    pub label: String,
}

/// One cell of the board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellView {
    /// The cell's name in the game's move notation (`d5`, `37`).
    pub name: String,
    /// Position on the plane: column from the left, row from the top, in cell units.
    pub col: f32,
    pub row: f32,
    /// A background mark (`dark`, `castle-0`, `start-1`, `finish-2`), empty for none.
    pub mark: String,
    /// The pieces on the cell, bottom first.
    pub pieces: Vec<PieceView>,
}

/// The whole position as a viewer draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardView {
    pub shape: CellShape,
    pub cells: Vec<CellView>,
    /// Lines shown beside the board (pieces in hand, captured pieces, whose turn).
    pub notes: Vec<String>,
}

impl BoardView {
    /// Draws the view as text: one character per cell (the top piece's seat digit, `.` when
    /// empty, a letter when the top piece is labelled), rows from the top. For logs and tests.
    pub fn to_text(&self) -> String {
        let mut rows: Vec<(i64, Vec<(i64, char)>)> = Vec::new();
        for c in &self.cells {
            let r = (c.row * 2.0).round() as i64;
            let col = (c.col * 2.0).round() as i64;
            let ch = match c.pieces.last() {
                None => '.',
                Some(p) => p
                    .label
                    .chars()
                    .next()
                    .unwrap_or_else(|| char::from_digit(p.seat as u32 % 10, 10).unwrap_or('?')),
            };
            match rows.iter_mut().find(|(rr, _)| *rr == r) {
                Some((_, cells)) => cells.push((col, ch)),
                None => rows.push((r, vec![(col, ch)])),
            }
        }
        rows.sort_by_key(|(r, _)| *r);
        let min_col = self
            .cells
            .iter()
            .map(|c| (c.col * 2.0).round() as i64)
            .min()
            .unwrap_or(0);
        let mut out = String::new();
        for (_, mut cells) in rows {
            cells.sort_by_key(|(c, _)| *c);
            let mut line = String::new();
            for (col, ch) in cells {
                let at = (col - min_col) as usize;
                while line.chars().count() < at {
                    line.push(' ');
                }
                line.push(ch);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for n in &self.notes {
            out.push_str(n);
            out.push('\n');
        }
        out
    }
}
