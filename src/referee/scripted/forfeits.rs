//! A forfeit scores what each game's statement says: every built-in game, variant and seat
//! count played through the referee, one scripted seat crashing early or near the end, the
//! record's scores checked against the rule its statement writes out.

use super::*;
use crate::game::{GameInfo, GAMES};

/// How a game's record scores a forfeit, as its statement says it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rule {
    /// -1 for the forfeiter, every other seat its own score (every built-in game but two).
    KeepOwn,
    /// The CodinGame arena's: -1 for the forfeiter, 0 for the other.
    Arena,
    /// FMJD game points: 0 for the forfeiter, 2 for the other.
    GamePoints,
}

/// The rule of `game`'s `variant` and the words its statement says it with.
fn rule_of(game: &str, variant: &str) -> (Rule, &'static str) {
    match (game, variant) {
        ("impasse", "arena") => (
            Rule::Arena,
            "a forfeit scores -1 in the record for the player who forfeits and 0 for the other",
        ),
        ("draughts", _) => (
            Rule::GamePoints,
            "A forfeit is a loss: it scores 0 for the player who forfeits and 2 for the other",
        ),
        _ => (
            Rule::KeepOwn,
            "A forfeit scores -1 in the record for the player who forfeits; every other player \
             keeps its own score",
        ),
    }
}

/// The part of `info`'s statement about `variant`, its words separated by single spaces: the
/// variant's own section (`# Variant `NAME``) where it has one, else the game's main text.
fn statement_of(info: &GameInfo, variant: &str) -> String {
    let text = info.statement;
    let own = format!("# Variant `{variant}`");
    let part = match text.find(&own) {
        Some(at) => {
            let rest = &text[at + own.len()..];
            &rest[..rest.find("\n# Variant ").unwrap_or(rest.len())]
        }
        None => &text[..text.find("\n# Variant ").unwrap_or(text.len())],
    };
    part.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A game of `info`'s `variant` for `seats` seats with `seed`, every seat answering `random`,
/// but `crasher` (if any) exits before answering its own turn `turn` (from 1).
fn play(
    info: &GameInfo,
    variant: &str,
    seats: usize,
    seed: u64,
    crasher: Option<(usize, usize)>,
) -> GameResult {
    let (info, setup) = game::lookup(info.name, Some(variant), Some(seats), 0).unwrap();
    let mut scripted: Vec<Scripted> = (0..seats)
        .map(|seat| match crasher {
            Some((s, turn)) if s == seat => {
                let mut script = vec![answer(1, "random"); turn - 1];
                script.push(Act::Exit {
                    after: Duration::from_millis(1),
                    code: 3,
                });
                Scripted::new(script, Act::Silent)
            }
            _ => Scripted::new(vec![], answer(1, "random")),
        })
        .collect();
    let names: Vec<String> = (0..seats).map(|i| format!("s{i}")).collect();
    let cfg = RefereeConfig {
        max_turns: info.default_max_turns,
        ..cfg()
    };
    play_seats(
        info.start(&setup),
        &[],
        &names,
        &mut scripted,
        &cfg,
        seed,
        Instant::now(),
    )
}

/// The scores `rule` gives a game that ended as `r` did: forfeiters by the rule, the others
/// their own scores (or the rule's fixed score for the other seat).
fn expected(rule: Rule, r: &GameResult) -> Vec<i32> {
    let forfeited = |s: usize| r.forfeits.iter().any(|f| f.seat == s);
    (0..r.ranks.len())
        .map(|s| match (rule, forfeited(s)) {
            (Rule::KeepOwn | Rule::Arena, true) => -1,
            (Rule::GamePoints, true) => 0,
            (Rule::KeepOwn, false) => r.game_scores[s],
            (Rule::Arena, false) => 0,
            (Rule::GamePoints, false) => 2,
        })
        .collect()
}

/// What a seat that did not forfeit scores under the arena's rule (its own score under
/// [`Rule::KeepOwn`]) or the FMJD's: a case in which its own score differs tells the rules apart.
fn fixed(rule: Rule) -> i32 {
    match rule {
        Rule::KeepOwn | Rule::Arena => 0,
        Rule::GamePoints => 2,
    }
}

#[test]
fn a_forfeit_scores_what_each_games_statement_says_in_every_game_variant_and_seat_count() {
    let mut played = 0;
    for info in GAMES {
        for variant in info.variants {
            let (rule, words) = rule_of(info.name, variant.name);
            let statement = statement_of(info, variant.name);
            assert!(
                statement.contains(words),
                "{} {}: the statement does not say \"{words}\"",
                info.name,
                variant.name
            );
            for &seats in variant.seats {
                played += 1;
                let what = format!("{} {} ({seats} seats)", info.name, variant.name);
                // Whether a case told the rules apart (see `fixed`).
                let mut told = false;
                for seed in 1..=6 {
                    let whole = play(info, variant.name, seats, seed, None);
                    assert!(whole.forfeits.is_empty(), "{what}: {}", whole.detail);
                    let own_turns = (whole.turns as usize / seats).max(2);
                    for crasher in [0, seats - 1] {
                        for turn in [1, own_turns - 1] {
                            let r = play(info, variant.name, seats, seed, Some((crasher, turn)));
                            let case = format!(
                                "{what}, seed {seed}, seat {crasher} crashing at its own turn \
                                 {turn}: {r:?}"
                            );
                            assert!(
                                r.forfeits
                                    .iter()
                                    .any(|f| f.seat == crasher && f.reason == Reason::Crash),
                                "{case}"
                            );
                            assert_eq!(r.scores, expected(rule, &r), "{case}");
                            // A forfeiter scores below every seat ranked above it that did not
                            // forfeit, and every seat that did not forfeit ranks above it.
                            for f in &r.forfeits {
                                for s in
                                    (0..seats).filter(|&s| r.forfeits.iter().all(|g| g.seat != s))
                                {
                                    assert!(r.ranks[s] < r.ranks[f.seat], "{case}");
                                    assert!(r.scores[s] > r.scores[f.seat], "{case}");
                                    told |= r.game_scores[s] != fixed(rule);
                                }
                            }
                        }
                    }
                    if told {
                        break;
                    }
                }
                // Attraktion goes on only while both seats have as many winning shapes, which
                // random play leaves at 0 each: there the forfeiter's -1 alone is checked.
                assert!(
                    told || info.name == "attraktion",
                    "{what}: in no case did a seat that did not forfeit have a score of its own \
                     other than {}, so the case cannot tell the rules apart",
                    fixed(rule)
                );
            }
        }
    }
    // Every variant and seat count of the eight games (14 when this was written).
    assert!(played >= 14, "{played} variant and seat counts");
}
