//! The six-sided 37-cell board Dieter Stein's stacking games (Accasta, Abande, Attangle) share,
//! written once: cell names, neighbours, straight lines and placement for the viewer. The stacks
//! and the printing every game shares are in [`super::stackboard`], which also offers the square
//! boards of the variants.
//!
//! Rows `a` (the first seat's side, drawn at the bottom) to `g` hold 4, 5, 6, 7, 6, 5, 4 cells,
//! numbered from 1 left to right; `d4` is the centre. Cells are indexed 0..37 row by row (`a1` is
//! 0, `g4` is 36). Internally a cell sits at row `r` (0 for `a`) and doubled column
//! `x = |r - 3| + 2 * (number - 1)`, so that the six neighbours are the cells at `(r, x ± 2)` and
//! `(r ± 1, x ± 1)` and a straight line repeats one of those steps.

/// A cell index, 0..[`CELLS`], row by row from `a1`.
pub type Cell = u8;

/// Number of cells.
pub const CELLS: usize = 37;
/// Number of rows (`a` to `g`).
pub const ROWS: usize = 7;
/// Cells in each row, `a` first.
pub const ROW_LEN: [usize; ROWS] = [4, 5, 6, 7, 6, 5, 4];
/// Index of each row's first cell.
pub const ROW_START: [usize; ROWS] = [0, 4, 9, 15, 22, 28, 33];

/// The six directions as (row step, doubled-column step): east, north-east, north-west, west,
/// south-west, south-east ("north" is towards row `g`). Direction `d` and `(d + 3) % 6` are
/// opposite.
pub const DIRS: [(i32, i32); 6] = [(0, 2), (1, 1), (1, -1), (0, -2), (-1, -1), (-1, 1)];

const NO: u8 = u8::MAX;

/// The row (0 for `a`) of a cell.
pub const fn row_of(c: Cell) -> usize {
    let mut r = 0;
    while r + 1 < ROWS && ROW_START[r + 1] <= c as usize {
        r += 1;
    }
    r
}

/// The cell's number within its row, from 0.
pub const fn index_in_row(c: Cell) -> usize {
    c as usize - ROW_START[row_of(c)]
}

/// The doubled column of a cell (see the module doc).
pub const fn x_of(c: Cell) -> i32 {
    let r = row_of(c) as i32;
    let off = if r > 3 { r - 3 } else { 3 - r };
    off + 2 * index_in_row(c) as i32
}

/// The cell at row `r` and doubled column `x`, if there is one.
pub const fn cell_at(r: i32, x: i32) -> Option<Cell> {
    if r < 0 || r >= ROWS as i32 {
        return None;
    }
    let off = if r > 3 { r - 3 } else { 3 - r };
    let d = x - off;
    if d < 0 || d % 2 != 0 || d / 2 >= ROW_LEN[r as usize] as i32 {
        return None;
    }
    Some((ROW_START[r as usize] as i32 + d / 2) as Cell)
}

/// The neighbour table: `[cell][direction]`, `u8::MAX` off the board.
pub const fn build_neighbours() -> [[u8; 6]; CELLS] {
    let mut t = [[NO; 6]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let r = row_of(c as Cell) as i32;
        let x = x_of(c as Cell);
        let mut d = 0;
        while d < 6 {
            if let Some(n) = cell_at(r + DIRS[d].0, x + DIRS[d].1) {
                t[c][d] = n;
            }
            d += 1;
        }
        c += 1;
    }
    t
}

static NEIGHBOURS: [[u8; 6]; CELLS] = build_neighbours();

/// The cell one step from `c` in direction `d` (0..6), if it is on the board.
#[inline]
pub fn step(c: Cell, d: usize) -> Option<Cell> {
    let n = NEIGHBOURS[c as usize][d];
    (n != NO).then_some(n)
}

/// The cells next to `c` (three to six of them).
pub fn neighbours(c: Cell) -> impl Iterator<Item = Cell> {
    NEIGHBOURS[c as usize].into_iter().filter(|&n| n != NO)
}

/// The cells beyond `c` in direction `d`, nearest first, up to the edge.
pub fn ray(c: Cell, d: usize) -> impl Iterator<Item = Cell> {
    let mut at = c;
    std::iter::from_fn(move || {
        let n = step(at, d)?;
        at = n;
        Some(n)
    })
}

