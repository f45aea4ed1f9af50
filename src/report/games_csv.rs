//! `games.csv`: one row per finished game, appended and flushed the moment the game ends, so a
//! killed run loses nothing it finished; on resume, a torn last line is cut off and the ids of
//! recorded games are returned so they are not played again.

use crate::referee::GameResult;
use crate::tournament::GameSpec;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One row of games.csv. bot0 moves first; `winner` is 0, 1 or empty for a draw.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GameRow {
    pub game_id: u64,
    pub pair_id: u64,
    pub seed: u64,
    /// The opening plies, space-separated.
    pub opening: String,
    pub bot0: String,
    pub bot1: String,
    pub winner: Option<u8>,
    pub reason: String,
    pub turns: u32,
    pub score0: i32,
    pub score1: i32,
    pub removed0: i32,
    pub removed1: i32,
    pub max_ms0: f64,
    pub max_ms1: f64,
    pub mean_ms0: f64,
    pub mean_ms1: f64,
    pub strikes0: u32,
    pub strikes1: u32,
    pub cpu_ms0: f64,
    pub cpu_ms1: f64,
    /// What a forfeiting bot did, or why the referee failed.
    pub detail: String,
}

impl GameRow {
    pub fn new(spec: &GameSpec, r: &GameResult) -> GameRow {
        let ms = |us: u64| (us as f64 / 10.0).round() / 100.0;
        GameRow {
            game_id: spec.game_id,
            pair_id: spec.pair_id,
            seed: spec.seed,
            opening: r.opening.join(" "),
            bot0: r.bots[0].clone(),
            bot1: r.bots[1].clone(),
            winner: r.winner.map(|w| w as u8),
            reason: r.reason.to_string(),
            turns: r.turns,
            score0: r.scores[0],
            score1: r.scores[1],
            removed0: r.removed[0],
            removed1: r.removed[1],
            max_ms0: ms(r.stats[0].max_us),
            max_ms1: ms(r.stats[1].max_us),
            mean_ms0: (r.stats[0].mean_ms() * 100.0).round() / 100.0,
            mean_ms1: (r.stats[1].mean_ms() * 100.0).round() / 100.0,
            strikes0: r.stats[0].strikes,
            strikes1: r.stats[1].strikes,
            cpu_ms0: (r.stats[0].cpu_mean_ms() * 100.0).round() / 100.0,
            cpu_ms1: (r.stats[1].cpu_mean_ms() * 100.0).round() / 100.0,
            detail: r.detail.clone(),
        }
    }
}

const HEADER: &str = "game_id,pair_id,seed,opening,bot0,bot1,winner,reason,turns,score0,score1,removed0,removed1,max_ms0,max_ms1,mean_ms0,mean_ms1,strikes0,strikes1,cpu_ms0,cpu_ms1,detail";

/// An open games.csv, appended to row by row.
pub struct GamesCsv {
    file: File,
    path: PathBuf,
    row: Vec<u8>,
}

