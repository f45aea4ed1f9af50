//! Accasta rules checked on hand-built positions with their exact legal lists, and perft counts.
//!
//! The counts below were also produced by a separate throw-away brute force (written in another
//! language from the rules, not from this code) while writing these tests; the small lists are
//! worked out by hand in the comments.

use super::*;
use crate::game::{perft, perft_by_text, perft_rules, CellShape, Game};

/// A position as the referee plays it.
type Play = TextGame<Accasta>;

/// A position from the non-empty cells (`("d4", "bw")`, bottom first) and the side to move.
fn pos(stacks: &[(&str, &str)], side: &str) -> Play {
    let mut board = [Stack::EMPTY; MAX_CELLS];
    for (cell, st) in stacks {
        board[hex37::parse_cell(cell).unwrap() as usize] = Stack::parse(st, LETTERS).unwrap();
    }
    let mut text = String::new();
    HEX37.write_rows(&mut text, &board, LETTERS);
    text.push(' ');
    text.push_str(side);
    let g = from_position_text(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(g.position_text(), text);
    TextGame::new(g)
}

fn has(g: &Play, text: &str) -> bool {
    g.legal_moves().iter().any(|m| m == text)
}

#[test]
fn castles_are_the_named_cells() {
    for (seat, names) in [
        (0, ["a1", "a2", "a3", "a4", "b2", "b3", "b4", "c3", "c4"]),
        (1, ["g1", "g2", "g3", "g4", "f2", "f3", "f4", "e3", "e4"]),
    ] {
        let set = names
            .iter()
            .map(|n| hex37::parse_cell(n).unwrap())
            .fold(0u64, |m, c| m | 1 << c);
        assert_eq!(castle(seat), set);
    }
    let view = Accasta::new().view();
    assert_eq!(view.shape, CellShape::Hex);
    assert_eq!(view.cells.len(), 37);
    for mark in ["castle-0", "castle-1"] {
        assert_eq!(view.cells.iter().filter(|c| c.mark == mark).count(), 9);
    }
    let a1 = &view.cells[0];
    assert_eq!(
        (a1.name.as_str(), a1.pieces.len(), a1.mark.as_str()),
        ("a1", 3, "castle-0")
    );
}

#[test]
fn the_start_and_perft() {
    let g = TextGame::new(Accasta::new());
    assert_eq!(
        g.position_text(),
        "www,www,www,www/.,ww,ww,ww,./.,.,w,w,.,./.,.,.,.,.,.,./.,.,b,b,.,./.,bb,bb,bb,./bbb,bbb,bbb,bbb w"
    );
    // 192 first turns. By hand for the small stacks: c3's single piece has range 1 and six
    // neighbours (b2, b3, c4 own with room, c2, d3, d4 empty): 6, and c4 likewise. a2's three
    // pieces are walled in by the full a1 and a3 and can only put single pieces on b2 or b3
    // (each then full): +b2, +b3, +b2,+b3, +b3,+b2 = 4, and a3 likewise. The rest (a1 48, a4 48,
    // b2 28, b4 28, b3 20) came from the brute force. The two sides do not meet in two turns,
    // so depth 2 is 192 squared.
    let per_cell = |cell: &str| {
        g.legal_moves()
            .iter()
            .filter(|m| m.starts_with(&format!("{cell}:")))
            .count()
    };
    let counts: Vec<usize> = ["a1", "a2", "a3", "a4", "b2", "b3", "b4", "c3", "c4"]
        .iter()
        .map(|c| per_cell(c))
        .collect();
    assert_eq!(counts, [48, 4, 4, 48, 28, 20, 28, 6, 6]);
    assert_eq!(
        g.legal_moves()
            .iter()
            .filter(|m| m.starts_with("a2:"))
            .collect::<Vec<_>>(),
        ["a2:+b3", "a2:+b3,+b2", "a2:+b2", "a2:+b2,+b3"]
    );
    assert_eq!(perft(&g, 1), 192);
    assert_eq!(perft(&g, 2), 36_864);
}

#[test]
fn a_release_in_ones_own_castle_is_forbidden() {
    // a1 holds a Black piece under a White one: moving the White piece alone would release the
    // Black piece inside White's castle, so only the whole stack moves (range 1).
    let g = pos(&[("a1", "bw"), ("g4", "b")], "w");
    assert_eq!(g.legal_moves(), ["a1:2-a2", "a1:2-b2", "a1:2-b1"]);
    // The same stack on d1 (outside the castle) may release.
    let g = pos(&[("d1", "bw"), ("g4", "b")], "w");
    assert_eq!(
        g.legal_moves(),
        ["d1:-d2", "d1:-e1", "d1:-c1", "d1:2-d2", "d1:2-e1", "d1:2-c1"]
    );
}

#[test]
fn range_counts_own_pieces_and_a_release_ends_the_turn() {
    // d1 = w b w: the top piece is the second White piece, range 2, in three directions (d2 d3,
    // e1 f1, c1 b1). Taking 1 piece releases the Black one: 6 turns that end at once. Taking 2
    // leaves a White single (range 1) that may stay or move to one of d1's three neighbours:
    // 6 x 4 = 24. Taking all 3: 6. In all 36.
    let g = pos(&[("d1", "wbw"), ("g4", "b")], "w");
    assert_eq!(g.legal_moves().len(), 36);
    for t in [
        "d1:-d3",
        "d1:2-d3,-d2",
        "d1:2-d2,+d2",
        "d1:3-f1",
        "d1:2-c1,+c1",
    ] {
        assert!(has(&g, t), "{t}");
    }
    // Range 2 only; no move after a release; the single left has range 1.
    for t in [
        "d1:-g1",
        "d1:3-d4",
        "d1:-d3,2-c1",
        "d1:-d3,-d2",
        "d1:2-d3,-b1",
    ] {
        assert!(!has(&g, t), "{t}");
    }
}

#[test]
fn no_stack_holds_four_of_a_colour() {
    // d5 = w w b (Black on top, two White pieces captured inside). White's pair on d4 may not
    // land on it (four White), but one piece may, and the second piece may follow elsewhere.
    let g = pos(&[("d4", "ww"), ("d5", "wwb"), ("g4", "b")], "w");
    assert_eq!(g.legal_moves().len(), 86);
    assert!(has(&g, "d4:xd5"));
    assert!(has(&g, "d4:xd5,-d3"));
    assert!(!has(&g, "d4:2xd5"));
    // After one piece went to d5 (three White pieces there now), the other cannot follow it.
    assert!(!has(&g, "d4:xd5,+d5"));
    // A White single walled in by Black stacks holding three White pieces each has no turn, and
    // a player without a legal turn has lost.
    let g = pos(
        &[("a1", "w"), ("a2", "wwwb"), ("b1", "wwwb"), ("b2", "wwwb")],
        "w",
    );
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 1)));
}

