//! Replay files: JSON lines, so a game can be read turn by turn, replayed through the rules, or
//! inspected with `jq`. A `start` line (game, seed, bots, opening, clocks), one `turn` line per
//! answered turn, and a `result` line with the verdict and each bot's stderr tail.

use crate::referee::{GameResult, RefereeConfig};
use serde_json::json;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub fn write(path: &Path, r: &GameResult, cfg: &RefereeConfig) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = BufWriter::new(File::create(path)?);
    let start = json!({
        "type": "start",
        "game": r.game,
        "seed": r.seed,
        "bots": r.bots,
        "opening": r.opening,
        "first_turn_ms": cfg.time.first_turn.as_millis() as u64,
        "turn_ms": cfg.time.turn.as_millis() as u64,
        "grace_ms": cfg.time.grace.as_millis() as u64,
        "strikes": cfg.time.strikes,
        "clock": cfg.time.clock,
        "max_turns": cfg.max_turns,
    });
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
            "strike": t.late,
            "extra_lines": t.extra_lines,
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
        "removed": r.removed,
        "stats": r.stats,
        "stderr_tail": r.stderr_tails,
        "stderr_bytes": r.stderr_bytes,
    });
    serde_json::to_writer(&mut out, &end)?;
    writeln!(out)?;
    out.flush()
}
