//! Replay files: JSON lines, so a game can be read turn by turn, replayed through the rules, or
//! inspected with `jq`. A `start` line (game, seed, bots, opening, clocks), one `turn` line per
//! answered turn, and a `result` line with the verdict and each bot's stderr tail.

use crate::referee::GameChoice;
use crate::referee::{GameResult, Reason, RefereeConfig};
use crate::results::records::{Clocks, GameRecord, RecordForfeit};
use serde_json::{json, Value};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub fn write(
    path: &Path,
    r: &GameResult,
    cfg: &RefereeConfig,
    choice: &GameChoice,
) -> io::Result<()> {
    write_typed(path, r, cfg, choice, None)
}

/// The bots as the user typed them (`arbiter play`'s BOT arguments), the folder they were typed
/// in and the build cache: a replay file keeps them so that its page can show a source bot's
/// paths into the build cache as the path the user gave (see [`super::html::origins`]).
pub struct Typed<'a> {
    pub bots: &'a [String],
    pub workdir: &'a Path,
    pub cache: &'a Path,
}

/// [`write()`], with the bots as typed (`arbiter play --replay`).
pub fn write_typed(
    path: &Path,
    r: &GameResult,
    cfg: &RefereeConfig,
    choice: &GameChoice,
    typed: Option<Typed>,
) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = BufWriter::new(File::create(path)?);
    let start = json!({
        "type": "start",
        "game": r.game,
        "variant": choice.variant(),
        "seats": choice.seats(),
        "position": choice.position(),
        "seed": r.seed,
        "bots": r.bots,
        "opening": r.opening,
        "first_turn_ms": cfg.time.first_turn.as_millis() as u64,
        "turn_ms": cfg.time.turn.as_millis() as u64,
        "grace_ms": cfg.time.grace.as_millis() as u64,
        "strikes": cfg.time.strikes,
        "clock": cfg.time.clock,
        "max_turns": cfg.max_turns,
        "referee": choice
            .referee()
            .map(|e| e.spec.command_line())
            .or_else(|| choice.sdk_game().map(|g| g.launcher.describe(g))),
    });
    let mut start = start;
    if let Some(t) = typed {
        start["typed"] = json!({
            "bots": t.bots,
            "workdir": t.workdir.display().to_string(),
            "cache": t.cache.display().to_string(),
        });
    }
    serde_json::to_writer(&mut out, &start)?;
    writeln!(out)?;
    for t in &r.log {
        let line = json!({
            "type": "turn",
            "turn": t.turn,
            "seat": t.seat,
            "input": t.input,
            "answer": t.answer,
            "comment": t.comment,
            "played": t.played,
            "time_us": t.time_us,
            "cpu_us": t.cpu_us,
            "waited_us": t.waited_us,
            "stolen_us": t.stolen_us,
            "strike": t.late,
            "extra_lines": t.extra_lines,
            "stderr": t.stderr,
        });
        serde_json::to_writer(&mut out, &line)?;
        writeln!(out)?;
    }
    let end = json!({
        "type": "result",
        "winner": r.winner,
        "ranks": r.ranks,
        "reason": r.reason,
        "detail": r.detail,
        "offender": r.offender,
        "forfeits": r.forfeits,
        "turns": r.turns,
        "scores": r.scores,
        "removed": r.game_scores,
        "stats": r.stats,
        "stderr_tail": r.stderr_tails,
        "stderr_bytes": r.stderr_bytes,
        // An SDK game's frames, turns and parameters (as records keep them).
        "sdk": r.sdk,
    });
    serde_json::to_writer(&mut out, &end)?;
    writeln!(out)?;
    out.flush()
}

/// Why a replay file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReplayFileError {
    #[error("reading {path}: {source}")]
    Io { path: String, source: io::Error },
    #[error("{path}: line {line} is not JSON: {source}")]
    Json {
        path: String,
        line: usize,
        source: serde_json::Error,
    },
    #[error(
        "{path}: not a replay file (written by `arbiter play {}`): {why}",
        crate::options::Opt::Replay
    )]
    Shape { path: String, why: String },
}

