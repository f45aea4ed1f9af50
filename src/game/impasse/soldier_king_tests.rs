//! Rules of the soldiers and kings variant: perft from the start and from a busy position, and
//! one hand-built position per difference from the arena's game (exact legal list and the
//! position after the move). `soldier_king_plain.rs` checks whole games against a second reading.

use super::plain::plain_perft;
use super::*;
use crate::game::impasse::Impasse;
use crate::game::{lookup, perft, perft_by_text, perft_rules, Game, TextGame};

/// A position as the referee plays it.
type Sk = TextGame<SoldierKing>;

/// The start position as the referee plays it.
fn start() -> Sk {
    TextGame::new(SoldierKing::new())
}

/// A position from rows written top (row 8) to bottom, with `side` (`w` or `b`) to move.
fn pos(rows: [&str; 8], side: &str) -> Sk {
    TextGame::new(
        from_position_text(&format!("{} {side}", rows.join("/"))).expect("valid test position"),
    )
}

/// The arena's game on the same board, to show where the two differ.
fn arena(rows: [&str; 8], side: &str) -> TextGame<Impasse> {
    TextGame::new(super::super::from_position_text(&format!("{} {side}", rows.join("/"))).unwrap())
}

fn moves(g: &dyn Game) -> Vec<&str> {
    g.legal_moves().iter().map(String::as_str).collect()
}

/// The position after playing `text`.
fn after(g: &Sk, text: &str) -> Sk {
    let mut next = g.clone();
    next.play_text(text).unwrap();
    next
}

fn rows(g: &Sk) -> Vec<String> {
    g.describe().lines().take(8).map(str::to_string).collect()
}

#[test]
fn perft_from_start() {
    // No piece reaches a first or last row and nobody is at an impasse within five plies, so
    // the counts equal the arena's (checked against its referee); the busy position below is
    // where the rules differ.
    let g = start();
    let expected = [22, 492, 9692, 193_139, 3_489_530];
    for (depth, &n) in (1..).zip(expected.iter()) {
        assert_eq!(perft(&g, depth), n, "perft({depth})");
        if depth <= 3 {
            assert_eq!(perft(&TextGame::new(Impasse::new()), depth), n);
        }
    }
}

#[test]
fn perft_from_a_busy_position() {
    // Both sides near both ends: promotions, demotions, swaps and impasses within a few plies.
    let g = pos(
        [
            ".W.w.b..", "w.b.....", ".....W..", "....w...", ".b...B..", "..B.w...", ".w.b....",
            "B.b.....",
        ],
        "w",
    );
    // Depth 1 by hand: b2a3; the swap b8a7 brings a soldier beside d8 on the last row, so one
    // of the two is promoted and the other removed (b8a7b8, b8a7d8); e3b6 e3c5 e3d4; e5d6; the
    // swap f6e5 and the king slides f6g5 f6h4. d8 and a7 cannot move.
    assert_eq!(
        moves(&g),
        ["b2a3", "b8a7b8", "b8a7d8", "e3b6", "e3c5", "e3d4", "e5d6", "f6e5", "f6g5", "f6h4"]
    );
    let expected = [10, 143, 1_513, 19_204, 208_148];
    for (depth, &n) in (1..).zip(expected.iter()) {
        assert_eq!(perft(&g, depth), n, "perft({depth})");
        if depth <= 4 {
            assert_eq!(
                plain_perft(&g.position_text(), depth),
                n,
                "plain perft({depth})"
            );
        }
    }
}
#[test]
fn registry_offers_the_variant_and_keeps_the_arena_default() {
    let (info, setup) = lookup("impasse", None, None, 0).unwrap();
    assert_eq!(setup.variant, "arena");
    assert_eq!(info.start(&setup).variant(), "arena");
    let (info, setup) = lookup("impasse", Some(VARIANT), None, 0).unwrap();
    let g = info.start(&setup);
    assert_eq!((g.variant(), g.name(), g.seats()), (VARIANT, "impasse", 2));
    let text = g.position_text();
    assert_eq!(
        text,
        ".W.b.W.b/b.W.b.W./......../......../......../......../.B.w.B.w/w.B.w.B. w"
    );
    let back = info.position(&setup, &text).unwrap();
    assert_eq!(back.variant(), VARIANT);
    assert_eq!(back.legal_moves(), g.legal_moves());
    assert!(info.statement.contains("# Variant `soldier-king`"));
}

