//! Rules tests for international draughts: perft from the start, hand-built positions (read from
//! their position text) with their exact legal lists, each draw rule at the turn it triggers and
//! one turn before, and the position text.

use super::*;
use crate::game::{perft, perft_by_text, perft_rules, Game};

/// A position as the referee plays it.
type Play = TextGame<Draughts>;

fn start() -> Play {
    TextGame::new(Draughts::new())
}

fn pos(text: &str) -> Play {
    TextGame::new(Draughts::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

fn legal(text: &str) -> Vec<String> {
    pos(text).legal_moves().to_vec()
}

/// Plays the move with this text, which must be legal.
fn play(game: &mut Play, text: &str) {
    let i = game
        .legal_moves()
        .iter()
        .position(|m| m == text)
        .unwrap_or_else(|| panic!("{text} is not legal in {:?}", game.legal_moves()));
    game.play(i);
}

fn played(text: &str, moves: &[&str]) -> Play {
    let mut g = pos(text);
    for m in moves {
        play(&mut g, m);
    }
    g
}

// Known values for international draughts (counting a capture once per distinct captured set).
const PERFT: [u64; 7] = [9, 81, 658, 4265, 27117, 167140, 1049442];

#[test]
fn perft_from_the_start_to_depth_6() {
    let g = start();
    for (d, &n) in PERFT[..6].iter().enumerate() {
        assert_eq!(perft(&g, d as u32 + 1), n, "depth {}", d + 1);
    }
}

/// Depth 7: a million leaves, about 0.3 s in the test profile on typed moves (0.8 s before them,
/// when it was left out of the default run).
#[test]
fn perft_depth_7() {
    assert_eq!(perft(&start(), 7), PERFT[6]);
}

/// Perft figures of four more positions published by draughts programmers (damforum.nl's perft
/// thread): long king captures, kings everywhere, a blocked ending, crowning on every first move.
#[test]
fn perft_of_published_positions() {
    let cases: [(&str, &[u64]); 4] = [
        (
            "B:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46:BK17,K24",
            &[14, 55, 1168, 5432, 87195],
        ),
        ("W:WK31-50:BK1-20", &[17, 79, 352, 1399, 7062, 37589]),
        (
            "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26",
            &[6, 12, 30, 73, 215, 590, 1944, 6269, 22369],
        ),
        ("W:W6,7,8,9,10:B41,42,43,44,45", &[9, 81, 795, 7578, 86351]),
    ];
    for (text, want) in cases {
        let g = pos(text);
        for (d, &n) in want.iter().enumerate() {
            assert_eq!(perft(&g, d as u32 + 1), n, "{text} depth {}", d + 1);
        }
    }
}

/// The typed moves (no text written) and the text interface (moves played by index through
/// [`Game`]) count the same, from the start and from a position with kings, long captures and
/// two captures with the same ends (`50x28x14x3`, `50x33x20x3`).
#[test]
fn typed_and_text_perft_agree() {
    for (text, depth) in [
        ("W:W31-50:B1-20", 5),
        ("W:W35,K49,K50:B9,19,24,44", 4),
        (
            "B:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46:BK17,K24",
            4,
        ),
    ] {
        let g = pos(text);
        for d in 0..=depth {
            assert_eq!(
                perft_rules(g.rules(), d),
                perft_by_text(&g, d),
                "{text} depth {d}"
            );
        }
    }
    assert_eq!(perft_rules(&Draughts::new(), 6), PERFT[5]);
}

/// A move is a few bytes: start, end, the taken pieces and one flag; the path is not kept.
#[test]
fn a_move_is_sixteen_bytes() {
    assert_eq!(std::mem::size_of::<Move>(), 16);
}

#[test]
fn first_moves_by_hand() {
    // Each front man (31-35) steps to the one or two squares ahead; 35 is on the edge.
    assert_eq!(
        start().legal_moves(),
        ["31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"]
    );
    // Depth 2 is 9 x 9: the two armies are two rows apart and cannot touch yet.
    assert_eq!(perft(&start(), 2), 81);
}

#[test]
fn start_position_text() {
    let g = start();
    let white: Vec<String> = (31..=50).map(|n| n.to_string()).collect();
    let black: Vec<String> = (1..=20).map(|n| n.to_string()).collect();
    let want = format!("W:W{}:B{} 0 0", white.join(","), black.join(","));
    assert_eq!(g.position_text(), want);
    // The PDN range form (and no counters) reads to the same position.
    assert_eq!(pos("W:W31-50:B1-20").position_text(), want);
    let mut lines = String::new();
    g.write_board(&mut lines);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), 10);
    assert_eq!(lines[0], ".b.b.b.b.b");
    assert_eq!(lines[3], "b.b.b.b.b.");
    assert_eq!(lines[4], "..........");
    assert_eq!(lines[9], "w.w.w.w.w.");
}