/// Reads a replay file back into a game record (the inputs it holds are rebuilt by the rules
/// like every record's). Files from before the variant was written get the game's first
/// variant and one seat per bot.
pub fn read(path: &Path) -> Result<GameRecord, ReplayFileError> {
    parse(path).map(|(rec, _)| rec)
}

/// The record and the file's start line (which keeps the bots as typed, for showing paths as
/// the user gave them: `crate::report::html::origins::read_shown`).
pub fn parse(path: &Path) -> Result<(GameRecord, Value), ReplayFileError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ReplayFileError::Io {
        path: name.clone(),
        source,
    })?;
    let shape = |why: &str| ReplayFileError::Shape {
        path: name.clone(),
        why: why.to_string(),
    };
    let mut lines = Vec::new();
    for (i, l) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value = serde_json::from_str(l).map_err(|source| ReplayFileError::Json {
            path: name.clone(),
            line: i + 1,
            source,
        })?;
        lines.push(v);
    }
    let start = lines
        .iter()
        .find(|v| v["type"] == "start")
        .ok_or_else(|| shape("no start line"))?;
    let end = lines
        .iter()
        .find(|v| v["type"] == "result")
        .ok_or_else(|| shape("no result line (the game did not finish?)"))?;
    let str_of = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let reason = |v: &Value| -> Result<Reason, ReplayFileError> {
        Reason::parse(v.as_str().unwrap_or_default()).map_err(|e| shape(&format!("reason: {e}")))
    };
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().map(str_of).collect())
            .unwrap_or_default()
    };
    let game = str_of(&start["game"]);
    // An external referee's game has no rules here: its record keeps the inputs instead.
    let referee = start["referee"].as_str().map(str::to_string);
    // The variant of a start line without one: the game's default (the referee's own).
    let default_variant = match &referee {
        Some(_) => crate::referee::EXTERNAL_VARIANT,
        None => {
            crate::game::find(&game)
                .map_err(|e| shape(&e.to_string()))?
                .variants[0]
                .name
        }
    };
    let bots = strings(&start["bots"]);
    let ms = |v: &Value| v.as_u64().unwrap_or(0) * 1000;
    let mut rec = GameRecord {
        game_id: 0,
        pair_id: 0,
        game,
        variant: start["variant"]
            .as_str()
            .unwrap_or(default_variant)
            .to_string(),
        seats: start["seats"].as_u64().map_or(bots.len(), |n| n as usize),
        seed: start["seed"].as_u64().unwrap_or(0),
        position: start["position"].as_str().map(str::to_string),
        clocks: Clocks {
            first_turn_us: ms(&start["first_turn_ms"]),
            turn_us: ms(&start["turn_ms"]),
            grace_us: ms(&start["grace_ms"]),
            strikes: start["strikes"].as_u64().unwrap_or(0) as u32,
            clock: start["clock"].as_str().unwrap_or("wall").to_string(),
            max_turns: start["max_turns"].as_u64().unwrap_or(0) as u32,
        },
        bots,
        opening: strings(&start["opening"]),
        moves: Vec::new(),
        seat: Vec::new(),
        wall_us: Vec::new(),
        cpu_us: Vec::new(),
        waited_us: Vec::new(),
        stolen_us: Vec::new(),
        late: Vec::new(),
        comments: Vec::new(),
        answers: Vec::new(),
        extra_lines: Vec::new(),
        turn_stderr: Vec::new(),
        reason: reason(&end["reason"])?,
        detail: str_of(&end["detail"]),
        ranks: end["ranks"]
            .as_array()
            .map(|a| a.iter().map(|r| r.as_u64().unwrap_or(0) as u8).collect())
            .unwrap_or_default(),
        scores: end["scores"]
            .as_array()
            .map(|a| a.iter().map(|r| r.as_i64().unwrap_or(0) as i32).collect())
            .unwrap_or_default(),
        forfeits: end["forfeits"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|f| {
                        Ok(RecordForfeit {
                            seat: f["seat"].as_u64().unwrap_or(0) as usize,
                            reason: reason(&f["reason"])?,
                            detail: str_of(&f["detail"]),
                            turn: f["turn"].as_u64().unwrap_or(0) as u32,
                            exit: serde_json::from_value(f["exit"].clone()).ok(),
                        })
                    })
                    .collect::<Result<Vec<_>, ReplayFileError>>()
            })
            .transpose()?
            .unwrap_or_default(),
        offender: end["offender"].as_u64().map(|s| s as usize),
        stderr: strings(&end["stderr_tail"])
            .into_iter()
            .map(|t| crate::results::records::tail(&t, crate::results::records::STDERR_KEEP))
            .collect(),
        stderr_bytes: end["stderr_bytes"]
            .as_array()
            .map(|a| a.iter().map(|b| b.as_u64().unwrap_or(0)).collect())
            .unwrap_or_default(),
        duration_ms: 0,
        external: None,
    };
    for (i, t) in lines.iter().filter(|v| v["type"] == "turn").enumerate() {
        let i = i as u32;
        let played = str_of(&t["played"]);
        let comment = str_of(&t["comment"]);
        let answer = str_of(&t["answer"]);
        rec.seat.push(t["seat"].as_u64().unwrap_or(0) as u8);
        rec.wall_us.push(t["time_us"].as_u64().unwrap_or(0));
        rec.cpu_us.push(t["cpu_us"].as_u64().unwrap_or(0));
        if rec.clocks.clock == "fair" {
            rec.waited_us.push(t["waited_us"].as_u64().unwrap_or(0));
            // Replays older than the steal's excuse have none.
            match t["stolen_us"].as_u64() {
                Some(us) if us > 0 => rec.stolen_us.push((i, us)),
                _ => {}
            }
        }
        if t["strike"].as_bool() == Some(true) {
            rec.late.push(i);
        }
        let plain = if comment.is_empty() {
            played.clone()
        } else {
            format!("{played} {comment}")
        };
        if answer != plain {
            rec.answers.push((i, answer));
        }
        if !comment.is_empty() {
            rec.comments.push((i, comment));
        }
        if let Some(n) = t["extra_lines"].as_u64().filter(|&n| n > 0) {
            rec.extra_lines.push((i, n as usize));
        }
        if let Some(e) = t["stderr"].as_str().filter(|e| !e.is_empty()) {
            rec.turn_stderr.push((i, e.to_string()));
        }
        rec.moves.push(played);
    }
    if let Some(referee) = referee {
        // The referee's stderr tail follows the bots'.
        let stderr = rec.stderr.split_off(rec.stderr.len().min(rec.bots.len()));
        rec.external = Some(crate::results::records::ExternalRecord {
            referee,
            inputs: lines
                .iter()
                .filter(|v| v["type"] == "turn")
                .map(|t| str_of(&t["input"]))
                .collect(),
            stderr: stderr.concat(),
            sdk: serde_json::from_value(end["sdk"].clone()).ok(),
        });
    }
    let start = start.clone();
    Ok((rec, start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::records::tests::simulate;

    /// The game's own scores keep the key replay files have always had (`removed`), and a file
    /// written before the field was renamed reads back the same.
    #[test]
    fn own_scores_are_written_as_removed_and_old_files_read_back() {
        let choice = GameChoice::new("impasse", None, Some(2), None).unwrap();
        let mut r = simulate(&choice, 5, 2, None);
        (r.scores, r.game_scores) = (vec![-1, 0], vec![3, 5]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.jsonl");
        write(&path, &r, &RefereeConfig::default(), &choice).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let end: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(end["type"], "result");
        assert_eq!(end["removed"], json!([3, 5]));
        assert!(end.get("game_scores").is_none(), "{end}");
        let now = read(&path).unwrap();
        assert_eq!(now.scores, [-1, 0]);

        // The result line as replay files before the rename hold it.
        let old_end = r#"{"type":"result","winner":null,"ranks":[0,0],"reason":"turn-limit","detail":"","offender":null,"forfeits":[],"turns":6,"scores":[-1,0],"removed":[3,5],"stats":[],"stderr_tail":["",""],"stderr_bytes":[0,0]}"#;
        let mut lines: Vec<&str> = text.lines().collect();
        *lines.last_mut().unwrap() = old_end;
        let old = dir.path().join("old.jsonl");
        std::fs::write(&old, lines.join("\n") + "\n").unwrap();
        let back = read(&old).unwrap();
        assert_eq!(
            (back.scores.clone(), back.moves.clone()),
            (now.scores, now.moves)
        );
    }
}
