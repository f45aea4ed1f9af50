//! The toolkit reads back what the games themselves write, turn after turn, for each seat; the
//! search finds known best moves.

use super::mcts::{rank_values, Config, Search, Stop};
use super::nim::{self, Nim};
use super::{BotError, TurnReader};
use crate::game::standard::{self, InputError, Intro};
use crate::game::{Game, Outcome, Setup};
use crate::rng::Rng;
use std::io::Cursor;

/// The intro line of the registry, plus the test game.
fn intro_with_nim(line: &str) -> Result<Intro, InputError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if let [seat, seats, "nim", "standard"] = words[..] {
        let (seat, seats) = (seat.parse().unwrap(), seats.parse().unwrap());
        return Ok(Intro {
            seat,
            seats,
            info: &nim::INFO,
            setup: Setup {
                seats,
                variant: "standard",
                seed: 0,
            },
        });
    }
    standard::parse_intro(line)
}

/// What a turn should read back as.
struct Expected {
    position: String,
    moves: Vec<String>,
    since: Vec<(usize, String)>,
    turns_played: u32,
}

/// Plays a random game of `start` and returns each seat's whole input stream and the turns it
/// should read from it.
fn streams(start: Box<dyn Game>, seed: u64, max_turns: u32) -> Vec<(String, Vec<Expected>)> {
    let seats = start.seats();
    let mut per_seat: Vec<(String, Vec<Expected>)> =
        (0..seats).map(|_| (String::new(), Vec::new())).collect();
    let mut game = start;
    let mut rng = Rng::new(seed);
    let mut played: Vec<(usize, String)> = Vec::new();
    let mut last_turn = vec![0usize; seats];
    for turn in 0..max_turns {
        if game.outcome().is_some() {
            break;
        }
        let seat = game.to_move();
        let (input, expected) = &mut per_seat[seat];
        game.write_turn_input(expected.is_empty(), input);
        expected.push(Expected {
            position: game.position_text(),
            moves: game.legal_moves().to_vec(),
            since: played[last_turn[seat]..].to_vec(),
            turns_played: turn,
        });
        let i = rng.below(game.legal_moves().len());
        played.push((seat, game.legal_moves()[i].clone()));
        last_turn[seat] = played.len();
        game.play(i);
    }
    per_seat
}

/// Reads every seat's stream back and compares each turn; `arena` games only report the last move.
fn check_reads_back(start: Box<dyn Game>, seed: u64, arena: bool) {
    let label = format!("{} x{} seed {seed}", start.name(), start.seats());
    for (seat, (input, expected)) in streams(start, seed, 250).into_iter().enumerate() {
        let mut reader = TurnReader::new(Cursor::new(input.into_bytes()));
        reader.parse_intro = intro_with_nim;
        for (k, want) in expected.iter().enumerate() {
            let turn = reader
                .next_turn()
                .unwrap_or_else(|e| panic!("{label} seat {seat} turn {k}: {e}"))
                .unwrap_or_else(|| panic!("{label} seat {seat}: input ended at turn {k}"));
            assert_eq!(turn.seat, seat, "{label}: seat");
            assert_eq!(turn.first, k == 0, "{label}: first turn flag");
            assert_eq!(turn.game.to_move(), seat, "{label}: seat to move");
            assert_eq!(
                turn.game.position_text(),
                want.position,
                "{label}: position"
            );
            assert_eq!(turn.moves, want.moves, "{label}: offered moves");
            assert_eq!(
                turn.game.legal_moves(),
                &want.moves[..],
                "{label}: the rebuilt position's moves"
            );
            assert_eq!(
                turn.turns_played, want.turns_played,
                "{label}: turns played"
            );
            let since = if arena {
                want.since.last().cloned().into_iter().collect()
            } else {
                want.since.clone()
            };
            assert_eq!(turn.since, since, "{label} turn {k}: moves since");
            for i in 0..turn.moves.len() {
                assert_eq!(turn.offered(i), Some(turn.moves[i].as_str()));
            }
        }
        assert!(
            reader.next_turn().unwrap().is_none(),
            "{label}: the end of input is the end of the game"
        );
    }
}

#[test]
fn reads_the_impasse_arena_format_for_both_colours() {
    for seed in 0..6 {
        check_reads_back(crate::game::new_game("impasse", 0).unwrap(), seed, true);
    }
}

#[test]
fn reads_the_standard_shape_for_any_number_of_seats() {
    for seats in 2..=4 {
        for seed in 0..6 {
            let setup = Setup {
                seats,
                variant: "standard",
                seed,
            };
            check_reads_back(nim::INFO.start(&setup), seed, false);
        }
    }
}

#[test]
fn reads_every_registered_game() {
    for info in crate::game::GAMES {
        for v in info.variants {
            for &seats in v.seats {
                let setup = Setup {
                    seats,
                    variant: v.name,
                    seed: 3,
                };
                check_reads_back(info.start(&setup), 3, info.name == "impasse");
            }
        }
    }
}

