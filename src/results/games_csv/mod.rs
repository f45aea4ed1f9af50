//! `games.csv`: one row per finished game, appended and flushed the moment the game ends, so a
//! killed run loses nothing it finished; on resume, a torn last line is cut off and the ids of
//! recorded games are returned so they are not played again. A game the referee could not
//! play (`referee-error`) is not done: a resumed run plays it again and appends its row, which
//! supersedes the failed one for every reader ([`for_each_result`]); the failed row stays, so
//! nothing is ever rewritten.

use crate::referee::{GameResult, Reason};
use crate::tournament::GameSpec;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One row of games.csv: one finished game with k seats (seat 0 moved first).
///
/// The columns are `game_id,pair_id,seed,opening`, `bot0..bot{k-1}`, `winner` (the seat alone in
/// first place, else empty), `rank0..` (0 = first, equal = tie), `reason,turns`, `score0..` (the
/// record's scores: for Impasse the arena's, -1 for a forfeit), `game_score0..` (the game's own
/// score, for Impasse checkers removed), `max_ms0..`, `mean_ms0..`, `strikes0..`, `cpu_ms0..`
/// (mean CPU time per turn), `forfeits` (`seat:reason` for every forfeit, `;`-separated),
/// `moves_hash` (equal for games replayed move for move) and `detail`. For two seats every column of the files written before seats were counted is
/// still there with the same name.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub game_id: u64,
    pub pair_id: u64,
    pub seed: u64,
    /// The opening plies, space-separated.
    pub opening: String,
    pub bots: Vec<String>,
    pub winner: Option<u8>,
    pub ranks: Vec<u8>,
    pub reason: Reason,
    pub turns: u32,
    pub scores: Vec<i32>,
    pub game_scores: Vec<i32>,
    pub max_ms: Vec<f64>,
    pub mean_ms: Vec<f64>,
    pub strikes: Vec<u32>,
    pub cpu_ms: Vec<f64>,
    /// `(seat, reason)` of every forfeit, written `seat:reason;...`.
    pub forfeits: Vec<(usize, Reason)>,
    /// A hash of the opening and the moves (16 hex digits): equal for a game replayed move for
    /// move, which deterministic bots do.
    pub moves_hash: String,
    /// What a forfeiting bot did, or why the referee failed.
    pub detail: String,
}

