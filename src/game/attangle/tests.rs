//! Attangle rules checked on hand-built positions with their exact legal lists, and perft counts.

use super::*;
use crate::game::{perft, perft_by_text, perft_rules, Game};

/// A position as the referee plays it.
type AttangleGame = TextGame<Attangle>;

/// A position from the non-empty cells (`("d4", "bwb")`) and the rest of the text.
fn pos(stacks: &[(&str, &str)], rest: &str) -> AttangleGame {
    let mut board = [Stack::EMPTY; MAX_CELLS];
    for (cell, st) in stacks {
        board[HEX37.parse_cell(cell).unwrap() as usize] = Stack::parse(st, LETTERS).unwrap();
    }
    let mut text = String::new();
    HEX37.write_rows(&mut text, &board, LETTERS);
    text.push(' ');
    text.push_str(rest);
    let g = from_position_text(&HEX37, &text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(g.position_text(), text);
    TextGame::new(g)
}

fn captures(g: &AttangleGame) -> Vec<&str> {
    g.legal_moves()
        .iter()
        .map(String::as_str)
        .filter(|m| m.contains('-'))
        .collect()
}

fn stack(g: &AttangleGame, cell: &str) -> String {
    let mut s = String::new();
    g.board[HEX37.parse_cell(cell).unwrap() as usize].write(&mut s, LETTERS);
    s
}

#[test]
fn perft_from_the_start() {
    // Worked out by hand: 36 first placements (not d4), then 36 empty cells for Black, 35 and 34
    // for the next placements; nobody has two units before White's third turn, so no capture.
    let g = TextGame::new(Attangle::new(&HEX37));
    let expect = [36, 1_296, 45_360, 1_542_240];
    for (d, &n) in expect.iter().enumerate() {
        assert_eq!(perft(&g, d as u32 + 1), n, "depth {}", d + 1);
    }
}

#[test]
fn the_first_placement_avoids_the_centre_and_only_the_first() {
    let mut g = TextGame::new(Attangle::new(&HEX37));
    assert_eq!(g.legal_moves().len(), 36);
    assert!(!g.legal_moves().iter().any(|m| m == "d4"));
    g.play_text("a1").unwrap();
    assert_eq!(g.legal_moves().len(), 36);
    assert!(g.legal_moves().iter().any(|m| m == "d4"));
}

#[test]
fn two_singles_take_a_single_into_a_triple() {
    let mut g = pos(&[("d2", "w"), ("d6", "w"), ("d4", "b")], "w 10 10 0");
    assert_eq!(g.legal_moves().len(), 34 + 1);
    assert_eq!(captures(&g), ["d2,d6-d4"]);
    // The two units in either order name the same offered move; other texts name none.
    let offered = g.legal_moves().iter().position(|m| m == "d2,d6-d4");
    assert_eq!(g.index_of_move("d6,d2-d4"), offered);
    assert_eq!(g.index_of_move("d2,d6-d4"), offered);
    assert_eq!(g.index_of_move("d6,d2-d3"), None);
    assert_eq!(g.index_of_move("d6,d6-d4"), None);
    g.play_text("d2,d6-d4").unwrap();
    assert_eq!(stack(&g, "d4"), "bww");
    assert_eq!(stack(&g, "d2"), ".");
    assert_eq!(g.to_move(), 1);
    // Black cannot retake the triple: it has no units left.
    assert!(captures(&g).is_empty());
}

#[test]
fn lines_are_blocked_by_any_stack() {
    // d5 (Black) stands between d6 and d4; b2 reaches d4 through c3; d6 reaches d5 but alone.
    let g = pos(
        &[
            ("d2", "w"),
            ("d6", "w"),
            ("d4", "b"),
            ("d5", "b"),
            ("b2", "w"),
        ],
        "w 10 10 0",
    );
    assert_eq!(captures(&g), ["b2,d2-d4"]);
    // With c3 filled by a White piece, b2 is blocked too, and c3 itself is a unit.
    let g = pos(
        &[
            ("d2", "w"),
            ("d6", "w"),
            ("d4", "b"),
            ("d5", "b"),
            ("b2", "w"),
            ("c3", "w"),
        ],
        "w 10 10 0",
    );
    assert_eq!(captures(&g), ["c3,d2-d4"]);
}

#[test]
fn two_singles_take_a_triple_into_a_five() {
    // d1 along row d, g4 down the slant g4-f4-e4-d4.
    let mut g = pos(&[("d1", "w"), ("g4", "w"), ("d4", "bwb")], "w 10 10 0");
    assert_eq!(captures(&g), ["d1,g4-d4"]);
    g.play_text("d1,g4-d4").unwrap();
    assert_eq!(stack(&g, "d4"), "bwbww");
    assert_eq!(g.scores(), vec![1, 0]);
}

#[test]
fn a_single_and_a_triple_take_a_single_into_a_five() {
    let mut g = pos(&[("a1", "w"), ("d1", "wbw"), ("d4", "b")], "w 10 10 0");
    assert_eq!(captures(&g), ["a1,d1-d4"]);
    g.play_text("a1,d1-d4").unwrap();
    assert_eq!(stack(&g, "d4"), "bwwbw");
}

#[test]
fn no_four_no_seven_no_two_triples() {
    // A lone single next to a triple would make a 2:2 four: not a capture.
    let g = pos(&[("d3", "w"), ("d4", "bwb")], "w 10 10 0");
    assert!(captures(&g).is_empty());
    // A single and a triple on a triple would make seven.
    let g = pos(&[("a1", "w"), ("d1", "wbw"), ("d4", "bwb")], "w 10 10 0");
    assert!(captures(&g).is_empty());
    // Two triples are never the two units.
    let g = pos(&[("d1", "wbw"), ("g4", "wbw"), ("d4", "b")], "w 10 10 0");
    assert!(captures(&g).is_empty());
    // Five-stacks neither capture nor get captured.
    let g = pos(
        &[("d1", "w"), ("g4", "w"), ("d4", "bwbwb"), ("a1", "wbwbw")],
        "w 10 10 0",
    );
    assert!(captures(&g).is_empty());
}

#[test]
fn the_third_five_wins_at_once() {
    let mut g = pos(
        &[
            ("a1", "wbwbw"),
            ("a4", "wbwbw"),
            ("g1", "bwbwb"),
            ("d1", "w"),
            ("g4", "w"),
            ("d4", "bwb"),
        ],
        "w 5 5 0",
    );
    assert_eq!(g.scores(), vec![2, 1]);
    assert!(g.outcome().is_none());
    g.play_text("d1,g4-d4").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 0)));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.scores(), vec![3, 1]);
    // The won position reads back as won.
    let back = from_position_text(&HEX37, &g.position_text()).unwrap();
    assert_eq!(back.outcome(), Some(Outcome::winner(2, 0)));
}

