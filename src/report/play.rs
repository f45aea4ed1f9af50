//! The summary of one game, for people (`arbiter play`) or for scripts (`--json`).

#[cfg(doc)]
use crate::referee::GameChoice;
use crate::referee::{ms, GameResult};
use crate::results::failures::{last_lines, STDERR_BYTES, STDERR_LINES};
use serde_json::json;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

/// Who played, who won and why, turns, scores, each bot's clock, and where the replay is.
/// `own_scores` names what the game's own scores count ([`GameChoice::own_scores`]: `None` for
/// an external referee's game, whatever name its referee gives the game).
pub fn human(
    out: &mut impl Write,
    r: &GameResult,
    own_scores: Option<&str>,
    replay: Option<&Path>,
) -> io::Result<()> {
    // An SDK game tells the seed it played (a `seed=` game parameter stands for the table's).
    let game_seed = r.sdk.as_ref().and_then(|log| {
        log.params
            .iter()
            .find_map(|p| p.strip_prefix("seed="))
            .map(str::to_string)
    });
    match game_seed {
        Some(seed) if seed != r.seed.to_string() => writeln!(
            out,
            "{} game, seed {seed} (the game's; arbiter's table seed {})",
            r.game, r.seed
        )?,
        _ => writeln!(out, "{} game, seed {}", r.game, r.seed)?,
    }
    for (seat, name) in r.bots.iter().enumerate() {
        writeln!(out, "  seat {seat}: {name}")?;
    }
    // A bot named like another (the same program in both seats) is told apart by its seat.
    let name = |seat: usize| {
        let bot = &r.bots[seat];
        if r.bots.iter().filter(|b| *b == bot).count() > 1 {
            format!("{bot} (seat {seat})")
        } else {
            bot.clone()
        }
    };
    if r.bots.len() > 2 {
        let mut order: Vec<usize> = (0..r.bots.len()).collect();
        order.sort_by_key(|&s| r.ranks[s]);
        let places: Vec<String> = order
            .iter()
            .map(|&s| format!("{}. {} (seat {s})", r.ranks[s] + 1, r.bots[s]))
            .collect();
        writeln!(out, "Ranking ({}): {}", r.reason, places.join(", "))?;
        players_out(out, r)?;
    } else {
        match (r.winner, r.offender) {
            (Some(w), Some(o)) => writeln!(
                out,
                "Result: {} wins; {} loses by {}: {}",
                name(w),
                name(o),
                r.reason,
                r.detail
            )?,
            (Some(w), None) if r.detail.is_empty() => {
                writeln!(out, "Result: {} wins ({})", name(w), r.reason)?
            }
            // The game's own words on the players (an SDK game's verdict).
            (Some(w), None) => {
                writeln!(out, "Result: {} wins ({}): {}", name(w), r.reason, r.detail)?
            }
            (None, Some(o)) => writeln!(
                out,
                "Result: {} loses by {}: {}",
                name(o),
                r.reason,
                r.detail
            )?,
            (None, None) if r.detail.is_empty() => writeln!(out, "Result: draw ({})", r.reason)?,
            (None, None) => writeln!(out, "Result: draw ({}): {}", r.reason, r.detail)?,
        }
        // Two players out together: each forfeit is told, as in a game of more.
        if r.offender.is_none() {
            players_out(out, r)?;
        }
    }
    // An SDK game counts its own turns (every player answers a turn together in many).
    match r.sdk.as_ref().map(|log| log.turns).filter(|&t| t > 0) {
        Some(turns) => writeln!(out, "Turns: {turns} game turns ({} answers)", r.turns)?,
        None => writeln!(out, "Turns: {}", r.turns)?,
    }
    // An external referee's game has no scores of its own: its line would read "0 - 0".
    match own_score_name(r, own_scores) {
        None if own_scores.is_none() && r.scores.iter().all(|&s| s == 0) => {}
        // An SDK game's own scores are what it ranked by: first.
        Some(_) if r.sdk.is_some() => writeln!(
            out,
            "Scores: {} (the game's; arbiter's record: {})",
            list(&r.game_scores),
            list(&r.scores)
        )?,
        Some(name) => writeln!(
            out,
            "Scores: {} ({name}: {})",
            list(&r.scores),
            list(&r.game_scores)
        )?,
        None => writeln!(out, "Scores: {}", list(&r.scores))?,
    }
    for (seat, s) in r.stats.iter().enumerate() {
        writeln!(
            out,
            "  {}: {} answers, mean {}, max {}, {} late; CPU mean {}, max {}",
            name(seat),
            s.turns,
            ms(Duration::from_micros(
                s.total_us / u64::from(s.turns.max(1))
            )),
            ms(Duration::from_micros(s.max_us)),
            s.strikes,
            ms(Duration::from_micros(
                s.cpu_total_us / u64::from(s.turns.max(1))
            )),
            ms(Duration::from_micros(s.cpu_max_us))
        )?;
    }
    for f in &r.forfeits {
        let tail = last_lines(&r.stderr_tails[f.seat], STDERR_LINES, STDERR_BYTES);
        if tail.is_empty() {
            writeln!(out, "{} wrote nothing to stderr.", r.bots[f.seat])?;
        } else {
            writeln!(out, "Last lines {} wrote to stderr:", r.bots[f.seat])?;
            for line in tail.lines() {
                writeln!(out, "  | {}", crate::protocol::printable(line))?;
            }
        }
    }
    if let Some(path) = replay {
        writeln!(out, "Replay: {}", path.display())?;
    }
    Ok(())
}