#[test]
fn the_end_of_input_between_turns_is_not_an_error_but_inside_one_is() {
    let mut reader = TurnReader::new(Cursor::new(Vec::new()));
    assert!(reader.next_turn().unwrap().is_none());

    let mut input = String::new();
    crate::game::new_game("impasse", 0)
        .unwrap()
        .write_turn_input(true, &mut input);
    let cut = input.lines().take(5).collect::<Vec<_>>().join("\n");
    let mut reader = TurnReader::new(Cursor::new(cut.into_bytes()));
    let err = reader.next_turn().unwrap_err();
    assert!(matches!(err, BotError::Truncated("the board")), "{err}");
}

#[test]
fn an_unknown_intro_or_a_bad_board_is_a_clear_error() {
    let mut reader = TurnReader::new(Cursor::new(b"0 2 chess standard\n".to_vec()));
    let err = reader.next_turn().unwrap_err().to_string();
    assert!(err.contains("unknown game 'chess'"), "{err}");

    let mut input = String::from("w\n");
    for _ in 0..8 {
        input.push_str("..x.....\n");
    }
    input.push_str("null\n0\n");
    let mut reader = TurnReader::new(Cursor::new(input.into_bytes()));
    let err = reader.next_turn().unwrap_err().to_string();
    assert!(err.contains("bad Impasse input"), "{err}");
}

#[test]
fn rank_values_are_linear_in_places_and_ties_share() {
    let mut v = Vec::new();
    rank_values(&Outcome::winner(2, 1), &mut v);
    assert_eq!(v, [0.0, 1.0]);
    rank_values(&Outcome::draw(2), &mut v);
    assert_eq!(v, [0.5, 0.5]);
    rank_values(&Outcome::winner(4, 2), &mut v);
    let want = [1.0 / 3.0, 1.0 / 3.0, 1.0, 1.0 / 3.0];
    assert!(
        v.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12),
        "{v:?}"
    );
    rank_values(&Outcome::from_values(&[5, 9, 5, 1]), &mut v);
    // Places: seat 1 first; seats 0 and 2 share places 1 and 2; seat 3 last.
    assert_eq!(v, [0.5, 1.0, 0.5, 0.0]);
    // Dense ranks read the same as competition ranks.
    rank_values(
        &Outcome {
            ranks: vec![1, 0, 1, 2],
        },
        &mut v,
    );
    assert_eq!(v, [0.5, 1.0, 0.5, 0.0]);
}

fn search_nim(seats: usize, pile: u32, to_move: usize, playouts: u64) -> usize {
    let game = Nim::new(seats, pile, to_move);
    let mut search = Search::new(Config::default(), 11);
    let choice = search.choose(&game, 100, Stop::Playouts(playouts));
    let lone = game.legal_moves().len() == 1;
    assert_eq!(choice.playouts, if lone { 0 } else { playouts });
    choice.index + 1
}

#[test]
fn the_search_finds_the_winning_take_at_two_seats() {
    // The seat to move wins by leaving a multiple of 4, from either seat.
    for pile in [5, 6, 7, 9, 10, 11, 13] {
        for to_move in 0..2 {
            let take = search_nim(2, pile, to_move, 4000);
            assert_eq!((pile - take as u32) % 4, 0, "pile {pile}: took {take}");
        }
    }
}

#[test]
fn the_search_takes_an_immediate_win_at_three_and_four_seats() {
    for (seats, to_move) in [(3, 2), (4, 1), (4, 3)] {
        for pile in 1..=3 {
            assert_eq!(search_nim(seats, pile, to_move, 500), pile as usize);
        }
    }
}

#[test]
fn the_search_of_a_lone_move_plays_it_at_once() {
    let game = Nim::new(3, 1, 0);
    let choice = Search::new(Config::default(), 1).choose(&game, 10, Stop::Playouts(100));
    assert_eq!((choice.index, choice.playouts), (0, 0));
}

#[test]
fn the_turn_limit_result_scores_a_capped_playout() {
    // With one turn left before the limit, and no move winning at once, every playout is a
    // draw: every move is worth a half.
    let game = Nim::new(2, 9, 0);
    let choice = Search::new(Config::default(), 5).choose(&game, 1, Stop::Playouts(300));
    assert_eq!(choice.value, 0.5);
}

#[test]
fn a_cut_playout_is_ranked_by_score_only_once_the_scores_differ() {
    // Nim scores only the winner, at the end: cut at once with ties and all, every playout that
    // does not win at once is a draw; playing on until the scores differ finds the real results.
    let game = Nim::new(2, 9, 0);
    let run = |until_scores_differ, playouts| {
        let config = Config {
            playout_plies: Some(0),
            until_scores_differ,
            first_play_urgency: None,
            ..Config::default()
        };
        Search::new(config, 3).choose(&game, 100, Stop::Playouts(playouts))
    };
    // Three playouts: one from each move, none of which wins at once.
    assert_eq!(run(false, 3).value, 0.5);
    let value = run(true, 3).value;
    assert!(value == 0.0 || value == 1.0, "{value}");
    // And the search still finds the winning take (leave 8).
    assert_eq!(run(true, 400).index + 1, 1);
}
