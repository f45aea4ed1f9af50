//! Moscow Ice rules checked by hand-built positions, each with its exact legal list, one per rule
//! and per choice made where the seed is open (perft counts and random games: `perft_tests.rs`).

use super::*;

/// A game as the referee plays it.
pub(super) type Ice = TextGame<MoscowIce>;

/// The start position of `seats` seats (`partners` for the team variant).
pub(super) fn fresh(seats: usize, partners: bool) -> Ice {
    TextGame::new(MoscowIce::new(seats, partners))
}

/// A position from its text, with `seats` seats (`partners` for the team variant).
pub(super) fn pos(seats: usize, partners: bool, text: &str) -> Ice {
    TextGame::new(
        notation::parse_position(seats, partners, text)
            .unwrap_or_else(|e| panic!("test position {text:?}: {e}")),
    )
}

pub(super) fn two(text: &str) -> Ice {
    pos(2, false, text)
}

pub(super) fn four(text: &str) -> Ice {
    pos(4, false, text)
}

fn moves(g: &Ice) -> Vec<&str> {
    g.legal_moves().iter().map(String::as_str).collect()
}

#[test]
fn start_positions_and_first_moves() {
    let g = fresh(2, false);
    assert_eq!(
        g.position_text(),
        "0 0 - c1:0S0M0L,d1:0S0M0L,e1:0S0M0L,f1:0S0M0L,a3:1S1M1L,a4:1S1M1L,a5:1S1M1L,a6:1S1M1L"
    );
    assert_eq!(
        moves(&g),
        [
            "c1-b2", "c1-c2", "c1-d2", "d1-c2", "d1-d2", "d1-e2", "e1-d2", "e1-e2", "e1-f2",
            "f1-e2", "f1-f2", "f1-g2"
        ]
    );
    let g = fresh(4, false);
    assert_eq!(
        g.position_text(),
        "0 0 - c1:0S0M0L,d1:2S2M2L,e1:0S0M0L,f1:2S2M2L,a3:1S1M1L,a4:3S3M3L,a5:1S1M1L,a6:3S3M3L"
    );
    assert_eq!(
        moves(&g),
        ["c1-b2", "c1-c2", "c1-d2", "e1-d2", "e1-e2", "e1-f2"]
    );
    assert_eq!(g.variant(), "standard");
    assert_eq!(fresh(4, true).variant(), "partners");
}

#[test]
fn steps_go_forwards_or_sideways_never_back() {
    // Seat 0 races north: N, NE, E, W, NW.
    let g = two("0 0 - d4:0S,g6:1S");
    assert_eq!(moves(&g), ["d4-c4", "d4-c5", "d4-d5", "d4-e4", "d4-e5"]);
    // Seat 1 races east: N, NE, E, SE, S.
    let g = two("1 0 - b2:0S,d4:1S");
    assert_eq!(moves(&g), ["d4-d3", "d4-d5", "d4-e3", "d4-e4", "d4-e5"]);
}

#[test]
fn jump_chains_land_on_smaller_pieces_and_never_go_back() {
    // The large on c3: steps (one onto the small on d4); a diagonal jump to e5; on to e7
    // (straight) and c7 (sideways); to g7 on top of a small. Not to g5 (a large is there, not
    // smaller) and not e5-e3 (a backward jump inside a chain).
    let g = two("0 0 - c3:0L,d4:1S,e4:1S,e6:1M,f6:1S,g7:1S,f5:1M,g5:1L,d7:1M");
    assert_eq!(
        moves(&g),
        [
            "c3-b3",
            "c3-b4",
            "c3-c4",
            "c3-d3",
            "c3-d4",
            "c3-e5",
            "c3-e5-e7",
            "c3-e5-e7-c7",
            "c3-e5-g7"
        ]
    );
    let mut g = g;
    g.play_text("c3-e5-g7").unwrap();
    assert!(
        g.position_text().contains("g7:1S0L"),
        "{}",
        g.position_text()
    );
}

#[test]
fn a_square_reached_by_two_chains_is_listed_once_with_the_shorter() {
    // e5 is one diagonal jump away (over d4) or two straight ones (c5 then over d5): one entry.
    let g = two("0 0 - c3:0M,c4:1S,d4:1S,d5:1S,g6:1M");
    assert_eq!(
        moves(&g),
        ["c3-b3", "c3-b4", "c3-c4", "c3-c5", "c3-d3", "c3-d4", "c3-e5"]
    );
}