/// FNV-1a over the opening and the moves, each followed by a newline: stable across versions
/// and platforms.
pub fn moves_hash(opening: &[String], moves: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for m in opening
        .iter()
        .chain(std::iter::once(&"|".to_string()))
        .chain(moves)
    {
        for b in m.bytes().chain(std::iter::once(b'\n')) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A name (a student's, a bot's) as a CSV cell that a spreadsheet shows as text, never runs as
/// a formula (OWASP's CSV-injection rule): a cell starting with `=`, `+`, `-`, `@`, a tab or a
/// carriage return gets a leading `'`; so does one that starts with `'` itself, so that
/// [`from_text_cell`] gives back every name exactly.
pub fn text_cell(name: &str) -> std::borrow::Cow<'_, str> {
    if name.starts_with(['=', '+', '-', '@', '\t', '\r', '\'']) {
        std::borrow::Cow::Owned(format!("'{name}"))
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// The name written as [`text_cell`].
pub fn from_text_cell(cell: &str) -> &str {
    cell.strip_prefix('\'').unwrap_or(cell)
}

/// Milliseconds with two decimals.
fn ms2(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}

impl GameRow {
    pub fn new(spec: &GameSpec, r: &GameResult) -> GameRow {
        GameRow {
            game_id: spec.game_id,
            pair_id: spec.pair_id,
            seed: spec.seed,
            opening: r.opening.join(" "),
            bots: r.bots.clone(),
            winner: r.winner.map(|w| w as u8),
            ranks: r.ranks.clone(),
            reason: r.reason,
            turns: r.turns,
            scores: r.scores.clone(),
            game_scores: r.game_scores.clone(),
            max_ms: r
                .stats
                .iter()
                .map(|s| ms2(s.max_us as f64 / 1000.0))
                .collect(),
            mean_ms: r.stats.iter().map(|s| ms2(s.mean_ms())).collect(),
            strikes: r.stats.iter().map(|s| s.strikes).collect(),
            cpu_ms: r.stats.iter().map(|s| ms2(s.cpu_mean_ms())).collect(),
            forfeits: r.forfeits.iter().map(|f| (f.seat, f.reason)).collect(),
            moves_hash: moves_hash(&r.opening, &r.moves),
            detail: r.detail.clone(),
        }
    }

    /// The header of a file of `seats`-seat games.
    pub fn header(seats: usize) -> Vec<String> {
        let per = |name: &'static str| (0..seats).map(move |i| format!("{name}{i}"));
        let mut h: Vec<String> = ["game_id", "pair_id", "seed", "opening"]
            .map(String::from)
            .into();
        h.extend(per("bot"));
        h.push("winner".into());
        h.extend(per("rank"));
        h.push("reason".into());
        h.push("turns".into());
        for name in [
            "score",
            "game_score",
            "max_ms",
            "mean_ms",
            "strikes",
            "cpu_ms",
        ] {
            h.extend(per(name));
        }
        h.push("forfeits".into());
        h.push("moves_hash".into());
        h.push("detail".into());
        h
    }

    fn record(&self) -> Vec<String> {
        fn all<T: ToString>(v: &[T]) -> impl Iterator<Item = String> + '_ {
            v.iter().map(T::to_string)
        }
        let mut f = vec![
            self.game_id.to_string(),
            self.pair_id.to_string(),
            self.seed.to_string(),
            self.opening.clone(),
        ];
        f.extend(self.bots.iter().map(|b| text_cell(b).into_owned()));
        f.push(self.winner.map_or(String::new(), |w| w.to_string()));
        f.extend(all(&self.ranks));
        f.push(self.reason.to_string());
        f.push(self.turns.to_string());
        f.extend(all(&self.scores));
        f.extend(all(&self.game_scores));
        f.extend(all(&self.max_ms));
        f.extend(all(&self.mean_ms));
        f.extend(all(&self.strikes));
        f.extend(all(&self.cpu_ms));
        f.push(
            self.forfeits
                .iter()
                .map(|(seat, reason)| format!("{seat}:{reason}"))
                .collect::<Vec<_>>()
                .join(";"),
        );
        f.push(self.moves_hash.clone());
        f.push(self.detail.clone());
        f
    }
}

impl GameRow {
    /// The row in the two-seat columns of files written before seats were counted:
    /// `game_id,pair_id,seed,opening,bot0,bot1,winner,reason,turns,score0,score1,removed0,
    /// removed1,max_ms0,max_ms1,mean_ms0,mean_ms1,strikes0,strikes1,cpu_ms0,cpu_ms1,detail`.
    fn legacy_record(&self) -> Vec<String> {
        let two = |v: Vec<String>| v.into_iter().take(2);
        let s = |v: &[f64]| v.iter().map(f64::to_string).collect::<Vec<_>>();
        let mut f = vec![
            self.game_id.to_string(),
            self.pair_id.to_string(),
            self.seed.to_string(),
            self.opening.clone(),
        ];
        f.extend(self.bots.iter().take(2).map(|b| text_cell(b).into_owned()));
        f.push(self.winner.map_or(String::new(), |w| w.to_string()));
        f.push(self.reason.to_string());
        f.push(self.turns.to_string());
        f.extend(two(self.scores.iter().map(i32::to_string).collect()));
        f.extend(two(self.game_scores.iter().map(i32::to_string).collect()));
        f.extend(two(s(&self.max_ms)));
        f.extend(two(s(&self.mean_ms)));
        f.extend(two(self.strikes.iter().map(u32::to_string).collect()));
        f.extend(two(s(&self.cpu_ms)));
        f.push(self.detail.clone());
        f
    }
}

/// How many `bot0, bot1, ...` columns a header has.
fn seat_columns(headers: &csv::StringRecord) -> usize {
    (0..)
        .take_while(|i| headers.iter().any(|h| h == format!("bot{i}")))
        .count()
}

/// An open games.csv, appended to row by row.
pub struct GamesCsv {
    file: File,
    path: PathBuf,
    row: Vec<u8>,
    seats: usize,
    /// A file written before seats were counted: rows keep its columns.
    legacy: bool,
}

impl GamesCsv {
    /// Opens (creating if needed) `path` for games of `seats` seats; returns it with the ids of
    /// the games already recorded, less those the referee could not play (`referee-error`
    /// only: played again). A last line without its newline (a write cut by a kill) is
    /// removed first. Rows are streamed: memory does not grow with the file beyond one bit per
    /// game id. Files written before seats were counted (two seats) are continued as they are.
    pub fn open(path: &Path, seats: usize) -> io::Result<(GamesCsv, DoneSet)> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)?;
        let keep = complete_length(&mut file)?;
        if keep < file.metadata()?.len() {
            file.set_len(keep)?;
        }
        let mut done = DoneSet::default();
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let mut legacy = false;
        if keep == 0 {
            let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
            w.write_record(GameRow::header(seats))?;
            file.write_all(&w.into_inner().map_err(|e| bad(e.to_string()))?)?;
        } else {
            file.seek(SeekFrom::Start(0))?;
            let mut reader = csv::Reader::from_reader(BufReader::new((&file).take(keep)));
            let headers = reader.headers()?.clone();
            let found = seat_columns(&headers);
            if found != seats {
                return Err(bad(format!(
                    "{} holds games of {found} seats, not {seats}; use another results folder",
                    path.display()
                )));
            }
            legacy = !headers.iter().any(|h| h == "rank0");
            let id_col = headers
                .iter()
                .position(|h| h == "game_id")
                .ok_or_else(|| bad(format!("{}: no game_id column", path.display())))?;
            let reason_col = headers.iter().position(|h| h == "reason");
            for (i, rec) in reader.records().enumerate() {
                let rec = rec.map_err(|e| {
                    bad(format!(
                        "{}: row {} is not a games.csv row: {e}",
                        path.display(),
                        i + 2
                    ))
                })?;
                let id = rec
                    .get(id_col)
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| {
                        bad(format!("{}: row {} has no game id", path.display(), i + 2))
                    })?;
                let reason = reason_col
                    .and_then(|c| rec.get(c))
                    .filter(|r| !r.is_empty())
                    .map(Reason::parse)
                    .transpose()
                    .map_err(|e| bad(format!("{}: row {}: {e}", path.display(), i + 2)))?;
                if reason != Some(Reason::RefereeError) {
                    done.insert(id);
                }
            }
        }
        file.seek(SeekFrom::End(0))?;
        Ok((
            GamesCsv {
                file,
                path: path.to_path_buf(),
                row: Vec::with_capacity(512),
                seats,
                legacy,
            },
            done,
        ))
    }

    /// Appends one row in a single write.
    pub fn append(&mut self, row: &GameRow) -> io::Result<()> {
        if row.bots.len() != self.seats {
            return Err(io::Error::other(format!(
                "a game of {} seats in a file of {}-seat games",
                row.bots.len(),
                self.seats
            )));
        }
        self.row.clear();
        {
            let mut w = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(&mut self.row);
            if self.legacy {
                w.write_record(row.legacy_record())?;
            } else {
                w.write_record(row.record())?;
            }
            w.flush()?;
        }
        self.file.write_all(&self.row)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The length of `file` up to and including its last newline (a torn last line excluded).
pub fn complete_length(file: &mut File) -> io::Result<u64> {
    let len = file.metadata()?.len();
    let mut end = len;
    let mut chunk = [0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let n = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk[..n])?;
        if let Some(p) = chunk[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(start + p as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Ids of recorded games, one bit each (ids are dense from 0).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DoneSet {
    bits: Vec<u64>,
    count: usize,
}

impl DoneSet {
    pub fn insert(&mut self, id: u64) {
        let (word, bit) = ((id / 64) as usize, id % 64);
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        if self.bits[word] & (1 << bit) == 0 {
            self.bits[word] |= 1 << bit;
            self.count += 1;
        }
    }

    pub fn remove(&mut self, id: u64) {
        if self.contains(id) {
            self.bits[(id / 64) as usize] &= !(1 << (id % 64));
            self.count -= 1;
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        let (word, bit) = ((id / 64) as usize, id % 64);
        self.bits.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

mod read;
mod set_aside;
pub use read::{
    drop_games_of, for_each_result, read_results, try_for_each_result, ReadError, ReadSummary,
    ResultRow,
};
pub use set_aside::{set_aside, SetAside};

#[cfg(test)]
mod tests;
