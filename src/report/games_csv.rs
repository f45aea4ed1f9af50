//! `games.csv`: one row per finished game, appended and flushed the moment the game ends, so a
//! killed run loses nothing it finished; on resume, a torn last line is cut off and the ids of
//! recorded games are returned so they are not played again.

use crate::referee::GameResult;
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
    pub reason: String,
    pub turns: u32,
    pub scores: Vec<i32>,
    pub game_scores: Vec<i32>,
    pub max_ms: Vec<f64>,
    pub mean_ms: Vec<f64>,
    pub strikes: Vec<u32>,
    pub cpu_ms: Vec<f64>,
    pub forfeits: String,
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
            reason: r.reason.to_string(),
            turns: r.turns,
            scores: r.scores.clone(),
            game_scores: r.removed.clone(),
            max_ms: r
                .stats
                .iter()
                .map(|s| ms2(s.max_us as f64 / 1000.0))
                .collect(),
            mean_ms: r.stats.iter().map(|s| ms2(s.mean_ms())).collect(),
            strikes: r.stats.iter().map(|s| s.strikes).collect(),
            cpu_ms: r.stats.iter().map(|s| ms2(s.cpu_mean_ms())).collect(),
            forfeits: r
                .forfeits
                .iter()
                .map(|f| format!("{}:{}", f.seat, f.reason))
                .collect::<Vec<_>>()
                .join(";"),
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
        f.extend(self.bots.iter().cloned());
        f.push(self.winner.map_or(String::new(), |w| w.to_string()));
        f.extend(all(&self.ranks));
        f.push(self.reason.clone());
        f.push(self.turns.to_string());
        f.extend(all(&self.scores));
        f.extend(all(&self.game_scores));
        f.extend(all(&self.max_ms));
        f.extend(all(&self.mean_ms));
        f.extend(all(&self.strikes));
        f.extend(all(&self.cpu_ms));
        f.push(self.forfeits.clone());
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
        f.extend(self.bots.iter().take(2).cloned());
        f.push(self.winner.map_or(String::new(), |w| w.to_string()));
        f.push(self.reason.clone());
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
    /// the games already recorded. A last line without its newline (a write cut by a kill) is
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
                done.insert(id);
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
pub(crate) fn complete_length(file: &mut File) -> io::Result<u64> {
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

/// What ratings need of one game: the bots by seat and their ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    pub bots: Vec<String>,
    /// 0 = first; equal ranks tie.
    pub ranks: Vec<u8>,
    pub reason: Option<String>,
    pub pair_id: Option<u64>,
    pub game_id: Option<u64>,
    pub moves_hash: Option<String>,
    /// `(seat, reason)` of every forfeit of the game.
    pub forfeits: Vec<(usize, String)>,
}

impl ResultRow {
    /// The seat alone in first place, if any.
    pub fn winner(&self) -> Option<usize> {
        crate::game::Outcome {
            ranks: self.ranks.clone(),
        }
        .sole_winner()
    }
}

/// What reading result files found besides the games.
#[derive(Clone, Debug, Default)]
pub struct ReadSummary {
    /// Games passed on.
    pub games: u64,
    /// Rows skipped because their game id was already seen in the same file.
    pub duplicates: u64,
    /// Games the referee could not play (`referee-error`), skipped.
    pub referee_errors: u64,
    /// Files whose last line had no newline and was not a complete row (a run still writing).
    pub torn: Vec<PathBuf>,
}

/// The columns of one results file.
struct Columns {
    bots: Vec<usize>,
    ranks: Option<Vec<usize>>,
    winner: Option<usize>,
    reason: Option<usize>,
    pair_id: Option<usize>,
    game_id: Option<usize>,
    moves_hash: Option<usize>,
    forfeits: Option<usize>,
}

impl Columns {
    fn find(headers: &csv::StringRecord, path: &Path) -> anyhow::Result<Columns> {
        let col = |name: &str| headers.iter().position(|h| h == name);
        let seats = seat_columns(headers);
        let bots: Vec<usize> = (0..seats).filter_map(|i| col(&format!("bot{i}"))).collect();
        let ranks: Option<Vec<usize>> = (0..seats).map(|i| col(&format!("rank{i}"))).collect();
        let winner = col("winner");
        if seats < 2 || (ranks.is_none() && (winner.is_none() || seats != 2)) {
            anyhow::bail!(
                "{}: not a results file: need columns bot0, bot1, ... and rank0, rank1, ... \
                 (or, for two seats, bot0, bot1 and winner: 0, 1 or empty)",
                path.display()
            );
        }
        Ok(Columns {
            bots,
            ranks,
            winner,
            reason: col("reason"),
            pair_id: col("pair_id"),
            game_id: col("game_id"),
            moves_hash: col("moves_hash"),
            forfeits: col("forfeits"),
        })
    }