#[test]
fn men_step_forward_only() {
    // A White man goes up, a Black man down; a king steps any distance.
    assert_eq!(legal("W:W28:B3"), ["28-22", "28-23"]);
    assert_eq!(legal("B:W48:B23"), ["23-28", "23-29"]);
    assert_eq!(
        legal("W:WK46:B3"),
        ["46-5", "46-10", "46-14", "46-19", "46-23", "46-28", "46-32", "46-37", "46-41"]
    );
}

#[test]
fn men_capture_backwards() {
    // White's man on 28 takes the Black man behind it on 33, landing on 39.
    assert_eq!(legal("W:W28:B5,33"), ["28x39"]);
    // Black's man on 23 takes upward (backward for Black) over 18.
    assert_eq!(legal("B:W18:B23"), ["23x12"]);
}

#[test]
fn flying_king_lands_on_any_square_beyond() {
    // The king on 46 crosses 41-32, takes 28 and may stop on any empty square after it.
    assert_eq!(
        legal("W:WK46:B28"),
        ["46x5", "46x10", "46x14", "46x19", "46x23"]
    );
}

#[test]
fn flying_king_turns_at_a_right_angle() {
    // Only from 19 can the king go on (over 13): it must, so it lands on 8 or 2.
    assert_eq!(legal("W:WK46:B13,28"), ["46x2", "46x8"]);
}

#[test]
fn the_capture_taking_most_pieces_is_compulsory() {
    // The man on 34 could take 30 alone; the king takes two (28 then 13 or 30) and must.
    assert_eq!(legal("W:WK46,34:B13,28,30"), ["46x2", "46x8", "46x35"]);
    // Here the man's line takes two men and beats the king taking one king: kings count as
    // one piece, and capturing with a king has no priority.
    assert_eq!(legal("W:WK5,23,36:BK10,21,31"), ["36x16"]);
    // Equal counts: both pieces may capture, and the king on any landing square.
    assert_eq!(legal("W:WK5,23,36:BK10,31"), ["5x14", "5x19", "36x27"]);
}

#[test]
fn taken_pieces_block_and_are_never_jumped_twice() {
    // The king goes 47x42 -> 33x28 -> 17x21 -> 26x31 and lands on 37: the taken man on 42
    // is still on the board and blocks the way to 48 (no second jump over it), and it also
    // stops the king from landing past 37.
    assert_eq!(legal("W:WK47:B21,28,31,42"), ["47x37"]);
}

#[test]
fn no_crowning_in_the_middle_of_a_capture() {
    // The man reaches 2 on the crowning row but must go on over 7 as a man: it lands on 11
    // only (a king could also have landed on 16) and stays a man.
    assert_eq!(legal("W:W13:B7,8,45"), ["13x11"]);
    let g = played("W:W13:B7,8,45", &["13x11"]);
    assert_eq!(g.position_text(), "B:W11:B45 0 0");
}

#[test]
fn crowning_at_the_end_of_a_move() {
    // A capture ending on the crowning row crowns.
    let g = played("W:W13:B8,45", &["13x2"]);
    assert_eq!(g.position_text(), "B:WK2:B45 0 0");
    // So does a step, for Black on row 46-50 as well.
    let g = played("B:W6:B45", &["45-50"]);
    assert_eq!(g.position_text(), "W:W6:BK50 0 0");
    let g = played("W:W6:B45", &["6-1"]);
    assert_eq!(g.position_text(), "B:WK1:B45 0 0");
}

#[test]
fn captures_with_the_same_ends_but_other_pieces_list_their_landings() {
    // From 50 to 3 the king takes 44, 24 and 9 (via 33 and 20) or 44, 19 and 9 (via 28 and
    // 14): two moves, so each lists its landing squares.
    let text = "W:W35,K49,K50:B9,19,24,44";
    assert_eq!(legal(text), ["50x28x14x3", "50x33x20x3"]);
    assert_eq!(
        played(text, &["50x33x20x3"]).position_text(),
        "B:WK3,35,K49:B19 0 0"
    );
    assert_eq!(
        played(text, &["50x28x14x3"]).position_text(),
        "B:WK3,35,K49:B24 0 0"
    );
}

#[test]
fn the_same_pieces_taken_by_two_paths_are_one_move() {
    // The man goes round the square of four men either way and comes back to 32: one move.
    assert_eq!(legal("W:W32:B17,18,27,28"), ["32x32"]);
    let g = played("W:W32:B17,18,27,28", &["32x32"]);
    assert_eq!(g.position_text(), "B:W32:B 0 0");
    assert_eq!(g.end(), Some(Finish::Blocked { loser: 1 }));
}