impl GamesCsv {
    /// Opens (creating if needed) `path`; returns it with the ids of the games already recorded.
    /// A last line without its newline (a write cut by a kill) is removed first. Rows are
    /// streamed: memory does not grow with the file beyond one bit per game id.
    pub fn open(path: &Path) -> io::Result<(GamesCsv, DoneSet)> {
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
        if keep == 0 {
            file.write_all(format!("{HEADER}\n").as_bytes())?;
        } else {
            file.seek(SeekFrom::Start(0))?;
            let mut reader = csv::Reader::from_reader(BufReader::new((&file).take(keep)));
            for (i, row) in reader.deserialize::<GameRow>().enumerate() {
                let row = row.map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "{}: row {} is not a games.csv row: {e}",
                            path.display(),
                            i + 2
                        ),
                    )
                })?;
                done.insert(row.game_id);
            }
        }
        file.seek(SeekFrom::End(0))?;
        Ok((
            GamesCsv {
                file,
                path: path.to_path_buf(),
                row: Vec::with_capacity(512),
            },
            done,
        ))
    }

    /// Appends one row in a single write.
    pub fn append(&mut self, row: &GameRow) -> io::Result<()> {
        self.row.clear();
        {
            let mut w = csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(&mut self.row);
            w.serialize(row).map_err(io::Error::other)?;
            w.flush()?;
        }
        self.file.write_all(&self.row)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The length of `file` up to and including its last newline (a torn last line excluded).
fn complete_length(file: &mut File) -> io::Result<u64> {
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

/// The columns ratings need; everything else in a games.csv is optional.
#[derive(Clone, Debug, Deserialize)]
pub struct ResultRow {
    pub bot0: String,
    pub bot1: String,
    /// 0, 1, or empty for a draw.
    pub winner: Option<u8>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub pair_id: Option<u64>,
    #[serde(default)]
    pub game_id: Option<u64>,
}

/// Streams the rating columns of one or more games.csv files into `each`, skipping games the
/// referee could not play (`referee-error`) and a torn last line. Returns the rows passed on.
pub fn for_each_result(
    paths: &[PathBuf],
    mut each: impl FnMut(ResultRow) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    use anyhow::Context;
    let mut count = 0;
    for path in paths {
        let mut file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
        let keep = complete_length(&mut file)?;
        file.seek(SeekFrom::Start(0))?;
        let mut reader = csv::Reader::from_reader(BufReader::new(file.take(keep)));
        let headers = reader.headers()?.clone();
        for needed in ["bot0", "bot1", "winner"] {
            if !headers.iter().any(|h| h == needed) {
                anyhow::bail!(
                    "{}: no column '{needed}'; need columns bot0, bot1, winner (0, 1 or empty)",
                    path.display()
                );
            }
        }
        for (i, row) in reader.deserialize::<ResultRow>().enumerate() {
            let row = row.with_context(|| {
                format!(
                    "{} row {}: need columns bot0, bot1, winner (0, 1 or empty)",
                    path.display(),
                    i + 2
                )
            })?;
            if row.reason.as_deref() != Some("referee-error") {
                count += 1;
                each(row)?;
            }
        }
    }
    Ok(count)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64) -> GameRow {
        GameRow {
            game_id: id,
            pair_id: id / 2,
            seed: 7,
            opening: "a1b2 c7d6".into(),
            bot0: "x".into(),
            bot1: "y, with a comma".into(),
            winner: None,
            reason: "turn-limit".into(),
            turns: 250,
            score0: 0,
            score1: 0,
            removed0: 3,
            removed1: 4,
            max_ms0: 1.5,
            max_ms1: 2.25,
            mean_ms0: 0.5,
            mean_ms1: 0.75,
            strikes0: 0,
            strikes1: 1,
            cpu_ms0: 0.25,
            cpu_ms1: 0.5,
            detail: String::new(),
        }
    }

    #[test]
    fn rows_round_trip_and_a_torn_line_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let (mut csv, done) = GamesCsv::open(&path).unwrap();
        assert!(done.is_empty());
        csv.append(&row(0)).unwrap();
        csv.append(&row(1)).unwrap();
        drop(csv);
        // A kill in the middle of a write leaves a partial line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"2,1,7,a1b2,x,y,0,wi").unwrap();
        drop(f);
        let (mut csv, done) = GamesCsv::open(&path).unwrap();
        assert_eq!(done.len(), 2);
        assert!(done.contains(0) && done.contains(1) && !done.contains(2));
        csv.append(&row(2)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(text.starts_with(HEADER));
        let rows = read_results(&[path]).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].bot1, "y, with a comma");
        assert_eq!(rows[0].winner, None);
    }

    #[test]
    fn ratings_need_only_three_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("min.csv");
        std::fs::write(&path, "bot1,winner,bot0\nb,0,a\nb,,a\na,1,b\n").unwrap();
        let rows = read_results(std::slice::from_ref(&path)).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].bot0, "a");
        assert_eq!(rows[0].winner, Some(0));
        std::fs::write(&path, "bot0,bot1\na,b\n").unwrap();
        let err = format!("{:#}", read_results(&[path]).unwrap_err());
        assert!(err.contains("need columns bot0, bot1, winner"), "{err}");
    }
}
