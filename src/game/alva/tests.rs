//! Alva rules checked on hand-built positions (the never-two rule, compulsory multi-jumps turning
//! corners, the give-back rule both ways, shifts, the end and edge scoring), and perft counts from
//! the start that agree with a separate reference model written from the statement.

use super::*;
use crate::game::{perft, perft_by_text, perft_rules, Game};

/// A position as the referee plays it.
type AlvaGame = TextGame<Alva>;

const EMPTY: &str = ".........";

/// A position from rows written top (row 9) to bottom and the words after them
/// (`side hand-w hand-b captured-w captured-b pending`).
fn pos(rows: [&str; 9], tail: &str) -> AlvaGame {
    TextGame::new(
        from_position_text(&format!("{} {tail}", rows.join("/"))).expect("valid test position"),
    )
}

/// A position from its one-line text, as the referee plays it.
fn from_text(text: &str) -> AlvaGame {
    TextGame::new(from_position_text(text).expect("valid test position"))
}

fn moves(g: &AlvaGame) -> Vec<&str> {
    g.legal_moves().iter().map(String::as_str).collect()
}

fn play(g: &mut AlvaGame, text: &str) {
    let i = g
        .legal_moves()
        .iter()
        .position(|m| m == text)
        .unwrap_or_else(|| panic!("{text} is not legal in\n{}", g.describe()));
    g.play(i);
}

/// Every point name in point order (row 1 first, `a` to `i`).
fn all_points() -> Vec<String> {
    (0..POINTS as u8)
        .map(|p| {
            let mut s = String::new();
            point_name(&mut s, p);
            s
        })
        .collect()
}

#[test]
fn perft_from_start() {
    // Depth 1 and 2 are 81 and 81 * 80 placements (nothing to shift or capture yet). Depth 3 and
    // the legal lists behind it were also counted by a separate model written in another language
    // from the statement alone: 2,237,216.
    let g = TextGame::new(Alva::new());
    for (depth, n) in [(1, 81), (2, 6_480), (3, 2_237_216)] {
        assert_eq!(perft(&g, depth), n, "perft({depth})");
    }
}

#[test]
fn start_position_and_first_moves() {
    let g = TextGame::new(Alva::new());
    assert_eq!(moves(&g), all_points());
    assert_eq!(
        g.position_text(),
        format!("{} w 32 32 0 0 0", [EMPTY; 9].join("/"))
    );
    assert_eq!((g.to_move(), g.hand(), g.outcome()), (0, [32, 32], None));
}

#[test]
fn a_row_of_exactly_two_cannot_be_jumped() {
    // b5 faces two Black pieces (c5, d5): no jump. b2 jumps the three on c2-e2, h8 the one on h7.
    let mut g = pos(
        [
            EMPTY,
            ".......w.",
            ".......b.",
            EMPTY,
            ".wbb.....",
            EMPTY,
            EMPTY,
            ".wbbb....",
            EMPTY,
        ],
        "w 20 20 0 0 0",
    );
    assert_eq!(moves(&g), ["b2xf2", "h8xh6"]);
    play(&mut g, "b2xf2");
    assert_eq!(
        g.position_text(),
        format!(
            "{EMPTY}/.......w./.......b./{EMPTY}/.wbb...../{EMPTY}/{EMPTY}/.....w.../{EMPTY} \
             b 20 20 0 0 3"
        )
    );
    // Black's c5 jumps the single b5 to a5, h7 jumps h8 to h9; d5 is behind its own c5.
    assert_eq!(moves(&g), ["c5xa5", "h7xh9"]);
}

#[test]
fn two_pieces_in_a_column_are_not_jumped_either() {
    // Black's e5 faces White's e6 and e7 with e8 empty: no capture, so Black must place.
    let g = pos(
        [
            EMPTY,
            EMPTY,
            "....w....",
            "....w....",
            "....b....",
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
        ],
        "b 20 20 0 0 0",
    );
    let m = moves(&g);
    assert_eq!(
        m.len(),
        78 * (1 + 3),
        "78 placements, alone or after one of 3 shifts"
    );
    assert!(m.iter().all(|m| !m.contains('x')));
}

