//! Impasse rules checked against perft counts of the arena's referee and hand-built positions,
//! one per crown and bear-off case of the spec.

use super::*;
use crate::game::{perft, perft_by_text, perft_rules, Game};
use crate::rng::Rng;
use proptest::prelude::*;

/// A position as the referee plays it.
type Arena = TextGame<Impasse>;

/// The start position as the referee plays it.
fn start() -> Arena {
    TextGame::new(Impasse::new())
}

/// A position from rows written top (row 8) to bottom, with `to_move` to play.
fn pos(rows: [&str; 8], to_move: usize) -> Arena {
    TextGame::new(Impasse::from_rows(&rows, to_move).expect("valid test position"))
}

fn moves(g: &Arena) -> Vec<&str> {
    g.legal_moves().iter().map(String::as_str).collect()
}

fn rows_of(g: &Arena) -> Vec<String> {
    g.describe().lines().take(8).map(str::to_string).collect()
}

#[test]
fn perft_from_start() {
    let g = start();
    let expected = [22, 492, 9692, 193_139];
    for (depth, &n) in (1..).zip(expected.iter()) {
        assert_eq!(perft(&g, depth), n, "perft({depth})");
    }
}

#[test]
fn first_turn_moves_and_input() {
    let g = start();
    let expected = [
        "c7a5", "c7b6", "c7d6", "c7e5", "c7f4", "c7g3", "d2a5", "d2b4", "d2c3", "d2e3", "d2f4",
        "d2g5", "d2h6", "g7c3", "g7d4", "g7e5", "g7f6", "g7h6", "h2d6", "h2e5", "h2f4", "h2g3",
    ];
    assert_eq!(moves(&g), expected);
    let mut input = String::new();
    g.write_turn_input(true, &mut input);
    let mut want = String::from(
        "w\n.W.b.W.b\nb.W.b.W.\n........\n........\n........\n........\n.B.w.B.w\nw.B.w.B.\nnull\n22\n",
    );
    for m in expected {
        want.push_str(m);
        want.push('\n');
    }
    assert_eq!(input, want);
    assert_eq!(
        (g.to_move(), g.scores(), g.outcome()),
        (0, vec![0, 0], None)
    );
    assert_eq!(g.info().default_max_turns, 250);
}

#[test]
fn later_turn_input_has_no_colour_line_and_echoes_last_move() {
    let mut g = start();
    g.play_text("d2c3").unwrap();
    let mut input = String::new();
    g.write_turn_input(false, &mut input);
    let lines: Vec<&str> = input.lines().collect();
    assert_eq!(lines[0], ".W.b.W.b");
    assert_eq!(lines[5], "..w.....");
    assert_eq!(lines[6], ".B...B.w");
    assert_eq!(lines[8], "d2c3");
    assert_eq!(lines[9].parse::<usize>().unwrap(), lines.len() - 10);
    assert_eq!(&lines[10..], moves(&g).as_slice());
    let mut black_first = String::new();
    g.write_turn_input(true, &mut black_first);
    assert!(black_first.starts_with("b\n.W.b.W.b\n"));
    assert!(input.ends_with('\n'));
}

#[test]
fn slide_to_a_non_furthest_row_is_never_a_crown_source() {
    // White: a lone single on a8, a single on c3 and a double on f6.
    let g = pos(
        [
            "w.......", "........", ".....W..", "........", "........", "..w.....", "........",
            ".......b",
        ],
        0,
    );
    let m = moves(&g);
    // The c3 single ends beside a8's single but is not offered as a crown source this turn.
    assert!(m.contains(&"c3d4"));
    assert!(
        m.iter().all(|t| !t.starts_with("c3") || t.len() == 4),
        "{m:?}"
    );
    // A double slide leaves c3 a single, and it must crown a8.
    assert!(m.contains(&"f6g5c3"));
    assert!(!m.contains(&"f6g5"));
    let mut after = g.clone();
    after.play_text("c3d4").unwrap();
    assert_eq!(rows_of(&after)[0], "w.......");
    assert_eq!(rows_of(&after)[4], "...w....");
}

