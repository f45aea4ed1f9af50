//! The checks every registered game and variant must pass, so that a new game is registered once
//! and held to the same invariants as the others: random playouts end within the turn limit,
//! every listed move can be played, the legal list is empty only at the end, move texts are unique
//! (Impasse's arena format excepted), the turn input follows its documented shape and reads back
//! to the same legal list, the position text round-trips, outcomes rank every seat, a view
//! written over an earlier one equals a new one, replaying the moves reproduces the game, and
//! every seat has a colour of its own.

use super::standard::{parse_input, parse_intro};
use super::{BoardView, CellShape, CellView, Game, GameInfo, PieceView, Setup, GAMES};
use crate::rng::Rng;

/// Every (game, setup) the registry offers.
fn setups() -> Vec<(&'static GameInfo, Setup)> {
    let mut all = Vec::new();
    for info in GAMES {
        for v in info.variants {
            for &seats in v.seats {
                all.push((
                    *info,
                    Setup {
                        seats,
                        variant: v.name,
                        seed: 7,
                    },
                ));
            }
        }
    }
    all
}

/// Playouts per setup; each checks every turn, so this is enough to reach most rules.
const PLAYOUTS: u64 = 12;

/// Plays one random game from the start, checking every turn; returns the moves played and the
/// final position.
fn playout(info: &'static GameInfo, setup: &Setup, seed: u64) -> (Vec<usize>, Box<dyn Game>) {
    let label = format!(
        "{} {}x{} seed {seed}",
        info.name, setup.variant, setup.seats
    );
    let mut game = info.start(setup);
    assert_eq!(game.seats(), setup.seats, "{label}: seats");
    assert_eq!(game.variant(), setup.variant, "{label}: variant");
    assert_eq!(game.name(), info.name, "{label}: name");
    // One colour a seat, each named differently, so the replay's pieces and legend tell seats apart.
    let colours = game.seat_colours();
    assert_eq!(colours.len(), setup.seats, "{label}: seat colours");
    for (i, c) in colours.iter().enumerate() {
        assert!(
            colours[..i]
                .iter()
                .all(|d| d.name != c.name && d.fill != c.fill),
            "{label}: seat {i}'s colour repeats an earlier seat's: {colours:?}"
        );
    }
    let mut rng = Rng::new(seed);
    let mut first = vec![true; setup.seats];
    let mut played = Vec::new();
    // A view to be written over: more cells, pieces and notes than any game's, and names,
    // marks and labels to be replaced, as a replay's view of another game would hold.
    let mut reused = BoardView {
        shape: CellShape::Point,
        cells: vec![
            CellView {
                name: "stale-name".into(),
                col: -1.0,
                row: -1.0,
                mark: "stale-mark".into(),
                pieces: vec![
                    PieceView {
                        seat: 9,
                        label: "stale".into(),
                    };
                    3
                ],
            };
            128
        ],
        notes: vec!["stale note".into(); 5],
        diagonals: true,
    };
    // Only the arena's Impasse keeps the CodinGame input and its duplicate move texts.
    let standard = !(info.name == "impasse" && setup.variant == "arena");
    for turn in 0..info.default_max_turns {
        if let Some(outcome) = game.outcome() {
            assert_eq!(outcome.ranks.len(), setup.seats, "{label}: ranks per seat");
            // A draw (every seat shares first place) names the rule that drew it, and only a draw.
            let drawn = outcome.ranks.iter().all(|&r| r == 0);
            assert_eq!(
                game.draw_rule().is_some(),
                drawn,
                "{label}: draw rule {:?} for ranks {:?}",
                game.draw_rule(),
                outcome.ranks
            );
            assert!(
                game.legal_moves().is_empty(),
                "{label}: moves listed after the end"
            );
            return (played, game);
        }
        let moves = game.legal_moves().to_vec();
        assert!(
            !moves.is_empty(),
            "{label} turn {turn}: no legal move but no outcome:\n{}",
            game.describe()
        );
        let seat = game.to_move();
        assert!(seat < setup.seats, "{label}: seat {seat} to move");
        if standard {
            let mut sorted = moves.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), moves.len(), "{label}: duplicate move texts");
            for m in &moves {
                assert!(
                    !m.is_empty() && !m.contains(char::is_whitespace) && m != "random",
                    "{label}: move text {m:?} must be one word and not `random`"
                );
            }
        }
        // The position text reads back to the same position and the same legal list.
        let text = game.position_text();
        assert!(!text.contains('\n'), "{label}: position text has a newline");
        let back = info
            .position(setup, &text)
            .unwrap_or_else(|e| panic!("{label}: position text {text:?} does not read back: {e}"));
        assert_eq!(
            back.position_text(),
            text,
            "{label}: position text round trip"
        );
        assert_eq!(
            back.to_move(),
            seat,
            "{label}: side to move after round trip"
        );
        if standard {
            assert_eq!(
                back.legal_moves(),
                &moves[..],
                "{label}: legal list after round trip"
            );
        }
        // The turn input follows the documented shape and reads back to the same list.
        let mut input = String::new();
        let first_turn = std::mem::replace(&mut first[seat], false);
        game.write_turn_input(first_turn, &mut input);
        assert!(input.ends_with('\n'), "{label}: input ends with a newline");
        if standard {
            let mut lines = input.lines();
            if first_turn {
                let intro = parse_intro(lines.next().expect("intro line"))
                    .unwrap_or_else(|e| panic!("{label}: intro: {e}\n{input}"));
                assert_eq!(intro.seat, seat, "{label}: intro seat");
                assert_eq!(intro.setup.variant, setup.variant);
            }
            let turn = parse_input(info, setup, &mut lines)
                .unwrap_or_else(|e| panic!("{label}: input does not parse: {e}\n{input}"));
            assert_eq!(turn.moves, moves, "{label}: legal list in the input");
            assert!(
                lines.next().is_none(),
                "{label}: lines after the legal list"
            );
            assert!(
                turn.since.iter().all(|(s, _)| *s < setup.seats),
                "{label}: seats in the history"
            );
        }
        let view = game.view();
        assert!(!view.cells.is_empty(), "{label}: the view has cells");
        game.view_into(&mut reused);
        assert_eq!(reused, view, "{label}: a view written over the one before");
        let i = rng.below(moves.len());
        played.push(i);
        game.play(i);
    }
    (played, game)
}