/// The cell in the same place seen from the other side (row `a` <-> `g`, same number).
pub fn mirror(c: Cell) -> Cell {
    let r = row_of(c);
    (ROW_START[ROWS - 1 - r] + index_in_row(c)) as Cell
}

/// Appends the cell's name (`d4`).
pub fn write_name(out: &mut String, c: Cell) {
    out.push((b'a' + row_of(c) as u8) as char);
    out.push((b'1' + index_in_row(c) as u8) as char);
}

/// The cell's name (`d4`).
pub fn name(c: Cell) -> String {
    let mut s = String::with_capacity(2);
    write_name(&mut s, c);
    s
}

/// The cell called `s` (`a1` to `g4`).
pub fn parse_cell(s: &str) -> Option<Cell> {
    let b = s.as_bytes();
    if b.len() != 2 || !(b'a'..=b'g').contains(&b[0]) || !(b'1'..=b'7').contains(&b[1]) {
        return None;
    }
    let r = (b[0] - b'a') as usize;
    let i = (b[1] - b'1') as usize;
    (i < ROW_LEN[r]).then(|| (ROW_START[r] + i) as Cell)
}

/// Where the viewer draws the cell: column in cell widths (half-cell offsets between rows), row 0
/// at the top (row `g`).
pub fn view_place(c: Cell) -> (f32, f32) {
    (x_of(c) as f32 / 2.0, (ROWS - 1 - row_of(c)) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_rows_have_the_right_sizes() {
        let names: Vec<String> = (0..CELLS as Cell).map(name).collect();
        assert_eq!(names[0], "a1");
        assert_eq!(names[18], "d4");
        assert_eq!(names[36], "g4");
        for c in 0..CELLS as Cell {
            assert_eq!(parse_cell(&name(c)), Some(c));
        }
        assert_eq!(parse_cell("a5"), None);
        assert_eq!(parse_cell("d8"), None);
        assert_eq!(parse_cell("h1"), None);
        assert_eq!(parse_cell("d"), None);
        assert_eq!(ROW_LEN.iter().sum::<usize>(), CELLS);
    }

    #[test]
    fn neighbours_and_lines() {
        let d4 = parse_cell("d4").unwrap();
        assert_eq!(neighbours(d4).count(), 6);
        let mut n: Vec<String> = neighbours(d4).map(name).collect();
        n.sort();
        assert_eq!(n, ["c3", "c4", "d3", "d5", "e3", "e4"]);
        for corner in ["a1", "a4", "d1", "d7", "g1", "g4"] {
            assert_eq!(
                neighbours(parse_cell(corner).unwrap()).count(),
                3,
                "{corner}"
            );
        }
        // 90 adjacent pairs on a hexagon of side 4, each seen from both ends.
        let total: usize = (0..CELLS as Cell).map(|c| neighbours(c).count()).sum();
        assert_eq!(total, 180);
        // Adjacency is symmetric and opposite directions undo each other.
        for c in 0..CELLS as Cell {
            for d in 0..6 {
                if let Some(m) = step(c, d) {
                    assert_eq!(step(m, (d + 3) % 6), Some(c));
                }
            }
        }
        // The left edge is a straight line a1-b1-c1-d1, and so is the long row d.
        let a1 = parse_cell("a1").unwrap();
        let line: Vec<String> = ray(a1, 2).map(name).collect();
        assert_eq!(line, ["b1", "c1", "d1"]);
        let line: Vec<String> = ray(parse_cell("d1").unwrap(), 0).map(name).collect();
        assert_eq!(line, ["d2", "d3", "d4", "d5", "d6", "d7"]);
        let line: Vec<String> = ray(a1, 1).map(name).collect();
        assert_eq!(line, ["b2", "c3", "d4", "e4", "f4", "g4"]);
        assert_eq!(name(mirror(parse_cell("b2").unwrap())), "f2");
    }

    #[test]
    fn view_places_rows_from_the_top_with_half_cell_offsets() {
        let at = |n: &str| view_place(parse_cell(n).unwrap());
        assert_eq!(at("g1"), (1.5, 0.0));
        assert_eq!(at("d1"), (0.0, 3.0));
        assert_eq!(at("d4"), (3.0, 3.0));
        assert_eq!(at("a1"), (1.5, 6.0));
        assert_eq!(at("a4"), (4.5, 6.0));
        assert_eq!(at("b1"), (1.0, 5.0));
    }
}
