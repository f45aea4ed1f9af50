//! Abande rules checked on hand-built positions with their exact legal lists, and perft counts.

use super::*;
use crate::game::{perft, perft_by_text, perft_rules, Game};

/// A position as the referee plays it.
type Play = TextGame<Abande>;

/// A position from rows given as (row letter, cells) for the non-empty rows.
fn pos(rows: &[(char, &str)], rest: &str) -> Play {
    let mut all = [
        ".,.,.,.",
        ".,.,.,.,.",
        ".,.,.,.,.,.",
        ".,.,.,.,.,.,.",
        ".,.,.,.,.,.",
        ".,.,.,.,.",
        ".,.,.,.",
    ]
    .map(String::from);
    for (r, cells) in rows {
        all[(*r as u8 - b'a') as usize] = cells.to_string();
    }
    let text = format!("{} {rest}", all.join("/"));
    let g = from_position_text(&HEX37, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(g.position_text(), text);
    TextGame::new(g)
}

fn moves(g: &Play) -> Vec<&str> {
    g.legal_moves().iter().map(String::as_str).collect()
}

#[test]
fn perft_from_the_start() {
    let g = TextGame::new(Abande::new(&HEX37));
    // Depth 1: the initiative turn goes on any of the 37 cells. Depth 2: White must touch it, so
    // the sum of the cells' neighbour counts (2 x 90 adjacent pairs). Depths 3 and 4 agree with
    // an independent brute force written in cube coordinates while writing these tests.
    let expect = [37, 180, 1_176, 10_482];
    for (d, &n) in expect.iter().enumerate() {
        assert_eq!(perft(&g, d as u32 + 1), n, "depth {}", d + 1);
    }
}

#[test]
fn the_start_offers_every_cell() {
    let g = TextGame::new(Abande::new(&HEX37));
    assert_eq!(g.legal_moves().len(), 37);
    assert_eq!(g.legal_moves()[0], "a1");
    assert_eq!(g.legal_moves()[36], "g4");
    assert_eq!(
        g.position_text(),
        ".,.,.,./.,.,.,.,./.,.,.,.,.,./.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,.,./.,.,.,. b 18 18 0"
    );
}

#[test]
fn moves_wait_for_blacks_second_piece() {
    let mut g = TextGame::new(Abande::new(&HEX37));
    g.play_text("d4").unwrap();
    // White's answer must touch d4 and cannot capture (nothing of White's is on the board).
    assert_eq!(moves(&g), ["c3", "c4", "d3", "d5", "e3", "e4"]);
    g.play_text("d5").unwrap();
    // Black may not take d5 yet: only placements next to d4 or d5.
    assert_eq!(moves(&g), ["c3", "c4", "c5", "d3", "d6", "e3", "e4", "e5"]);
    g.play_text("e4").unwrap();
    // Black has placed two pieces: White may now capture either neighbour.
    let m = moves(&g);
    assert_eq!(
        m,
        ["c3", "c4", "c5", "d3", "d6", "e3", "e5", "f3", "f4", "d5-e4", "d5-d4"]
    );
}

#[test]
fn a_move_that_splits_the_group_is_illegal() {
    // d1 b, d2 w, d3 b, d4 w: Black's d3 holds the line together, so it cannot capture either
    // neighbour; d1 may capture d2 (the rest stays connected).
    let g = pos(&[('d', "b,w,b,w,.,.,.")], "b 16 16 0");
    assert_eq!(
        moves(&g),
        ["c1", "c2", "c3", "c4", "d5", "e1", "e2", "e3", "e4", "d1-d2"]
    );
}

#[test]
fn stacks_stop_at_three() {
    // The Black double on d2 cannot capture the White double on c2 (four high); it can take the
    // White single on d3 (three high), and c2 still touches d3 afterwards.
    let g = pos(&[('c', ".,ww,.,.,.,."), ('d', ".,bb,w,.,.,.,.")], "b 0 0 0");
    assert_eq!(moves(&g), ["d2-d3", "pass"]);
}

#[test]
fn sleeping_stacks_score_nothing_and_the_majority_of_points_wins() {
    // Tops: d1 b (touches only Black: asleep), d2 b, d3 ww, d4 wb, d5 bbw.
    let mut g = pos(&[('d', "b,b,ww,wb,bbw,.,.")], "b 0 0 1");
    // d2 onto d3 would strand d1; d4 and d5 are too tall to move; nothing in hand: only a pass.
    assert_eq!(moves(&g), ["pass"]);
    // Black: d2 1 + d4 2 (d1 asleep); White: d3 2 + d5 3.
    assert_eq!(g.points(), [3, 5]);
    g.play_text("pass").unwrap();
    assert_eq!(g.outcome(), Some(Outcome { ranks: vec![1, 0] }));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.scores(), vec![3, 5]);
}