#[test]
fn random_playouts_keep_every_invariant() {
    for (info, setup) in setups() {
        let mut finished = 0;
        for seed in 0..PLAYOUTS {
            let (moves, game) = playout(info, &setup, seed);
            finished += u32::from(game.outcome().is_some());
            // Replaying the same indices reproduces the same position.
            let mut again = info.start(&setup);
            for &i in &moves {
                again.play(i);
            }
            assert_eq!(
                again.position_text(),
                game.position_text(),
                "{}: replay",
                info.name
            );
            let ranks = game
                .outcome()
                .unwrap_or_else(|| game.outcome_at_turn_limit())
                .ranks;
            assert_eq!(ranks.len(), setup.seats);
            assert!(ranks.iter().all(|&r| (r as usize) < setup.seats));
        }
        assert!(
            finished > 0,
            "{} {}: no random playout of {PLAYOUTS} ended by the rules within {} turns",
            info.name,
            setup.variant,
            info.default_max_turns
        );
    }
}

#[test]
fn every_game_has_a_statement_that_documents_its_input() {
    for info in GAMES {
        assert!(
            info.statement.len() > 400,
            "{}: statement too short",
            info.name
        );
        for word in ["Input", "Position text"] {
            assert!(
                info.statement.contains(word),
                "{}: statement lacks a section on {word}",
                info.name
            );
        }
        assert!(!info.variants.is_empty());
        assert!(info.variants.iter().all(|v| !v.seats.is_empty()));
    }
}

#[test]
fn every_standard_statement_states_its_board_line_count() {
    for (info, setup) in setups() {
        if info.name == "impasse" && setup.variant == "arena" {
            continue;
        }
        let mut board = String::new();
        info.start(&setup).write_board(&mut board);
        let count = format!("`{}`", board.lines().count());
        assert!(
            info.statement.contains("number of board lines") && info.statement.contains(&count),
            "{} {}: the statement does not give the board line count {count}",
            info.name,
            setup.variant
        );
    }
}

#[test]
fn registry_names_are_unique_and_lookup_validates() {
    let mut names: Vec<_> = GAMES.iter().map(|g| g.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), GAMES.len());
    assert!(super::lookup("no-such-game", None, None, 0).is_err());
    assert!(super::lookup("impasse", Some("nope"), None, 0).is_err());
    assert!(super::lookup("impasse", None, Some(3), 0).is_err());
    let (_, setup) = super::lookup("impasse", None, None, 0).unwrap();
    assert_eq!(setup.seats, 2);
}

#[test]
fn bundled_bots_say_which_games_they_play_by_their_registry_names() {
    let bots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bots");
    let names: Vec<&str> = GAMES.iter().map(|g| g.name).collect();
    for entry in std::fs::read_dir(&bots).unwrap() {
        let dir = entry.unwrap().path();
        let text = std::fs::read_to_string(dir.join("bot.toml")).unwrap();
        let toml: toml::Value = toml::from_str(&text).unwrap();
        let games: Vec<&str> = toml["games"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no games list", dir.display()))
            .iter()
            .map(|g| g.as_str().unwrap())
            .collect();
        for g in &games {
            assert!(names.contains(g), "{}: unknown game {g}", dir.display());
        }
        // The botkit bots play every game; the Impasse bots only Impasse.
        let name = toml["name"].as_str().unwrap();
        match name {
            "first" | "random" | "mcts" => assert_eq!(games, names, "{name}"),
            _ => assert_eq!(games, ["impasse"], "{name}"),
        }
    }
}
