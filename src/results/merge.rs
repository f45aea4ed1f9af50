//! One games.csv from the games.csv of several shards of a run: rows are copied as they are
//! (every column kept), each game id once, so the merged file reads like the file of a run played
//! on one machine, and the standings, the report and resume all work on it unchanged. The
//! shards' records.jsonl are merged the same way, so the merged run has its replays.

use crate::referee::Reason;
use crate::results::games_csv::{complete_length, GameRow};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A check's refusal of a row (see [`merge_games`]).
pub type Rejection = Box<dyn std::error::Error + Send + Sync>;

/// Files that cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeFilesError {
    #[error("reading {}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing {}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing {}", path.display())]
    WriteCsv { path: PathBuf, source: csv::Error },
    #[error("{}: not a CSV file", path.display())]
    NotCsv { path: PathBuf, source: csv::Error },
    #[error(
        "{} and {} have different columns (files of different arbiter versions or \
         games?); merge files of one run",
        first.display(), other.display()
    )]
    Columns { first: PathBuf, other: PathBuf },
    #[error("{}: no game_id column", .0.display())]
    NoGameId(PathBuf),
    #[error("{}: no bot{seat} column (not {seats}-seat games)", path.display())]
    NoBot {
        path: PathBuf,
        seat: usize,
        seats: usize,
    },
    /// Row `row` of `path` (the header is row 1) cannot be read.
    #[error("{}: row {row}", path.display())]
    Row {
        path: PathBuf,
        row: usize,
        source: csv::Error,
    },
    #[error("{}: row {row} has no game id", path.display())]
    NoId { path: PathBuf, row: usize },
    /// The check refused row `row` of `path`.
    #[error("{}: row {row}", path.display())]
    Rejected {
        path: PathBuf,
        row: usize,
        source: Rejection,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Csv(#[from] csv::Error),
}

type Result<T> = std::result::Result<T, MergeFilesError>;

/// What a merge copied.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MergeSummary {
    /// Rows written (distinct game ids).
    pub written: u64,
    /// Rows whose game id was already copied (from the same file or an earlier one), skipped.
    pub repeated: u64,
    /// Files whose last line was cut off (a shard killed while writing): that line was skipped.
    pub torn: Vec<PathBuf>,
}

/// Copies the rows of `inputs` (games.csv files of `seats`-seat games, all with the same
/// columns) into a new file `out`, each game id once: the first row met wins, except that a
/// game the referee could not play (`referee-error`) is kept with a later row of its id (a
/// shard resumed played it again; readers count the played one). `check(input,
/// game_id, bots)` sees every row first and may reject it (a game that does not belong there).
pub fn merge_games(
    inputs: &[PathBuf],
    out: &Path,
    seats: usize,
    mut check: impl FnMut(usize, u64, &[String]) -> std::result::Result<(), Rejection>,
) -> Result<MergeSummary> {
    let mut summary = MergeSummary::default();
    let mut writer = csv::Writer::from_path(out).map_err(|source| MergeFilesError::WriteCsv {
        path: out.to_path_buf(),
        source,
    })?;
    let mut header: Option<(csv::StringRecord, PathBuf)> = None;
    let mut seen = crate::results::games_csv::DoneSet::default();
    for (n, path) in inputs.iter().enumerate() {
        let mut file = File::open(path).map_err(|source| MergeFilesError::Read {
            path: path.clone(),
            source,
        })?;
        let keep = complete_length(&mut file)?;
        if keep < file.metadata()?.len() {
            summary.torn.push(path.clone());
        }
        file.seek(SeekFrom::Start(0))?;
        let mut reader = csv::Reader::from_reader(BufReader::new(file.take(keep)));
        let columns = reader
            .headers()
            .map_err(|source| MergeFilesError::NotCsv {
                path: path.clone(),
                source,
            })?
            .clone();
        if columns.is_empty() {
            continue;
        }
        match &header {
            Some((first, from)) if *first != columns => {
                return Err(MergeFilesError::Columns {
                    first: from.clone(),
                    other: path.clone(),
                })
            }
            Some(_) => {}
            None => {
                writer.write_record(&columns)?;
                header = Some((columns.clone(), path.clone()));
            }
        }
        let col = |name: &str| columns.iter().position(|h| h == name);
        let id_col = col("game_id").ok_or_else(|| MergeFilesError::NoGameId(path.clone()))?;
        let reason_col = col("reason");
        let bot_cols: Vec<usize> = (0..seats)
            .map(|seat| {
                col(&format!("bot{seat}")).ok_or_else(|| MergeFilesError::NoBot {
                    path: path.clone(),
                    seat,
                    seats,
                })
            })
            .collect::<Result<_>>()?;
        for (line, record) in reader.records().enumerate() {
            let row = line + 2;
            let record = record.map_err(|source| MergeFilesError::Row {
                path: path.clone(),
                row,
                source,
            })?;
            let id: u64 = record
                .get(id_col)
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| MergeFilesError::NoId {
                    path: path.clone(),
                    row,
                })?;
            let bots: Vec<String> = bot_cols
                .iter()
                .map(|&c| record.get(c).unwrap_or("").to_string())
                .collect();
            check(n, id, &bots).map_err(|source| MergeFilesError::Rejected {
                path: path.clone(),
                row,
                source,
            })?;
            if seen.contains(id) {
                summary.repeated += 1;
                continue;
            }
            // A reason that does not read is left for the readers to name.
            let reason = reason_col.and_then(|c| Reason::parse(record.get(c)?).ok());
            let failed = reason == Some(Reason::RefereeError);
            if !failed {
                seen.insert(id);
            }
            writer.write_record(&record)?;
            summary.written += 1;
        }
    }
    if header.is_none() {
        writer.write_record(GameRow::header(seats))?;
    }
    writer.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_copied_once_per_game_id_and_a_torn_line_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let head = "game_id,pair_id,bot0,bot1,winner\n";
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        std::fs::write(&a, format!("{head}0,0,x,y,0\n1,0,y,x,\n")).unwrap();
        std::fs::write(&b, format!("{head}1,0,y,x,1\n2,1,\"x, q\",y,0\n3,1,y,x")).unwrap();
        let out = dir.path().join("out.csv");
        let mut checked = Vec::new();
        let s = merge_games(&[a.clone(), b.clone()], &out, 2, |n, id, bots| {
            checked.push((n, id, bots.join("|")));
            Ok(())
        })
        .unwrap();
        assert_eq!((s.written, s.repeated), (3, 1));
        assert_eq!(s.torn, vec![b.clone()]);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            format!("{head}0,0,x,y,0\n1,0,y,x,\n2,1,\"x, q\",y,0\n")
        );
        assert_eq!(checked[3], (1, 2, "x, q|y".to_string()));
        // A rejected row stops the merge with the file and row named.
        let err = merge_games(std::slice::from_ref(&a), &out, 2, |_, id, _| {
            if id == 1 {
                return Err("not ours".into());
            }
            Ok(())
        })
        .unwrap_err();
        let text = crate::errors::chain_text(&err);
        assert!(text.contains("a.csv: row 3: not ours"), "{text}");
        // Other columns are refused.
        std::fs::write(&b, "game_id,bot0,bot1,winner\n").unwrap();
        let err = merge_games(&[a, b], &out, 2, |_, _, _| Ok(())).unwrap_err();
        assert!(err.to_string().contains("different columns"), "{err}");
    }
}