#[test]
fn with_nothing_to_do_a_player_passes_and_two_passes_draw() {
    let mut g = pos(&[("d1", "w"), ("d7", "b")], "w 0 3 0");
    assert_eq!(g.legal_moves(), ["pass"]);
    g.play_text("pass").unwrap();
    // Black still has pieces: it must place (no pass offered).
    assert_eq!(g.legal_moves().len(), 35);
    g.play_text("d4").unwrap();
    assert_eq!(g.legal_moves(), ["pass"]);
    let text = "w,.,.,./.,.,.,.,./.,.,.,.,.,./w,.,.,.,.,.,b/.,.,.,.,.,./.,.,.,.,./.,.,.,. b 0 0 1";
    let mut g = TextGame::new(from_position_text(&HEX37, text).unwrap());
    assert_eq!(g.legal_moves(), ["pass"]);
    g.play_text("pass").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::draw(2)));
    assert_eq!(g.draw_rule(), Some(crate::game::DrawRule::TwoPasses));
    assert!(g.legal_moves().is_empty());
}

#[test]
fn bad_positions_are_rejected() {
    let rest = ".,.,.,.,./.,.,.,.,.,./.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,.,./.,.,.,.";
    assert!(from_position_text(&HEX37, &format!("w,.,.,./{rest} w 10 10 0")).is_ok());
    for bad in [
        format!("ww,.,.,./{rest} w 10 10 0"),
        format!("www,.,.,./{rest} w 10 10 0"),
        format!("wwwww,.,.,./{rest} w 10 10 0"),
        format!("wbwb,.,.,./{rest} w 10 10 0"),
        format!("w,.,.,./{rest} x 10 10 0"),
        format!("w,.,.,./{rest} w 50 10 0"),
        format!("w,.,.,./{rest} w 10 10"),
    ] {
        assert!(from_position_text(&HEX37, &bad).is_err(), "{bad}");
    }
}