#[test]
fn first_turn_input_is_the_standard_shape() {
    let mut g = start();
    let mut input = String::new();
    g.write_turn_input(true, &mut input);
    let mut want = String::from(
        "0 2 impasse soldier-king\n\
         .W.b.W.b/b.W.b.W./......../......../......../......../.B.w.B.w/w.B.w.B. w\n8\n\
         .W.b.W.b\nb.W.b.W.\n........\n........\n........\n........\n.B.w.B.w\nw.B.w.B.\n0\n22\n",
    );
    let expected = [
        "c7a5", "c7b6", "c7d6", "c7e5", "c7f4", "c7g3", "d2a5", "d2b4", "d2c3", "d2e3", "d2f4",
        "d2g5", "d2h6", "g7c3", "g7d4", "g7e5", "g7f6", "g7h6", "h2d6", "h2e5", "h2f4", "h2g3",
    ];
    for m in expected {
        want.push_str(m);
        want.push('\n');
    }
    assert_eq!(input, want);
    g.play_text("d2c3").unwrap();
    let mut black = String::new();
    g.write_turn_input(true, &mut black);
    assert!(black.starts_with("1 2 impasse soldier-king\n"), "{black}");
    assert!(black.contains("\n1\n0 d2c3\n"), "{black}");
    assert_eq!((g.scores(), g.outcome()), (vec![0, 0], None));
}

#[test]
fn a_king_reaching_its_first_row_is_demoted_and_nothing_follows() {
    // White: a king on c3, a soldier blocked on h4, a lone soldier left uncrowned on h8.
    let board = [
        ".b.....w", "........", "........", "......b.", ".......w", "..W.....", "........",
        "........",
    ];
    let g = pos(board, "w");
    assert_eq!(moves(&g), ["c3a1", "c3b2", "c3d2", "c3e1"]);
    assert_eq!(g.removed(0), 5);
    let next = after(&g, "c3e1");
    assert_eq!(rows(&next)[7], "....w...");
    // No piece left the board, and the soldier on h8 stays one: it did not move there.
    assert_eq!(rows(&next)[0], ".b.....w");
    assert_eq!((next.removed(0), next.to_move()), (5, 1));
    // The arena bears off a checker (a point) and crowns h8 in the same turn.
    let a = arena(board, "w");
    assert!(moves(&a).contains(&"c3e1e1") && moves(&a).contains(&"c3e1h4"));
    assert!(!moves(&a).contains(&"c3e1"));
}

#[test]
fn a_swap_onto_the_first_row_demotes_the_king() {
    let board = [
        "........", "......b.", "........", "........", "........", "....b...", ".W......",
        "..w.....",
    ];
    let g = pos(board, "w");
    assert_eq!(moves(&g), ["b2a1", "b2c1", "c1d2"]);
    let next = after(&g, "b2c1");
    assert_eq!(rows(&next)[6], ".w......");
    assert_eq!(rows(&next)[7], "..w.....");
    assert_eq!(next.removed(0), 6);
    let slid = after(&g, "b2a1");
    assert_eq!(rows(&slid)[7], "w.w.....");
    assert_eq!(slid.removed(0), 6);
    // The arena's transpose bears off: one more checker removed.
    let mut a = arena(board, "w");
    let before = a.score(0);
    a.play_text("b2c1").unwrap();
    assert_eq!(a.score(0), before + 1);
}

#[test]
fn a_swap_onto_the_last_row_promotes_the_soldier() {
    let g = pos(
        [
            ".W......", "..w.....", "........", "........", "...b.b..", "....w...", "........",
            "........",
        ],
        "w",
    );
    // The swap and the slide to d8 both promote and must take e3 off; no plain `b8c7`.
    assert_eq!(moves(&g), ["b8a7", "b8c7e3", "c7d8e3"]);
    let next = after(&g, "b8c7e3");
    assert_eq!(rows(&next)[0], ".W......");
    assert_eq!(rows(&next)[1], "..W.....");
    assert_eq!(rows(&next)[5], "........");
    assert_eq!(next.removed(0), 6);
    let slid = after(&g, "c7d8e3");
    assert_eq!(rows(&slid)[0], ".W.W....");
    assert_eq!(rows(&slid)[1], "........");
}

#[test]
fn a_promotion_removes_any_other_soldier_but_never_a_king() {
    // White: b7 about to promote, soldiers a1 and g3 (both blocked), a blocked king on e5.
    let g = pos(
        [
            "........", ".w......", "........", "....W...", "...b.b.b", "......w.", ".b......",
            "w.......",
        ],
        "w",
    );
    assert_eq!(moves(&g), ["b7a8a1", "b7a8g3", "b7c8a1", "b7c8g3"]);
    let next = after(&g, "b7c8a1");
    let r = rows(&next);
    assert_eq!(
        [&r[0], &r[1], &r[3], &r[5], &r[7]],
        ["..W.....", "........", "....W...", "......w.", "........"]
    );
    assert_eq!(
        (next.removed(0), next.to_move(), next.winner()),
        (5, 1, None)
    );
}

