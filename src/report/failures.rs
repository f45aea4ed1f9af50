//! `failures/` in a results folder: for every forfeit of a tournament, what the bot did and the
//! last lines it wrote to stderr, so that a student sees why a bot lost without replay files.

use crate::referee::GameResult;
use crate::report::play::{last_lines, STDERR_BYTES, STDERR_LINES};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file of one forfeit: `failures/game-ID-BOT.txt`.
pub fn path(dir: &Path, game_id: u64, bot: &str) -> PathBuf {
    let safe: String = bot
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join("failures")
        .join(format!("game-{game_id}-{safe}.txt"))
}

/// Writes one file per forfeit of the game (nothing when no bot forfeited).
pub fn write(dir: &Path, game_id: u64, r: &GameResult) -> io::Result<()> {
    for f in &r.forfeits {
        let path = path(dir, game_id, &r.bots[f.seat]);
        std::fs::create_dir_all(path.parent().expect("a folder"))?;
        let mut out = io::BufWriter::new(std::fs::File::create(&path)?);
        writeln!(
            out,
            "game {game_id}, seed {}: {} in seat {}",
            r.seed, r.bots[f.seat], f.seat
        )?;
        writeln!(out, "lost by {}: {}", f.reason, f.detail)?;
        let tail = last_lines(&r.stderr_tails[f.seat], STDERR_LINES, STDERR_BYTES);
        if tail.is_empty() {
            writeln!(out, "it wrote nothing to stderr")?;
        } else {
            writeln!(out, "last lines it wrote to stderr:")?;
            for line in tail.lines() {
                writeln!(out, "  | {line}")?;
            }
        }
        out.flush()?;
    }
    Ok(())
}