#[test]
fn a_multi_jump_must_go_on_and_may_turn_a_corner() {
    // c3 jumps c4 to c5, and from there must jump again: right over d5 or left over b5. Stopping
    // on c5 is not offered.
    let mut g = pos(
        [
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            ".b.b.....",
            "..b......",
            "..w......",
            EMPTY,
            EMPTY,
        ],
        "w 20 20 0 0 0",
    );
    assert_eq!(moves(&g), ["c3xc5xe5", "c3xc5xa5"]);
    play(&mut g, "c3xc5xe5");
    assert_eq!(
        g.position_text(),
        format!("{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/.b..w..../{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY} b 20 20 0 0 2")
    );
}

#[test]
fn a_straight_multi_jump_and_a_circle_back_to_the_start() {
    let g = pos(
        [
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            "..bb.....",
            EMPTY,
            "..b......",
            "..w......",
            EMPTY,
        ],
        "w 20 20 0 0 0",
    );
    assert_eq!(moves(&g), ["c2xc4xc6"]);
    // Four single pieces around c3-e5: the jumper may run the square either way and lands on its
    // own starting point, which it left empty.
    let mut g = pos(
        [
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            "...b.....",
            "..b.b....",
            "..wb.....",
            EMPTY,
            EMPTY,
        ],
        "w 20 20 0 0 0",
    );
    assert_eq!(moves(&g), ["c3xc5xe5xe3xc3", "c3xe3xe5xc5xc3"]);
    play(&mut g, "c3xe3xe5xc5xc3");
    assert_eq!(
        g.position_text(),
        format!("{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/..w....../{EMPTY}/{EMPTY} b 20 20 0 0 4")
    );
}

#[test]
fn an_equal_capture_in_reply_sends_both_back_to_the_hands() {
    // White captured one piece last turn (pending 1); Black now captures one: both return.
    let mut g = pos(
        [
            EMPTY,
            EMPTY,
            EMPTY,
            "....w....",
            "....b....",
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
        ],
        "b 20 19 0 0 1",
    );
    assert_eq!(moves(&g), ["e5xe7"]);
    assert_eq!(
        g.points(),
        [1, 0],
        "a pending capture counts for its captor"
    );
    play(&mut g, "e5xe7");
    assert_eq!(
        g.position_text(),
        format!("{EMPTY}/{EMPTY}/....b..../{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY} w 21 20 0 0 0")
    );
    assert_eq!(g.points(), [0, 0]);
}

#[test]
fn an_unequal_capture_keeps_both_and_the_reply_can_cancel_the_second() {
    // White's pending single is kept when Black captures three; Black's three are pending in
    // turn, and White's three-piece reply sends both of those back.
    let mut g = pos(
        [
            EMPTY,
            "....w....",
            "....w....",
            "....w....",
            "....b....",
            EMPTY,
            EMPTY,
            "wbbb.....",
            EMPTY,
        ],
        "b 20 19 0 0 1",
    );
    assert_eq!(moves(&g), ["e5xe9"]);
    play(&mut g, "e5xe9");
    assert_eq!(
        g.position_text(),
        format!(
            "....b..../{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/wbbb...../{EMPTY} \
             w 20 19 1 0 3"
        )
    );
    assert_eq!(moves(&g), ["a2xe2"]);
    play(&mut g, "a2xe2");
    assert_eq!(
        g.position_text(),
        format!(
            "....b..../{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/....w..../{EMPTY} \
             b 23 22 1 0 0"
        )
    );
}

#[test]
fn no_capture_in_reply_makes_the_pending_capture_final() {
    let mut g = pos(
        [
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            "....b....",
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
        ],
        "b 20 18 0 0 2",
    );
    play(&mut g, "e5-e6,a1");
    assert_eq!(
        g.position_text(),
        format!("{EMPTY}/{EMPTY}/{EMPTY}/....b..../{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/b........ w 20 17 2 0 0")
    );
    // a1 is an edge point: Black's piece there is a point for White.
    assert_eq!(g.points(), [3, 0]);
}

