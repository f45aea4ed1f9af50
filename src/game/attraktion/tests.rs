//! Attraktion rules checked on hand-built positions (attraction along a row and a column with
//! blocked cells, a win handed to the opponent, equal counts playing on, the full board and the
//! empty hand), perft counts from the start, and random games against a second, differently
//! written model of the attraction.

use super::*;
use crate::game::perft;
use crate::game::Game;
use crate::rng::Rng;

/// A position as the referee plays it.
type Game8 = TextGame<Attraktion>;

/// An 8x8 position from rows written top (row 8) to bottom, with `side` (`w`/`b`) to move.
fn pos(rows: [&str; 8], side: &str) -> Game8 {
    TextGame::new(
        from_position_text(8, &format!("{} {side}", rows.join("/"))).expect("valid test position"),
    )
}

fn moves(g: &Game8) -> Vec<&str> {
    g.legal_moves().iter().map(String::as_str).collect()
}

fn rows_of(g: &Game8) -> Vec<String> {
    g.rows().collect()
}

fn play(g: &mut Game8, text: &str) {
    let i = g
        .legal_moves()
        .iter()
        .position(|m| m == text)
        .unwrap_or_else(|| panic!("{text} is not legal in\n{}", g.describe()));
    g.play(i);
}

#[test]
fn perft_from_start() {
    // Every empty cell is a move and no shape can exist before eight pieces are down, so the
    // counts are 64 * 63 * ... (100 * 99 * ... on 10x10).
    let g = TextGame::new(Attraktion::new(8));
    for (depth, n) in [(1, 64), (2, 4_032), (3, 249_984)] {
        assert_eq!(perft(&g, depth), n, "8x8 perft({depth})");
    }
    let g = TextGame::new(Attraktion::new(10));
    for (depth, n) in [(1, 100), (2, 9_900), (3, 970_200)] {
        assert_eq!(perft(&g, depth), n, "10x10 perft({depth})");
    }
}

#[test]
fn start_lists_every_cell_from_row_one_upward() {
    let g = TextGame::new(Attraktion::new(8));
    let m = moves(&g);
    assert_eq!(&m[..3], ["a1", "b1", "c1"]);
    assert_eq!(&m[62..], ["g8", "h8"]);
    assert_eq!((g.to_move(), g.hand(), g.outcome()), (0, [32, 32], None));
    let g = TextGame::new(Attraktion::new(10));
    let m = moves(&g);
    assert_eq!((m[9], m[10], m[99]), ("j1", "a2", "j10"));
    assert_eq!(g.hand(), [50, 50]);
    assert_eq!(
        g.position_text(),
        [".........."; 10].join("/") + " w",
        "10x10 start"
    );
}

#[test]
fn attraction_closes_up_a_full_row_and_column_nearest_first() {
    // Row 4 left of d4: c4 touches the new piece and stays, b4 is empty, a4 steps to b4.
    // Row 4 right: e4 is empty, so f4 steps in, then g4 into the cell f4 left, then h4.
    // Column d up: d5 touches and stays, d6 is blocked by d5, d8 steps down into empty d7.
    // Column d down: d2 steps to d3, d1 follows into d2. a8 and h1 are off the lines.
    let mut g = pos(
        [
            "w..b....", "........", "...w....", "...b....", "w.b..bwb", "........", "...w....",
            "...b...b",
        ],
        "w",
    );
    assert_eq!(g.legal_moves().len(), 64 - 12);
    play(&mut g, "d4");
    assert_eq!(
        rows_of(&g),
        [
            "w.......", "...b....", "...w....", "...b....", ".wbwbwb.", "...w....", "...b....",
            ".......b",
        ]
    );
    assert_eq!((g.to_move(), g.hand(), g.shapes()), (1, [26, 25], [0, 0]));
    assert_eq!(g.outcome(), None);
}

#[test]
fn a_blocked_piece_stays_and_the_one_behind_fills_the_gap() {
    // Column a from a1 upward: a2 touches, a3 is blocked by it, a4 empty, a5 steps to a4,
    // a6 steps into a5, a8 steps into empty a7. Row 1: b1 empty, c1 and d1 close up, f1 to e1.
    let mut g = pos(
        [
            "b.......", "........", "w.......", "b.......", "........", "w.......", "b.......",
            "..wb.b..",
        ],
        "w",
    );
    play(&mut g, "a1");
    assert_eq!(
        rows_of(&g),
        [
            "........", "b.......", "........", "w.......", "b.......", "w.......", "b.......",
            "wwb.b...",
        ]
    );
}