    fn read(&self, rec: &csv::StringRecord) -> Result<ResultRow, String> {
        let get = |i: usize| rec.get(i).unwrap_or("").trim();
        let bots: Vec<String> = self.bots.iter().map(|&i| get(i).to_string()).collect();
        if let Some(b) = bots.iter().find(|b| b.is_empty()) {
            let _ = b;
            return Err("a bot name is empty".into());
        }
        let ranks = match &self.ranks {
            Some(cols) => cols
                .iter()
                .map(|&i| {
                    get(i)
                        .parse::<u8>()
                        .ok()
                        .filter(|&r| (r as usize) < bots.len())
                        .ok_or_else(|| {
                            format!("rank {:?} is not a number below {}", get(i), bots.len())
                        })
                })
                .collect::<Result<Vec<u8>, String>>()?,
            None => match get(self.winner.expect("checked")) {
                "" => vec![0, 0],
                "0" => vec![0, 1],
                "1" => vec![1, 0],
                w => return Err(format!("winner {w:?}: expected 0, 1 or empty")),
            },
        };
        let opt = |c: Option<usize>| c.map(get).filter(|v| !v.is_empty());
        let number = |c: Option<usize>, what: &str| -> Result<Option<u64>, String> {
            opt(c)
                .map(|v| {
                    v.parse()
                        .map_err(|_| format!("{what} {v:?} is not a number"))
                })
                .transpose()
        };
        let reason = opt(self.reason).map(str::to_string);
        let forfeits = match opt(self.forfeits) {
            Some(list) => list
                .split(';')
                .map(|f| {
                    let (seat, why) = f.split_once(':').ok_or(())?;
                    let seat: usize = seat.parse().map_err(|_| ())?;
                    (seat < bots.len())
                        .then(|| (seat, why.to_string()))
                        .ok_or(())
                })
                .collect::<Result<Vec<_>, ()>>()
                .map_err(|()| format!("forfeits {list:?}: expected seat:reason;..."))?,
            // Files from before the column: a forfeit of a two-seat game is the loser's.
            None => match (&reason, ranks.as_slice()) {
                (Some(r), [a, b])
                    if crate::referee::Reason::parse(r).is_some_and(|r| r.is_forfeit())
                        && a != b =>
                {
                    vec![(usize::from(a < b), r.clone())]
                }
                _ => Vec::new(),
            },
        };
        Ok(ResultRow {
            bots,
            ranks,
            forfeits,
            reason,
            pair_id: number(self.pair_id, "pair_id")?,
            game_id: number(self.game_id, "game_id")?,
            moves_hash: opt(self.moves_hash).map(str::to_string),
        })
    }
}

/// Streams the games of one or more results files into `each`, skipping games the referee could
/// not play (`referee-error`) and rows repeating a game id already seen in the same file. A
/// finished file's last row counts even without its final newline; a last line that is not a
/// complete row (a run still writing) is skipped and reported.
pub fn for_each_result(
    paths: &[PathBuf],
    mut each: impl FnMut(ResultRow) -> anyhow::Result<()>,
) -> anyhow::Result<ReadSummary> {
    use anyhow::Context;
    let mut summary = ReadSummary::default();
    for path in paths {
        if path.is_dir() {
            anyhow::bail!(
                "{} is a folder; give its games.csv ({})",
                path.display(),
                path.join("games.csv").display()
            );
        }
        let mut file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
        let complete = complete_length(&mut file)?;
        let total = file.metadata()?.len();
        file.seek(SeekFrom::Start(0))?;
        let mut reader = csv::Reader::from_reader(BufReader::new(file));
        let headers = reader
            .headers()
            .with_context(|| format!("{}: not a CSV file", path.display()))?
            .clone();
        let cols = Columns::find(&headers, path)?;
        let mut seen = DoneSet::default();
        let mut rec = csv::StringRecord::new();
        let mut line = 1u64;
        loop {
            let more = reader.read_record(&mut rec);
            let in_torn_tail =
                rec.position().is_some_and(|p| p.byte() >= complete) && total > complete;
            let more = match more {
                Ok(more) => more,
                Err(_) if in_torn_tail => {
                    summary.torn.push(path.clone());
                    break;
                }
                Err(e) => return Err(anyhow::anyhow!("{}: row {}: {e}", path.display(), line + 1)),
            };
            if !more {
                break;
            }
            line += 1;
            let row = match cols.read(&rec) {
                Ok(row) => row,
                Err(_) if in_torn_tail => {
                    summary.torn.push(path.clone());
                    break;
                }
                Err(why) => anyhow::bail!("{}: row {line}: {why}", path.display()),
            };
            if let Some(id) = row.game_id {
                if seen.contains(id) {
                    summary.duplicates += 1;
                    continue;
                }
                seen.insert(id);
            }
            if row.reason.as_deref() == Some("referee-error") {
                summary.referee_errors += 1;
                continue;
            }
            summary.games += 1;
            each(row)?;
        }
    }
    Ok(summary)
}