/// What merging records copied.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RecordsMerged {
    /// Records written (distinct game ids).
    pub written: u64,
    /// Records of a game id already copied, skipped.
    pub repeated: u64,
    /// Lines that are not records (a torn last line of a shard killed while writing), skipped.
    pub skipped: u64,
}

/// Copies the records.jsonl lines of `inputs` (missing files have none) into a new file `out`,
/// each game id once, the first met winning as in [`merge_games`]; lines are copied as they
/// are, one at a time.
pub fn merge_records(inputs: &[PathBuf], out: &Path) -> Result<RecordsMerged> {
    use std::io::{BufRead, Write};
    #[derive(serde::Deserialize)]
    struct Id {
        game_id: u64,
    }
    let mut summary = RecordsMerged::default();
    let tmp = out.with_extension("jsonl.tmp");
    let write = |path: &Path| {
        let path = path.to_path_buf();
        move |source| MergeFilesError::Write { path, source }
    };
    let read = |path: &Path| {
        let path = path.to_path_buf();
        move |source| MergeFilesError::Read { path, source }
    };
    let mut writer = std::io::BufWriter::new(File::create(&tmp).map_err(write(&tmp))?);
    let mut seen = crate::results::games_csv::DoneSet::default();
    let mut line = Vec::new();
    for path in inputs {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(read(path)(e)),
        };
        let mut reader = BufReader::new(file);
        loop {
            line.clear();
            if reader.read_until(b'\n', &mut line).map_err(read(path))? == 0 {
                break;
            }
            let id = match serde_json::from_slice::<Id>(&line) {
                Ok(id) if line.ends_with(b"\n") => id.game_id,
                _ => {
                    summary.skipped += 1;
                    continue;
                }
            };
            if seen.contains(id) {
                summary.repeated += 1;
                continue;
            }
            seen.insert(id);
            writer.write_all(&line)?;
            summary.written += 1;
        }
    }
    writer
        .into_inner()
        .map_err(|e| e.into_error())
        .and_then(|f| f.sync_all())
        .map_err(write(&tmp))?;
    std::fs::rename(&tmp, out).map_err(write(out))?;
    Ok(summary)
}

#[cfg(test)]
mod records_tests {
    use super::*;

    #[test]
    fn records_are_merged_each_game_once_and_torn_lines_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, out) = (
            dir.path().join("a.jsonl"),
            dir.path().join("b.jsonl"),
            dir.path().join("out.jsonl"),
        );
        std::fs::write(
            &a,
            "{\"game_id\":1,\"x\":\"a\"}\n{\"game_id\":2,\"x\":\"a\"}\n",
        )
        .unwrap();
        std::fs::write(
            &b,
            "{\"game_id\":2,\"x\":\"b\"}\n{\"game_id\":3}\n{\"game_id\":4,\"x\"",
        )
        .unwrap();
        let missing = dir.path().join("none.jsonl");
        let s = merge_records(&[a, missing, b], &out).unwrap();
        assert_eq!(
            s,
            RecordsMerged {
                written: 3,
                repeated: 1,
                skipped: 1
            }
        );
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "{\"game_id\":1,\"x\":\"a\"}\n{\"game_id\":2,\"x\":\"a\"}\n{\"game_id\":3}\n"
        );
    }
}