#[test]
fn lone_single_reaching_the_furthest_row_stays_uncrowned() {
    let g = pos(
        [
            "........", ".w......", "........", "........", "....W...", "........", "........",
            ".......b",
        ],
        0,
    );
    let m = moves(&g);
    assert!(m.contains(&"b7a8") && m.contains(&"b7c8"), "{m:?}");
    let mut after = g.clone();
    after.play_text("b7a8").unwrap();
    assert_eq!(rows_of(&after)[0], "w.......");
    assert_eq!(after.to_move(), 1);
}

#[test]
fn impasse_removing_a_double_top_crowns_from_that_square() {
    // White: a8 single, a3 double blocked by Black's b2: no basic move.
    let g = pos(
        [
            "w.......", "........", "........", "........", "........", "W.......", ".b......",
            "........",
        ],
        0,
    );
    assert_eq!(moves(&g), ["a3a3", "a8"]);
    let mut after = g.clone();
    after.play_text("a3a3").unwrap();
    assert_eq!(rows_of(&after)[0], "W.......");
    assert_eq!(rows_of(&after)[5], "........");
    assert_eq!(after.score(0), 12 - 2);
    let mut single = g.clone();
    single.play_text("a8").unwrap();
    assert_eq!(rows_of(&single)[0], "........");
    assert_eq!(single.score(0), 12 - 2);
}

#[test]
fn impasse_without_crown() {
    // White: only a double on a3, blocked; Black: b2 single.
    let g = pos(
        [
            "........", "........", "........", "........", "........", "W.......", ".b......",
            "........",
        ],
        0,
    );
    assert_eq!(moves(&g), ["a3"]);
    let mut after = g.clone();
    after.play_text("a3").unwrap();
    assert_eq!(rows_of(&after)[5], "w.......");
    assert_eq!(after.score(0), 11);
    assert_eq!(after.to_move(), 1);
}

#[test]
fn two_singles_on_the_furthest_row_list_duplicate_texts_and_play_the_first() {
    // White singles a8, c8 (reading order puts a8 first), e3; a double on f5.
    let g = pos(
        [
            "w.w.....", "........", "........", ".....W..", "........", "....w...", "........",
            ".......b",
        ],
        0,
    );
    let m = moves(&g);
    let dups: Vec<usize> = (0..m.len()).filter(|&i| m[i] == "f5g4e3").collect();
    assert_eq!(dups.len(), 2, "{m:?}");
    assert_eq!(dups[1], dups[0] + 1);
    assert!(m.contains(&"f5g4a8") && m.contains(&"f5g4c8"));
    assert_eq!(g.index_of_move("f5g4e3"), Some(dups[0]));
    // The first one crowns a8 (first in the singles list), the second c8.
    let mut first = g.clone();
    first.play(dups[0]);
    assert_eq!(rows_of(&first)[0], "W.w.....");
    let mut second = g.clone();
    second.play(dups[1]);
    assert_eq!(rows_of(&second)[0], "w.W.....");
    assert_eq!(rows_of(&second)[5], "........");
}

#[test]
fn transpose_onto_the_nearest_row_bears_off() {
    let g = pos(
        [
            "........", "b.......", "........", "........", "........", "........", "..W.....",
            ".w......",
        ],
        0,
    );
    let mut after = g.clone();
    after.play_text("c2b1").unwrap();
    assert_eq!(rows_of(&after)[6], "..w.....");
    assert_eq!(rows_of(&after)[7], ".w......");
    assert_eq!(after.score(0), 12 - 2);
    assert_eq!(after.checkers(0).count(), 2);
}

