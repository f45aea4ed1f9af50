//! The shared boards and stacks: geometry, text round trips, connection.

use super::*;
use crate::game::CellShape;

#[test]
fn stacks_split_and_join() {
    let mut s = Stack::of(0, 2);
    s.push(1);
    assert_eq!(
        (s.height(), s.count(0), s.count(1), s.top()),
        (3, 2, 1, Some(1))
    );
    let top = s.split_top(2);
    assert_eq!((top.count(0), top.count(1), top.seat_at(0)), (1, 1, 0));
    assert_eq!((s.height(), s.top()), (1, Some(0)));
    s.put(top);
    let mut t = String::new();
    s.write(&mut t, ['w', 'b']);
    assert_eq!(t, "wwb");
    assert_eq!(Stack::parse("wwb", ['w', 'b']), Ok(s));
    assert!(Stack::parse("wx", ['w', 'b']).is_err());
}

#[test]
fn the_hex_geometry_matches_the_hex_board() {
    let g = &HEX37;
    assert_eq!((g.cells, g.dirs, g.rows()), (37, 6, 7));
    let total: usize = (0..37).map(|c| g.neighbours(c).count()).sum();
    assert_eq!(total, 180);
    let d4 = g.parse_cell("d4").unwrap();
    assert_eq!(g.name(d4), "d4");
    let line: Vec<String> = g
        .ray(g.parse_cell("a1").unwrap(), 1)
        .map(|c| g.name(c))
        .collect();
    assert_eq!(line, ["b2", "c3", "d4", "e4", "f4", "g4"]);
    assert_eq!(g.shape, CellShape::Hex);
}

#[test]
fn square_boards_have_eight_directions() {
    let g = &SQUARE7;
    assert_eq!((g.cells, g.dirs, g.rows()), (49, 8, 7));
    let d4 = g.parse_cell("d4").unwrap();
    assert_eq!(d4, 24);
    let mut n: Vec<String> = g.neighbours(d4).map(|c| g.name(c)).collect();
    n.sort();
    assert_eq!(n, ["c3", "c4", "c5", "d3", "d5", "e3", "e4", "e5"]);
    assert_eq!(g.neighbours(0).count(), 3);
    assert_eq!(g.parse_cell("h1"), None);
    assert_eq!(g.parse_cell("a8"), None);
    let g = &SQUARE8;
    let line: Vec<String> = g.ray(0, 1).map(|c| g.name(c)).collect();
    assert_eq!(line, ["b2", "c3", "d4", "e5", "f6", "g7", "h8"]);
    assert_eq!(g.view_place(g.parse_cell("a1").unwrap()), (0.0, 7.0));
    for c in 0..64 {
        assert_eq!(g.parse_cell(&g.name(c)), Some(c));
    }
    // Adjacency is symmetric and opposite directions undo each other.
    for c in 0..64 {
        for d in 0..8 {
            if let Some(m) = g.step(c, d) {
                assert_eq!(g.step(m, (d + 4) % 8), Some(c));
            }
        }
    }
}

#[test]
fn rows_text_round_trips_and_connection() {
    let g = &HEX37;
    let mut board = [Stack::EMPTY; MAX_CELLS];
    board[0] = Stack::of(0, 3);
    board[18] = Stack::of(1, 1);
    let mut t = String::new();
    g.write_rows(&mut t, &board, ['w', 'b']);
    assert_eq!(
        t,
        "www,.,.,./.,.,.,.,./.,.,.,.,.,./.,.,.,b,.,.,./.,.,.,.,.,./.,.,.,.,./.,.,.,."
    );
    assert_eq!(g.parse_rows(&t, ['w', 'b']), Ok(board));
    assert!(g.parse_rows("www", ['w', 'b']).is_err());
    assert!(!g.connected(occupied(&board)));
    let set = [0u8, 5, 11, 18].iter().fold(0u64, |m, &c| m | 1 << c); // a1 b2 c3 d4
    assert!(g.connected(set));
    // On the square board diagonal neighbours connect.
    let sq = &SQUARE7;
    let set = [0u8, 8, 16].iter().fold(0u64, |m, &c| m | 1 << c); // a1 b2 c3
    assert!(sq.connected(set));
    let mut lines = String::new();
    sq.write_board_lines(&mut lines, &board, ['w', 'b']);
    assert_eq!(lines.lines().count(), 7);
    assert_eq!(lines.lines().last(), Some("1 www . . . . . ."));
}

#[test]
fn neighbour_masks_match_the_neighbour_lists() {
    for g in [&HEX37, &SQUARE7, &SQUARE8] {
        for c in 0..g.cells as Cell {
            let listed = g.neighbours(c).fold(0u64, |m, n| m | 1 << n);
            assert_eq!(g.neighbour_mask(c), listed, "cell {}", g.name(c));
        }
        // The cells touching a1 and the cell beside it: both of them and their neighbours.
        let (a, b) = (0, g.step(0, 0).unwrap());
        assert_eq!(
            g.touching(1 << a | 1 << b),
            g.neighbour_mask(a) | g.neighbour_mask(b)
        );
        assert_eq!(g.touching(0), 0);
    }
    // A ring of six around d4 is connected; without two opposite cells it falls in two.
    let g = &HEX37;
    let d4 = g.parse_cell("d4").unwrap();
    let ring = g.neighbour_mask(d4);
    assert!(g.connected(ring));
    let (e, w) = (g.step(d4, 0).unwrap(), g.step(d4, 3).unwrap());
    assert!(!g.connected(ring & !(1 << e) & !(1 << w)));
    assert!(g.connected(ring | 1 << d4));
}