/// All rating rows of the files, in memory (for tests and small inputs).
pub fn read_results(paths: &[PathBuf]) -> anyhow::Result<Vec<ResultRow>> {
    let mut rows = Vec::new();
    for_each_result(paths, |row| {
        rows.push(row);
        Ok(())
    })?;
    Ok(rows)
}

/// Rewrites the games.csv at `path` without the games that any bot in `drop` played (for a
/// re-run after some bots changed: their games are played again, the others kept). Returns the
/// ids of the games removed, with the bots of each. A missing file removes nothing.
pub fn drop_games_of(path: &Path, drop: &[String]) -> io::Result<Vec<(u64, Vec<String>)>> {
    if drop.is_empty() || !path.is_file() {
        return Ok(Vec::new());
    }
    let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    let headers = reader.headers()?.clone();
    let bots: Vec<usize> = (0..seat_columns(&headers))
        .filter_map(|i| headers.iter().position(|h| h == format!("bot{i}")))
        .collect();
    let id_col = headers
        .iter()
        .position(|h| h == "game_id")
        .ok_or_else(|| bad(format!("{}: no game_id column", path.display())))?;
    let tmp = path.with_extension("csv.tmp");
    let mut writer = csv::Writer::from_path(&tmp)?;
    writer.write_record(&headers)?;
    let mut dropped = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| bad(format!("{}: {e}", path.display())))?;
        if rec.len() != headers.len() {
            continue; // a torn last line: that game is played again
        }
        let names: Vec<String> = bots.iter().map(|&c| rec[c].to_string()).collect();
        if names.iter().any(|n| drop.contains(n)) {
            let id = rec[id_col].parse().unwrap_or(u64::MAX);
            dropped.push((id, names));
        } else {
            writer.write_record(&rec)?;
        }
    }
    writer.flush()?;
    drop_writer(writer)?;
    std::fs::rename(&tmp, path)?;
    Ok(dropped)
}