#[test]
fn shifts_then_placements_in_order() {
    // One White piece in the corner: 79 placements, then a1-a2 and a1-b1 each followed by the 79
    // points empty after the shift (a1 included, the shift's target not).
    let mut g = pos(
        [
            "........b",
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            "w........",
        ],
        "w 5 20 0 0 0",
    );
    let points = all_points();
    let free = |taken: [&str; 2]| -> Vec<String> {
        points
            .iter()
            .filter(|p| !taken.contains(&p.as_str()))
            .cloned()
            .collect()
    };
    let mut want = free(["a1", "i9"]);
    want.extend(free(["a2", "i9"]).iter().map(|p| format!("a1-a2,{p}")));
    want.extend(free(["b1", "i9"]).iter().map(|p| format!("a1-b1,{p}")));
    assert_eq!(g.legal_moves(), &want[..]);
    play(&mut g, "a1-a2,b2");
    assert_eq!(
        g.position_text(),
        format!("........b/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/{EMPTY}/ww......./{EMPTY} b 4 20 0 0 0")
    );
}

#[test]
fn the_game_ends_when_the_player_to_move_cannot_act_and_edges_score() {
    // White has no piece in hand and no capture. White scores its 3 captured pieces and Black's a9;
    // Black scores 1 captured, 2 pending and White's a1 and i9: 4 to 5, Black wins.
    let g = pos(
        [
            "b.......w",
            EMPTY,
            EMPTY,
            EMPTY,
            "....b....",
            EMPTY,
            EMPTY,
            EMPTY,
            "w........",
        ],
        "w 0 10 3 1 2",
    );
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.points(), [4, 5]);
    assert_eq!(g.scores(), vec![4, 5]);
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 1)));
    assert_eq!(g.outcome_at_turn_limit(), Outcome::winner(2, 1));
    // Equal points are a draw.
    let g = pos(
        [
            "b.......w",
            EMPTY,
            EMPTY,
            EMPTY,
            "....b....",
            EMPTY,
            EMPTY,
            EMPTY,
            "w........",
        ],
        "w 0 10 4 1 2",
    );
    assert_eq!(g.outcome(), Some(Outcome::draw(2)));
    assert_eq!(g.draw_rule(), Some(crate::game::DrawRule::EqualPoints));
}

#[test]
fn an_empty_hand_still_captures() {
    let mut g = pos(
        [
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
            "...wb....",
            EMPTY,
            EMPTY,
            EMPTY,
            EMPTY,
        ],
        "w 0 10 0 0 0",
    );
    assert_eq!((moves(&g), g.outcome()), (vec!["d5xf5"], None));
    play(&mut g, "d5xf5");
    // Black has pieces in hand but none on the board: placements only.
    assert_eq!(g.legal_moves().len(), 80);
    assert_eq!(g.captured(), ([0, 0], 1));
}

#[test]
fn position_text_rejects_bad_input() {
    let rows = [EMPTY; 9].join("/");
    for bad in [
        format!("{rows} w 32 32 0 0"),
        format!("{rows} x 32 32 0 0 0"),
        format!("{rows} w 32 33 0 0 0"),
        format!("{rows} w 32 32 1 0 0"),
        format!("{rows} w 32 -1 0 0 0"),
        format!("{EMPTY} w 32 32 0 0 0"),
        format!("{} w 10 10 0 0 0", ["....x...."; 9].join("/")),
        format!("{} w 10 10 0 0 0", ["........"; 9].join("/")),
    ] {
        assert!(from_position_text(&bad).is_err(), "{bad:?} accepted");
    }
    // Black's pending capture of 2 is counted against White's 32 pieces.
    assert!(from_position_text(&format!("{rows} w 30 32 0 0 2")).is_ok());
    assert!(from_position_text(&format!("{rows} w 31 32 0 0 2")).is_err());
}