#[test]
fn a_small_cannot_land_on_anything_and_equal_sizes_block() {
    let g = two("0 0 - d4:0S,d5:1S,e5:1S,c4:1M,e4:1L,b3:1S");
    // d4-d6 and d4-f6 are jumps; c4 (medium) and e4 (large) are no landing for a small, but
    // they can be jumped when the square beyond is free: b4 and f4.
    assert_eq!(moves(&g), ["d4-b4", "d4-c5", "d4-d6", "d4-f4", "d4-f6"]);
}

#[test]
fn finish_line_is_filled_in_order() {
    // Seat 0's finish line is rank 8. c8 holds its small, e8 its small and medium.
    // d7 medium: onto c8's small only (not the empty d8, not e8's medium); f7 large: onto e8's
    // medium only (not the empty f8). The small on d6 jumps into d8 and on along the line to f8.
    // The small on c8 moves along the line to the empty d8; e8's medium cannot move along onto
    // an empty square.
    let g = two("0 0 - c8:0S,e8:0S0M,d7:0M,f7:0L,d6:0S,b3:1S");
    assert_eq!(
        moves(&g),
        [
            "c8-d8", "d6-c6", "d6-c7", "d6-d8", "d6-d8-f8", "d6-e6", "d6-e7", "d7-c7", "d7-c8",
            "d7-e7", "f7-e7", "f7-e8", "f7-g7"
        ]
    );
}

#[test]
fn opponents_lines_can_be_jumped_through_but_not_stopped_on() {
    // The large jumps into seat 1's start line (a3), along it (a5) and out again (c7); it may
    // not stop on a3 or a5. The jump from a3 back over b3 would revisit c3 (a chain never
    // visits a square twice).
    let g = two("0 0 - c3:0L,b3:1S,a4:1S,b6:1S");
    assert_eq!(
        moves(&g),
        ["c3-a3-a5-c7", "c3-b3", "c3-b4", "c3-c4", "c3-d3", "c3-d4"]
    );
    // Seat 1 may not stop on seat 0's start line (d1, c1).
    let g = two("1 0 - c2:1S,f5:0S");
    assert_eq!(moves(&g), ["c2-c3", "c2-d2", "c2-d3"]);
}

#[test]
fn four_seats_may_not_freeze_the_opposite_player_in_the_joint_lines() {
    // Seat 0's medium may not land on seat 2's small on d1 (their joint start line) but may
    // jump over it along the line to e1; its large may land on seat 2's small on e4.
    let g = four("0 0 - c1:0M,d1:2S,d3:0L,e4:2S");
    assert_eq!(
        moves(&g),
        [
            "c1-b2", "c1-c2", "c1-d2", "c1-e1", "d3-c3", "d3-c4", "d3-d4", "d3-e3", "d3-e4",
            "d3-f5"
        ]
    );
    // Nor on seat 2's small on the joint finish line: the order rule wants its own small.
    let g = pos(4, true, "0 0 - e7:0M,e8:2S,b3:1S");
    assert_eq!(moves(&g), ["e7-d7", "e7-f7"]);
}

#[test]
fn stalemate_rule_forces_a_release() {
    // Seat 1's small lies under seat 0's medium on d4 and its medium on g4 (its 7th file) cannot
    // enter h3-h5 without a small there: seat 1 is stalled, so seat 0 must move the medium off d4.
    let g = two("0 0 - c3:0S,d4:1S0M,g4:1M");
    assert!(g.stalled(&g.board, 1));
    assert_eq!(moves(&g), ["d4-c4", "d4-c5", "d4-d5", "d4-e4", "d4-e5"]);
    // With a small of its own on h4 the medium can enter: no obligation.
    let g = two("0 0 - c3:0S,d4:1S0M,g4:1M,h4:1S");
    assert!(!g.stalled(&g.board, 1));
    assert_eq!(
        moves(&g),
        [
            "c3-b3", "c3-b4", "c3-c4", "c3-d3", "c3-e5", "d4-c4", "d4-c5", "d4-d5", "d4-e4",
            "d4-e5"
        ]
    );
    // A free piece of seat 1 away from its 7th file (b6) means it is only blocked: no obligation.
    let g = two("0 0 - c3:0S,d4:1S0M,g4:1M,b6:1S");
    assert!(!g.stalled(&g.board, 1));
    assert_eq!(moves(&g).len(), 10);
}