/// Each player out of the game on the way: when, and why.
fn players_out(out: &mut impl Write, r: &GameResult) -> io::Result<()> {
    for f in &r.forfeits {
        writeln!(
            out,
            "  {} (seat {}) was out at turn {} by {}: {}",
            r.bots[f.seat], f.seat, f.turn, f.reason, f.detail
        )?;
    }
    Ok(())
}

/// The name of the game's own scores ([`crate::game::GameInfo::score_name`]) when the summary
/// should show them: they differ from the record's scores (Impasse's checkers removed after a
/// forfeit, which the arena records as -1 and 0). `None` for an external referee's game, whose
/// only scores are the record's, even when its referee calls it by a built-in game's name.
fn own_score_name<'a>(r: &GameResult, own_scores: Option<&'a str>) -> Option<&'a str> {
    own_scores.filter(|_| r.game_scores != r.scores)
}

fn list(v: &[i32]) -> String {
    v.iter().map(i32::to_string).collect::<Vec<_>>().join(" - ")
}

/// One JSON object: winner, reason, detail, turns, scores, seed, and per bot the clock figures.
pub fn json(out: &mut impl Write, r: &GameResult) -> io::Result<()> {
    let bots: Vec<_> = r
        .bots
        .iter()
        .zip(&r.stats)
        .map(|(name, s)| {
            json!({
                "name": name,
                "turns": s.turns,
                "max_ms": s.max_ms(),
                "mean_ms": s.mean_ms(),
                "cpu_max_ms": s.cpu_max_ms(),
                "cpu_mean_ms": s.cpu_mean_ms(),
                "strikes": s.strikes,
                "waited_max_ms": s.waited_max_us as f64 / 1000.0,
                "waited_total_ms": s.waited_total_us as f64 / 1000.0,
                "starved_turns": s.starved_turns,
            })
        })
        .collect();
    let v = json!({
        "game": r.game,
        "winner": r.winner,
        "ranks": r.ranks,
        "reason": r.reason,
        "detail": r.detail,
        "offender": r.offender,
        "forfeits": r.forfeits.iter().map(|f| json!({
            "seat": f.seat,
            "reason": f.reason,
            "detail": f.detail,
            "turn": f.turn,
            "stderr_tail": last_lines(&r.stderr_tails[f.seat], STDERR_LINES, STDERR_BYTES),
        })).collect::<Vec<_>>(),
        "turns": r.turns,
        "scores": r.scores,
        "removed": r.game_scores,
        "seed": r.seed,
        "opening": r.opening,
        "bots": bots,
        "moves": r.moves,
    });
    serde_json::to_writer(&mut *out, &v)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::GameChoice;
    use crate::results::records::tests::simulate;

    /// A finished game of `name` whose record scores are `scores` and own scores `own`.
    fn result(name: &str, scores: [i32; 2], own: [i32; 2]) -> GameResult {
        let choice = GameChoice::new(name, None, Some(2), None).unwrap();
        let mut r = simulate(&choice, 5, 2, None);
        (r.scores, r.game_scores) = (scores.to_vec(), own.to_vec());
        r
    }

    fn summary(r: &GameResult) -> String {
        let choice = GameChoice::new(&r.game, None, Some(2), None).unwrap();
        summary_of(r, &choice)
    }

    fn summary_of(r: &GameResult, choice: &GameChoice) -> String {
        let mut out = Vec::new();
        human(&mut out, r, choice.own_scores(), None).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_summary_names_the_games_own_scores_when_they_differ_from_the_records() {
        let text = summary(&result("impasse", [-1, 0], [3, 5]));
        assert!(
            text.contains("Scores: -1 - 0 (checkers removed: 3 - 5)\n"),
            "{text}"
        );
        let text = summary(&result("attraktion", [0, 0], [1, 1]));
        assert!(
            text.contains("Scores: 0 - 0 (winning shapes: 1 - 1)\n"),
            "{text}"
        );
        // Equal scores are said once.
        let text = summary(&result("impasse", [12, 7], [12, 7]));
        assert!(text.contains("Scores: 12 - 7\n"), "{text}");
        // An external referee's game has only the record's, whatever its name.
        for name in ["my-referee", "impasse"] {
            let referee = crate::referee::external::External {
                name: name.into(),
                spec: crate::bot::BotSpec::command(name, "/bin/true", Vec::new(), "."),
                seed: false,
                message_limit: crate::referee::external::DEFAULT_MESSAGE_LIMIT,
            };
            let external = GameChoice::external(referee, 2).unwrap();
            let mut r = result("impasse", [-1, 0], [0, 0]);
            r.game = name.into();
            let text = summary_of(&r, &external);
            assert!(text.contains("Scores: -1 - 0\n"), "{text}");
        }
    }

    #[test]
    fn json_keeps_the_own_scores_under_removed() {
        let mut out = Vec::new();
        json(&mut out, &result("impasse", [-1, 0], [3, 5])).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["removed"], serde_json::json!([3, 5]));
        assert_eq!(v["scores"], serde_json::json!([-1, 0]));
    }
}
