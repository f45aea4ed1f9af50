//! Reading results files back: the columns ratings need from games.csv files of any seat count
//! (and from the two-seat files of earlier versions), with one count per game id; and dropping
//! the games of some bots from a file (a re-graded student's).

use super::{complete_length, seat_columns, DoneSet};
use crate::referee::Reason;
use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// What ratings need of one game: the bots by seat and their ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    pub bots: Vec<String>,
    /// 0 = first; equal ranks tie.
    pub ranks: Vec<u8>,
    pub reason: Option<Reason>,
    pub pair_id: Option<u64>,
    pub game_id: Option<u64>,
    pub moves_hash: Option<String>,
    /// `(seat, reason)` of every forfeit of the game.
    pub forfeits: Vec<(usize, Reason)>,
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

/// A results file that cannot be read as games.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{} is a folder; give its games.csv ({})", .0.display(), .0.join("games.csv").display())]
    Folder(PathBuf),
    #[error("reading {}", path.display())]
    Open { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("{}: not a CSV file", path.display())]
    NotCsv { path: PathBuf, source: csv::Error },
    #[error(
        "{}: not a results file: need columns bot0, bot1, ... and rank0, rank1, ... \
         (or, for two seats, bot0, bot1 and winner: 0, 1 or empty)",
        path.display()
    )]
    NotResults { path: PathBuf },
    /// Row `row` (counting the header as row 1) is not a game: `why`.
    #[error("{}: row {row}: {why}", path.display())]
    Row {
        path: PathBuf,
        row: u64,
        why: String,
    },
}

/// The columns of one results file.
pub(super) struct CsvColumns {
    bots: Vec<usize>,
    ranks: Option<Vec<usize>>,
    winner: Option<usize>,
    reason: Option<usize>,
    pair_id: Option<usize>,
    game_id: Option<usize>,
    moves_hash: Option<usize>,
    forfeits: Option<usize>,
}

impl CsvColumns {
    pub(super) fn find(headers: &csv::StringRecord, path: &Path) -> Result<CsvColumns, ReadError> {
        let col = |name: &str| headers.iter().position(|h| h == name);
        let seats = seat_columns(headers);
        let bots: Vec<usize> = (0..seats).filter_map(|i| col(&format!("bot{i}"))).collect();
        let ranks: Option<Vec<usize>> = (0..seats).map(|i| col(&format!("rank{i}"))).collect();
        let winner = col("winner");
        if seats < 2 || (ranks.is_none() && (winner.is_none() || seats != 2)) {
            return Err(ReadError::NotResults {
                path: path.to_path_buf(),
            });
        }
        Ok(CsvColumns {
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

    pub(super) fn read(&self, rec: &csv::StringRecord) -> Result<ResultRow, String> {
        let get = |i: usize| rec.get(i).unwrap_or("").trim();
        let bots: Vec<String> = self
            .bots
            .iter()
            .map(|&i| super::from_text_cell(get(i)).to_string())
            .collect();
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
        let reason = opt(self.reason)
            .map(Reason::parse)
            .transpose()
            .map_err(|e| format!("reason: {e}"))?
            .map(|r| match r {
                // Files from before draws had reasons wrote `win` for a drawn game: read it as
                // a draw.
                Reason::Win if ranks.len() > 1 && ranks.iter().all(|&k| k == ranks[0]) => {
                    Reason::UnnamedDraw
                }
                r => r,
            });
        let forfeits = match opt(self.forfeits) {
            Some(list) => list
                .split(';')
                .map(|f| {
                    let expected = || format!("forfeits {list:?}: expected seat:reason;...");
                    let (seat, why) = f.split_once(':').ok_or_else(expected)?;
                    let seat: usize = seat.parse().map_err(|_| expected())?;
                    if seat >= bots.len() {
                        return Err(expected());
                    }
                    let why = Reason::parse(why).map_err(|e| format!("forfeits {list:?}: {e}"))?;
                    Ok((seat, why))
                })
                .collect::<Result<Vec<_>, String>>()?,
            // Files from before the column: a forfeit of a two-seat game is the loser's.
            None => match (reason, ranks.as_slice()) {
                (Some(r), [a, b]) if r.is_forfeit() && a != b => vec![(usize::from(a < b), r)],
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
/// not play (`referee-error`) and rows repeating a game id already seen in the same file, except
/// that a game played again after a referee error (a resumed run) counts once, as played. A
/// finished file's last row counts even without its final newline; a last line that is not a
/// complete row (a run still writing) is skipped and reported. The first error of `each` ends
/// the reading and is returned.
pub fn try_for_each_result<E: From<ReadError>>(
    paths: &[PathBuf],
    mut each: impl FnMut(ResultRow) -> Result<(), E>,
) -> Result<ReadSummary, E> {
    let mut summary = ReadSummary::default();
    for path in paths {
        if path.is_dir() {
            return Err(ReadError::Folder(path.clone()).into());
        }
        let mut file = File::open(path).map_err(|source| ReadError::Open {
            path: path.clone(),
            source,
        })?;
        let complete = complete_length(&mut file).map_err(ReadError::Io)?;
        let total = file.metadata().map_err(ReadError::Io)?.len();
        file.seek(SeekFrom::Start(0)).map_err(ReadError::Io)?;
        let mut reader = csv::Reader::from_reader(BufReader::new(file));
        let headers = reader
            .headers()
            .map_err(|source| ReadError::NotCsv {
                path: path.clone(),
                source,
            })?
            .clone();
        let cols = CsvColumns::find(&headers, path)?;
        let mut seen = DoneSet::default();
        // Ids whose rows so far are referee errors: a later row of the id supersedes them.
        let mut failed = DoneSet::default();
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
                Err(e) => {
                    return Err(ReadError::Row {
                        path: path.clone(),
                        row: line + 1,
                        why: e.to_string(),
                    }
                    .into())
                }
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
                Err(why) => {
                    return Err(ReadError::Row {
                        path: path.clone(),
                        row: line,
                        why,
                    }
                    .into())
                }
            };
            let referee_error = row.reason == Some(Reason::RefereeError);
            if let Some(id) = row.game_id {
                if seen.contains(id) {
                    summary.duplicates += 1;
                    continue;
                }
                if failed.contains(id) {
                    // Played again: the earlier failure no longer counts, once.
                    if referee_error {
                        continue;
                    }
                    summary.referee_errors -= 1;
                    failed.remove(id);
                }
                if referee_error {
                    failed.insert(id);
                } else {
                    seen.insert(id);
                }
            }
            if referee_error {
                summary.referee_errors += 1;
                continue;
            }
            summary.games += 1;
            each(row)?;
        }
    }
    Ok(summary)
}

/// [`try_for_each_result`] with a reader of the rows that only fails as reading does.
pub fn for_each_result(
    paths: &[PathBuf],
    each: impl FnMut(ResultRow) -> Result<(), ReadError>,
) -> Result<ReadSummary, ReadError> {
    try_for_each_result(paths, each)
}

/// All rating rows of the files, in memory (for tests and small inputs).
pub fn read_results(paths: &[PathBuf]) -> Result<Vec<ResultRow>, ReadError> {
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
        let names: Vec<String> = bots
            .iter()
            .map(|&c| super::from_text_cell(&rec[c]).to_string())
            .collect();
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