#[test]
fn a_freeze_that_would_stall_is_not_allowed() {
    // Landing on d4 would freeze seat 1's last free small while its medium waits on g4.
    let g = two("0 0 - c4:0M,d4:1S,g4:1M");
    assert_eq!(moves(&g), ["c4-b4", "c4-b5", "c4-c5", "c4-d5", "c4-e4"]);
    // With another free small (b6) the same freeze is allowed.
    let g = two("0 0 - c4:0M,d4:1S,g4:1M,b6:1S");
    assert_eq!(
        moves(&g),
        ["c4-b4", "c4-b5", "c4-c5", "c4-d4", "c4-d5", "c4-e4"]
    );
}

#[test]
fn a_freezer_that_cannot_release_plays_any_move() {
    // Seat 1 is stalled (its small under seat 0's medium on b7, its medium stuck on g4), but the
    // medium on b7 has no move (c7 and d7 hold larges, c8 needs a small first): seat 0 plays on
    // with its larges, which may land on their own medium.
    let g = two("0 0 - b7:1S0M,c7:0L,d7:0L,g4:1M");
    assert!(g.stalled(&g.board, 1));
    assert_eq!(moves(&g), ["c7-b7", "c7-e7", "d7-b7", "d7-e7"]);
}

#[test]
fn with_several_freezers_the_next_to_play_releases() {
    // Seat 1 is stalled with smalls frozen by seat 0 (d4) and seat 2 (d6). Seat 2 plays next and
    // must move its medium off d6; its small on e2 may not move this turn.
    let g = four("2 0 - d4:1S0M,d6:1S2M,g4:1M,e2:2S");
    assert_eq!(moves(&g), ["d6-c6", "d6-c7", "d6-d7", "d6-e6", "d6-e7"]);
}

#[test]
fn a_blocked_seat_passes_and_a_round_of_passes_ends_the_game() {
    // Seat 0: a small on every finish square (a small cannot land on a small, nor jump onto
    // one); its large on d4 can still move, so no pass yet.
    let g = two("0 0 - c8:0S,d8:0S,e8:0S,f8:0S,d4:0L,b3:1S");
    assert!(!moves(&g).contains(&"pass"));
    // With its medium frozen under seat 1's large instead, it has nothing to move.
    let mut g = two("0 0 - c8:0S,d8:0S,e8:0S,f8:0S,d4:0M1L,b3:1S");
    assert_eq!(moves(&g), ["pass"]);
    g.play_text("pass").unwrap();
    assert_eq!(
        g.position_text(),
        "1 1 - b3:1S,d4:0M1L,c8:0S,d8:0S,e8:0S,f8:0S"
    );
    assert!(g.outcome().is_none());
    // Seat 0 is now stalled (its one piece off the line frozen under seat 1's large), so seat
    // 1 must move that large before anything else.
    assert_eq!(moves(&g), ["d4-d3", "d4-d5", "d4-e3", "d4-e4", "d4-e5"]);
    // The counter: after one pass, a second in a row (seat 1 with its only piece frozen) means
    // no seat can move any more, and the game ends ranked by progress (the position is built to
    // exercise the counter).
    let mut g = two("1 1 - c8:0S,d8:0S,e8:0S,f8:0S,d4:1S0L");
    assert_eq!(moves(&g), ["pass"]);
    g.play_text("pass").unwrap();
    assert_eq!(g.outcome().unwrap().ranks, vec![0, 1]);
    assert!(g.legal_moves().is_empty());
}

#[test]
fn two_seats_win_by_restacking_everything() {
    let mut g = two("0 0 - c8:0S0M0L,d8:0S0M0L,e8:0S0M0L,f8:0S0M,f7:0L,b3:1S");
    // The larges on d8 and e8 may also move along the line onto f8's medium.
    assert_eq!(moves(&g), ["d8-f8", "e8-f8", "f7-e7", "f7-f8", "f7-g7"]);
    g.play_text("f7-f8").unwrap();
    assert_eq!(g.outcome().unwrap().ranks, vec![0, 1]);
    assert_eq!(g.scores(), vec![12, 0]);
    assert!(g.legal_moves().is_empty());
}

