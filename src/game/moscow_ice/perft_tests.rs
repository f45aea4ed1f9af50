//! Moscow Ice as a whole: perft counts from the three starts, typed and text move generation
//! agreeing, and invariants kept through random games.

use super::tests::{four, fresh, pos, two, Ice};
use super::*;
use crate::game::{perft, perft_by_text, perft_rules};

fn perft_table(g: &Ice, expected: &[u64]) {
    for (depth, &n) in (1..).zip(expected) {
        assert_eq!(perft(g, depth), n, "perft({depth})");
    }
}

// Checked by hand. Two seats: each side's four larges have three forward squares each (12);
// after c1-b2 the west side loses a3-b2, so 12 * 12 - 1 = 143. Four seats: each seat has two
// stacks (6 moves); c1-b2 again takes a3-b2: 6 * 6 - 1 = 35. Depth 3 (211): seat 2's six steps
// are cut or turned into jumps by seat 0's move: after c1-b2 5 * 6 = 30; after c1-c2 seat 2
// gains d1-b3 (lost if a3-b3, plus d1-b3-b5 if b4 was filled) for 6+5+7+7+6+6 = 37; after each
// of c1-d2, e1-d2, e1-e2, e1-f2 every blocked step becomes a jump: 4 * 36 = 144.
#[test]
fn perft_two_seats() {
    perft_table(&fresh(2, false), &[12, 143, 2828, 56575]);
}

#[test]
fn perft_four_seats() {
    perft_table(&fresh(4, false), &[6, 35, 211, 1271, 16389]);
}

#[test]
fn perft_partners() {
    perft_table(&fresh(4, true), &[6, 35, 211, 1271, 16389]);
}

/// Counts through the texts alone: every listed text played back by name on a copy. On the way
/// it checks that the list is sorted by text without repeats (the order bots have always
/// received, kept now that the moves are typed and sorted by key).
fn perft_through_texts(g: &Ice, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if g.outcome().is_some() {
        return 0;
    }
    let texts = g.legal_moves().to_vec();
    assert!(
        texts.windows(2).all(|w| w[0] < w[1]),
        "not sorted by text: {texts:?}\n{}",
        g.describe()
    );
    texts
        .iter()
        .map(|t| {
            let mut child = g.clone();
            child.play_text(t).unwrap();
            perft_through_texts(&child, depth - 1)
        })
        .sum()
}

/// Typed perft, perft through the `Game` interface and perft through the texts agree, from the
/// three starts and from hand-built positions with chains, a stalled seat and an eliminated one.
#[test]
fn typed_and_text_perft_agree() {
    let cases = [
        (fresh(2, false), 3),
        (fresh(4, false), 4),
        (fresh(4, true), 4),
        (
            two("0 0 - c3:0L,d4:1S,e4:1S,e6:1M,f6:1S,g7:1S,f5:1M,g5:1L,d7:1M,b3:0M,c2:0S"),
            3,
        ),
        (two("0 0 - c3:0S,d4:1S0M,g4:1M,e5:1L,b5:0L"), 3),
        (four("2 0 - d4:1S0M,d6:1S2M,g4:1M,e2:2S,c5:3M,b6:0L"), 4),
        (four("3 2 1 c1:0S0M,d4:2S3L,c3:0L,e3:2M,b4:3S"), 4),
    ];
    for (g, deepest) in cases {
        for depth in 1..=deepest {
            let typed = perft_rules(g.rules(), depth);
            assert_eq!(typed, perft_by_text(&g, depth), "{}", g.describe());
            assert_eq!(typed, perft_through_texts(&g, depth), "{}", g.describe());
        }
    }
}

/// After every move of random games: the legal list is sorted by text without repeats, the end
/// is decided as a full check of the position decides it, each seat keeps its pieces, stacks grow strictly upwards,
/// no piece rests on the other axis's lines, finish lines hold only their owners' S-M-L stacks,
/// and no move ends nearer its start line than it began.
#[test]
fn random_games_keep_the_invariants() {
    use crate::rng::Rng;
    for (seats, partners) in [(2, false), (4, false), (4, true)] {
        for seed in 0..6 {
            let mut g = fresh(seats, partners);
            let mut rng = Rng::new(seed);
            let counts = |g: &Ice| -> Vec<usize> {
                (0..seats)
                    .map(|s| {
                        g.board
                            .iter()
                            .map(|c| c.pieces().filter(|p| p.seat() == s).count())
                            .sum()
                    })
                    .collect()
            };
            let start = counts(&g);
            for _ in 0..INFO.default_max_turns {
                if g.outcome().is_some() {
                    break;
                }
                let texts = g.legal_moves();
                assert!(texts.windows(2).all(|w| w[0] < w[1]), "{texts:?}");
                let i = rng.below(texts.len());
                let m = g.moves()[i];
                let seat = g.to_move();
                if m.from != NONE {
                    let axis = g.axis(seat);
                    assert!(progress(axis, m.to) >= progress(axis, m.from), "{m:?}");
                }
                g.play(i);
                assert_eq!(counts(&g), start);
                // A move ends the game exactly when a full check of its position says so.
                let again = pos(seats, partners, &g.position_text());
                assert_eq!(g.outcome(), again.outcome(), "{}", g.describe());
                for sq in 0..64u8 {
                    let cell = &g.board[sq as usize];
                    let sizes: Vec<u8> = cell.pieces().map(|p| p.size()).collect();
                    assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{}", g.describe());
                    for (k, p) in cell.pieces().enumerate() {
                        let axis = g.axis(p.seat());
                        assert!(!on_line(1 - axis, sq), "{}", g.describe());
                        if progress(axis, sq) == 7 {
                            assert_eq!(usize::from(p.size()), k, "{}", g.describe());
                            assert_eq!(p.seat(), cell.pieces().next().unwrap().seat());
                        }
                    }
                }
            }
        }
    }
}
