//! `records.jsonl`: one compact line per finished game, so that any game of a tournament can be
//! watched later. Only what the rules cannot give back is kept (the setup, the moves, each
//! turn's clock and comment, the verdict and the stderr tails); the positions and the exact
//! inputs are rebuilt by replaying the moves through the rules (see [`crate::results::rebuild`]).
//! Appended and flushed per game like games.csv; a torn last line is cut on resume and skipped
//! by readers.

use crate::bot::ExitKind;
use crate::referee::GameChoice;
use crate::referee::{GameResult, Reason, RefereeConfig};
use crate::tournament::GameSpec;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The file name inside a results folder.
pub const FILE: &str = "records.jsonl";

/// At most this many bytes of each bot's stderr tail are kept in a record.
pub const STDERR_KEEP: usize = 2048;

/// The clocks a game was played with, for showing each turn's time against its limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    pub first_turn_us: u64,
    pub turn_us: u64,
    pub grace_us: u64,
    pub strikes: u32,
    /// `fair`, `wall` or `cpu`.
    pub clock: String,
    pub max_turns: u32,
}

impl Clocks {
    pub fn of(cfg: &RefereeConfig) -> Clocks {
        Clocks {
            first_turn_us: cfg.time.first_turn.as_micros() as u64,
            turn_us: cfg.time.turn.as_micros() as u64,
            grace_us: cfg.time.grace.as_micros() as u64,
            strikes: cfg.time.strikes,
            clock: cfg.time.clock.as_str().into(),
            max_turns: cfg.max_turns,
        }
    }
}

/// A forfeit as the record keeps it: the verdict as a [`Reason`] (its text form on disk), the
/// sentence as shown, and how the bot's process ended where it ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordForfeit {
    pub seat: usize,
    pub reason: Reason,
    pub detail: String,
    /// The game's turn number (opening plies included) at which it happened.
    pub turn: u32,
    /// How the bot's process ended (`{"signal":11}`, `{"status":3}`), for a forfeit by its end;
    /// absent for a verdict on a running bot and in records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitKind>,
}

/// One finished game. Per-turn facts are columns indexed like `moves` (the bots' moves, after
/// the opening); rare facts are sparse `(index, value)` lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub game_id: u64,
    pub pair_id: u64,
    pub game: String,
    pub variant: String,
    pub seats: usize,
    pub seed: u64,
    /// The start position's text when the run gave one (`--position`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    pub bots: Vec<String>,
    pub clocks: Clocks,
    /// Plies the referee played before the bots took over.
    pub opening: Vec<String>,
    pub moves: Vec<String>,
    /// The seat that played each move.
    pub seat: Vec<u8>,
    /// Wall and CPU time of each move in microseconds (empty when the turns were not kept).
    pub wall_us: Vec<u64>,
    pub cpu_us: Vec<u64>,
    /// Waiting for a CPU in each move, in microseconds, not charged by the fair clock (empty on
    /// other clocks, or when the turns were not kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waited_us: Vec<u64>,
    /// Time the hypervisor took from the bot's CPUs (steal) in a move, in microseconds, not
    /// charged by the fair clock: (move index, microseconds) for the moves that had any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stolen_us: Vec<(u32, u64)>,
    /// Indices of late answers (strikes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub late: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<(u32, String)>,
    /// The raw answer line where it was not just the move and its comment (`random`, odd spaces).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<(u32, String)>,
    /// Lines left over from earlier answers when the turn's input was sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_lines: Vec<(u32, usize)>,
    /// What the bot wrote to stderr during each move's turn (since its previous turn; the
    /// last [`crate::referee::TURN_STDERR_BYTES`] of it), for the moves where it wrote any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turn_stderr: Vec<(u32, String)>,
    pub reason: Reason,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    pub ranks: Vec<u8>,
    pub scores: Vec<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<RecordForfeit>,
    /// The seat whose forfeit ended the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offender: Option<usize>,
    /// The last [`STDERR_KEEP`] bytes of each bot's stderr, and how many bytes it wrote in all.
    pub stderr: Vec<String>,
    pub stderr_bytes: Vec<u64>,
    pub duration_ms: u64,
    /// An external referee's game only (see [`ExternalRecord`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalRecord>,
}