#[test]
fn four_seats_first_home_wins_and_the_rest_rank_by_progress() {
    let mut g = four("0 0 - c8:0S0M0L,e8:0S0M,e7:0L,b3:1S,d2:2S,a4:3S");
    g.play_text("e7-e8").unwrap();
    // Seats 1 and 2 are one square along (tie), seat 3 still on its start line.
    assert_eq!(g.outcome().unwrap().ranks, vec![0, 1, 1, 3]);
}

#[test]
fn partners_both_have_to_finish() {
    let mut g = pos(
        4,
        true,
        "0 0 - c8:0S0M0L,e8:0S0M,e7:0L,b3:1S,d8:2S2M2L,f8:2S2M,f7:2L,a4:3S",
    );
    g.play_text("e7-e8").unwrap();
    assert!(g.outcome().is_none(), "seat 2 has not finished");
    g.play_text("b3-b4").unwrap();
    g.play_text("f7-f8").unwrap();
    // Competition ranking: two seats ahead of each loser.
    assert_eq!(g.outcome().unwrap().ranks, vec![0, 2, 0, 2]);
    // A seat that has finished while its partner has not passes.
    let mut g = pos(
        4,
        true,
        "0 0 - c8:0S0M0L,e8:0S0M,e7:0L,b3:1S,d7:2S,c5:2S,a4:3S",
    );
    g.play_text("e7-e8").unwrap();
    g.play_text("b3-b4").unwrap();
    g.play_text("d7-d8").unwrap();
    g.play_text("a4-b4").unwrap_err();
    g.play_text("a4-b5").unwrap();
    assert_eq!(moves(&g), ["pass"]);
}

#[test]
fn turn_limit_ranks_by_pieces_home_then_distance() {
    let g = two("0 0 - c8:0S,g4:0L,b3:1S,h4:1S,h5:1S");
    // Seat 0: 1 home (100) + 7 + 3; seat 1: 2 home (200) + 1 + 14.
    assert_eq!(g.progress_value(0), 110);
    assert_eq!(g.progress_value(1), 215);
    assert_eq!(g.outcome_at_turn_limit().ranks, vec![1, 0]);
    let g = pos(4, true, "0 0 - c8:0S,b3:1S,d2:2S,a4:3S");
    // Team 0+2: 107 + 1; team 1+3: 1 + 0.
    assert_eq!(g.outcome_at_turn_limit().ranks, vec![0, 2, 0, 2]);
}

#[test]
fn eliminate_two_seats_ends_the_game() {
    let mut g = fresh(2, false);
    let before = g.position_text();
    assert!(!g.eliminate(1));
    assert_eq!(g.position_text(), before);
}

#[test]
fn eliminate_removes_the_seat_and_its_pieces() {
    let mut g = fresh(4, false);
    g.play_text("c1-c2").unwrap();
    assert!(g.eliminate(1));
    assert_eq!(
        g.position_text(),
        "2 0 1 c1:0S0M,d1:2S2M2L,e1:0S0M0L,f1:2S2M2L,c2:0L,a4:3S3M3L,a6:3S3M3L"
    );
    assert_eq!(g.to_move(), 2);
    g.play_text("d1-d2").unwrap();
    g.play_text("a4-b4").unwrap();
    // Seat 1 is skipped; it sees no more moves.
    assert_eq!(g.to_move(), 0);
    assert!(g.history().since(1).is_empty());
    assert_eq!(g.history().since(0).len(), 2);
    // The seat to move forfeits: the turn passes on.
    assert!(g.eliminate(0));
    assert_eq!(g.to_move(), 2);
    // The last two: seat 3 forfeits and seat 2 wins; the eliminated share the last place.
    assert!(!g.eliminate(3));
    assert_eq!(g.outcome().unwrap().ranks, vec![1, 1, 0, 1]);
    assert!(g.legal_moves().is_empty());
}

