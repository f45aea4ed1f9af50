//! A neutral picture of any game's position: cells placed on a plane, each with the pieces on it
//! from bottom to top, and the colours of the seats whose pieces they are. The HTML viewer and
//! the terminal printer draw every game from this one shape, so a new game needs no drawing code
//! of its own.
//!
//! A replay page takes a view after every move of a game, so a game fills a view in place
//! ([`crate::game::Rules::view_into`]): the cells, pieces and notes of the view before are
//! overwritten, their storage kept, and a step of a replay allocates nothing.

use serde::Serialize;

/// How cells are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellShape {
    /// Squares of a chequered board (draughts, Impasse, Attraktion, Moscow Ice).
    #[default]
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

/// One seat's look, as its game names it ([`crate::game::Rules::seat_colours`]): its colour's
/// name, the CSS fill of its pieces and the CSS ink of a label drawn on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatColour {
    pub name: &'static str,
    pub fill: &'static str,
    pub ink: &'static str,
}

impl SeatColour {
    pub const WHITE: SeatColour = SeatColour {
        name: "White",
        fill: "#f3efe2",
        ink: "#222",
    };
    pub const BLACK: SeatColour = SeatColour {
        name: "Black",
        fill: "#2b2b2b",
        ink: "#f3efe2",
    };
    /// Seats past the first two, in order (Moscow Ice seats four); repeated past the last.
    pub const MORE: [SeatColour; 6] = [
        SeatColour {
            name: "Red",
            fill: "#c0392b",
            ink: "#fff",
        },
        SeatColour {
            name: "Blue",
            fill: "#2a6fdb",
            ink: "#fff",
        },
        SeatColour {
            name: "Green",
            fill: "#27ae60",
            ink: "#fff",
        },
        SeatColour {
            name: "Purple",
            fill: "#8e44ad",
            ink: "#fff",
        },
        SeatColour {
            name: "Orange",
            fill: "#e67e22",
            ink: "#222",
        },
        SeatColour {
            name: "Teal",
            fill: "#16a085",
            ink: "#fff",
        },
    ];

    /// The colours of `seats` seats when the game names none of its own: White, Black, then
    /// [`SeatColour::MORE`] in order.
    pub fn standard(seats: usize) -> Vec<SeatColour> {
        (0..seats)
            .map(|s| match s {
                0 => SeatColour::WHITE,
                1 => SeatColour::BLACK,
                s => SeatColour::MORE[(s - 2) % SeatColour::MORE.len()],
            })
            .collect()
    }
}

/// One cell of the board.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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

/// The whole position as a viewer draws it. `Default` is an empty view, for
/// [`crate::game::Rules::view_into`] to fill.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BoardView {
    pub shape: CellShape,
    pub cells: Vec<CellView>,
    /// Lines shown beside the board (pieces in hand, captured pieces, whose turn).
    pub notes: Vec<String>,
    /// Cells touch their diagonal neighbours too (Abande on squares): the viewer draws the
    /// diagonal lines between square cells. [`BoardView::reshape`] clears it.
    pub diagonals: bool,
}

/// Overwrites `dst` with `src`, keeping its storage.
fn set_text(dst: &mut String, src: &str) {
    dst.clear();
    dst.push_str(src);
}

impl CellView {
    /// Overwrites the cell's pieces, bottom first, with `(seat, label)` pairs, keeping the
    /// storage of the pieces and labels already there.
    pub fn set_pieces<'a>(&mut self, pieces: impl IntoIterator<Item = (usize, &'a str)>) {
        let mut n = 0;
        for (seat, label) in pieces {
            match self.pieces.get_mut(n) {
                Some(p) => {
                    p.seat = seat;
                    set_text(&mut p.label, label);
                }
                None => self.pieces.push(PieceView {
                    seat,
                    label: label.to_string(),
                }),
            }
            n += 1;
        }
        self.pieces.truncate(n);
    }
}

impl BoardView {
    /// A view filled by `fill` (a game's `view_into`) from empty.
    pub fn filled(fill: impl FnOnce(&mut BoardView)) -> BoardView {
        let mut v = BoardView::default();
        fill(&mut v);
        v
    }

    /// Makes this view one of `cells` cells and `notes` notes drawn as `shape`, keeping the
    /// storage of the cells and notes already there, for a game's `view_into` to overwrite
    /// each one with [`BoardView::cell`] and [`BoardView::note`].
    pub fn reshape(&mut self, shape: CellShape, cells: usize, notes: usize) {
        self.shape = shape;
        self.diagonals = false;
        self.cells.resize_with(cells, CellView::default);
        self.notes.resize_with(notes, String::new);
    }

    /// Cell `i` (below the count given to [`BoardView::reshape`]) placed at `col`, `row` with
    /// the mark `mark`; its name and pieces are still the old ones, to be overwritten (the name
    /// cleared and written into, [`CellView::set_pieces`]).
    pub fn cell(&mut self, i: usize, col: f32, row: f32, mark: &str) -> &mut CellView {
        let c = &mut self.cells[i];
        c.col = col;
        c.row = row;
        set_text(&mut c.mark, mark);
        c
    }

    /// Note `i` (below the count given to [`BoardView::reshape`]), emptied, to be written.
    pub fn note(&mut self, i: usize) -> &mut String {
        let n = &mut self.notes[i];
        n.clear();
        n
    }

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