/// What the record of an external referee's game keeps besides the common part, which the rules
/// cannot give back: `moves` holds each answer (its lines joined by newlines), and here are the
/// input each answer was given and the referee's own stderr.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExternalRecord {
    /// The referee's command line.
    pub referee: String,
    /// The input sent with each answer, indexed like `moves` (empty when the turns were not
    /// kept).
    pub inputs: Vec<String>,
    /// The last [`STDERR_KEEP`] bytes of the referee's stderr.
    pub stderr: String,
    /// A CodinGame SDK game's frames: its summaries, tooltips and views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk: Option<crate::referee::sdk::record::SdkLog>,
}

/// The last `keep` bytes of `text`, cut at a character boundary.
pub fn tail(text: &str, keep: usize) -> String {
    let mut start = text.len().saturating_sub(keep);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
}

impl GameRecord {
    /// The record of a finished game. The per-turn columns come from `r.log`, so the referee
    /// must have kept the turns (`RefereeConfig::record_turns`); without them only the moves are
    /// kept.
    pub fn new(
        spec: &GameSpec,
        choice: &GameChoice,
        cfg: &RefereeConfig,
        r: &GameResult,
    ) -> GameRecord {
        let mut rec = GameRecord {
            game_id: spec.game_id,
            pair_id: spec.pair_id,
            game: choice.name().to_string(),
            variant: choice.variant().to_string(),
            seats: choice.seats(),
            seed: r.seed,
            position: choice.position().map(str::to_string),
            bots: r.bots.clone(),
            clocks: Clocks::of(cfg),
            opening: r.opening.clone(),
            moves: r.moves.clone(),
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
            reason: r.reason,
            detail: r.detail.clone(),
            ranks: r.ranks.clone(),
            scores: r.scores.clone(),
            forfeits: r
                .forfeits
                .iter()
                .map(|f| RecordForfeit {
                    seat: f.seat,
                    reason: f.reason,
                    detail: f.detail.clone(),
                    turn: f.turn,
                    exit: f.exit,
                })
                .collect(),
            offender: r.offender,
            stderr: r
                .stderr_tails
                .iter()
                .map(|t| tail(t, STDERR_KEEP))
                .collect(),
            stderr_bytes: r.stderr_bytes.clone(),
            duration_ms: r.duration.as_millis() as u64,
            external: None,
        };
        let referee = match (choice.referee(), choice.sdk_game()) {
            (Some(referee), _) => Some(referee.spec.command_line()),
            (None, Some(sdk)) => Some(sdk.launcher.describe(sdk)),
            (None, None) => None,
        };
        if let Some(referee) = referee {
            // The referee's stderr tail follows the bots' in the result.
            let referee_stderr = rec.stderr.split_off(rec.stderr.len().min(r.bots.len()));
            rec.external = Some(ExternalRecord {
                referee,
                inputs: if r.log.len() == r.moves.len() {
                    r.log.iter().map(|t| t.input.clone()).collect()
                } else {
                    Vec::new()
                },
                stderr: referee_stderr.concat(),
                sdk: r.sdk.as_deref().cloned(),
            });
        }
        if r.log.len() == r.moves.len() {
            for (i, t) in r.log.iter().enumerate() {
                let i = i as u32;
                rec.seat.push(t.seat as u8);
                rec.wall_us.push(t.time_us);
                rec.cpu_us.push(t.cpu_us);
                if cfg.time.clock == crate::referee::Clock::Fair {
                    rec.waited_us.push(t.waited_us);
                    if t.stolen_us > 0 {
                        rec.stolen_us.push((i, t.stolen_us));
                    }
                }
                if t.late {
                    rec.late.push(i);
                }
                if !t.comment.is_empty() {
                    rec.comments.push((i, t.comment.clone()));
                }
                if !crate::protocol::is_plain_answer(
                    t.answer.trim_end_matches(['\r', '\n']),
                    &t.played,
                    &t.comment,
                ) {
                    rec.answers.push((i, t.answer.clone()));
                }
                if t.extra_lines > 0 {
                    rec.extra_lines.push((i, t.extra_lines));
                }
                if !t.stderr.is_empty() {
                    rec.turn_stderr.push((i, t.stderr.clone()));
                }
            }
        }
        rec
    }