#[test]
fn three_moves_at_most_and_nothing_jumped() {
    // A lone White triple on d1: 309 turns, 153 of them of three moves.
    let g = pos(&[("d1", "www"), ("g4", "b")], "w");
    assert_eq!(g.legal_moves().len(), 309);
    let threes = g
        .legal_moves()
        .iter()
        .filter(|m| m.matches(',').count() == 2);
    assert_eq!(threes.count(), 153);
    assert!(g.legal_moves().iter().all(|m| m.matches(',').count() <= 2));
    // Ranges 3, 2, 1 for the three pieces in turn.
    assert!(has(&g, "d1:-d4"));
    assert!(has(&g, "d1:-d3,-c1,-e1"));
    assert!(has(&g, "d1:-d2,-f1,-c1"));
    assert!(!has(&g, "d1:-d2,-c1,-f1"));
    // The piece left on d2 blocks the line for the second move.
    assert!(!has(&g, "d1:-d2,-d3"));
    assert!(has(&g, "d1:-d2,+d2"));
}

#[test]
fn three_in_the_enemy_castle_win_at_once() {
    // White already controls g1 and g2; a piece reaching e4, f3 or any Black castle cell wins,
    // and the turn stops there.
    let mut g = pos(&[("g1", "w"), ("g2", "w"), ("d5", "ww"), ("d7", "b")], "w");
    assert_eq!(g.legal_moves().len(), 91);
    assert!(has(&g, "d5:-e4"));
    assert!(!has(&g, "d5:-e4,-d6"));
    assert!(has(&g, "d5:-d6,-e4"));
    assert_eq!(g.scores(), vec![2, 0]);
    g.play_text("d5:-e4").unwrap();
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 0)));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.scores(), vec![3, 0]);
    let back = from_position_text(&g.position_text()).unwrap();
    assert_eq!(back.outcome(), Some(Outcome::winner(2, 0)));
}