#[test]
fn eliminated_pieces_free_what_they_covered() {
    let mut g = four("0 0 - d4:0S1L,c3:2S,e5:3S");
    assert_eq!(moves(&g), ["pass"]);
    assert!(g.eliminate(1));
    assert_eq!(g.position_text(), "0 0 1 c3:2S,d4:0S,e5:3S");
    assert_eq!(moves(&g), ["d4-c4", "d4-c5", "d4-d5", "d4-e4", "d4-f6"]);
    // Ranks while playing on: the eliminated seat below everyone.
    assert_eq!(g.outcome_at_turn_limit().ranks[1], 3);
}

#[test]
fn a_partners_forfeit_ends_the_game_and_ranks_its_team_below_the_intact_team() {
    for seat in 0..4 {
        let mut g = fresh(4, true);
        assert!(!g.eliminate(seat), "seat {seat}: the game ends");
        let ranks = g.outcome_of_forfeit(seat).ranks;
        for s in 0..4 {
            let want = if s == seat {
                3
            } else if s % 2 == seat % 2 {
                2
            } else {
                0
            };
            assert_eq!(ranks[s], want, "forfeit of seat {seat}: {ranks:?}");
        }
    }
    // Four seats without partners play on; the forfeiting seat alone goes last.
    let mut g = fresh(4, false);
    assert!(g.eliminate(1));
    assert_eq!(g.outcome_of_forfeit(2).ranks, vec![0, 0, 1, 0]);
}

#[test]
fn position_text_round_trips_and_rejects_bad_text() {
    let texts = [
        "1 0 - b3:1S,d6:0S,d7:0M,f7:0L,c8:0S,e8:0S0M",
        "3 2 1 c1:0S0M,d4:2S3L",
    ];
    for (seats, t) in [(2, texts[0]), (4, texts[1])] {
        let g = pos(seats, false, t);
        assert_eq!(g.position_text(), t);
    }
    for bad in [
        "0 0 - a1:0S",
        "0 0 - d4:0L0S",
        "0 0 - d4:0S,d4:0M",
        "0 0 - d4:0X",
        "0 0 - d4:2S",
        "0 0 1 d4:0S",
        "2 0 - d4:0S",
        "0 3 - d4:0S",
        "0 0 - c3:0S,c4:0S,c5:0S,c6:0S,c7:0S",
        "0 0 -",
    ] {
        assert!(notation::parse_position(2, false, bad).is_err(), "{bad}");
    }
    assert!(notation::parse_position(4, false, "1 0 1 d4:0S").is_err());
    assert!(notation::parse_position(4, false, "0 0 1 d4:1S").is_err());
}

#[test]
fn board_lines_and_first_turn_input() {
    let g = fresh(2, false);
    let mut input = String::new();
    g.write_turn_input(true, &mut input);
    let mut want = String::from("0 2 moscow-ice standard\n");
    want.push_str(&g.position_text());
    want.push('\n');
    want.push_str(
        "8\n\
         # # . . . . # #\n\
         # . . . . . . #\n\
         1S1M1L . . . . . . .\n\
         1S1M1L . . . . . . .\n\
         1S1M1L . . . . . . .\n\
         1S1M1L . . . . . . .\n\
         # . . . . . . #\n\
         # # 0S0M0L 0S0M0L 0S0M0L 0S0M0L # #\n\
         0\n12\n",
    );
    for m in g.legal_moves() {
        want.push_str(m);
        want.push('\n');
    }
    assert_eq!(input, want);
    let view = g.view();
    assert_eq!(view.cells.len(), 52);
    let c1 = view.cells.iter().find(|c| c.name == "c1").unwrap();
    assert_eq!((c1.col, c1.row, c1.mark.as_str()), (2.0, 7.0, "start-0"));
    assert_eq!(c1.pieces.len(), 3);
    assert_eq!(c1.pieces[2].label, "L");
}

#[test]
fn statement_shows_the_real_input_and_a_valid_position_text() {
    let g = fresh(2, false);
    let mut input = String::new();
    g.write_turn_input(true, &mut input);
    let shown: String = input.lines().take(14).map(|l| format!("{l}\n")).collect();
    assert!(
        INFO.statement.contains(&shown),
        "the statement's example input is out of date:\n{shown}"
    );
    let example = "1 0 3 c1:0S0M,d4:2S1L,e8:0S";
    assert!(INFO.statement.contains(&format!("`{example}`")));
    assert_eq!(pos(4, false, example).position_text(), example);
}