    /// The comment of move `i`, empty for none.
    pub fn comment(&self, i: usize) -> &str {
        sparse(&self.comments, i).map_or("", String::as_str)
    }

    /// The answer line of move `i` when the record keeps it (it was more than the move and its
    /// comment).
    pub fn kept_answer(&self, i: usize) -> Option<&str> {
        sparse(&self.answers, i).map(String::as_str)
    }

    /// The answer line of move `i` as the bot wrote it.
    pub fn answer(&self, i: usize) -> String {
        if let Some(a) = sparse(&self.answers, i) {
            return a.clone();
        }
        match self.comment(i) {
            "" => self.moves[i].clone(),
            c => format!("{} {c}", self.moves[i]),
        }
    }

    /// What the bot wrote to stderr during move `i`'s turn, empty for nothing.
    pub fn turn_stderr(&self, i: usize) -> &str {
        sparse(&self.turn_stderr, i).map_or("", String::as_str)
    }

    /// Whether move `i` came after the limit (a strike).
    pub fn is_late(&self, i: usize) -> bool {
        self.late.binary_search(&(i as u32)).is_ok()
    }

    /// One line of JSON (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a record always serialises")
    }
}

/// The value of move `i` in a sparse list, which holds moves in order (as [`GameRecord::new`]
/// writes them): found by halving, so that a page of a game whose bot comments or writes to
/// stderr every turn does not scan the list once a move.
fn sparse<T>(list: &[(u32, T)], i: usize) -> Option<&T> {
    let i = u32::try_from(i).ok()?;
    list.binary_search_by_key(&i, |(j, _)| *j)
        .ok()
        .map(|k| &list[k].1)
}

/// An open records.jsonl, appended to game by game.
pub struct RecordsFile {
    file: File,
    line: Vec<u8>,
}

impl RecordsFile {
    /// Opens (creating if needed) `path` for appending; a last line without its newline (a
    /// write cut by a kill) is removed first.
    pub fn open(path: &Path) -> io::Result<RecordsFile> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        let keep = super::games_csv::complete_length(&mut file)?;
        if keep < file.metadata()?.len() {
            file.set_len(keep)?;
        }
        file.seek(SeekFrom::End(0))?;
        Ok(RecordsFile {
            file,
            line: Vec::with_capacity(4096),
        })
    }

    /// Appends one record in a single write.
    pub fn append(&mut self, rec: &GameRecord) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, rec).map_err(io::Error::other)?;
        self.line.push(b'\n');
        self.file.write_all(&self.line)
    }
}

/// What reading records found besides the games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadRecords {
    pub records: u64,
    /// Lines that are not records (a torn last line of a run still writing, or damage).
    pub skipped: u64,
}

/// Streams the records of `path` into `each`, in file order. A missing file has no records.
/// Lines that do not parse are skipped and counted, so a run still writing (or killed in a
/// write) never stops a report.
pub fn for_each_record(path: &Path, mut each: impl FnMut(GameRecord)) -> io::Result<ReadRecords> {
    let mut summary = ReadRecords::default();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(summary),
        Err(e) => return Err(e),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.by_ref().read_until(b'\n', &mut line)? == 0 {
            break;
        }
        match serde_json::from_slice::<GameRecord>(&line) {
            Ok(rec) => {
                summary.records += 1;
                each(rec);
            }
            Err(_) => summary.skipped += 1,
        }
    }
    Ok(summary)
}

/// The records of the folders, the last one of each game id per folder kept (a game recorded
/// again after a kill between games.csv and this file), with the folder each came from.
pub fn read_folders(dirs: &[PathBuf]) -> io::Result<(Vec<(usize, GameRecord)>, ReadRecords)> {
    let mut all = Vec::new();
    let mut total = ReadRecords::default();
    for (d, dir) in dirs.iter().enumerate() {
        let mut here: std::collections::BTreeMap<u64, GameRecord> = Default::default();
        let s = for_each_record(&dir.join(FILE), |r| {
            here.insert(r.game_id, r);
        })?;
        total.records += s.records;
        total.skipped += s.skipped;
        all.extend(here.into_values().map(|r| (d, r)));
    }
    Ok((all, total))
}

#[cfg(test)]
pub(crate) mod tests;