#[test]
fn square_variant_perft_and_first_placement() {
    // 64 cells, the four central ones closed to the first placement: 60; then 63, 62 empty
    // cells and no capture yet (nobody has two units before White's third turn).
    let g = TextGame::new(Attangle::new(&SQUARE8));
    let expect = [60, 3_780, 234_360];
    for (d, &n) in expect.iter().enumerate() {
        assert_eq!(perft(&g, d as u32 + 1), n, "depth {}", d + 1);
    }
    for centre in ["d4", "d5", "e4", "e5"] {
        assert!(!g.legal_moves().iter().any(|m| m == centre));
    }
    assert!(g.legal_moves().iter().any(|m| m == "c4"));
    assert_eq!(g.variant(), "square");
}

#[test]
fn square_variant_captures_along_diagonals_and_needs_five_fives() {
    let mut board = [Stack::EMPTY; MAX_CELLS];
    for (cell, st) in [
        ("h1", "wbwbw"),
        ("h2", "wbwbw"),
        ("h3", "wbwbw"),
        ("h5", "wbwbw"),
        ("a1", "w"),
        ("g4", "w"),
        ("d4", "bwb"),
    ] {
        board[SQUARE8.parse_cell(cell).unwrap() as usize] = Stack::parse(st, LETTERS).unwrap();
    }
    let mut text = String::new();
    SQUARE8.write_rows(&mut text, &board, LETTERS);
    text.push_str(" w 10 10 0");
    let mut g = TextGame::new(from_position_text(&SQUARE8, &text).unwrap());
    assert_eq!(g.position_text(), text);
    // a1 comes up the diagonal a1-b2-c3, g4 along row 4.
    assert_eq!(captures(&g), ["a1,g4-d4"]);
    assert_eq!(g.scores(), vec![4, 0]);
    assert!(g.outcome().is_none());
    g.play_text("a1,g4-d4").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 0)));
    assert_eq!(g.scores(), vec![5, 0]);
}

#[test]
fn typed_and_text_perft_agree() {
    // A middle game with captures for both sides: White's d2, d6, e3 and a4 converge on Black's
    // d4 in several pairs, and Black's e1 and e5 on White's e3.
    let mut board = [Stack::EMPTY; MAX_CELLS];
    for (cell, st) in [
        ("d2", "w"),
        ("d6", "w"),
        ("d4", "b"),
        ("e3", "w"),
        ("e1", "b"),
        ("e5", "b"),
        ("c3", "bwb"),
        ("b2", "w"),
        ("a4", "w"),
    ] {
        board[HEX37.parse_cell(cell).unwrap() as usize] = Stack::parse(st, LETTERS).unwrap();
    }
    let mut text = String::new();
    HEX37.write_rows(&mut text, &board, LETTERS);
    text.push_str(" w 12 11 0");
    let middle = from_position_text(&HEX37, &text).unwrap();
    let g = TextGame::new(middle.clone());
    assert!(captures(&g).contains(&"d2,d6-d4"));
    let mut black = g.clone();
    black.play_text("g1").unwrap();
    assert!(captures(&black).contains(&"e1,e5-e3"));
    for (name, rules, depth) in [
        ("hex start", Attangle::new(&HEX37), 3),
        ("square start", Attangle::new(&SQUARE8), 3),
        ("middle game", middle, 3),
    ] {
        let g = TextGame::new(rules.clone());
        for d in 1..=depth {
            assert_eq!(
                perft_rules(&rules, d),
                perft_by_text(&g, d),
                "{name} perft({d})"
            );
        }
    }
}

#[test]
fn every_offered_text_names_its_own_move_in_random_games() {
    for (geo, seed) in [(&HEX37, 1), (&HEX37, 2), (&SQUARE8, 3)] {
        let mut rng = crate::rng::Rng::new(seed);
        let mut g = TextGame::new(Attangle::new(geo));
        for _ in 0..INFO.default_max_turns {
            if g.is_over() {
                break;
            }
            let texts = g.legal_moves().to_vec();
            assert_eq!(texts.len(), g.moves().len());
            for (i, t) in texts.iter().enumerate() {
                assert_eq!(g.index_of_move(t), Some(i), "{t} in\n{}", g.describe());
            }
            g.play(rng.below(texts.len()));
        }
    }
}