#[test]
fn a_player_without_a_move_loses() {
    // Black's only man is stuck behind White's on 50 (nothing to land on beyond it).
    let g = pos("B:W50:B45");
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.end(), Some(Finish::Blocked { loser: 1 }));
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 0)));
    assert_eq!(g.scores(), [2, 0]);
    assert_eq!(g.draw_rule(), None);
    // A forfeit scores as a loss (0-2), not a draw's 1-1, whatever the position.
    let start = pos("W:W31:B1");
    assert_eq!(start.record_scores(ScoreEnd::Forfeit(0)), [0, 2]);
    assert_eq!(start.record_scores(ScoreEnd::Forfeit(1)), [2, 0]);
    assert_eq!(start.record_scores(ScoreEnd::TurnLimit), [1, 1]);
    // No pieces at all is the same.
    assert_eq!(pos("W:W:B1").outcome(), Some(Outcome::winner(2, 1)));
}

/// Kings shuffling with men that stay put: no short-endgame class applies.
const SHUFFLE: &str = "W:WK50,36:BK1,15";

#[test]
fn threefold_repetition_draws() {
    let cycle = ["50-45", "1-6", "45-50", "6-1"];
    let mut moves: Vec<&str> = cycle.iter().chain(&cycle).copied().collect();
    let last = moves.pop().unwrap();
    // Seven turns in: the start position has occurred twice, the game goes on.
    let mut g = played(SHUFFLE, &moves);
    assert_eq!(g.end(), None);
    assert!(!g.legal_moves().is_empty());
    play(&mut g, last);
    assert_eq!(g.end(), Some(Finish::Repetition));
    assert_eq!(g.draw_rule(), Some(DrawRule::Threefold));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.outcome(), Some(Outcome::draw(2)));
    assert_eq!(g.scores(), [1, 1]);
    // A man move in between forgets the earlier positions.
    let g = played(
        SHUFFLE,
        &["50-45", "1-6", "45-50", "6-1", "36-31", "1-6", "50-45"],
    );
    assert_eq!(g.end(), None);
}

#[test]
fn twenty_five_king_moves_each_draw() {
    let g = played(&format!("{SHUFFLE} 48 0"), &["50-45"]);
    assert_eq!(g.counters(), (49, 0));
    assert_eq!(g.end(), None);
    let g = played(&format!("{SHUFFLE} 48 0"), &["50-45", "1-6"]);
    assert_eq!(g.counters(), (50, 0));
    assert_eq!(g.end(), Some(Finish::KingMoves));
    assert_eq!(g.draw_rule(), Some(DrawRule::TwentyFiveMove));
    // A man's move starts the count again.
    let g = played(&format!("{SHUFFLE} 48 0"), &["36-31", "1-6"]);
    assert_eq!(g.counters(), (1, 0));
    assert_eq!(g.end(), None);
}

#[test]
fn three_pieces_against_a_lone_king_draw_after_16_moves_each() {
    let text = "W:WK48,K49,K50:BK1 0 30";
    let g = played(text, &["49-43"]);
    assert_eq!(g.counters(), (1, 31));
    assert_eq!(g.end(), None);
    let g = played(text, &["49-43", "1-7"]);
    assert_eq!(g.counters(), (2, 32));
    assert_eq!(g.end(), Some(Finish::Endgame));
    assert_eq!(g.draw_rule(), Some(DrawRule::SixteenMove));
    // Counted from the capture that brings it about (two kings against three is no such end).
    let g = played("W:WK48,K49,K50:BK1,K44 10 0", &["50x39"]);
    assert_eq!(g.position_text(), "B:WK39,K48,K49:BK1 0 0");
    let g = played("W:WK48,K49,K50:BK1,K44 10 0", &["50x39", "1-7"]);
    assert_eq!(g.counters(), (1, 1));
}

#[test]
fn two_pieces_against_a_lone_king_draw_after_5_moves_each() {
    let text = "W:WK49,K50:BK1 0 8";
    let g = played(text, &["49-43"]);
    assert_eq!(g.counters(), (1, 9));
    assert_eq!(g.end(), None);
    let g = played(text, &["49-43", "1-7"]);
    assert_eq!(g.end(), Some(Finish::Endgame));
    assert_eq!(g.draw_rule(), Some(DrawRule::FiveMove));
    // A king and a man against a king is in the same class; the man stepping keeps the count.
    let g = played("B:WK50,35:BK1 0 3", &["1-7", "35-30"]);
    assert_eq!(g.counters(), (0, 5));
    // Without a king on the strong side no such rule applies.
    assert!(Draughts::from_text("W:W35,36:BK1 0 3").is_err());
}