#[test]
fn a_move_can_win_the_game_for_the_opponent() {
    // White on e4 pulls e2 up to e3 and completes four White pieces around Black's d4.
    let mut g = pos(
        [
            "........", "........", "........", "..w.w...", "...b....", "..w.....", "....w...",
            "........",
        ],
        "w",
    );
    assert_eq!(g.outcome(), None);
    play(&mut g, "e4");
    assert_eq!(
        rows_of(&g),
        [
            "........", "........", "........", "..w.w...", "...bw...", "..w.w...", "........",
            "........",
        ]
    );
    assert_eq!(g.shapes(), [0, 1]);
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 1)));
    assert_eq!(g.scores(), vec![0, 1]);
    assert!(g.legal_moves().is_empty());
    // The finished position reads back finished.
    let back = from_position_text(8, &g.position_text()).unwrap();
    assert_eq!(back.outcome(), Some(Outcome::winner(2, 1)));
}

#[test]
fn equal_counts_play_on_and_the_next_difference_wins() {
    // White on c3 closes Black's shape at b2 (a3 and c1 are held by b3 and c2) and pulls g3 to f3,
    // closing White's shape at e4: one each, so the game goes on.
    let mut g = pos(
        [
            "........", "........", "........", "...b.b..", "....w...", "wb.b..b.", ".bb.....",
            "w.w.....",
        ],
        "w",
    );
    play(&mut g, "c3");
    assert_eq!(
        rows_of(&g),
        [
            "........", "........", "........", "...b.b..", "....w...", "wbwb.b..", ".bb.....",
            "w.w.....",
        ]
    );
    assert_eq!(g.shapes(), [1, 1]);
    assert_eq!(g.outcome(), None);
    assert_eq!(g.to_move(), 1);
    assert_eq!(g.legal_moves().len(), 64 - 12);
    // Black plays far away: still one each.
    play(&mut g, "h8");
    assert_eq!((g.shapes(), g.outcome()), ([1, 1], None));
    // White on a6 pulls a3 up to a4 and a1 up to a2, so Black's b2 loses two White neighbours:
    // White leads 1 to 0 and wins.
    play(&mut g, "a6");
    assert_eq!(g.rows().nth(2).unwrap(), "w.......", "row 6");
    assert_eq!(g.rows().nth(4).unwrap(), "w...w...", "row 4");
    assert_eq!(g.rows().nth(5).unwrap(), ".bwb.b..", "row 3");
    assert_eq!(g.rows().nth(6).unwrap(), "wbb.....", "row 2");
    assert_eq!(g.rows().nth(7).unwrap(), "..w.....", "row 1");
    assert_eq!(g.shapes(), [1, 0]);
    assert_eq!(g.outcome(), Some(Outcome::winner(2, 0)));
}

#[test]
fn a_full_board_without_a_decision_is_a_draw() {
    // A chequered board has no shape (diagonal neighbours share a colour). One White piece is
    // missing: White's only move fills it, nothing can move, and the board is full.
    let full: Vec<String> = (0..8)
        .map(|r| {
            (0..8)
                .map(|c| if (r + c) % 2 == 0 { 'b' } else { 'w' })
                .collect()
        })
        .collect();
    let mut rows: Vec<&str> = full.iter().map(String::as_str).collect();
    let hole = "wb.bwbwb".to_string();
    rows[3] = &hole;
    let mut g = pos(rows.clone().try_into().unwrap(), "w");
    assert_eq!(g.hand(), [1, 0]);
    assert_eq!(moves(&g), ["c5"]);
    play(&mut g, "c5");
    assert_eq!(rows_of(&g), full);
    assert_eq!(g.outcome(), Some(Outcome::draw(2)));
    assert_eq!(g.draw_rule(), Some(crate::game::DrawRule::FullBoard));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.scores(), vec![0, 0]);
}

#[test]
fn a_player_with_an_empty_hand_ends_the_game_in_a_draw() {
    // White has all 32 pieces on the board (rows 5 to 8) and is to move: nothing to place.
    let mut rows = ["wwwwwwww"; 8];
    for r in rows.iter_mut().skip(4) {
        *r = "........";
    }
    rows[7] = "b.......";
    let g = pos(rows, "w");
    assert_eq!(g.hand(), [0, 31]);
    assert_eq!(g.outcome(), Some(Outcome::draw(2)));
    assert_eq!(g.draw_rule(), Some(crate::game::DrawRule::FullBoard));
    assert!(g.legal_moves().is_empty());
    // Black to move in the same position plays on.
    let g = pos(rows, "b");
    assert_eq!((g.outcome(), g.legal_moves().len()), (None, 31));
}

#[test]
fn position_text_rejects_bad_input() {
    for bad in [
        "........ w",
        &([".........."; 8].join("/") + " w"),
        &(["........"; 8].join("/") + " x"),
        &(["........"; 8].join("/")),
        &(["...x...."; 8].join("/") + " w"),
        &(["wwwwwwww"; 5].join("/") + "/......../......../........ b"),
    ] {
        assert!(from_position_text(8, bad).is_err(), "{bad:?} accepted");
    }
    let text = "......../......../......../...w..../......../......../......../........ b";
    let g = from_position_text(8, text).unwrap();
    assert_eq!(g.position_text(), text);
    assert_eq!(g.hand(), [31, 32]);
}