#[test]
fn captures_and_the_notation() {
    // Black to move: the pair on f4 (range 2) may take one or both pieces onto the White single
    // on e4 (`x`); d4 behind it on the same slant is out of reach (nothing is jumped).
    let mut g = pos(&[("f4", "bb"), ("e4", "w"), ("a1", "w")], "b");
    assert!(has(&g, "f4:xe4"));
    assert!(has(&g, "f4:2xe4"));
    assert!(!has(&g, "f4:-d4"));
    g.play_text("f4:2xe4").unwrap();
    let mut s = String::new();
    g.write_board(&mut s);
    assert_eq!(s.lines().count(), 7);
    assert_eq!(s.lines().nth(2), Some("e . . . wbb . ."));
    // The White piece in the stack is a prisoner: White's only piece is a1.
    assert!(g.legal_moves().iter().all(|m| m.starts_with("a1:")));
}

#[test]
fn bad_positions_are_rejected() {
    let g = TextGame::new(Accasta::new());
    let text = g.position_text();
    assert!(from_position_text(&text.replace(" w", " x")).is_err());
    assert!(from_position_text(&text.replace(" w", "")).is_err());
    assert!(from_position_text(&text.replacen("www", "wwww", 1)).is_err());
    assert!(from_position_text(&text.replacen("www,", "", 1)).is_err());
}

/// Random games: every listed turn text is unique and the position reads back. Also prints the
/// turn counts met (start 192; middle positions a few hundred, up to a few thousand) and the
/// time `play` takes with the next turn list (printed, never checked).
#[test]
fn turn_counts_in_random_games() {
    let (mut max, mut total, mut positions) = (0, 0u64, 0u64);
    let mut in_play = std::time::Duration::ZERO;
    for seed in 0..20 {
        let mut rng = crate::rng::Rng::new(seed);
        let mut g = TextGame::new(Accasta::new());
        for ply in 0..120 {
            if g.outcome().is_some() {
                break;
            }
            let n = g.legal_moves().len();
            let mut texts = g.legal_moves().to_vec();
            texts.sort();
            texts.dedup();
            assert_eq!(
                texts.len(),
                n,
                "duplicate turn texts at seed {seed} ply {ply}"
            );
            if ply % 20 == 0 && seed < 3 {
                eprintln!("seed {seed} ply {ply}: {n} turns");
            }
            max = max.max(n);
            total += n as u64;
            positions += 1;
            let t = std::time::Instant::now();
            g.play(rng.below(n));
            in_play += t.elapsed();
        }
    }
    eprintln!(
        "{positions} positions, mean {} turns, max {max}, {:?} per play (turn search included)",
        total / positions,
        in_play / positions as u32
    );
}

#[test]
fn perft_in_a_middle_position() {
    // Reached by 20 random turns (seed 0): mixed stacks, both sides in contact.
    let text = "w,www,.,./ww,ww,w,ww,w/b,.,b,.,www,ww/.,b,.,w,.,.,./.,.,bb,bwb,bw,./.,bb,bb,bbb,./.,bbb,.,bb w";
    let g = TextGame::new(from_position_text(text).unwrap());
    assert_eq!(perft(&g, 1), 923);
    assert_eq!(perft(&g, 2), 490_368);
    assert_eq!(perft_rules(g.rules(), 2), 490_368);
}

/// Typed turns (no text written) and the text interface (every turn played by index on a search
/// copy) count the same, from the start and from a hand-built position: mixed stacks with
/// prisoners, captures, a release Black may not make from e3 in its own castle, and White two
/// stacks in Black's castle with the third in reach. The hand-built counts are the ones the code
/// before typed moves gave (`perft --position`).
#[test]
fn typed_and_text_perft_agree() {
    let start = Accasta::new();
    let g = TextGame::new(start.clone());
    for d in 1..=2 {
        assert_eq!(
            perft_rules(&start, d),
            perft_by_text(&g, d),
            "start, depth {d}"
        );
    }
    let g = pos(
        &[
            ("a1", "w"),
            ("c3", "bb"),
            ("d4", "ww"),
            ("d6", "wwb"),
            ("e3", "wb"),
            ("f2", "b"),
            ("g1", "w"),
            ("g2", "w"),
        ],
        "b",
    );
    for (d, n) in [(1, 118), (2, 7_844), (3, 389_972)] {
        assert_eq!(perft_rules(g.rules(), d), n, "hand-built, depth {d}");
        assert_eq!(perft_by_text(&g, d), n, "hand-built by text, depth {d}");
    }
}

#[test]
fn perft_3_from_the_start() {
    let start = Accasta::new();
    let g = TextGame::new(start.clone());
    assert_eq!(perft_rules(&start, 1), perft(&g, 1));
    assert_eq!(perft_rules(&start, 2), perft_by_text(&g, 2));
    assert_eq!(perft_rules(&start, 3), 13_012_864);
    assert_eq!(perft(&g, 3), 13_012_864);
}
