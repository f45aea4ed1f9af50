//! `failures/` in a results folder: for every forfeit of a tournament, what the bot did and the
//! last lines it wrote to stderr, so that a student sees why a bot lost without replay files.

use crate::referee::GameResult;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How much of an offender's stderr a summary shows.
pub const STDERR_LINES: usize = 15;
pub const STDERR_BYTES: usize = 4096;

/// The last `lines` lines of `text`, at most `bytes` bytes (cut at a character boundary).
pub fn last_lines(text: &str, lines: usize, bytes: usize) -> &str {
    let text = text.trim_end();
    let mut start = text.len();
    for _ in 0..lines {
        match text[..start].rfind('\n') {
            Some(i) => start = i,
            None => {
                start = 0;
                break;
            }
        }
    }
    let mut from = if start == 0 { 0 } else { start + 1 };
    if text.len() - from > bytes {
        from = text.len() - bytes;
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    &text[from..]
}

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

/// Writes one file per forfeit of the game (nothing when no bot forfeited). A forfeit of a seat
/// the game does not have (a result no referee made) is a seat without a name or a stderr here,
/// never a panic: the league checks results before they come here, and a recorder that stops
/// stops a league.
pub fn write(dir: &Path, game_id: u64, r: &GameResult) -> io::Result<()> {
    for f in &r.forfeits {
        let seat_name = format!("seat-{}", f.seat);
        let bot = r.bots.get(f.seat).unwrap_or(&seat_name);
        let path = path(dir, game_id, bot);
        std::fs::create_dir_all(path.parent().expect("a folder"))?;
        let mut out = io::BufWriter::new(std::fs::File::create(&path)?);
        writeln!(
            out,
            "game {game_id}, seed {}: {} in seat {}",
            r.seed, bot, f.seat
        )?;
        writeln!(out, "lost by {}: {}", f.reason, f.detail)?;
        let stderr = r.stderr_tails.get(f.seat).map_or("", String::as_str);
        let tail = last_lines(stderr, STDERR_LINES, STDERR_BYTES);
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

#[cfg(test)]
mod tests {
    use super::last_lines;

    #[test]
    fn last_lines_are_bounded_by_count_and_bytes() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(last_lines(text, 2, 100), "c\nd");
        assert_eq!(last_lines(text, 10, 100), "a\nb\nc\nd");
        assert_eq!(last_lines("xxxxé", 1, 2), "é");
        assert_eq!(last_lines("", 3, 10), "");
    }
}