/// A second model of one turn, written from the chain description instead of the cell-by-cell
/// sweep: along each ray a piece moves when the next cell inward was empty before the turn or its
/// piece moves too.
fn reference_turn(board: &mut [Vec<u8>], n: usize, col: usize, row: usize, code: u8) {
    board[row][col] = code;
    for (dc, dr) in [(1i32, 0i32), (-1, 0), (0, 1), (0, -1)] {
        let mut ray = Vec::new();
        let (mut c, mut r) = (col as i32, row as i32);
        while (0..n as i32).contains(&c) && (0..n as i32).contains(&r) {
            ray.push((c as usize, r as usize));
            (c, r) = (c + dc, r + dr);
        }
        let before: Vec<u8> = ray.iter().map(|&(c, r)| board[r][c]).collect();
        let mut moved = vec![false; ray.len()];
        for k in 1..ray.len() {
            moved[k] = before[k] != 0 && (before[k - 1] == 0 || moved[k - 1]);
        }
        for k in 1..ray.len() {
            let (c, r) = ray[k];
            board[r][c] = if k + 1 < ray.len() && moved[k + 1] {
                before[k + 1]
            } else if moved[k] {
                0
            } else {
                before[k]
            };
        }
    }
}

#[test]
fn random_games_agree_with_a_second_model() {
    for (n, seed) in [(8, 1), (8, 2), (8, 3), (10, 4), (10, 5)] {
        let mut rng = Rng::new(seed);
        let mut g = TextGame::new(Attraktion::new(n));
        let mut board = vec![vec![0u8; n]; n];
        while g.outcome().is_none() {
            let i = rng.below(g.legal_moves().len());
            let cell = g.moves()[i] as usize;
            reference_turn(&mut board, n, cell % n, cell / n, 1 + g.to_move() as u8);
            g.play(i);
            for (r, line) in board.iter().enumerate() {
                for (c, &code) in line.iter().enumerate() {
                    assert_eq!(g.board[r * n + c], code, "cell {}", cell_name(c, r));
                }
            }
        }
        let o = g.outcome().unwrap();
        match o.sole_winner() {
            Some(w) => assert!(g.shapes()[w] > g.shapes()[1 - w]),
            None => assert!(g.shapes()[0] == g.shapes()[1] && g.legal_moves().is_empty()),
        }
    }
}

/// Shapes of the piece code `own` in the reference board: own pieces whose four diagonal cells
/// exist and hold the other code.
fn reference_shapes(board: &[Vec<u8>], own: u8) -> usize {
    let n = board.len() as i32;
    let at = |c: i32, r: i32| {
        (c >= 0 && r >= 0 && c < n && r < n).then(|| board[r as usize][c as usize])
    };
    let mut count = 0;
    for r in 0..n {
        for c in 0..n {
            let diagonals = [
                at(c - 1, r - 1),
                at(c + 1, r - 1),
                at(c - 1, r + 1),
                at(c + 1, r + 1),
            ];
            if at(c, r) == Some(own) && diagonals.iter().all(|&d| d == Some(3 - own)) {
                count += 1;
            }
        }
    }
    count
}

/// Perft over the reference model: a line ends when the shape counts differ, or the player to
/// move has nothing to place or nowhere to place it.
fn reference_perft(board: &[Vec<u8>], to_move: usize, hand: [u32; 2], depth: u32) -> u64 {
    let ended = reference_shapes(board, 1) != reference_shapes(board, 2)
        || hand[to_move] == 0
        || board.iter().flatten().all(|&x| x != 0);
    if depth == 0 || ended {
        return u64::from(depth == 0);
    }
    let n = board.len();
    let mut total = 0;
    for r in 0..n {
        for c in 0..n {
            if board[r][c] == 0 {
                let mut child = board.to_vec();
                reference_turn(&mut child, n, c, r, 1 + to_move as u8);
                let mut h = hand;
                h[to_move] -= 1;
                total += reference_perft(&child, 1 - to_move, h, depth - 1);
            }
        }
    }
    total
}

#[test]
fn perft_from_a_position_where_shapes_end_lines() {
    // The position after the equal-counts test's c3, Black to move with one shape each: many
    // replies hand a win to one side, which ends that line early (52 * 51 would be 2652).
    let g = pos(
        [
            "........", "........", "........", "...b.b..", "....w...", "wbwb.b..", ".bb.....",
            "w.w.....",
        ],
        "b",
    );
    let expected = [52, 1_173, 38_750];
    for (depth, &want) in (1..).zip(&expected) {
        assert_eq!(perft(&g, depth), want, "perft({depth})");
        let board: Vec<Vec<u8>> = (0..8)
            .map(|r| (0..8).map(|c| g.board[r * 8 + c]).collect())
            .collect();
        let reference = reference_perft(&board, g.to_move(), g.hand(), depth);
        assert_eq!(reference, want, "reference perft({depth})");
    }
}