#[test]
fn bear_off_then_crown_in_the_same_turn() {
    // White: lone single a8 and a double on d3 that can slide onto row 1.
    let g = pos(
        [
            "w.......", "........", "........", "........", "........", "...W....", "........",
            ".......b",
        ],
        0,
    );
    let m = moves(&g);
    assert!(
        m.contains(&"d3c2") && m.contains(&"d3b1b1") && m.contains(&"d3f1f1"),
        "{m:?}"
    );
    assert!(!m.contains(&"d3b1"));
    let mut after = g.clone();
    after.play_text("d3b1b1").unwrap();
    assert_eq!(rows_of(&after)[0], "W.......");
    assert_eq!(rows_of(&after)[7], ".......b");
    assert_eq!(after.score(0), 10);

    // A transpose that bears off keeps its target a single and adds the origin as one.
    let t = pos(
        [
            "w.......", "........", "........", "........", "........", "........", "..W.....",
            ".w.....b",
        ],
        0,
    );
    let m = moves(&t);
    assert!(m.contains(&"c2b1b1") && m.contains(&"c2b1c2"), "{m:?}");
    let mut after = t.clone();
    after.play_text("c2b1c2").unwrap();
    assert_eq!(rows_of(&after)[0], "W.......");
    assert_eq!(rows_of(&after)[6], "........");
    assert_eq!(rows_of(&after)[7], ".w.....b");
}

#[test]
fn score_reaching_twelve_wins() {
    // White has one checker left, a single on h8 that cannot move.
    let mut g = pos(
        [
            ".......w", "........", "........", "........", "........", "........", "........",
            "b.......",
        ],
        0,
    );
    assert_eq!(g.score(0), 11);
    assert_eq!(moves(&g), ["h8"]);
    g.play_text("h8").unwrap();
    assert_eq!(g.winner(), Some(0));
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 0)));
    assert_eq!(g.scores(), vec![12, 11]);
    assert!(g.legal_moves().is_empty());
    assert_eq!(perft(&g, 1), 0);
}

#[test]
fn from_rows_round_trips_the_board_and_rejects_garbage() {
    let start = start();
    let mut input = String::new();
    start.write_turn_input(false, &mut input);
    let rows: Vec<&str> = input.lines().take(8).collect();
    let rebuilt = TextGame::new(Impasse::from_rows(&rows, 0).unwrap());
    assert_eq!(moves(&rebuilt), moves(&start));
    assert_eq!(rebuilt.scores(), vec![0, 0]);
    assert!(Impasse::from_rows(&rows[..7], 0).is_err());
    let mut bad = rows.clone();
    bad[3] = "...x....";
    assert!(Impasse::from_rows(&bad, 0).is_err());
    bad[3] = "WWWWWWWW";
    assert!(Impasse::from_rows(&bad, 0).is_err());
    assert_eq!(parse_square("c7"), Some(6 * 8 + 2));
    assert_eq!(parse_square("i1"), None);
    assert_eq!(rows_from_nearest(1, parse_square("a1").unwrap()), 7);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_playouts_keep_the_invariants(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let mut g = start();
        let mut plies = 0;
        while g.outcome().is_none() {
            let m = g.legal_moves();
            prop_assert!(!m.is_empty());
            prop_assert!(m.windows(2).all(|w| w[0] <= w[1]), "unsorted: {:?}", m);
            for seat in 0..2 {
                let on_board: i32 = g.checkers(seat).map(|c| 1 + i32::from(c.double)).sum();
                prop_assert_eq!(12 - g.score(seat), on_board);
            }
            // The board and the arena's lists agree: rebuilding from the board offers the same.
            let rows = rows_of(&g);
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            let rebuilt = TextGame::new(Impasse::from_rows(&rows, g.to_move()).unwrap());
            prop_assert_eq!(rebuilt.legal_moves(), m);
            prop_assert_eq!(rebuilt.scores(), g.scores());
            g.play(rng.below(m.len()));
            plies += 1;
            prop_assert!(plies < 2000, "game did not end");
        }
        let w = g.winner().unwrap();
        prop_assert_eq!(g.score(w), 12);
        prop_assert!(g.checkers(w).next().is_none());
    }
}