#[test]
fn crowning_can_start_a_short_endgame() {
    // Three men against a king is no short endgame; the crowning step makes one, counted from 0.
    let g = played("W:W6,35,36:BK3", &["6-1"]);
    assert_eq!(g.position_text(), "B:WK1,35,36:BK3 0 0");
    let g = played("W:W6,35,36:BK3", &["6-1", "3-9"]);
    assert_eq!(g.counters(), (1, 1));
}

#[test]
fn position_text_rejects_bad_input() {
    for bad in [
        "",
        "W:W31-50",
        "X:W31:B1",
        "W:W31:W32",
        "W:W31,31:B1",
        "W:W31:B31",
        "W:W51:B1",
        "W:W0:B1",
        "W:W40-35:B1",
        "W:W3:B20",
        "W:W31:B47",
        "W:W31:B1 3",
        "W:W31:B1 x 0",
        "W:W31:B1 51 0",
        "W:W31:B1 0 2",
        "W:WK1,K2:BK3 0 11",
        "W:W1-25:B26-30",
        // Positions play cannot reach: king-only moves counted without the kings that made them,
        // and a lowercase side to move.
        "W:W31:B1 50 0",
        "W:WK31:B1 1 0",
        "W:WK31:B1 2 0",
        "w:W31:B1",
    ] {
        assert!(Draughts::from_text(bad).is_err(), "{bad:?} was accepted");
    }
    // Kings, mixed order, lower case piece lists, a trailing dot.
    assert_eq!(
        pos("B:bK1,2:wk46,31.").position_text(),
        "B:W31,K46:BK1,2 0 0"
    );
    // The counters accepted where the kings that made them are there.
    assert_eq!(pos("B:WK31:B1 1 0").counters(), (1, 0));
    assert_eq!(pos("W:WK31:BK1,2 2 0").counters(), (2, 0));
    let err = Draughts::from_text("W:W31:B1 50 0").unwrap_err();
    assert_eq!(
        err,
        PositionError::KingMovesWithoutKing {
            count: 50,
            side: "White"
        }
    );
    assert!(err.to_string().contains("play cannot reach"), "{err}");
}

#[test]
fn board_lines_and_view_name_the_squares() {
    let g = pos("W:WK46,31:B5");
    let mut lines = String::new();
    g.write_board(&mut lines);
    assert_eq!(
        lines,
        ".........b\n..........\n..........\n..........\n..........\n\
         ..........\n.w........\n..........\n..........\nW.........\n"
    );
    let view = g.view();
    assert_eq!(view.cells.len(), 100);
    let cell = |name: &str| view.cells.iter().find(|c| c.name == name).unwrap();
    assert_eq!((cell("1").row, cell("1").col), (0.0, 1.0));
    assert_eq!((cell("46").row, cell("46").col), (9.0, 0.0));
    assert_eq!(cell("46").pieces[0].label, "K");
    assert_eq!(cell("5").pieces[0].seat, 1);
}

/// The shipped draughts book: every three-ply start without a capture, generated by play
/// with the library (this test regenerates it with ARBITER_REGENERATE=1, else compares).
#[test]
fn the_shipped_draughts_book_is_every_quiet_three_ply_start() {
    let mut want = Vec::new();
    let start = start();
    let quiet = |g: &Play| g.legal_moves().iter().all(|m| m.contains('-'));
    for (i, a) in start.legal_moves().iter().enumerate() {
        let mut g1 = start.clone();
        g1.play(i);
        if !quiet(&g1) {
            continue;
        }
        for (j, b) in g1.legal_moves().iter().enumerate() {
            let mut g2 = g1.clone();
            g2.play(j);
            if !quiet(&g2) {
                continue;
            }
            for (k, c) in g2.legal_moves().iter().enumerate() {
                let mut g3 = g2.clone();
                g3.play(k);
                if quiet(&g3) {
                    want.push(format!("{a} {b} {c}"));
                }
            }
        }
    }
    if std::env::var_os("ARBITER_REGENERATE").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/game/draughts/openings.txt"
        );
        let header = "# International draughts: every start of three plies (White, Black, White) after which\n\
                      # no capture is pending, generated with arbiter's rules (ARBITER_REGENERATE=1 cargo test\n\
                      # the_shipped_draughts_book). Use: --openings draughts-3move\n";
        std::fs::write(path, format!("{header}{}\n", want.join("\n"))).unwrap();
    }
    let [(name, book)] = INFO.books else {
        panic!("draughts ships one book")
    };
    assert_eq!(*name, "draughts-3move");
    let shipped: Vec<&str> = book
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert_eq!(shipped, want, "regenerate src/game/draughts/openings.txt");
}