#[test]
fn a_last_soldier_reaching_the_last_row_stays_a_soldier() {
    let g = pos(
        [
            "........", ".w......", "........", "....W...", "...b.b..", "........", "........",
            "........",
        ],
        "w",
    );
    assert_eq!(moves(&g), ["b7a8", "b7c8"]);
    let next = after(&g, "b7a8");
    assert_eq!(rows(&next)[0], "w.......");
    assert_eq!((next.removed(0), next.to_move()), (6, 1));
}

#[test]
fn two_soldiers_on_the_last_row_promote_one_and_remove_the_other() {
    // a8 stays uncrowned from earlier; b7 arrives on c8. g3 may not be the removed one.
    let board = [
        "w.......", ".w......", "........", "....W...", "...b.b.b", "......w.", "........",
        "........",
    ];
    let g = pos(board, "w");
    assert_eq!(moves(&g), ["b7c8a8", "b7c8c8"]);
    let new_king = after(&g, "b7c8a8");
    assert_eq!(rows(&new_king)[0], "..W.....");
    let old_king = after(&g, "b7c8c8");
    assert_eq!(rows(&old_king)[0], "W.......");
    assert_eq!(rows(&old_king)[1], "........");
    assert_eq!(rows(&old_king)[5], "......w.");
    assert_eq!(old_king.removed(0), 5);
    // The arena crowns either last-row single from any other single, g3 included.
    assert!(moves(&arena(board, "w")).contains(&"b7c8g3"));
}

#[test]
fn the_impasse_removes_a_soldier_or_demotes_a_king_and_ends_the_turn() {
    // White cannot move: king c3 blocked by b2 and d2, a5 blocked by b6, h8 on its last row.
    let board = [
        ".......w", "........", ".b......", "w.......", "........", "..W.....", ".b.b....",
        "........",
    ];
    let g = pos(board, "w");
    assert_eq!(moves(&g), ["a5", "c3", "h8"]);
    let demoted = after(&g, "c3");
    assert_eq!(rows(&demoted)[5], "..w.....");
    // Demoting removes nothing, and the new soldier does not promote h8 (the turn is over).
    assert_eq!(rows(&demoted)[0], ".......w");
    assert_eq!((demoted.removed(0), demoted.to_move()), (5, 1));
    let removed = after(&g, "a5");
    assert_eq!(rows(&removed)[3], "........");
    assert_eq!((removed.removed(0), removed.to_move()), (6, 1));
    // The arena removes a checker from the double and then crowns h8.
    assert_eq!(moves(&arena(board, "w")), ["a5", "c3a5", "c3c3", "h8"]);
}

#[test]
fn an_impasse_is_only_for_a_seat_without_moves_at_the_start_of_its_turn() {
    // Either move of g5 leaves White without moves, but Black plays next; White is at an
    // impasse only when its own turn starts that way.
    let g = pos(
        [
            ".......w", "....b.b.", "........", "......w.", "........", "..W.....", ".b.b....",
            "........",
        ],
        "w",
    );
    assert_eq!(moves(&g), ["g5f6", "g5h6"]);
    let next = after(&g, "g5f6");
    assert_eq!(next.to_move(), 1);
    assert!(moves(&next).contains(&"e7d6"));
    assert!(
        moves(&next).iter().all(|m| m.len() >= 4),
        "{:?}",
        moves(&next)
    );
    let text = next.position_text().replace(" b", " w");
    let white = TextGame::new(from_position_text(&text).unwrap());
    assert_eq!(moves(&white), ["c3", "f6", "h8"]);
}

#[test]
fn a_king_demoted_by_the_impasse_beside_a_last_row_soldier_settles_the_pair() {
    // White: king b8 blocked by a7 and c7, soldier d8 on its last row, soldier g3 blocked.
    let g = pos(
        [
            ".W.w....", "b.b.....", "........", "........", ".....b.b", "......w.", "........",
            "........",
        ],
        "w",
    );
    assert_eq!(moves(&g), ["b8b8", "b8d8", "d8", "g3"]);
    let king_stays = after(&g, "b8d8");
    assert_eq!(rows(&king_stays)[0], ".W......");
    assert_eq!(king_stays.removed(0), 6);
    let d8_crowned = after(&g, "b8b8");
    assert_eq!(rows(&d8_crowned)[0], "...W....");
    assert_eq!(d8_crowned.removed(0), 6);
    assert_eq!(d8_crowned.to_move(), 1);
}