#[test]
fn perft_from_positions_with_captures_and_pending_pieces() {
    // Two positions reached by random play, counted by the separate reference model as well.
    // The first: Black must capture (White's single capture pending), then White places.
    let g = from_text(
        ".b......./.b......w/w......../w.w.....w/.w.....b./..wbb..b./wb......./....w..../.b...b.w. \
         b 16 21 1 6 1",
    );
    assert_eq!(moves(&g), ["d4xb4xb6xd6"]);
    for (depth, n) in [(1, 1), (2, 1), (3, 1_716), (4, 1_412_679)] {
        assert_eq!(perft(&g, depth), n, "first position perft({depth})");
    }
    // The second: four capture paths for Black's i5, two of them circling back to i5.
    let g = from_text(
        ".....w..w/w.w....../w...w..b./.w......./..b..w.wb/b.....w.w/.b...b.w./........b/bb....b.. \
         b 17 14 7 3 1",
    );
    assert_eq!(
        moves(&g),
        [
            "i5xi3xg3xg5xi5",
            "i5xi3xg3xg5xe5",
            "i5xg5xg3xi3xi5",
            "i5xg5xe5"
        ]
    );
    for (depth, n) in [(1, 4), (2, 6_927), (3, 7_443_076)] {
        assert_eq!(perft(&g, depth), n, "second position perft({depth})");
    }
}

#[test]
fn random_games_keep_every_piece_accounted_for_and_end() {
    let mut lengths = Vec::new();
    for seed in 0..6 {
        let mut rng = crate::rng::Rng::new(seed);
        let mut g = TextGame::new(Alva::new());
        let mut turns = 0;
        while g.outcome().is_none() && turns < INFO.default_max_turns {
            g.play(rng.below(g.legal_moves().len()));
            turns += 1;
            let mut on_board = [0u32; 2];
            for &code in g.board.iter().filter(|&&c| c != 0) {
                on_board[code as usize - 1] += 1;
            }
            let mut pending = [0u32; 2];
            pending[1 - g.to_move()] = g.pending;
            for (seat, own) in on_board.iter().enumerate() {
                let other = 1 - seat;
                assert_eq!(
                    own + g.hand[seat] + g.captured[other] + pending[other],
                    PIECES,
                    "seat {seat} after {turns} turns:\n{}",
                    g.describe()
                );
            }
        }
        lengths.push(turns);
    }
    eprintln!("random game lengths: {lengths:?}");
    assert!(lengths.iter().all(|&t| t < INFO.default_max_turns));
}

/// A White piece on a1 with 24 single Black pieces on a serpentine through the points of odd
/// rows and columns: the one capture is 24 jumps long (more than 16, so the upper half of the
/// packed directions is used).
fn serpentine() -> AlvaGame {
    pos(
        [
            ".b.b.b.b.",
            "b........",
            ".b.b.b.b.",
            "........b",
            ".b.b.b.b.",
            "b........",
            ".b.b.b.b.",
            "........b",
            "wb.b.b.b.",
        ],
        "w 31 8 0 0 0",
    )
}

#[test]
fn a_capture_of_twenty_four_jumps_is_one_move_and_plays_back() {
    let mut g = serpentine();
    let path = "a1xc1xe1xg1xi1xi3xg3xe3xc3xa3xa5xc5xe5xg5xi5xi7xg7xe7xc7xa7xa9xc9xe9xg9xi9";
    assert_eq!(moves(&g), [path]);
    assert!(matches!(g.moves(), [Move::Capture { jumps: 24, .. }]));
    play(&mut g, path);
    assert_eq!(
        g.position_text(),
        format!("........w/{}/{EMPTY} b 31 8 0 0 24", [EMPTY; 7].join("/"))
    );
    assert_eq!(g.history().last(), Some(&(0, path.to_string())));
}

#[test]
fn typed_and_text_perft_agree() {
    let start = Alva::new();
    let second = from_position_text(
        ".....w..w/w.w....../w...w..b./.w......./..b..w.wb/b.....w.w/.b...b.w./........b/bb....b.. \
         b 17 14 7 3 1",
    )
    .unwrap();
    let serpentine = serpentine().rules().clone();
    for (name, rules) in [
        ("start", start),
        ("second", second),
        ("serpentine", serpentine),
    ] {
        let g = TextGame::new(rules.clone());
        for depth in 1..=3 {
            assert_eq!(
                perft_rules(&rules, depth),
                perft_by_text(&g, depth),
                "{name} perft({depth})"
            );
        }
    }
}

#[test]
fn every_offered_text_names_its_own_move_in_random_games() {
    for seed in 10..13 {
        let mut rng = crate::rng::Rng::new(seed);
        let mut g = TextGame::new(Alva::new());
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