fn drop_writer(writer: csv::Writer<File>) -> io::Result<()> {
    let file = writer.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, seats: usize) -> GameRow {
        GameRow {
            game_id: id,
            pair_id: id / seats as u64,
            seed: 7,
            opening: "a1b2 c7d6".into(),
            bots: (0..seats)
                .map(|i| {
                    if i == 1 {
                        "y, with a comma".into()
                    } else {
                        format!("x{i}")
                    }
                })
                .collect(),
            winner: None,
            ranks: vec![0; seats],
            reason: "turn-limit".into(),
            turns: 250,
            scores: vec![0; seats],
            game_scores: vec![3; seats],
            max_ms: vec![1.5; seats],
            mean_ms: vec![0.5; seats],
            strikes: vec![0; seats],
            cpu_ms: vec![0.25; seats],
            forfeits: String::new(),
            moves_hash: "0123456789abcdef".into(),
            detail: String::new(),
        }
    }

    #[test]
    fn rows_round_trip_and_a_torn_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let (mut csv, done) = GamesCsv::open(&path, 2).unwrap();
        assert!(done.is_empty());
        csv.append(&row(0, 2)).unwrap();
        csv.append(&row(1, 2)).unwrap();
        drop(csv);
        // A kill in the middle of a write leaves a partial line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"2,1,7,a1b2,x,y,0,wi").unwrap();
        drop(f);
        // Readers skip the torn tail of a file still being written, and say so.
        let mut n = 0;
        let summary = for_each_result(std::slice::from_ref(&path), |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!((n, summary.torn.len()), (2, 1));
        let (mut csv, done) = GamesCsv::open(&path, 2).unwrap();
        assert_eq!(done.len(), 2);
        assert!(done.contains(0) && done.contains(1) && !done.contains(2));
        csv.append(&row(2, 2)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(text.starts_with("game_id,pair_id,seed,opening,bot0,bot1,winner,rank0,rank1,"));
        let rows = read_results(std::slice::from_ref(&path)).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].bots[1], "y, with a comma");
        assert_eq!(rows[0].winner(), None);
        let err = GamesCsv::open(&path, 4).err().unwrap().to_string();
        assert!(err.contains("games of 2 seats, not 4"), "{err}");
    }

    #[test]
    fn the_games_of_changed_bots_are_dropped_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let (mut csv, _) = GamesCsv::open(&path, 2).unwrap();
        for (id, a, b) in [
            (0, "ann", "bob"),
            (1, "bob", "ann"),
            (2, "ann", "cy"),
            (3, "cy", "bob"),
        ] {
            let mut r = row(id, 2);
            r.bots = vec![a.into(), b.into()];
            csv.append(&r).unwrap();
        }
        drop(csv);
        assert!(drop_games_of(&path, &[]).unwrap().is_empty());
        let dropped = drop_games_of(&path, &["cy".to_string()]).unwrap();
        assert_eq!(
            dropped,
            vec![
                (2, vec!["ann".to_string(), "cy".to_string()]),
                (3, vec!["cy".to_string(), "bob".to_string()])
            ]
        );
        let (_, done) = GamesCsv::open(&path, 2).unwrap();
        assert_eq!(done.len(), 2);
        assert!(done.contains(0) && done.contains(1) && !done.contains(2));
        assert!(!path.with_extension("csv.tmp").exists());
    }

    /// The header of games.csv files before seats were counted.
    const LEGACY: &str = "game_id,pair_id,seed,opening,bot0,bot1,winner,reason,turns,score0,score1,removed0,removed1,max_ms0,max_ms1,mean_ms0,mean_ms1,strikes0,strikes1,cpu_ms0,cpu_ms1,detail";

    #[test]
    fn a_file_from_before_seats_were_counted_is_continued_in_its_own_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        std::fs::write(
            &path,
            format!("{LEGACY}\n0,0,7,,a,b,1,win,80,-1,0,3,4,1.5,2.0,0.5,0.7,0,1,0.2,0.3,\n"),
        )
        .unwrap();
        let (mut csv, done) = GamesCsv::open(&path, 2).unwrap();
        assert!(done.contains(0));
        let mut r = row(1, 2);
        r.winner = Some(0);
        r.ranks = vec![0, 1];
        csv.append(&r).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let last = text.lines().last().unwrap();
        assert_eq!(
            last.matches(',').count(),
            LEGACY.matches(',').count() + 1,
            "{last}"
        );
        let rows = read_results(&[path]).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].ranks, vec![1, 0]);
        assert_eq!(rows[1].ranks, vec![0, 1]);
        assert_eq!(rows[1].bots, vec!["x0", "y, with a comma"]);
    }

    #[test]
    fn four_seat_rows_keep_every_seat() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let (mut csv, _) = GamesCsv::open(&path, 4).unwrap();
        let mut r = row(5, 4);
        r.ranks = vec![2, 0, 3, 1];
        r.winner = Some(1);
        r.forfeits = "2:timeout".into();
        csv.append(&r).unwrap();
        let rows = read_results(&[path]).unwrap();
        assert_eq!(rows[0].ranks, vec![2, 0, 3, 1]);
        assert_eq!(rows[0].bots.len(), 4);
        assert_eq!(rows[0].winner(), Some(1));
        assert_eq!(rows[0].game_id, Some(5));
    }

    #[test]
    fn ratings_need_only_the_bot_and_winner_columns_for_two_seats() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("min.csv");
        // A finished file's last row counts without its newline.
        std::fs::write(&path, "bot1,winner,bot0\nb,0,a\nb,,a\na,1,b").unwrap();
        let rows = read_results(std::slice::from_ref(&path)).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].bots, vec!["a", "b"]);
        assert_eq!(rows[0].ranks, vec![0, 1]);
        assert_eq!(rows[2].ranks, vec![1, 0]);
        std::fs::write(&path, "bot0,bot1\na,b\n").unwrap();
        let err = format!(
            "{:#}",
            read_results(std::slice::from_ref(&path)).unwrap_err()
        );
        assert!(err.contains("need columns bot0, bot1"), "{err}");
        std::fs::write(&path, "bot0,bot1,winner\na,b,0\na,b,7\n").unwrap();
        let err = format!(
            "{:#}",
            read_results(std::slice::from_ref(&path)).unwrap_err()
        );
        assert!(err.contains("min.csv: row 3: winner \"7\""), "{err}");
        let err = format!(
            "{:#}",
            read_results(&[dir.path().to_path_buf()]).unwrap_err()
        );
        assert!(err.contains("is a folder"), "{err}");
    }

    #[test]
    fn a_game_id_counts_once_per_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        std::fs::write(
            &path,
            "game_id,bot0,bot1,winner\n0,a,b,0\n1,a,b,1\n0,a,b,0\n",
        )
        .unwrap();
        let mut n = 0;
        let s = for_each_result(std::slice::from_ref(&path), |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!((n, s.duplicates), (2, 1));
    }
}