#[test]
fn a_position_with_a_side_without_checkers_is_refused_with_the_reason() {
    let info = crate::game::registry::find("impasse").unwrap();
    let setup = crate::game::Setup {
        seats: 2,
        variant: "arena",
        seed: 0,
    };
    let empty = "......../......../......../......../......../......../......../........ w";
    let err = info.position(&setup, empty).unwrap_err().to_string();
    assert!(err.contains("the board is empty"), "{err}");
    let no_black = "......../......../......../......../......../......../.......w/........ b";
    let err = info.position(&setup, no_black).unwrap_err().to_string();
    assert!(err.contains("Black has no checkers"), "{err}");
    // Both sides present, Black to move: accepted, and Black moves first.
    let on = "......../......../......../......../......../......../.B.....w/........ b";
    assert_eq!(info.position(&setup, on).unwrap().to_move(), 1);
}

#[test]
fn typed_perft_equals_perft_through_the_texts() {
    // From the start, and from a position with duplicate texts, crowns, bear-offs and impasses
    // within a few plies (White a8 c8 e3 singles and an f5 double; Black at an impasse soon).
    let busy = Impasse::from_rows(
        &[
            "w.w.....", "........", "...b....", ".....W..", "........", "....w...", "..B.....",
            ".......b",
        ],
        0,
    )
    .unwrap();
    for (rules, depths) in [(Impasse::new(), 1..=4), (busy, 1..=4)] {
        let g = TextGame::new(rules.clone());
        for d in depths {
            assert_eq!(perft_rules(&rules, d), perft_by_text(&g, d), "depth {d}");
            assert_eq!(perft(&g, d), perft_by_text(&g, d), "depth {d}");
        }
    }
}

#[test]
fn the_last_move_line_is_the_move_played_before_also_after_an_opening() {
    let info = crate::game::registry::find("impasse").unwrap();
    let setup = crate::game::Setup {
        seats: 2,
        variant: "arena",
        seed: 0,
    };
    let last_line = |g: &dyn Game, first: bool| {
        let mut input = String::new();
        g.write_turn_input(first, &mut input);
        let skip = usize::from(first) + 8;
        input.lines().nth(skip).unwrap().to_string()
    };
    let mut g = info.start(&setup);
    assert_eq!(last_line(g.as_ref(), true), "null");
    // An opening played by the referee, then copied for the game (as openings are).
    let mut rng = Rng::new(7);
    let mut played = String::new();
    for _ in 0..5 {
        let i = rng.below(g.legal_moves().len());
        played = g.legal_moves()[i].clone();
        g.play(i);
    }
    let copy = g.box_clone();
    assert_eq!(last_line(copy.as_ref(), true), played);
    // Every later turn echoes the move just played, to the end of a random game.
    while !g.is_over() {
        assert_eq!(last_line(g.as_ref(), false), played);
        let i = rng.below(g.legal_moves().len());
        played = g.legal_moves()[i].clone();
        g.play(i);
    }
    // A position given as text has no move before it.
    let from_text = info.position(&setup, &copy.position_text()).unwrap();
    assert_eq!(last_line(from_text.as_ref(), true), "null");
}

#[test]
fn the_sort_key_orders_like_the_move_texts() {
    let mut rng = Rng::new(3);
    let square = |rng: &mut Rng, none: bool| {
        if none && rng.below(3) == 0 {
            NONE
        } else {
            rng.below(64) as Square
        }
    };
    let text = |sq: [Square; 3]| {
        let mut t = String::new();
        write_squares(sq, &mut t);
        t
    };
    for _ in 0..5000 {
        let a = [
            square(&mut rng, false),
            square(&mut rng, true),
            square(&mut rng, true),
        ];
        let b = [
            square(&mut rng, false),
            square(&mut rng, true),
            square(&mut rng, true),
        ];
        assert_eq!(
            text_key(a).cmp(&text_key(b)),
            text(a).cmp(&text(b)),
            "{} vs {}",
            text(a),
            text(b)
        );
    }
}