#[test]
fn equal_points_after_two_passes_is_a_draw() {
    let mut g = pos(&[('d', "b,w,.,.,.,.,.")], "b 0 0 1");
    assert_eq!(moves(&g), ["d1-d2", "pass"]);
    g.play_text("pass").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::draw(2)));
    assert_eq!(g.draw_rule(), Some(crate::game::DrawRule::EqualPoints));
    assert_eq!(g.scores(), vec![1, 1]);
}

#[test]
fn a_pass_needs_an_empty_hand_and_does_not_end_the_game_alone() {
    let mut g = pos(&[('d', "b,w,.,.,.,.,.")], "w 0 1 0");
    // White has a piece in hand: no pass.
    assert!(!moves(&g).contains(&"pass"));
    g.play_text("d3").unwrap();
    assert_eq!(moves(&g), ["d1-d2", "pass"]);
    g.play_text("pass").unwrap();
    assert!(g.outcome().is_none());
    // White's d2 cannot take d1 (d3 would be cut off) and d3 touches no Black top: only a pass,
    // which ends the game. d3 is asleep: one point each.
    assert_eq!(moves(&g), ["pass"]);
    g.play_text("pass").unwrap();
    assert_eq!(g.scores(), vec![1, 1]);
    assert_eq!(g.outcome(), Some(Outcome::draw(2)));
    assert_eq!(g.draw_rule(), Some(crate::game::DrawRule::EqualPoints));
}

#[test]
fn bad_positions_are_rejected() {
    let empty = ".,.,.,./.,.,.,.,./.,.,.,.,.,./.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,.,./.,.,.,.";
    assert!(from_position_text(&HEX37, &format!("{empty} x 18 18 0")).is_err());
    assert!(from_position_text(&HEX37, &format!("{empty} b 19 18 0")).is_err());
    assert!(from_position_text(&HEX37, &format!("{empty} b 18 18 3")).is_err());
    assert!(from_position_text(&HEX37, &format!("{empty} b 18 18")).is_err());
    let split = "b,.,.,./.,.,.,.,./.,.,.,.,.,./.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,.,./.,.,.,w";
    assert!(from_position_text(&HEX37, &format!("{split} b 17 17 0")).is_err());
}

#[test]
fn square_variant_perft() {
    // 49 intersections; White must touch Black's piece: the sum of the eight-neighbour counts
    // (4 corners x 3 + 20 edge points x 5 + 25 inner points x 8 = 312). Depths 3 and 4 agree
    // with the same separate brute force.
    let g = TextGame::new(Abande::new(&SQUARE7));
    let expect = [49, 312, 2_784, 33_752];
    for (d, &n) in expect.iter().enumerate() {
        assert_eq!(perft(&g, d as u32 + 1), n, "depth {}", d + 1);
    }
    assert_eq!(g.variant(), "square");
    assert_eq!(g.view().cells.len(), 49);
    // The viewer draws the diagonal lines along which stones connect.
    assert!(g.view().diagonals);
}

#[test]
fn square_variant_connects_along_diagonals() {
    // a1 b, b2 w, c3 b: a diagonal chain. Both Black pieces may take b2, and the rest stays
    // connected through the diagonals; placements touch any of the three, diagonals included.
    let text = "b,.,.,.,.,.,./.,w,.,.,.,.,./.,.,b,.,.,.,./.,.,.,.,.,.,./.,.,.,.,.,.,./.,.,.,.,.,.,./.,.,.,.,.,.,. b 16 17 0";
    let g = TextGame::new(from_position_text(&SQUARE7, text).unwrap());
    assert_eq!(g.position_text(), text);
    assert_eq!(
        moves(&g),
        ["b1", "c1", "a2", "c2", "d2", "a3", "b3", "d3", "b4", "c4", "d4", "a1-b2", "c3-b2"]
    );
}

/// Typed moves (no text written) and the text interface (every move played by index on a search
/// copy) count the same, from both starts and from a hand-built position with mixed stacks,
/// captures and nearly empty hands, where passes and the end by two passes come within five
/// plies. The hand-built counts are the ones the code before typed moves gave
/// (`perft --position`).
#[test]
fn typed_and_text_perft_agree() {
    for geo in [&HEX37, &SQUARE7] {
        let start = Abande::new(geo);
        let g = TextGame::new(start.clone());
        for d in 1..=3 {
            assert_eq!(
                perft_rules(&start, d),
                perft_by_text(&g, d),
                "{} cells, depth {d}",
                geo.cells
            );
        }
    }
    let g = pos(
        &[
            ('c', ".,.,b,w,.,."),
            ('d', ".,.,bw,wb,b,.,."),
            ('e', ".,.,w,b,.,."),
        ],
        "b 2 1 0",
    );
    for (d, n) in [(1, 18), (2, 326), (3, 6_199), (4, 54_904), (5, 505_574)] {
        assert_eq!(perft_rules(g.rules(), d), n, "hand-built, depth {d}");
        assert_eq!(perft_by_text(&g, d), n, "hand-built by text, depth {d}");
    }
}
