//! A text picture of any game's position for a terminal, drawn from the neutral
//! [`BoardView`]: the cell names on the left and what stands on each cell on the right, laid out
//! like the board (hex rows keep their half-cell offsets).

use crate::game::BoardView;

/// What stands on a cell: each piece bottom first as its seat digit (or its label when it has
/// one, after the seat: `0K`), `.` for an empty cell.
fn content(c: &crate::game::CellView) -> String {
    if c.pieces.is_empty() {
        return ".".into();
    }
    c.pieces
        .iter()
        .map(|p| format!("{}{}", p.seat, p.label))
        .collect::<Vec<_>>()
        .join("")
}

/// Lays out one text per cell at the cells' places, `width` characters per cell unit.
fn grid(view: &BoardView, texts: &[String], width: usize) -> Vec<String> {
    let half = |x: f32| (x * 2.0).round() as i64;
    let min_col = view.cells.iter().map(|c| half(c.col)).min().unwrap_or(0);
    let mut rows: Vec<(i64, Vec<(usize, &str)>)> = Vec::new();
    for (c, t) in view.cells.iter().zip(texts) {
        let r = half(c.row);
        let at = (half(c.col) - min_col) as usize * width / 2;
        match rows.iter_mut().find(|(rr, _)| *rr == r) {
            Some((_, cells)) => cells.push((at, t)),
            None => rows.push((r, vec![(at, t)])),
        }
    }
    rows.sort_by_key(|(r, _)| *r);
    rows.into_iter()
        .map(|(_, mut cells)| {
            cells.sort_by_key(|(at, _)| *at);
            let mut line = String::new();
            for (at, t) in cells {
                while line.chars().count() < at {
                    line.push(' ');
                }
                line.push_str(t);
            }
            line
        })
        .collect()
}

/// The position as lines of text: names and contents side by side, then the view's notes.
pub fn draw(view: &BoardView) -> String {
    let names: Vec<String> = view.cells.iter().map(|c| c.name.clone()).collect();
    let contents: Vec<String> = view.cells.iter().map(content).collect();
    let widest = names
        .iter()
        .chain(&contents)
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(1);
    // An even width keeps half-cell offsets on whole characters.
    let width = (widest + 1).next_multiple_of(2);
    let left = grid(view, &names, width);
    let right = grid(view, &contents, width);
    let pad = left.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 4;
    let mut out = String::new();
    for (l, r) in left.iter().zip(&right) {
        let line = format!("{l:<pad$}{r}");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for n in &view.notes {
        out.push_str(n);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{self, GAMES};

    #[test]
    fn every_cell_is_drawn_once_in_its_row() {
        for info in GAMES {
            let g = game::new_game(info.name, 1).unwrap();
            let view = g.view();
            let text = draw(&view);
            // Cells without a name (draughts' light squares) cannot be played on.
            for c in view.cells.iter().filter(|c| !c.name.is_empty()) {
                let line = text
                    .lines()
                    .find(|l| l.split_whitespace().any(|w| w == c.name))
                    .unwrap_or_else(|| panic!("{}: no line names {}\n{text}", info.name, c.name));
                // The contents side of that row holds the cell's content.
                assert!(
                    line.contains(&content(c)),
                    "{}: {}\n{text}",
                    info.name,
                    c.name
                );
            }
        }
    }

    #[test]
    fn stacks_and_labels_show_every_piece() {
        let g = game::new_game("moscow-ice", 1).unwrap();
        let text = draw(&g.view());
        assert!(text.contains("0S") && text.contains("1L"), "{text}");
        let g = game::new_game("impasse", 1).unwrap();
        let text = draw(&g.view());
        assert!(
            text.contains("00"),
            "Impasse's doubles are two pieces\n{text}"
        );
    }
}