#[test]
fn a_king_demoted_by_the_impasse_on_the_last_row_alone_stays_a_soldier() {
    let g = pos(
        [
            ".W......", "b.b.....", "........", "........", ".....b.b", "......w.", "........",
            "........",
        ],
        "w",
    );
    assert_eq!(moves(&g), ["b8", "g3"]);
    let next = after(&g, "b8");
    assert_eq!(rows(&next)[0], ".w......");
    assert_eq!((next.removed(0), next.winner()), (6, None));
}

#[test]
fn down_to_one_piece_wins() {
    // The impasse removal of g3 leaves White one king: White has won.
    let g = pos(
        [
            ".W......", "b.b.....", "........", "........", ".....b.b", "......w.", "........",
            "........",
        ],
        "w",
    );
    let won = after(&g, "g3");
    assert_eq!(won.winner(), Some(0));
    assert_eq!(won.outcome(), Some(Outcome::winner(2, 0)));
    assert!(won.legal_moves().is_empty());
    assert_eq!(won.scores(), vec![7, 4]);
    assert_eq!(perft(&won, 1), 0);
    // A promotion that removes the last other soldier wins too, with the new king on the board.
    let g = pos(
        [
            "........", ".w......", "........", "........", ".....b.b", "......w.", "........",
            "........",
        ],
        "w",
    );
    assert_eq!(moves(&g), ["b7a8g3", "b7c8g3"]);
    let won = after(&g, "b7a8g3");
    assert_eq!(rows(&won)[0], "W.......");
    assert_eq!(won.outcome(), Some(Outcome::winner(2, 0)));
    // A position where one side is already down to one piece is over.
    let over = pos(
        [
            "........", "........", "........", "........", ".....b.b", "........", "......W.",
            "........",
        ],
        "b",
    );
    assert_eq!(over.winner(), Some(0));
    assert!(over.legal_moves().is_empty());
}

#[test]
fn black_promotes_on_row_1_and_is_demoted_on_row_8() {
    let g = pos(
        [
            "........", ".B......", "........", "....b...", "...w.w..", "........", "......b.",
            "........",
        ],
        "b",
    );
    assert_eq!(moves(&g), ["b7a8", "b7c8", "g2f1e5", "g2h1e5"]);
    assert_eq!(rows(&after(&g, "b7c8"))[0], "..b.....");
    let promoted = after(&g, "g2h1e5");
    let r = rows(&promoted);
    assert_eq!([&r[3], &r[6], &r[7]], ["........", "........", ".......B"]);
    assert_eq!((promoted.removed(1), promoted.to_move()), (6, 0));
}

#[test]
fn position_text_rejects_what_play_cannot_reach() {
    let bad = [
        // A White king on row 1.
        "......../......../......../......../......../......../......b./W.w..... w",
        // Two White soldiers on row 8.
        "w.w...../......../......../......../......../......../......b./.b...... w",
        // Nine Black pieces.
        "b.b.b.b./.b.b.b.b/b......./......../......../......../......../w.w..... b",
        // Both sides down to one piece.
        "......../......../......../......../......../......../......b./w....... w",
        // What the arena's reader rejects, too.
        "......../......../......../......../......../......../......b. w",
        "w.w...../......../......../......../......../......../......b./.b...... x",
    ];
    for text in bad {
        assert!(from_position_text(text).is_err(), "accepted {text}");
    }
    let err = from_position_text(bad[0]).unwrap_err();
    assert!(
        matches!(err, PositionError::KingOnFirstRow { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("first row"), "{err}");
}

#[test]
fn the_view_labels_kings() {
    let v = start().view();
    assert_eq!(v.cells.len(), 64);
    let b8 = v.cells.iter().find(|c| c.name == "b8").unwrap();
    assert_eq!(b8.pieces.len(), 1);
    assert_eq!((b8.pieces[0].seat, b8.pieces[0].label.as_str()), (0, "K"));
    let a7 = v.cells.iter().find(|c| c.name == "a7").unwrap();
    assert_eq!((a7.pieces[0].seat, a7.pieces[0].label.as_str()), (1, ""));
    assert!(v.notes[0].contains("White 0, Black 0"));
}

#[test]
fn typed_perft_equals_perft_through_the_texts() {
    // From the start, and from a position where promotions, demotions, swaps and impasses
    // happen within a few plies.
    let busy = from_position_text(
        ".W.w.b../w.b...../.....W../....w.../.b...B../..B.w.../.w.b..../B.b..... w",
    )
    .unwrap();
    for (rules, depths) in [(SoldierKing::new(), 1..=3), (busy, 1..=4)] {
        let g = TextGame::new(rules.clone());
        for d in depths {
            assert_eq!(perft_rules(&rules, d), perft_by_text(&g, d), "depth {d}");
            assert_eq!(perft(&g, d), perft_by_text(&g, d), "depth {d}");
        }
    }
}
